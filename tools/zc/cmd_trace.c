/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace: run an unmodified CUDA program, record its copies with CUPTI, report its pitfalls. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_io.h"
#include "cli_json.h"
#include "program_run.h"
#include "trace_ncu.h"
#include "zerocopy/advise.h"
#include "zerocopy/size.h"
#include "zerocopy/trace.h"
#include "trace_output.h"
#include "trace_run.h"
#include "zerocopy/json.h"

static const char zc__trace_usage[] =
    "zc trace [-j FILE] [-o FILE] [--bench FILE | --ceiling GBPS] [--ram BYTES] [-d N]\n"
    "                [--lib PATH] [--keep-logs DIR] [--pcie-counters] [--force]\n"
    "                -- PROGRAM [ARGS...]";

static void zc__trace_help(void)
{
    printf("usage: %s\n\n"
           "Run PROGRAM unchanged (same input, output and exit code; with --json - its stdout\n"
           "goes to stderr) with a CUPTI injection library that records every copy and memset\n"
           "(direction, bytes, pageable, pinned, managed or device memory, time, stream,\n"
           "synchronous or not), kernels, unified-memory faults and host allocations, and,\n"
           "through libzerocopy_run_copy.so (preloaded where the loader takes it: its memcpy\n"
           "and memmove), the program's host copies into and out of its pinned memory. When it\n"
           "exits, print bytes and time per path, the bandwidth reached against this\n"
           "machine's ceiling, and the copy pitfalls found, each with its evidence and its fix\n"
           "(docs/pitfalls.md). Every process the program starts that uses CUDA (fork and\n"
           "exec, Python multiprocessing) is traced too, as long as it keeps the environment,\n"
           "and reported process by process.\n"
           "zc trace exits with the program's exit code (128 + N when signal N killed it, 127\n"
           "when it could not start, 126 when it is not executable); when the program exited\n"
           "0, zc trace exits 1 if the trace failed (a log it cannot read) or its results\n"
           "could not be written.\n"
           "Options are checked before the program runs (bad ones: exit 2, nothing run), and\n"
           "so is what the trace needs: an injection library given that cannot be read (exit\n"
           "2), an installed one not found or a TMPDIR without room for the logs (exit 1);\n"
           "the program is never run untraced.\n\n"
           "Options:\n"
           "  -j, --json FILE   also write the results as JSON, schema \"%s\" (docs/json.md), to\n"
           "                    FILE or - (stdout, then the document's alone: the program's\n"
           "                    stdout goes to stderr, so that `--json - | jq` works)\n"
           "  -o, --output FILE  write the summary to FILE (- for stdout) instead of stderr\n"
           "  --bench FILE      take the ceiling from a zc bench --json file (best pinned copy;\n"
           "                    - for stdin) and, when it holds the block family, the block\n"
           "                    mover's profile that prices block_copies; the pinning\n"
           "                    family, zerocopy's pinning curve that prices the fastpin\n"
           "                    cure of slow_pinned_alloc\n"
           "  --ceiling GBPS    take the ceiling as given, in GB/s per direction\n"
           "                    (default: the PCIe link's theoretical figure, with a note)\n"
           "  --ram BYTES       hold pinned memory against BYTES of RAM instead of this\n"
           "                    machine's (a size: 1536M, 64GiB, 1.5T; K, M, G and T are\n"
           "                    powers of 1024)\n"
           "  -d, --device N    GPU whose link gives the default ceiling (default 0)\n"
           "  --lib PATH        the injection library (default: $%s, else %s next to zc\n"
           "                    or in the install's lib folder); the copy library is the one\n"
           "                    beside it\n"
           "  --keep-logs DIR   keep the raw event logs in DIR (one <pid>.log per process); DIR\n"
           "                    must be new or empty, so that no other run's logs are read\n"
           "  --pcie-counters   when kernels were given mapped host memory, run PROGRAM a\n"
           "                    second time under Nsight Compute (ncu, or $%s) to measure\n"
           "                    the bytes each of them read over PCIe (its output is\n"
           "                    discarded; it needs permission to read GPU counters)\n"
           "  --force           replace the --json and --output files if they exist\n"
           "  -h, --help        this help\n",
           zc__trace_usage, ZC_TRACE_SCHEMA, ZC_TRACE_LIB_ENV, ZC_TRACE_LIB_NAME,
           ZC_CLI_TRACE_NCU_ENV);
}

