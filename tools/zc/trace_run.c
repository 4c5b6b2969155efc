/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program under zc trace: the injection library, the log folder, fork and wait. */
#include "trace_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "program_run.h"
#include "run_checks.h"

int zc_cli_trace_find_library(const char *explicit_path, char *path_p, size_t path_size, char *why,
                              size_t why_size)
{
    return zc_cli_find_library(ZC_TRACE_LIB_NAME, "injection library", ZC_TRACE_LIB_ENV,
                               " (built without CUPTI?)", explicit_path, path_p, path_size, why,
                               why_size);
}

const char *zc_cli_trace_log_base(void)
{
    return zc_cli_tmp_base();
}

int zc_cli_trace_make_log_dir(char *dir_p, size_t size)
{
    return zc_cli_make_private_dir("zc-trace", dir_p, size);
}

void zc_cli_trace_remove_log_dir(const char *dir)
{
    zc_cli_remove_private_dir(dir, ".log");
}

/* The preload list for the traced program, whose host copies the injection library hears of
 * through the copy library beside it: the AddressSanitizer runtime first when the program needs
 * one, then the program's own preloads, then the copy library, last, so that a preload of the
 * program's own that replaces memcpy keeps doing so (and reaches ours as its next). Given where
 * the loader would take it; else 0 and why not in absent: the program is traced without it, and
 * its log says so. */
static int zc__copy_hooks_preload(const char *program, const char *library, char *preload,
                                  size_t preload_size, char *absent, size_t absent_size)
{
    char copy[PATH_MAX], asan[PATH_MAX] = "", why[512];
    if (zc_cli_sibling_path(library, ZC_CLI_COPY_LIB_NAME, copy, sizeof copy) != 0 ||
        access(copy, R_OK) != 0) {
        snprintf(absent, absent_size, "%s is not beside the injection library",
                 ZC_CLI_COPY_LIB_NAME);
        return 0;
    }
    if (zc_cli_run_check_program(program, asan, sizeof asan, why, sizeof why) != 0) {
        snprintf(absent, absent_size, "the loader would not preload the copy library: %.300s", why);
        return 0;
    }
    if (!zc_cli_run_preload_safe(copy) || !zc_cli_run_preload_safe(asan)) {
        snprintf(absent, absent_size, "a space, colon or '$' in the path of %.300s",
                 !zc_cli_run_preload_safe(copy) ? copy : asan);
        return 0;
    }
    const char *old = getenv("LD_PRELOAD");
    int keep = old != NULL && old[0] != '\0';
    int n = snprintf(preload, preload_size, "%s%s%s%s%s", asan, asan[0] != '\0' ? ":" : "",
                     keep ? old : "", keep ? ":" : "", copy);
    if (n < 0 || (size_t)n >= preload_size) {
        snprintf(absent, absent_size, "LD_PRELOAD is too long to add the copy library to it");
        return 0;
    }
    return 1;
}

int zc_cli_trace_run_program(char *const *argv, const char *library, const char *log_dir,
                             int stdout_to_stderr, int *signal_p, int *start_errno_p)
{
    char preload[4 * PATH_MAX], absent[768];
    zc_cli_env_pair env[] = {{ZC_TRACE_INJECTION_ENV, library},
                             {ZC_TRACE_DIR_ENV, log_dir},
                             {ZC_TRACE_COPY_HOOKS_ABSENT_ENV, absent}};
    if (library != NULL &&
        zc__copy_hooks_preload(argv[0], library, preload, sizeof preload, absent, sizeof absent)) {
        env[2] = (zc_cli_env_pair){"LD_PRELOAD", preload};
    }
    const size_t env_count = library != NULL ? 3 : 0;
    if (!stdout_to_stderr)
        return zc_cli_run_program(argv, env, env_count, signal_p, start_errno_p);
    /* The program inherits zc's descriptors: for as long as it runs, zc's descriptor 1 is its
     * stderr, so that the program's stdout goes there and stdout, given back after, holds zc's
     * document alone. zc itself writes nothing to stdout meanwhile (it waits). A program that
     * cannot be given that is not started: its output would spoil the document. */
    *signal_p = 0;
    fflush(stdout);
    int saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        *start_errno_p = errno;
        if (saved >= 0)
            close(saved);
        return 127;
    }
    int code = zc_cli_run_program(argv, env, env_count, signal_p, start_errno_p);
    /* Given back whatever the program did; dup2 fails only on a bad descriptor, and both are
     * open here. */
    (void)dup2(saved, STDOUT_FILENO);
    close(saved);
    return code;
}
