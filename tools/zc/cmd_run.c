/* SPDX-License-Identifier: Apache-2.0 */
/* zc run: run an unmodified CUDA program with the copy pitfalls zc trace finds cured. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_io.h"
#include "cli_json.h"
#include "program_run.h"
#include "run_checks.h"
#include "run_output.h"
#include "zerocopy/run.h"

#define ZC__RUN_LIB_ENV  "ZC_RUN_LIB"
#define ZC__RUN_LIB_NAME "libzerocopy_run.so"

static const char zc__run_usage[] =
    "zc run [--fix LIST] [--report FILE] [--lib PATH] [--force] [-q] -- PROGRAM [ARGS...]";

static void zc__run_help(void)
{
    printf("usage: %s\n\n"
           "Run PROGRAM unchanged (same input, output and exit code) with the copy\n"
           "pitfalls that zc trace finds cured inside it, through an interposition library\n"
           "loaded with LD_PRELOAD at the CUDA driver's entry points (by symbol, dlsym and\n"
           "cuGetProcAddress: programs on the static or shared CUDA runtime, PyTorch and\n"
           "CuPy alike). Each call keeps what CUDA documents for it (when the host buffer\n"
           "may be reused, what it waits for, stream order, errors); a call zc run cannot\n"
           "cure safely goes to the driver as it was, and is counted. Processes the program\n"
           "starts are cured too, as long as they keep the environment.\n\n"
           "The cures (docs/pitfalls.md, docs/run.md), each on unless --fix leaves it out\n"
           "(those marked off: only when --fix names them):\n",
           zc__run_usage);
#define ZC__HELP_FIX(name, text, what)                                                             \
    printf("  %-10s %s%s\n", text, what,                                                           \
           (ZC_RUN_FIXES_DEFAULT >> ZC_RUN_FIX_##name) & 1u ? "" : " (off)");
    ZC_RUN_FIX_MAP(ZC__HELP_FIX)
#undef ZC__HELP_FIX
    printf("\nWhen the program ends, a summary on stderr says what each cure did: calls,\n"
           "bytes and time, beside what the same calls would have taken as they were (the\n"
           "second copy of each size class runs as it was, timed, to price the rest), and\n"
           "what was left as it was and why.\n"
           "zc run exits with the program's exit code (128 + N when signal N killed it, 127\n"
           "when it could not start, 126 when it is not executable); when the program exited\n"
           "0, zc run exits 1 if its logs could not be read or the report written. Options\n"
           "are checked before the program runs (bad ones: exit 2, nothing run); the program\n"
           "is never run without the cures asked for.\n"
           "Nor is it run (exit 2) when the loader would not preload the library into it: a\n"
           "statically linked program, a set-user-ID or set-group-ID one, a program for\n"
           "another machine; nor with a --lib that is not the interposition library (an ELF\n"
           "shared object that exports cuMemcpyHtoD_v2 and dlsym). A program built with\n"
           "AddressSanitizer gets its runtime preloaded first; a library path LD_PRELOAD\n"
           "cannot hold (a space, colon or '$' in it) is preloaded through a link in the log\n"
           "folder. When no process of the program loaded the library (one that clears\n"
           "LD_PRELOAD, a script run by a static interpreter), zc run says so and keeps the\n"
           "program's exit code.\n\n"
           "Options:\n"
           "  --fix LIST        the cures to apply, comma-separated, each once, or all or\n"
           "                    none alone (default: every cure not marked off)\n"
           "  --report FILE     also write what was cured as JSON, schema \"%s\"\n"
           "                    (docs/json.md), to FILE or - (stdout, after the program's)\n"
           "  --lib PATH        the interposition library (default: $%s, else\n"
           "                    %s next to zc or in the install's lib\n"
           "                    folder); with the hostcopy cure, %s\n"
           "                    beside it is preloaded after it\n"
           "  --force           replace the --report file if it exists\n"
           "  -q, --quiet       no summary on stderr, but for a program that did not start,\n"
           "                    logs that could not be read or a library that reached no process\n"
           "  -h, --help        this help\n\n"
           "Tuning (environment, read by the library; docs/run.md): ZC_RUN_THREADS,\n"
           "ZC_RUN_CHUNK, ZC_RUN_BUFFERS, ZC_RUN_MIN_BYTES, ZC_RUN_MIN_D2H_BYTES,\n"
           "ZC_RUN_CACHE_BYTES, ZC_RUN_REGISTER_BYTES, ZC_RUN_REUSE_BYTES,\n"
           "ZC_RUN_FRESH_MIN_BYTES, ZC_RUN_FRESH_HUGE, ZC_RUN_FASTPIN_BYTES,\n"
           "ZC_RUN_FASTPIN_THREADS, ZC_RUN_JUDGE_AFTER, ZC_RUN_VERBOSE.\n",
           ZC_RUN_SCHEMA, ZC__RUN_LIB_ENV, ZC__RUN_LIB_NAME, ZC_CLI_COPY_LIB_NAME);
}

typedef struct zc__run_options {
    const char *fix_list;
    const char *report_path;
    const char *lib_path;
    int force;
    int quiet;
    zc_cli_output report_out;
} zc__run_options;

/* What zc run found before the program runs, and what it preloads into it. */
typedef struct zc__run_setup {
    char library[PATH_MAX];      /* the interposition library, absolute */
    char copy_library[PATH_MAX]; /* the copy library beside it, or "" (hostcopy off) */
    char asan_runtime[PATH_MAX]; /* the AddressSanitizer runtime to preload first, or "" */
    char log_dir[PATH_MAX];
    char preload[4 * PATH_MAX]; /* LD_PRELOAD as the program gets it */
} zc__run_setup;