/* The options of one zc trace run. */
typedef struct zc__trace_options {
    const char *json_path;
    const char *output_path;
    const char *bench_path;
    const char *lib_path;
    const char *keep_dir;
    double ceiling_gbps;
    double bench_gbps; /* read from --bench before the program runs; 0 when it has none */
    /* The block mover's profile fitted to --bench's block family, to price block_copies;
     * have_blocks 0 when the document has no such family (then only the ceiling is read). */
    zc_blocks_profile blocks_profile;
    int have_blocks;
    /* The ways of pinning from --bench's pinning family, to price slow_pinned_alloc's cure;
     * have_pinning 0 when the document has no such family (the finding's text alone then). */
    zc_pinning_curves pinning_curves;
    int have_pinning;
    uint64_t ram_bytes;
    int device;
    int force;
    int pcie_counters;                   /* --pcie-counters: measure with ncu after the trace */
    zc_cli_output json_out, summary_out; /* opened before the program runs */
} zc__trace_options;

static void zc__choose_ceiling(const zc__trace_options *o, const zc_trace_report *report,
                               zc_cli_trace_run *run)
{
    if (o->ceiling_gbps > 0) {
        run->ceiling_gbps = o->ceiling_gbps;
        snprintf(run->ceiling_source, sizeof run->ceiling_source, "given with --ceiling");
        return;
    }
    if (o->bench_path != NULL) {
        run->ceiling_gbps = o->bench_gbps;
        if (run->ceiling_gbps > 0) {
            snprintf(run->ceiling_source, sizeof run->ceiling_source,
                     "best pinned copy measured by zc bench (%s)", o->bench_path);
            return;
        }
        fprintf(stderr,
                "zc trace: --bench: %s has no pinned H2D or D2H copy bandwidth; using the PCIe "
                "link instead\n",
                o->bench_path);
    }
    /* The link is read only when copies crossed it, so that a program that never used the
     * GPU does not make zc trace initialise CUDA. */
    int crossed = 0;
    for (size_t i = 0; report != NULL && i < report->path_count; i++)
        crossed |= zc_trace_dir_crosses_pcie(report->paths[i].dir);
    if (!crossed) {
        snprintf(run->ceiling_source, sizeof run->ceiling_source, "no copy crossed PCIe");
        return;
    }
    run->ceiling_gbps =
        zc_trace_ceiling_from_link(o->device, run->ceiling_source, sizeof run->ceiling_source);
}

/* After the program ran: read the logs, analyse, print and write the JSON. Gives ZC_EXIT_OK, or
 * the exit code of an output that could not be written. */
