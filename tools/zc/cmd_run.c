/* SPDX-License-Identifier: Apache-2.0 */
/* zc run: run an unmodified CUDA program with the copy pitfalls zc trace finds cured. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"
#include "cli_json.h"
#include "program_run.h"
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
           "The cures (docs/pitfalls.md), each on unless --fix leaves it out:\n",
           zc__run_usage);
#define ZC__HELP_FIX(name, text, what) printf("  %-10s %s\n", text, what);
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
           "is never run without the cures asked for.\n\n"
           "Options:\n"
           "  --fix LIST        the cures to apply, comma-separated, or all or none\n"
           "                    (default all)\n"
           "  --report FILE     also write what was cured as JSON, schema \"%s\"\n"
           "                    (docs/json.md), to FILE or - (stdout, after the program's)\n"
           "  --lib PATH        the interposition library (default: $%s, else\n"
           "                    %s next to zc or in the install's lib\n"
           "                    folder)\n"
           "  --force           replace the --report file if it exists\n"
           "  -q, --quiet       no summary on stderr\n"
           "  -h, --help        this help\n\n"
           "Tuning (environment, read by the library; docs/run.md): ZC_RUN_THREADS,\n"
           "ZC_RUN_CHUNK, ZC_RUN_BUFFERS, ZC_RUN_MIN_BYTES, ZC_RUN_MIN_D2H_BYTES,\n"
           "ZC_RUN_CACHE_BYTES, ZC_RUN_VERBOSE.\n",
           ZC_RUN_SCHEMA, ZC__RUN_LIB_ENV, ZC__RUN_LIB_NAME);
}

typedef struct zc__run_options {
    const char *fix_list;
    const char *report_path;
    const char *lib_path;
    int force;
    int quiet;
    zc_cli_output report_out;
} zc__run_options;

/* LD_PRELOAD with our library first, the program's own preloads kept after it. */
static int zc__preload(const char *library, char *out, size_t size)
{
    const char *old = getenv("LD_PRELOAD");
    int n = old != NULL && old[0] != '\0' ? snprintf(out, size, "%s:%s", library, old)
                                          : snprintf(out, size, "%s", library);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

int zc_cli_cmd_run(int argc, char **argv)
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
    zc__run_options o = {0};
    int opt, code;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    /* "+": stop at the program's name, so that its own options are left alone. */
    while ((opt = zc_cli_next_option("run", zc__run_usage, argc, argv, "+:hq", options)) != -1) {
        switch (opt) {
        case 'x':
            o.fix_list = optarg;
            break;
        case 'r':
            o.report_path = optarg;
            break;
        case 'l':
            o.lib_path = optarg;
            break;
        case 'F':
            o.force = 1;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'h':
            zc__run_help();
            return ZC_EXIT_OK;
        default:
            return zc_cli_option_error("run", zc__run_usage, opt, argc, argv);
        }
    }
    zc_cli_run run;
    memset(&run, 0, sizeof run);
    run.fixes = ZC_RUN_FIXES_ALL;
    if (o.fix_list != NULL && zc_run_fixes_parse(o.fix_list, &run.fixes) != ZC_OK)
        return zc_cli_usage_error("run", zc__run_usage, "--fix: %s", zc_last_error());
    if (optind >= argc)
        return zc_cli_usage_error("run", zc__run_usage, "no program to run");
    run.argv = argv + optind;

    char library[PATH_MAX], why[512], preload[2 * PATH_MAX], fixes[64], log_dir[PATH_MAX];
    code = zc_cli_find_library(ZC__RUN_LIB_NAME, "interposition library", ZC__RUN_LIB_ENV, "",
                               o.lib_path, library, sizeof library, why, sizeof why);
    if (code != ZC_EXIT_OK) {
        fprintf(stderr, "zc run: %s%s\n", o.lib_path != NULL ? "--lib: " : "", why);
        return code;
    }
    if (zc__preload(library, preload, sizeof preload) != 0) {
        fprintf(stderr, "zc run: LD_PRELOAD is too long to add %s to it\n", library);
        return ZC_EXIT_USAGE;
    }
    if (o.report_path != NULL &&
        (code = zc_cli_output_open(&o.report_out, "run", o.report_path, o.force, NULL, 0)) != 0)
        return code;
    /* The log folder, last: nothing that could still be refused is left to undo it. */
    if (zc_cli_make_private_dir("zc-run", log_dir, sizeof log_dir) != 0) {
        fprintf(stderr, "zc run: cannot make a folder for the logs in '%s': %s\n",
                zc_cli_tmp_base(), strerror(errno));
        zc_cli_output_abort(&o.report_out);
        return ZC_EXIT_FAILURE;
    }
    zc_run_fixes_format(run.fixes, fixes, sizeof fixes);
    const zc_cli_env_pair env[] = {
        {"LD_PRELOAD", preload}, {"ZC_RUN_DIR", log_dir}, {"ZC_RUN_FIXES", fixes}};
    run.exit_code = zc_cli_run_program(run.argv, env, sizeof env / sizeof env[0], &run.signal,
                                       &run.start_errno);
    int failed = 0;
    if (run.start_errno != 0) {
        snprintf(run.why_not, sizeof run.why_not, "'%s' could not be started: %s", run.argv[0],
                 strerror(run.start_errno));
    } else if (zc_run_logs_read(log_dir, &run.summary) != ZC_OK) {
        snprintf(run.why_not, sizeof run.why_not, "the logs could not be read: %s",
                 zc_last_error());
        failed = 1;
    } else {
        run.have_summary = 1;
        if (run.summary.processes == 0)
            snprintf(run.why_not, sizeof run.why_not,
                     "the program made no call that a cure looks at (no CUDA copy or pinned "
                     "allocation)");
    }
    zc_cli_remove_private_dir(log_dir, ".run");
    if (!o.quiet || run.start_errno != 0 || failed)
        zc_cli_run_print_summary(stderr, &run);
    code = ZC_EXIT_OK;
    if (o.report_path != NULL)
        code = zc_cli_json_commit("run", zc_cli_run_json(&run), &o.report_out);
    /* The program's own code, unless it succeeded and zc run did not. */
    if (run.exit_code != 0)
        return run.exit_code;
    if (code != ZC_EXIT_OK)
        return code;
    return failed ? ZC_EXIT_FAILURE : ZC_EXIT_OK;
}