/* Options up to the program's name: -1 to go on, else the exit code (help, a bad option). */
static int zc__run_parse(int argc, char **argv, zc__run_options *o)
{
    static const struct option options[] = {
        {"fix", required_argument, NULL, 'x'},
        {"report", required_argument, NULL, 'r'},
        {"lib", required_argument, NULL, 'l'},
        {"force", no_argument, NULL, 'F'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    /* "+": stop at the program's name, so that its own options are left alone. */
    while ((opt = zc_cli_next_option("run", zc__run_usage, argc, argv, "+:hq", options)) != -1) {
        switch (opt) {
        case 'x':
            o->fix_list = optarg;
            break;
        case 'r':
            o->report_path = optarg;
            break;
        case 'l':
            o->lib_path = optarg;
            break;
        case 'F':
            o->force = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'h':
            zc__run_help();
            return ZC_EXIT_OK;
        default:
            return zc_cli_option_error("run", zc__run_usage, opt, argc, argv);
        }
    }
    return -1;
}

/* The library found, and checked to be the interposition library: a file of another kind
 * preloaded would cure nothing, said by nobody. */
static int zc__run_library(const zc__run_options *o, zc__run_setup *setup)
{
    char why[512];
    int code =
        zc_cli_find_library(ZC__RUN_LIB_NAME, "interposition library", ZC__RUN_LIB_ENV, "",
                            o->lib_path, setup->library, sizeof setup->library, why, sizeof why);
    if (code != ZC_EXIT_OK) {
        fprintf(stderr, "zc run: %s%s\n", o->lib_path != NULL ? "--lib: " : "", why);
        return code;
    }
    if (zc_cli_run_check_library(setup->library, why, sizeof why) == 0)
        return ZC_EXIT_OK;
    const char *env = getenv(ZC__RUN_LIB_ENV);
    const char *given = o->lib_path != NULL             ? o->lib_path
                        : env != NULL && env[0] != '\0' ? env
                                                        : NULL;
    fprintf(stderr, "zc run: %s'%s' is not the interposition library: %s\n",
            o->lib_path != NULL ? "--lib: "
            : given != NULL     ? ZC__RUN_LIB_ENV ": "
                                : "",
            given != NULL ? given : setup->library, why);
    return given != NULL ? ZC_EXIT_USAGE : ZC_EXIT_FAILURE;
}

/* With the hostcopy cure, the copy library beside the library, which must be there: a program
 * run without it would not get the cure asked for. */
static int zc__run_copy_library(unsigned fixes, zc__run_setup *setup)
{
    if (!(fixes & (1u << ZC_RUN_FIX_HOSTCOPY)))
        return ZC_EXIT_OK;
    if (zc_cli_sibling_path(setup->library, ZC_CLI_COPY_LIB_NAME, setup->copy_library,
                            sizeof setup->copy_library) != 0 ||
        access(setup->copy_library, R_OK) != 0) {
        fprintf(stderr,
                "zc run: --fix hostcopy needs %s beside the interposition library '%s', and it "
                "is not there (or cannot be read)\n",
                ZC_CLI_COPY_LIB_NAME, setup->library);
        return ZC_EXIT_FAILURE;
    }
    return ZC_EXIT_OK;
}

/*
 * Everything checked before the program runs, so that it never runs without the cures asked
 * for: the library (and the copy library beside it, for the hostcopy cure), whether the loader
 * will preload it into the program, and whether each path LD_PRELOAD gets can be written there
 * (else through a link in the log folder, whose own path must then be fit).
 */
static int zc__run_check(const zc__run_options *o, unsigned fixes, char *const *argv,
                         zc__run_setup *setup)
{
    int code = zc__run_library(o, setup);
    if (code == ZC_EXIT_OK)
        code = zc__run_copy_library(fixes, setup);
    if (code != ZC_EXIT_OK)
        return code;
    char why[1024];
    if (zc_cli_run_check_program(argv[0], setup->asan_runtime, sizeof setup->asan_runtime, why,
                                 sizeof why) != 0) {
        fprintf(stderr, "zc run: %s\n", why);
        return ZC_EXIT_USAGE;
    }
    const char *unfit = !zc_cli_run_preload_safe(setup->library)        ? setup->library
                        : !zc_cli_run_preload_safe(setup->asan_runtime) ? setup->asan_runtime
                                                                        : NULL;
    if (unfit != NULL && !zc_cli_run_preload_safe(zc_cli_tmp_base())) {
        fprintf(stderr,
                "zc run: '%s' has a space, colon or '$' in its path, which LD_PRELOAD cannot "
                "hold, and so has '%s', where zc run would put a link to it: set TMPDIR to a "
                "folder without them\n",
                unfit, zc_cli_tmp_base());
        return ZC_EXIT_USAGE;
    }
    return ZC_EXIT_OK;
}

/* path as LD_PRELOAD can hold it: itself, or a link to it called name in the log folder (a
 * path zc run chose, checked to be fit). 0, or -1 with errno. */
static int zc__preload_entry(const char *path, const char *log_dir, const char *name, char *out,
                             size_t size)
{
    int safe = zc_cli_run_preload_safe(path);
    int n = safe ? snprintf(out, size, "%s", path) : snprintf(out, size, "%s/%s", log_dir, name);
    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return safe ? 0 : symlink(path, out);
}

/*
 * LD_PRELOAD for the program: the AddressSanitizer runtime first when it needs one (the runtime
 * refuses to start behind another library), then ours (the copy library after the library,
 * whose entry points it finds), then the program's own preloads, kept.
 * 0, or an exit code after saying why.
 */
static int zc__run_preload(zc__run_setup *setup)
{
    char asan[PATH_MAX + 64] = "", library[PATH_MAX + 64], copy[PATH_MAX + 64] = "";
    const char *base = strrchr(setup->asan_runtime, '/');
    base = base != NULL ? base + 1 : setup->asan_runtime;
    /* ASan knows its runtime by name ("libasan.so" in it): a link keeps the name. */
    const char *asan_name = zc_cli_run_preload_safe(base) ? base : "libasan.so";
    if ((setup->asan_runtime[0] != '\0' && zc__preload_entry(setup->asan_runtime, setup->log_dir,
                                                             asan_name, asan, sizeof asan) != 0) ||
        zc__preload_entry(setup->library, setup->log_dir, ZC__RUN_LIB_NAME, library,
                          sizeof library) != 0 ||
        (setup->copy_library[0] != '\0' &&
         zc__preload_entry(setup->copy_library, setup->log_dir, ZC_CLI_COPY_LIB_NAME, copy,
                           sizeof copy) != 0)) {
        fprintf(stderr, "zc run: cannot link the library into the log folder '%s': %s\n",
                setup->log_dir, strerror(errno));
        return ZC_EXIT_FAILURE;
    }
    const char *old = getenv("LD_PRELOAD");
    int keep = old != NULL && old[0] != '\0';
    int n = snprintf(setup->preload, sizeof setup->preload, "%s%s%s%s%s%s%s", asan,
                     asan[0] != '\0' ? ":" : "", library, copy[0] != '\0' ? ":" : "", copy,
                     keep ? ":" : "", keep ? old : "");
    if (n < 0 || (size_t)n >= sizeof setup->preload) {
        fprintf(stderr, "zc run: LD_PRELOAD is too long to add %s to it\n", setup->library);
        return ZC_EXIT_USAGE;
    }
    return ZC_EXIT_OK;
}

/* The log folder, made once nothing can still be refused but the preload list built in it. */
static int zc__run_folder(zc__run_options *o, zc__run_setup *setup)
{
    if (zc_cli_make_private_dir("zc-run", setup->log_dir, sizeof setup->log_dir) != 0) {
        fprintf(stderr, "zc run: cannot make a folder for the logs in '%s': %s\n",
                zc_cli_tmp_base(), strerror(errno));
        zc_cli_output_abort(&o->report_out);
        return ZC_EXIT_FAILURE;
    }
    int code = zc__run_preload(setup);
    if (code != ZC_EXIT_OK) {
        zc_cli_remove_private_tree(setup->log_dir);
        zc_cli_output_abort(&o->report_out);
    }
    return code;
}

/* Run the program, read and remove the logs; 1 when they could not be read. */
static int zc__run_program(zc_cli_run *run, const zc__run_setup *setup)
{
    char fixes[128];
    zc_run_fixes_format(run->fixes, fixes, sizeof fixes);
    const zc_cli_env_pair env[] = {
        {"LD_PRELOAD", setup->preload}, {"ZC_RUN_DIR", setup->log_dir}, {"ZC_RUN_FIXES", fixes}};
    run->exit_code = zc_cli_run_program(run->argv, env, sizeof env / sizeof env[0], &run->signal,
                                        &run->start_errno);
    int failed = 0;
    if (run->start_errno != 0)
        snprintf(run->why_not, sizeof run->why_not, "'%s' could not be started: %s", run->argv[0],
                 strerror(run->start_errno));
    else
        failed = zc_cli_run_read_logs(run, setup->log_dir) != 0;
    /* Everything in it goes, whatever the program left there (files, folders, FIFOs, links). */
    if (zc_cli_remove_private_tree(setup->log_dir) != 0)
        fprintf(stderr, "zc run: the log folder '%s' could not be removed entirely: %s\n",
                setup->log_dir, strerror(errno));
    return failed;
}

/* Run the program, print the summary and commit the report; gives zc run's exit code. */
static int zc__run_and_report(zc__run_options *o, zc_cli_run *run, const zc__run_setup *setup)
{
    int failed = zc__run_program(run, setup);
    /* -q keeps the summary to what a person must hear: the program could not start, its logs
     * could not be read, or the library reached none of its processes (it ran uncured). */
    if (!o->quiet || run->start_errno != 0 || failed || !run->library_loaded)
        zc_cli_run_print_summary(stderr, run);
    int code = ZC_EXIT_OK;
    if (o->report_path != NULL)
        code = zc_cli_json_commit("run", zc_cli_run_json(run), &o->report_out);
    /* The program's own code, unless it succeeded and zc run did not. */
    if (run->exit_code != 0)
        return run->exit_code;
    if (code != ZC_EXIT_OK)
        return code;
    return failed ? ZC_EXIT_FAILURE : ZC_EXIT_OK;
}

int zc_cli_cmd_run(int argc, char **argv)
{
    zc__run_options o = {0};
    int code = zc__run_parse(argc, argv, &o);
    if (code >= 0)
        return code;
    zc_cli_run run;
    memset(&run, 0, sizeof run);
    run.fixes = ZC_RUN_FIXES_DEFAULT;
    if (o.fix_list != NULL && zc_run_fixes_parse(o.fix_list, &run.fixes) != ZC_OK)
        return zc_cli_usage_error("run", zc__run_usage, "--fix: %s", zc_last_error());
    if (optind >= argc)
        return zc_cli_usage_error("run", zc__run_usage, "no program to run");
    run.argv = argv + optind;

    zc__run_setup setup;
    memset(&setup, 0, sizeof setup);
    if ((code = zc__run_check(&o, run.fixes, run.argv, &setup)) != ZC_EXIT_OK)
        return code;
    if (o.report_path != NULL &&
        (code = zc_cli_output_open(&o.report_out, "run", o.report_path, o.force, NULL, 0)) != 0)
        return code;
    /* The log folder, last: nothing that could still be refused is left to undo it. From its
     * making to its removal, SIGTERM and SIGHUP are held back but while the program runs (they
     * are passed on to it then): one that comes meanwhile takes effect once the folder is gone
     * and the report written. */
    zc_cli_signals_hold();
    if ((code = zc__run_folder(&o, &setup)) == ZC_EXIT_OK)
        code = zc__run_and_report(&o, &run, &setup);
    zc_cli_signals_release();
    return code;
}
