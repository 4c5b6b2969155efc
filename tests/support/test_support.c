/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the tests. */
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

extern char **environ;

int zc_test_gpu_present(void)
{
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    return error == cudaSuccess && count > 0;
}

void zc_test_require_gpu(const char *program)
{
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess || count == 0) {
        fprintf(stderr, "SKIP %s: no CUDA GPU (%s)\n", program,
                error != cudaSuccess ? cudaGetErrorName(error) : "0 devices");
        exit(ZC_TEST_SKIP);
    }
}

int zc_test_under_sanitizer(void)
{
    const char *flag = getenv("ZC_UNDER_SANITIZER");
    return flag != NULL && flag[0] != '\0' && strcmp(flag, "0") != 0;
}

/* Read both pipes to their end without letting either fill up and block the child. */
static void zc__drain(int out_fd, int err_fd, char **out_p, char **err_p)
{
    size_t sizes[2] = {0, 0}, caps[2] = {4096, 4096};
    char *bufs[2] = {malloc(caps[0]), malloc(caps[1])};
    assert_non_null(bufs[0]);
    assert_non_null(bufs[1]);
    struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    int open_count = 2;
    while (open_count > 0) {
        assert_true(poll(fds, 2, 120000) > 0);
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (caps[i] - sizes[i] < 1024) {
                caps[i] *= 2;
                bufs[i] = realloc(bufs[i], caps[i]);
                assert_non_null(bufs[i]);
            }
            ssize_t got = read(fds[i].fd, bufs[i] + sizes[i], caps[i] - sizes[i] - 1);
            if (got <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_count--;
            } else {
                sizes[i] += (size_t)got;
            }
        }
    }
    bufs[0][sizes[0]] = '\0';
    bufs[1][sizes[1]] = '\0';
    *out_p = bufs[0];
    *err_p = bufs[1];
}

/* The argv and environment of a zc run: the built binary, args, and the test's environment with
 * env's entries after it. Free both arrays (not their strings). */
