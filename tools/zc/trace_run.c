/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program under zc trace: the injection library, the log folder, fork and wait. */
#include "trace_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "program_run.h"

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

int zc_cli_trace_run_program(char *const *argv, const char *library, const char *log_dir,
                             int stdout_to_stderr, int *signal_p, int *start_errno_p)
{
    const zc_cli_env_pair env[] = {{ZC_TRACE_INJECTION_ENV, library}, {ZC_TRACE_DIR_ENV, log_dir}};
    const size_t env_count = library != NULL ? 2 : 0;
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
