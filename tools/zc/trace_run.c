/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program under zc trace: the injection library, the log folder, fork and wait. */
#include "trace_run.h"

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
                             int *signal_p, int *start_errno_p)
{
    const zc_cli_env_pair env[] = {{ZC_TRACE_INJECTION_ENV, library}, {ZC_TRACE_DIR_ENV, log_dir}};
    return zc_cli_run_program(argv, env, library != NULL ? 2 : 0, signal_p, start_errno_p);
}