static int zc__report(zc__trace_options *o, const char *log_dir, zc_cli_trace_run *run)
{
    zc_trace_log log;
    zc_trace_log_init(&log);
    zc_trace_report *report = NULL;
    int have_log = 0;
    if (run->traced) {
        zc_status status = zc_trace_log_read_dir(&log, log_dir);
        if (status != ZC_OK) {
            snprintf(run->why_not, sizeof run->why_not, "the trace log could not be read: %s",
                     log.error);
            run->trace_failed = 1;
        } else if (log.process_count == 0) {
            snprintf(run->why_not, sizeof run->why_not,
                     "no CUDA activity: the program never initialised the CUDA driver (it "
                     "uses no CUDA, or there is no GPU or driver)");
        } else {
            report = malloc(sizeof *report);
            zc_trace_params params = {0, NULL, o->ram_bytes,
                                      o->have_blocks ? &o->blocks_profile : NULL,
                                      o->have_pinning ? &o->pinning_curves : NULL};
            if (report == NULL || zc_trace_analyze(&log, &params, report) != ZC_OK) {
                snprintf(run->why_not, sizeof run->why_not, "analysis failed: out of memory");
                run->trace_failed = 1;
            } else {
                zc__choose_ceiling(o, report, run);
                /* The ceiling decides the pageable saving: analyse again with it, and with the
                 * kernels' PCIe reads when they were asked for and there is something to
                 * measure. */
                params.ceiling_gbps = run->ceiling_gbps;
                params.ceiling_source = run->ceiling_source;
                zc_cli_trace_ncu ncu;
                zc_trace_counters counters = {NULL, 0, NULL};
                if (o->pcie_counters && report->launch_args_seen &&
                    zc_trace_report_find(report, "mapped_memory_reads") != NULL) {
                    fprintf(stderr, "zc trace: running the program again under ncu for its "
                                    "kernels' PCIe reads (--pcie-counters)\n");
                    if (zc_cli_trace_ncu_measure(run->argv, &log, &ncu))
                        counters = (zc_trace_counters){ncu.reads, ncu.count, NULL};
                    else
                        counters.why = ncu.why;
                }
                have_log = zc_trace_analyze_measured(&log, &params, &counters, report) == ZC_OK;
            }
        }
    }
    if (!have_log && run->ceiling_source[0] == '\0')
        snprintf(run->ceiling_source, sizeof run->ceiling_source, "not needed");

    int code = ZC_EXIT_OK;
    FILE *out = o->output_path != NULL ? o->summary_out.f : stderr;
    zc_cli_trace_print_summary(out, run, have_log ? &log : NULL, have_log ? report : NULL);
    if (run->start_errno != 0 && out != stderr)
        zc_cli_trace_print_summary(stderr, run, NULL, NULL); /* an error, wherever the summary */
    if (o->output_path != NULL)
        code = zc_cli_output_commit(&o->summary_out);
    if (o->json_path != NULL) {
        zc_trace_document document =
            zc_cli_trace_document(run, have_log ? &log : NULL, have_log ? report : NULL);
        cJSON *doc = NULL;
        zc_status built = zc_trace_to_json(&document, &doc);
        int rc = zc_cli_json_commit_built("trace", built, doc, &o->json_out);
        if (code == ZC_EXIT_OK)
            code = rc;
    }
    free(report);
    zc_trace_log_free(&log);
    return code;
}

/* A --keep-logs folder: made when missing; one that holds logs already is refused, since every
 * *.log in it would be read as this run's. 0, or the exit code (said on stderr). */
static int zc__check_keep_dir(const char *dir)
{
    struct stat info;
    if (stat(dir, &info) == 0 && !S_ISDIR(info.st_mode)) {
        fprintf(stderr, "zc trace: --keep-logs %s: not a folder\n", dir);
        return ZC_EXIT_USAGE;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "zc trace: cannot create '%s': %s\n", dir, strerror(errno));
        return ZC_EXIT_FAILURE;
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "zc trace: cannot read '%s': %s\n", dir, strerror(errno));
        return ZC_EXIT_FAILURE;
    }
    int logs = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        logs += n > 4 && strcmp(e->d_name + n - 4, ".log") == 0;
    }
    closedir(d);
    if (logs > 0) {
        fprintf(stderr,
                "zc trace: --keep-logs %s already holds %d .log file%s of another run: give a "
                "new or empty folder\n",
                dir, logs, logs == 1 ? "" : "s");
        return ZC_EXIT_USAGE;
    }
    return 0;
}

/* The block mover's profile from --bench's block family, when it has one: a document without
 * it (or with one block size, as zc bench --quick measures) is read for the ceiling alone, as
 * before; a family whose points cannot be fitted is said and leaves block_copies unpriced, the
 * trace going on. */
static void zc__fit_blocks(zc__trace_options *o, const cJSON *doc)
{
    zc_status fitted = zc_blocks_bench_from_json(doc, 0, &o->blocks_profile, NULL, NULL);
    o->have_blocks = fitted == ZC_OK;
    if (fitted == ZC_ERR_INVALID_ARG)
        fprintf(stderr,
                "zc trace: --bench %s: its block family gives no profile (%s); "
                "block_copies will not be priced\n",
                o->bench_path, zc_last_error());
    zc_clear_error();
}

/* The ways of pinning from --bench's pinning family, when it has one: a document without it is
 * read as before; a family that holds nonsense is said and leaves the cure unpriced, the trace
 * going on. */
