/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program under zc trace: the injection library, the log folder, fork and wait. */
#ifndef ZC_TRACE_RUN_H
#define ZC_TRACE_RUN_H

#include <stddef.h>

/* The environment variables zc trace sets in the traced program, and the one it reads. */
#define ZC_TRACE_DIR_ENV               "ZC_TRACE_DIR"
#define ZC_TRACE_INJECTION_ENV         "CUDA_INJECTION64_PATH"
#define ZC_TRACE_LIB_ENV               "ZC_TRACE_LIB"
#define ZC_TRACE_LIB_NAME              "libzerocopy_trace.so"
/* Set instead of LD_PRELOAD when the copy library cannot be preloaded: why, for the log's note
 * (src/trace/trace_host_copies.c reads it). */
#define ZC_TRACE_COPY_HOOKS_ABSENT_ENV "ZC_TRACE_COPY_HOOKS_ABSENT"

/*
 * Find the injection library: explicit (from --lib) if given, else $ZC_TRACE_LIB, else next to
 * the zc binary, else in the install's library folder beside its bin folder. 0 and the path in
 * path_p when found; else an exit code and why in one sentence (naming the path, or the places
 * looked at): ZC_EXIT_USAGE (2) when the library the user named cannot be read, ZC_EXIT_FAILURE
 * (1) when the installed one is not found.
 */
int zc_cli_trace_find_library(const char *explicit_path, char *path_p, size_t path_size, char *why,
                              size_t why_size);

/* The folder the log folders are made in: $TMPDIR, or /tmp when it is unset or empty. */
const char *zc_cli_trace_log_base(void);

/* Create a fresh private folder for the logs in zc_cli_trace_log_base(); 0 on success, else -1
 * with errno set. */
int zc_cli_trace_make_log_dir(char *dir_p, size_t size);

/* Remove the "*.log" files zc trace's library wrote in dir, then dir itself. */
void zc_cli_trace_remove_log_dir(const char *dir);

/*
 * Run argv (searched on PATH) with the same stdin, stdout and stderr (its stdout going to
 * stderr when stdout_to_stderr is set, so that stdout is left to zc's own document), with the
 * injection library and log folder in its environment when library is not NULL, and the copy
 * library beside it preloaded where the loader takes it (else why not, in
 * ZC_TRACE_COPY_HOOKS_ABSENT_ENV). Waits for it while
 * ignoring SIGINT and SIGQUIT (the terminal sends them to the program too). Gives the exit
 * code as a shell would: the program's own, 128 + signal when killed (and *signal_p set); 127
 * (not found) or 126 (found, not executable) when it could not be started, and then the reason
 * in *start_errno_p (0 when it started), said by nobody: the caller says it.
 */
int zc_cli_trace_run_program(char *const *argv, const char *library, const char *log_dir,
                             int stdout_to_stderr, int *signal_p, int *start_errno_p);

#endif
