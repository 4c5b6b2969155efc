/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program under a library of ours (zc trace, zc run): finding the library, a private
 * folder for its logs, fork and wait. */
#ifndef ZC_PROGRAM_RUN_H
#define ZC_PROGRAM_RUN_H

#include <stddef.h>

/*
 * Find the library called name (a kind of library: "injection library"): explicit (from --lib) if
 * given, else $env, else next to the zc binary, else in the install's library folder beside its bin
 * folder. 0 and the absolute path in path_p when found; else an exit code and why in one sentence
 * (naming the path, or the places looked at, then hint): ZC_EXIT_USAGE (2) when the library the
 * user named cannot be read, ZC_EXIT_FAILURE (1) when the installed one is not found.
 */
int zc_cli_find_library(const char *name, const char *kind, const char *env, const char *hint,
                        const char *explicit_path, char *path_p, size_t path_size, char *why,
                        size_t why_size);

/* The folder private folders are made in: $TMPDIR, or /tmp when it is unset or empty. */
const char *zc_cli_tmp_base(void);

/* Create a fresh private folder "<prefix>-XXXXXX" in zc_cli_tmp_base(); 0 on success, else -1
 * with errno set. */
int zc_cli_make_private_dir(const char *prefix, char *dir_p, size_t size);

/* Remove the files of dir whose names end in suffix (what our library wrote), then dir. */
void zc_cli_remove_private_dir(const char *dir, const char *suffix);

/*
 * Remove the folder dir and everything in it, as a program may have left it: files, folders,
 * FIFOs, links (removed, never followed; nothing outside dir is touched), up to 32 folders deep.
 * 0 when dir is gone, else -1 with errno of the first entry that could not be removed.
 */
int zc_cli_remove_private_tree(const char *dir);

/* One variable set in the program's environment. */
typedef struct zc_cli_env_pair {
    const char *name;
    const char *value;
} zc_cli_env_pair;

/*
 * Run argv (searched on PATH) with the same stdin, stdout and stderr and the env_count variables
 * of env set. Waits for it while ignoring SIGINT and SIGQUIT (the terminal sends them to the
 * program too) and passing SIGTERM and SIGHUP on to it, so that the caller reports its end. Gives
 * the exit code as a shell would: the program's own, 128 + signal when killed (and *signal_p set);
 * 127 (not found) or 126 (found, not executable) when it could not be started, and then the reason
 * in *start_errno_p (0 when it started), said by nobody: the caller says it. The program is
 * killed (SIGKILL) if zc dies before it ends.
 */
int zc_cli_run_program(char *const *argv, const zc_cli_env_pair *env, size_t env_count,
                       int *signal_p, int *start_errno_p);

/*
 * SIGTERM and SIGHUP held back from now until zc_cli_signals_release: for a command whose log
 * folder lives from before its program starts to after it is read, so that one arriving while
 * no program runs waits rather than ending zc with the folder left behind. While the program
 * runs (zc_cli_run_program) they are passed on to it as always, and the program starts with the
 * signal mask zc had before the hold.
 */
void zc_cli_signals_hold(void);

/* The hold ends: a SIGTERM or SIGHUP that came while nothing was running takes effect now. */
void zc_cli_signals_release(void);

#endif