static void zc__fit_pinning(zc__trace_options *o, const cJSON *doc)
{
    zc_status read = zc_pinning_bench_from_json(doc, &o->pinning_curves);
    o->have_pinning = read == ZC_OK;
    if (read != ZC_OK && read != ZC_ERR_NOT_FOUND)
        fprintf(stderr,
                "zc trace: --bench %s: its pinning family gives no curves (%s); "
                "slow_pinned_alloc's cure will not be priced\n",
                o->bench_path, zc_last_error());
    zc_clear_error();
}

/* Everything that can be wrong with the options, found before the program runs. */
static int zc__check_before_run(zc__trace_options *o, char *library, size_t library_size,
                                char *log_dir, size_t log_dir_size, zc_cli_trace_run *run)
{
    int code = 0;
    if (o->bench_path != NULL) {
        cJSON *doc = zc_cli_read_json("trace", o->bench_path, &code);
        if (doc == NULL)
            return code;
        zc_status status = zc_bench_copy_ceiling_from_json(doc, &o->bench_gbps);
        if (status == ZC_OK) {
            zc__fit_blocks(o, doc);
            zc__fit_pinning(o, doc);
        }
        cJSON_Delete(doc);
        if (status != ZC_OK)
            return zc_cli_fail("trace", "--bench", status);
    }
    /* Nothing runs untraced: a library that cannot be had is said now, and nothing is run. */
    char why[sizeof run->why_not];
    code = zc_cli_trace_find_library(o->lib_path, library, library_size, why, sizeof why);
    if (code != ZC_EXIT_OK) {
        fprintf(stderr, "zc trace: %s%s\n", o->lib_path != NULL ? "--lib: " : "", why);
        return code;
    }
    if (o->keep_dir != NULL && (code = zc__check_keep_dir(o->keep_dir)) != 0)
        return code;
    const char *const inputs[] = {o->bench_path};
    if (o->json_path != NULL && o->output_path != NULL && strcmp(o->json_path, "-") == 0 &&
        strcmp(o->output_path, "-") == 0) {
        fprintf(stderr, "zc trace: --json - and --output - cannot share stdout\n");
        return ZC_EXIT_USAGE;
    }
    if (o->json_path != NULL &&
        (code = zc_cli_output_open(&o->json_out, "trace", o->json_path, o->force, inputs, 1)) != 0)
        return code;
    if (o->output_path != NULL &&
        (code = zc_cli_output_open(&o->summary_out, "trace", o->output_path, o->force, inputs,
                                   1)) != 0) {
        zc_cli_output_abort(&o->json_out);
        return code;
    }
    /* The log folder, last: nothing that could still be refused is left to undo it. From its
     * making to its removal, SIGTERM and SIGHUP are held back but while the program runs (they
     * are passed on to it then): one that comes meanwhile takes effect once the folder is gone
     * and the documents written (the caller releases them). Not before: reading --bench from a
     * FIFO may wait, and a signal must end that. */
    zc_cli_signals_hold();
    if (o->keep_dir != NULL) {
        char *absolute = realpath(o->keep_dir, NULL);
        snprintf(log_dir, log_dir_size, "%s", absolute ? absolute : o->keep_dir);
        free(absolute);
    } else if (zc_cli_trace_make_log_dir(log_dir, log_dir_size) != 0) {
        const int error = errno;
        const char *base = zc_cli_trace_log_base(), *tmpdir = getenv("TMPDIR");
        fprintf(stderr, "zc trace: cannot make a folder for the trace logs in %s'%s': %s\n",
                tmpdir != NULL && strcmp(tmpdir, base) == 0 ? "TMPDIR " : "", base,
                strerror(error));
        zc_cli_output_abort(&o->json_out);
        zc_cli_output_abort(&o->summary_out);
        return ZC_EXIT_FAILURE;
    }
    run->traced = 1;
    return 0;
}

/* Run the program traced, write the summary and documents, remove the log folder; gives zc
 * trace's exit code. */
