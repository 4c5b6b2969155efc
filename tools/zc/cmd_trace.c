/* zc trace: run an unmodified CUDA program, record its copies with CUPTI, report its pitfalls. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_json.h"
#include "trace_analyze.h"
#include "trace_ceiling.h"
#include "trace_log.h"
#include "trace_output.h"
#include "trace_run.h"

static const char zc__trace_usage[] =
    "zc trace [--json FILE] [--output FILE] [--bench FILE | --ceiling GBPS] [--ram BYTES]\n"
    "                [--device N] [--lib PATH] [--keep-logs DIR] -- PROGRAM [ARGS...]";

static void zc__trace_help(void)
{
    printf("usage: %s\n\n"
           "Run PROGRAM unchanged (same input, output and exit code) with a CUPTI injection\n"
           "library that records every copy and memset (direction, bytes, pageable, pinned,\n"
           "managed or device memory, time, stream, synchronous or not), kernels, unified-\n"
           "memory faults and host allocations. When it exits, print bytes and time per path,\n"
           "the bandwidth reached against this machine's ceiling, and the copy pitfalls found,\n"
           "each with its evidence and its fix (docs/pitfalls.md). zc trace exits with the\n"
           "program's exit code (128 + N when signal N killed it, 127 when it could not start).\n\n"
           "Options:\n"
           "  --json FILE       also write the results as JSON, schema \"%s\" (docs/json.md)\n"
           "  --output FILE     write the summary to FILE instead of stderr\n"
           "  --bench FILE      take the ceiling from a zc bench --json file (best pinned copy)\n"
           "  --ceiling GBPS    take the ceiling as given, in GB/s per direction\n"
           "                    (default: the PCIe link's theoretical figure, with a note)\n"
           "  --ram BYTES       hold pinned memory against BYTES of RAM instead of this\n"
           "                    machine's (suffixes K, M, G, T: powers of 1024)\n"
           "  --device N        GPU whose link gives the default ceiling (default 0)\n"
           "  --lib PATH        the injection library (default: $%s, else %s next to zc\n"
           "                    or in the install's lib folder)\n"
           "  --keep-logs DIR   keep the raw event logs in DIR (one <pid>.log per process)\n"
           "  -h, --help        this help\n",
           zc__trace_usage, ZC_TRACE_SCHEMA, ZC_TRACE_LIB_ENV, ZC_TRACE_LIB_NAME);
}

/* A byte count with an optional binary suffix; 0 when it is not one. */
static int zc__parse_bytes(const char *text, unsigned long long *value_p)
{
    if (text == NULL || *text < '0' || *text > '9')
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0)
        return 0;
    int shift = 0;
    switch (*end) {
    case '\0':
        break;
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    case 'G':
    case 'g':
        shift = 30;
        break;
    case 'T':
    case 't':
        shift = 40;
        break;
    default:
        return 0;
    }
    if (shift && end[1] != '\0')
        return 0;
    if (value == 0 || value > (ULLONG_MAX >> shift))
        return 0;
    *value_p = value << shift;
    return 1;
}

static int zc__parse_gbps(const char *text, double *value_p)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !(value > 0.0) || value > 1e6)
        return 0;
    *value_p = value;
    return 1;
}

/* The options of one zc trace run. */
typedef struct zc__trace_options {
    const char *json_path;
    const char *output_path;
    const char *bench_path;
    const char *lib_path;
    const char *keep_dir;
    double ceiling_gbps;
    unsigned long long ram_bytes;
    int device;
} zc__trace_options;

static void zc__choose_ceiling(const zc__trace_options *o, const zc_trace_report *report,
                               zc_trace_run *run)
{
    if (o->ceiling_gbps > 0) {
        run->ceiling_gbps = o->ceiling_gbps;
        snprintf(run->ceiling_source, sizeof run->ceiling_source, "given with --ceiling");
        return;
    }
    char why[192] = "";
    if (o->bench_path != NULL) {
        run->ceiling_gbps = zc_trace_ceiling_from_bench_file(o->bench_path, why, sizeof why);
        if (run->ceiling_gbps > 0) {
            snprintf(run->ceiling_source, sizeof run->ceiling_source,
                     "best pinned copy measured by zc bench (%s)", o->bench_path);
            return;
        }
        fprintf(stderr, "zc trace: --bench: %s; using the PCIe link instead\n", why);
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

static int zc__write_json(const char *path, const zc_trace_run *run, const zc_trace_log *log,
                          const zc_trace_report *report)
{
    return zc_cli_write_json("trace", zc_trace_json(run, log, report), path) == ZC_EXIT_OK ? 0 : -1;
}

/* After the program ran: read the logs, analyse, print and write the JSON. */
static void zc__report(const zc__trace_options *o, const char *log_dir, zc_trace_run *run)
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
        } else if (log.process_count == 0) {
            snprintf(run->why_not, sizeof run->why_not,
                     "no CUDA activity: the program never initialised the CUDA driver (it "
                     "uses no CUDA, or there is no GPU or driver)");
        } else {
            report = malloc(sizeof *report);
            zc_trace_params params = {0, NULL, o->ram_bytes};
            if (report == NULL || zc_trace_analyze(&log, &params, report) != ZC_OK) {
                snprintf(run->why_not, sizeof run->why_not, "analysis failed: out of memory");
            } else {
                zc__choose_ceiling(o, report, run);
                /* The ceiling decides the pageable saving: analyse again with it. */
                params.ceiling_gbps = run->ceiling_gbps;
                params.ceiling_source = run->ceiling_source;
                have_log = zc_trace_analyze(&log, &params, report) == ZC_OK;
            }
        }
    }
    if (!have_log && run->ceiling_source[0] == '\0')
        snprintf(run->ceiling_source, sizeof run->ceiling_source, "not needed");

    FILE *out = stderr;
    if (o->output_path != NULL) {
        out = fopen(o->output_path, "w");
        if (out == NULL) {
            fprintf(stderr, "zc trace: cannot write '%s': %s; summary on stderr\n", o->output_path,
                    strerror(errno));
            out = stderr;
        }
    }
    zc_trace_print_summary(out, run, have_log ? &log : NULL, have_log ? report : NULL);
    if (out != stderr)
        fclose(out);
    if (o->json_path != NULL)
        zc__write_json(o->json_path, run, have_log ? &log : NULL, have_log ? report : NULL);
    free(report);
    zc_trace_log_free(&log);
}

