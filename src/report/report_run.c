/* SPDX-License-Identifier: Apache-2.0 */
/* Running gnuplot and graphviz as child processes: input through a temporary file, SVG back on
 * stdout, exit code and time checked, and gnuplot's own reason when it fails. */
#include "report/report_page.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zerocopy/file.h"

extern char **environ;

/* A temporary file holding text; its path into path (at least 64 bytes). */
static int zc__temp_file(const char *text, const char *suffix, char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/zc-report-XXXXXX%s", dir != NULL && *dir ? dir : "/tmp", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0)
        return -1;
    size_t len = text != NULL ? strlen(text) : 0, done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        done += (size_t)w;
    }
    return fd;
}

static double zc__seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The largest output of a tool the page takes in (an SVG plot, a tool's messages): 64 MiB. */
#define ZC__TOOL_OUTPUT_MAX ((size_t)64 << 20)

/* The whole file at path, NUL-terminated (malloc'd); NULL when it cannot be read or is over
 * ZC__TOOL_OUTPUT_MAX (the caller says why). */
static char *zc__read_whole(const char *path)
{
    char *text = NULL;
    if (zc_file_read(path, ZC__TOOL_OUTPUT_MAX, &text, NULL) != ZC_OK)
        zc_clear_error();
    return text;
}

/*
 * The reason in a tool's stderr, on one line: gnuplot prints the offending command, a caret
 * under it and then '"<script>" line 12: <message>', so the message line is the one to keep,
 * without the temporary script's name; otherwise the last line that says anything.
 */
static void zc__reason(const char *err, const char *script_path, char *out, size_t size)
{
    out[0] = '\0';
    const char *best = NULL, *last = NULL;
    size_t best_len = 0, last_len = 0;
    for (const char *line = err != NULL ? err : ""; *line;) {
        size_t len = strcspn(line, "\n");
        size_t skip = strspn(line, " \t^");
        if (skip < len && strncmp(line, "zc-plot-area", 12) != 0) {
            last = line;
            last_len = len;
            if (best == NULL && strstr(line, " line ") != NULL && memchr(line, ':', len) != NULL)
                best = line, best_len = len;
        }
        line += len + (line[len] == '\n');
    }
    if (best == NULL)
        best = last, best_len = last_len;
    if (best == NULL) {
        snprintf(out, size, "it gave no reason");
        return;
    }
    /* '"/tmp/zc-report-ab12.gp" line 12: ...' becomes 'line 12: ...'. */
    size_t name_len = strlen(script_path);
    if (best_len > name_len + 2 && best[0] == '"' &&
        strncmp(best + 1, script_path, name_len) == 0 && best[name_len + 1] == '"') {
        best += name_len + 2;
        best_len -= name_len + 2;
    }
    best_len -= strspn(best, " ");
    best += strspn(best, " ");
    snprintf(out, size, "%.*s", (int)(best_len < 200 ? best_len : 200), best);
}

int zc__report_run_tool(const char *program, const char *env_override, const char *const *args,
                        const char *input, const char *suffix, double timeout_s, char **out_p,
                        char **err_p, int *missing_p, char *why, size_t why_size)
{
    const char *exe = program;
    const char *over = env_override != NULL ? getenv(env_override) : NULL;
    if (over != NULL && *over)
        exe = over;
    if (missing_p != NULL)
        *missing_p = 0;
    if (err_p != NULL)
        *err_p = NULL;
    if (over != NULL && strcmp(over, "none") == 0) {
        /* Turned off: the same as not installed. */
        snprintf(why, why_size, "%s turned off (%s=none)", program, env_override);
        if (missing_p != NULL)
            *missing_p = 1;
        return 0;
    }
    char in_path[512], out_path[512], err_path[512];
    int in_fd = zc__temp_file(input, suffix, in_path, sizeof in_path);
    if (in_fd < 0) {
        snprintf(why, why_size, "cannot write a temporary file for %s: %s", program,
                 strerror(errno));
        return 0;
    }
    close(in_fd);
    int out_fd = zc__temp_file("", ".out", out_path, sizeof out_path);
    int err_fd = out_fd >= 0 ? zc__temp_file("", ".err", err_path, sizeof err_path) : -1;
    if (out_fd < 0 || err_fd < 0) {
        snprintf(why, why_size, "cannot create temporary files for %s", program);
        if (out_fd >= 0) {
            close(out_fd);
            unlink(out_path);
        }
        unlink(in_path);
        return 0;
    }
    const char *argv[16];
    size_t n = 0;
    argv[n++] = exe;
    for (size_t i = 0; args != NULL && args[i] != NULL && n < 14; i++)
        argv[n++] = args[i];
    argv[n++] = in_path;
    argv[n] = NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, exe, &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_fd);
    close(err_fd);
    int ok = 0, status = 0;
    char *err = NULL;
    if (rc != 0) {
        snprintf(why, why_size, "%s not found (%s)", program, strerror(rc));
        if (missing_p != NULL)
            *missing_p = 1;
        goto cleanup;
    }
    /* Bounded wait: a tool that hangs must not hang the report. */
    double deadline = zc__seconds() + timeout_s;
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && zc__seconds() < deadline) {
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    if (done == 0) {
        kill(pid, SIGKILL);
        (void)waitpid(pid, &status, 0);
        snprintf(why, why_size, "%s took more than %.0f s and was stopped", program, timeout_s);
        goto cleanup;
    }
    err = zc__read_whole(err_path);
    if (done < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        int code = done > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == 127) {
            snprintf(why, why_size, "%s not found", program);
            if (missing_p != NULL)
                *missing_p = 1;
        } else {
            char reason[256];
            zc__reason(err, in_path, reason, sizeof reason);
            if (code < 0)
                snprintf(why, why_size, "%s was killed: %s", program, reason);
            else
                snprintf(why, why_size, "%s exited with %d: %s", program, code, reason);
        }
        goto cleanup;
    }
    *out_p = zc__read_whole(out_path);
    if (*out_p == NULL) {
        snprintf(why, why_size, "cannot read what %s wrote", program);
        goto cleanup;
    }
    if (err_p != NULL) {
        *err_p = err;
        err = NULL;
    }
    ok = 1;
cleanup:
    free(err);
    unlink(err_path);
    unlink(out_path);
    unlink(in_path);
    return ok;
}