static int zc__trace_and_report(zc__trace_options *o, const char *library, const char *log_dir,
                                zc_cli_trace_run *run)
{
    const char *displaced = getenv(ZC_TRACE_INJECTION_ENV);
    if (displaced != NULL && displaced[0] != '\0')
        fprintf(stderr, "zc trace: %s was set (%s); the program gets zc trace's library instead\n",
                ZC_TRACE_INJECTION_ENV, displaced);
    /* With --json on stdout, stdout is the document's alone (`zc trace --json - -- app | jq`):
     * the program's stdout goes to stderr. */
    const int json_on_stdout = o->json_path != NULL && o->json_out.f == stdout;
    run->exit_code = zc_cli_trace_run_program(run->argv, library, log_dir, json_on_stdout,
                                              &run->signal, &run->start_errno);
    if (run->start_errno != 0) {
        /* It never ran: there is no trace to read, and nothing to say about CUDA. */
        run->traced = 0;
        snprintf(run->why_not, sizeof run->why_not, "'%s' could not be started: %s", run->argv[0],
                 strerror(run->start_errno));
    }
    int code = zc__report(o, log_dir, run);
    if (o->keep_dir == NULL)
        zc_cli_trace_remove_log_dir(log_dir);
    /* The program's own code, unless the program succeeded and zc trace did not: its trace
     * failed (a log it cannot read) or its results could not be written. */
    if (run->exit_code != 0)
        return run->exit_code;
    if (code != ZC_EXIT_OK)
        return code;
    return run->trace_failed ? ZC_EXIT_FAILURE : ZC_EXIT_OK;
}

int zc_cli_cmd_trace(int argc, char **argv)
{
    static const struct option options[] = {
        {"json", required_argument, NULL, 'j'},  {"output", required_argument, NULL, 'o'},
        {"bench", required_argument, NULL, 'b'}, {"ceiling", required_argument, NULL, 'c'},
        {"ram", required_argument, NULL, 'r'},   {"device", required_argument, NULL, 'd'},
        {"lib", required_argument, NULL, 'l'},   {"keep-logs", required_argument, NULL, 'k'},
        {"force", no_argument, NULL, 'F'},       {"pcie-counters", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    zc__trace_options o = {0};
    int opt, code;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    /* "+": stop at the program's name, so that its own options are left alone. */
    while ((opt = zc_cli_next_option("trace", zc__trace_usage, argc, argv, "+:hj:o:d:", options)) !=
           -1) {
        switch (opt) {
        case 'F':
            o.force = 1;
            break;
        case 'P':
            o.pcie_counters = 1;
            break;
        case 'j':
            o.json_path = optarg;
            break;
        case 'o':
            o.output_path = optarg;
            break;
        case 'b':
            o.bench_path = optarg;
            break;
        case 'c':
            if ((code = zc_cli_double_option("trace", zc__trace_usage, "--ceiling", "GB/s", optarg,
                                             1e-9, 1e6, &o.ceiling_gbps)))
                return code;
            break;
        case 'r':
            if ((code = zc_cli_parse_size("trace", zc__trace_usage, "--ram", optarg, UINT64_MAX,
                                          &o.ram_bytes)) != ZC_EXIT_OK)
                return code;
            break;
        case 'd':
            if ((code = zc_cli_int_option("trace", zc__trace_usage, "--device", "a GPU number",
                                          optarg, 0, ZC_CLI_DEVICE_MAX, &o.device)))
                return code;
            break;
        case 'l':
            o.lib_path = optarg;
            break;
        case 'k':
            o.keep_dir = optarg;
            break;
        case 'h':
            zc__trace_help();
            return ZC_EXIT_OK;
        default:
            return zc_cli_option_error("trace", zc__trace_usage, opt, argc, argv);
        }
    }
    if (optind >= argc)
        return zc_cli_usage_error("trace", zc__trace_usage, "no program to run");
    if (o.ceiling_gbps > 0 && o.bench_path != NULL)
        return zc_cli_usage_error("trace", zc__trace_usage,
                                  "--bench and --ceiling exclude each other");

    zc_cli_trace_run run;
    memset(&run, 0, sizeof run);
    run.argv = argv + optind;
    char library[PATH_MAX], log_dir[PATH_MAX] = "";
    code = zc__check_before_run(&o, library, sizeof library, log_dir, sizeof log_dir, &run);
    if (code == 0)
        code = zc__trace_and_report(&o, library, log_dir, &run);
    zc_cli_signals_release();
    return code;
}