int zc_cmd_trace(int argc, char **argv)
{
    static const struct option options[] = {
        {"json", required_argument, NULL, 'j'},  {"output", required_argument, NULL, 'o'},
        {"bench", required_argument, NULL, 'b'}, {"ceiling", required_argument, NULL, 'c'},
        {"ram", required_argument, NULL, 'r'},   {"device", required_argument, NULL, 'd'},
        {"lib", required_argument, NULL, 'l'},   {"keep-logs", required_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    zc__trace_options o = {0};
    int opt;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    /* "+": stop at the program's name, so that its own options are left alone. */
    while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
        switch (opt) {
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
            if (!zc__parse_gbps(optarg, &o.ceiling_gbps))
                return zc_cli_usage_error("trace", zc__trace_usage,
                                          "--ceiling needs a bandwidth in GB/s, got '%s'", optarg);
            break;
        case 'r':
            if (!zc__parse_bytes(optarg, &o.ram_bytes))
                return zc_cli_usage_error("trace", zc__trace_usage,
                                          "--ram needs a size in bytes (K, M, G, T), got '%s'",
                                          optarg);
            break;
        case 'd':
            if (!zc_cli_parse_int(optarg, 0, 1023, &o.device))
                return zc_cli_usage_error("trace", zc__trace_usage,
                                          "--device needs a GPU number, got '%s'", optarg);
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
        case ':':
            return zc_cli_usage_error("trace", zc__trace_usage, "%s needs a value",
                                      argv[optind - 1]);
        default:
            return zc_cli_usage_error("trace", zc__trace_usage, "unknown option '%s'",
                                      argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return zc_cli_usage_error("trace", zc__trace_usage, "no program to run");
    if (o.ceiling_gbps > 0 && o.bench_path != NULL)
        return zc_cli_usage_error("trace", zc__trace_usage,
                                  "--bench and --ceiling exclude each other");

    zc_trace_run run;
    memset(&run, 0, sizeof run);
    run.argv = argv + optind;
    char library[PATH_MAX], log_dir[PATH_MAX] = "";
    run.traced =
        zc_trace_find_library(o.lib_path, library, sizeof library, run.why_not, sizeof run.why_not);
    if (run.traced && o.keep_dir != NULL) {
        if (mkdir(o.keep_dir, 0700) != 0 && errno != EEXIST) {
            fprintf(stderr, "zc trace: cannot create '%s': %s\n", o.keep_dir, strerror(errno));
            return ZC_EXIT_FAILURE;
        }
        char *absolute = realpath(o.keep_dir, NULL);
        snprintf(log_dir, sizeof log_dir, "%s", absolute ? absolute : o.keep_dir);
        free(absolute);
    } else if (run.traced && zc_trace_make_log_dir(log_dir, sizeof log_dir) != 0) {
        snprintf(run.why_not, sizeof run.why_not, "no folder for the trace logs: %s",
                 strerror(errno));
        run.traced = 0;
    }

    const char *displaced = getenv(ZC_TRACE_INJECTION_ENV);
    if (run.traced && displaced != NULL && displaced[0] != '\0')
        fprintf(stderr, "zc trace: %s was set (%s); the program gets zc trace's library instead\n",
                ZC_TRACE_INJECTION_ENV, displaced);
    run.exit_code =
        zc_trace_run_program(run.argv, run.traced ? library : NULL, log_dir, &run.signal);
    zc__report(&o, log_dir, &run);
    if (run.traced && o.keep_dir == NULL)
        zc_trace_remove_log_dir(log_dir);
    return run.exit_code;
}
