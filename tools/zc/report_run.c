/* Running gnuplot and graphviz as child processes: input through a temporary file, SVG back on
 * stdout, exit code and time checked. */
#include "report_page.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "advise_json.h"

extern char **environ;

void zc_buf_put(zc_buf *b, const char *text, size_t len)
{
    if (b->failed)
        return;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *bigger = realloc(b->data, cap);
        if (bigger == NULL) {
            b->failed = 1;
            return;
        }
        b->data = bigger;
        b->cap = cap;
    }
    memcpy(b->data + b->len, text, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void zc_buf_printf(zc_buf *b, const char *fmt, ...)
{
    char small[1024];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        zc_buf_put(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        b->failed = 1;
        return;
    }
    va_start(args, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, args);
    va_end(args);
    zc_buf_put(b, big, (size_t)n);
    free(big);
}

void zc_buf_free(zc_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void zc_buf_html(zc_buf *b, const char *text)
{
    for (const char *c = text; c != NULL && *c; c++) {
        switch (*c) {
        case '&':
            zc_buf_put(b, "&amp;", 5);
            break;
        case '<':
            zc_buf_put(b, "&lt;", 4);
            break;
        case '>':
            zc_buf_put(b, "&gt;", 4);
            break;
        case '"':
            zc_buf_put(b, "&quot;", 6);
            break;
        default:
            zc_buf_put(b, c, 1);
            break;
        }
    }
}

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

int zc_report_run_tool(const char *program, const char *env_override, const char *const *args,
                       const char *input, const char *suffix, double timeout_s, char **out_p,
                       char *why, size_t why_size)
{
    const char *exe = program;
    const char *over = env_override != NULL ? getenv(env_override) : NULL;
    if (over != NULL && *over)
        exe = over;
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
    if (rc != 0) {
        snprintf(why, why_size, "%s not found (%s)", program, strerror(rc));
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
    if (done < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char *err = zc_advise_read_file(err_path);
        int code = done > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == 127)
            snprintf(why, why_size, "%s not found", program);
        else
            snprintf(why, why_size, "%s exited with %d: %.160s", program, code,
                     err != NULL ? err : "");
        free(err);
        goto cleanup;
    }
    *out_p = zc_advise_read_file(out_path);
    if (*out_p == NULL) {
        snprintf(why, why_size, "cannot read what %s wrote", program);
        goto cleanup;
    }
    ok = 1;
cleanup:
    unlink(err_path);
    unlink(out_path);
    unlink(in_path);
    return ok;
}