static void zc__zc_argv(const char *const *args, const char *const *env, char ***argv_p,
                        char ***envp_p)
{
    size_t argc = 0;
    while (args[argc] != NULL)
        argc++;
    char **argv = calloc(argc + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = (char *)ZC_TEST_ZC_BINARY;
    for (size_t i = 0; i < argc; i++)
        argv[i + 1] = (char *)args[i];

    size_t env_count = 0, extra = 0;
    while (environ[env_count] != NULL)
        env_count++;
    while (env != NULL && env[extra] != NULL)
        extra++;
    char **envp = calloc(env_count + extra + 1, sizeof *envp);
    assert_non_null(envp);
    /* An extra entry replaces the variable of that name (the child's getenv would find the
     * first of two). */
    size_t kept = 0;
    for (size_t i = 0; i < env_count; i++) {
        int replaced = 0;
        for (size_t j = 0; j < extra && !replaced; j++) {
            const char *equals = strchr(env[j], '=');
            size_t name = equals != NULL ? (size_t)(equals - env[j]) + 1 : strlen(env[j]);
            replaced = strncmp(environ[i], env[j], name) == 0;
        }
        if (!replaced)
            envp[kept++] = environ[i];
    }
    for (size_t i = 0; i < extra; i++)
        envp[kept + i] = (char *)env[i];
    *argv_p = argv;
    *envp_p = envp;
}

void zc_test_run_zc(const char *const *args, const char *const *env, zc_test_output *result)
{
    int out_pipe[2], err_pipe[2];
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);
    char **argv, **envp;
    zc__zc_argv(args, env, &argv, &envp);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
    pid_t pid;
    int spawned = posix_spawn(&pid, argv[0], &actions, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    close(out_pipe[1]);
    close(err_pipe[1]);
    free(argv);
    free(envp);
    assert_int_equal(spawned, 0);

    zc__drain(out_pipe[0], err_pipe[0], &result->out, &result->err);
    int wstatus = 0;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    result->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

/* A bounded run's state: zc's stdout and stderr as they come, and its stdin still to write. */
typedef struct zc__bounded {
    struct pollfd fds[3]; /* stdout, stderr, stdin's write end (fd -1 once closed) */
    char *bufs[2];
    size_t sizes[2], caps[2];
    char *input;
    size_t input_len, written, pieces;
    unsigned pause_ms;
    int64_t next_write_ms; /* no piece before this time */
} zc__bounded;

static int64_t zc__now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Read what one of zc's outputs has; closes it at its end. */
static void zc__bounded_read(zc__bounded *b, int i)
{
    if (b->caps[i] - b->sizes[i] < 1024) {
        b->caps[i] *= 2;
        b->bufs[i] = realloc(b->bufs[i], b->caps[i]);
        assert_non_null(b->bufs[i]);
    }
    ssize_t got = read(b->fds[i].fd, b->bufs[i] + b->sizes[i], b->caps[i] - b->sizes[i] - 1);
    if (got > 0) {
        b->sizes[i] += (size_t)got;
    } else if (got == 0 || errno != EINTR) {
        close(b->fds[i].fd);
        b->fds[i].fd = -1;
    }
}

/* Write zc's stdin's next piece; closes it once all is written, or when zc stopped reading. */
static void zc__bounded_write(zc__bounded *b)
{
    static const size_t sizes[] = {1, 7, 1000, 13, 4096, 333};
    size_t n = sizes[b->pieces % (sizeof sizes / sizeof sizes[0])];
    if (n > b->input_len - b->written)
        n = b->input_len - b->written;
    ssize_t put = n > 0 ? write(b->fds[2].fd, b->input + b->written, n) : 0;
    if (put > 0) {
        b->written += (size_t)put;
        b->pieces++;
        b->next_write_ms = zc__now_ms() + b->pause_ms;
    }
    if (b->written == b->input_len || (put < 0 && errno != EAGAIN && errno != EINTR)) {
        close(b->fds[2].fd); /* EPIPE: zc ended before reading everything, as it may */
        b->fds[2].fd = -1;
    }
}

/* Serve zc's pipes until its outputs close or the deadline passes: 1 when they closed. */
static int zc__bounded_serve(zc__bounded *b, int64_t deadline)
{
    while (b->fds[0].fd >= 0 || b->fds[1].fd >= 0) {
        const int64_t now = zc__now_ms(), left = deadline - now;
        if (left <= 0)
            return 0;
        /* stdin's next piece is watched for only once its pause is over. */
        const int64_t pause = b->fds[2].fd >= 0 ? b->next_write_ms - now : 0;
        b->fds[2].events = pause > 0 ? 0 : POLLOUT;
        /* poll on a local copy: gcc's -O2 ASan build misreads the struct member's size
         * (-Wstringop-overflow) and would fail the -Werror build. */
        struct pollfd fds[3];
        memcpy(fds, b->fds, sizeof fds);
        int r = poll(fds, 3, (int)(pause > 0 && pause < left ? pause : left));
        memcpy(b->fds, fds, sizeof fds);
        if (r < 0 && errno == EINTR)
            continue;
        assert_true(r >= 0);
        for (int i = 0; i < 2; i++)
            if (b->fds[i].fd >= 0 && (b->fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                zc__bounded_read(b, i);
        if (b->fds[2].fd >= 0 && (b->fds[2].revents & (POLLOUT | POLLERR | POLLHUP)))
            zc__bounded_write(b);
    }
    return 1;
}

/* Wait for zc to end until the deadline: 1 when it did (its status in *wstatus_p). */
static int zc__bounded_wait(pid_t pid, int64_t deadline, int *wstatus_p)
{
    for (;;) {
        pid_t r = waitpid(pid, wstatus_p, WNOHANG);
        if (r == pid)
            return 1;
        assert_true(r == 0 || errno == EINTR);
        if (zc__now_ms() >= deadline)
            return 0;
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
}

/* zc's stdin: the file itself, a pipe the test writes, or /dev/null. Gives the descriptor zc
 * gets; *write_p the pipe's end to write (-1 for none). */
static int zc__bounded_stdin(const zc_test_run_opts *opts, zc__bounded *b, int *write_p)
{
    *write_p = -1;
    if (opts->stdin_path != NULL && opts->stdin_pipe) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        assert_int_equal(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
        assert_int_equal(fcntl(p[1], F_SETFD, FD_CLOEXEC), 0);
        b->input = zc_test_read_file(opts->stdin_path, &b->input_len);
        *write_p = p[1];
        return p[0];
    }
    int fd = open(opts->stdin_path != NULL ? opts->stdin_path : "/dev/null", O_RDONLY);
    if (fd < 0)
        fail_msg("cannot open %s for zc's stdin", opts->stdin_path);
    return fd;
}

void zc_test_run_zc_bounded(const char *const *args, const char *const *env,
                            const zc_test_run_opts *opts, zc_test_output *result)
{
    static const zc_test_run_opts defaults = {.stdin_path = NULL};
    if (opts == NULL)
        opts = &defaults;
    const unsigned timeout_ms = opts->timeout_ms ? opts->timeout_ms : 120000u;
    zc__bounded b;
    memset(&b, 0, sizeof b);
    b.pause_ms = opts->pause_ms;
    int out_pipe[2], err_pipe[2], in_write;
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);
    int in_read = zc__bounded_stdin(opts, &b, &in_write);
    char **argv, **envp;
    zc__zc_argv(args, env, &argv, &envp);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_read, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
    pid_t pid;
    int spawned = posix_spawn(&pid, argv[0], &actions, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    close(in_read);
    close(out_pipe[1]);
    close(err_pipe[1]);
    free(envp);
    assert_int_equal(spawned, 0);

    /* A write to a pipe zc has closed must fail with EPIPE, not kill the test. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, saved;
    sigaction(SIGPIPE, &ignore, &saved);
    for (int i = 0; i < 2; i++) {
        b.caps[i] = 4096;
        b.bufs[i] = malloc(b.caps[i]);
        assert_non_null(b.bufs[i]);
    }
    b.fds[0] = (struct pollfd){out_pipe[0], POLLIN, 0};
    b.fds[1] = (struct pollfd){err_pipe[0], POLLIN, 0};
    b.fds[2] = (struct pollfd){in_write, POLLOUT, 0};
    const int64_t deadline = zc__now_ms() + timeout_ms;
    int wstatus = 0;
    int ended = zc__bounded_serve(&b, deadline) && zc__bounded_wait(pid, deadline, &wstatus);
    if (!ended) {
        kill(pid, SIGKILL);
        (void)zc__bounded_serve(&b, zc__now_ms() + 5000); /* what it printed before */
        assert_int_equal(waitpid(pid, &wstatus, 0), pid); /* SIGKILL ends it */
    }
    for (int i = 0; i < 3; i++)
        if (b.fds[i].fd >= 0)
            close(b.fds[i].fd);
    sigaction(SIGPIPE, &saved, NULL);
    free(b.input);
    b.bufs[0][b.sizes[0]] = '\0';
    b.bufs[1][b.sizes[1]] = '\0';
    result->out = b.bufs[0];
    result->err = b.bufs[1];
    result->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    if (!ended) {
        char command[1024] = "zc";
        for (size_t i = 1, used = 2; argv[i] != NULL && used < sizeof command; i++)
            used += (size_t)snprintf(command + used, sizeof command - used, " %s", argv[i]);
        fail_msg("'%s' did not end within %u ms: killed\nstdout: %.2000s\nstderr: %.2000s", command,
                 timeout_ms, result->out, result->err);
    }
    free(argv);
}

/* An invalid index ends the list of visible devices, so "-1" leaves none. */
const char *const zc_test_no_gpu_env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};

void zc_test_expect_zc(const char *const *args, const char *const *env, int exit_code,
                       const char *in_stdout, const char *in_stderr)
{
    zc_test_output r;
    zc_test_run_zc(args, env, &r);
    if (r.exit_code != exit_code)
        fail_msg("exit %d (wanted %d)\nstdout: %s\nstderr: %s", r.exit_code, exit_code, r.out,
                 r.err);
    if (in_stdout != NULL && strstr(r.out, in_stdout) == NULL)
        fail_msg("stdout lacks '%s':\n%s", in_stdout, r.out);
    if (in_stderr != NULL && strstr(r.err, in_stderr) == NULL)
        fail_msg("stderr lacks '%s':\n%s", in_stderr, r.err);
    zc_test_output_free(&r);
}

void zc_test_expect_refused(const char *const *args, const char *const *env, const char *in_stderr)
{
    char dir[] = "/tmp/zc-refused-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[64];
    snprintf(out, sizeof out, "%s/out.json", dir);
    const char *argv[32];
    size_t n = 0;
    for (; args[n] != NULL; n++) {
        assert_true(n + 3 < sizeof argv / sizeof argv[0]);
        argv[n] = args[n];
    }
    argv[n++] = "-j";
    argv[n++] = out;
    argv[n] = NULL;
    zc_test_output r;
    zc_test_run_zc(argv, env, &r);
    if (r.exit_code != 2 || strstr(r.err, in_stderr) == NULL)
        fail_msg("want exit 2 and '%s', got %d: %s", in_stderr, r.exit_code, r.err);
    assert_int_equal(access(out, F_OK), -1);
    zc_test_output_free(&r);
    rmdir(dir);
}

void zc_test_output_free(zc_test_output *result)
{
    free(result->out);
    free(result->err);
    result->out = result->err = NULL;
}

char *zc_test_read_file(const char *path, size_t *len_p)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    char *text = malloc((size_t)len + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    if (len_p != NULL)
        *len_p = (size_t)len;
    return text;
}

uint64_t zc_test_next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

void zc_test_fill_pattern(void *data, size_t n, uint64_t seed)
{
    uint64_t state = seed | 1;
    unsigned char *bytes = data;
    for (size_t i = 0; i < n; i++)
        bytes[i] = (unsigned char)(zc_test_next_random(&state) >> 24);
}

size_t zc_test_check_pattern(const void *data, size_t n, uint64_t seed)
{
    uint64_t state = seed | 1;
    const unsigned char *bytes = data;
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] != (unsigned char)(zc_test_next_random(&state) >> 24))
            return i;
    }
    return n;
}
