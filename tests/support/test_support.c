/* Helpers shared by the tests. */
#include "test_support.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

void zc_test_run_zc(const char *const *args, const char *const *env, zc_test_output *result)
{
    int out_pipe[2], err_pipe[2];
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);

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
    for (size_t i = 0; i < env_count; i++)
        envp[i] = environ[i];
    for (size_t i = 0; i < extra; i++)
        envp[env_count + i] = (char *)env[i];

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

static uint64_t zc__xorshift(uint64_t *state)
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
        bytes[i] = (unsigned char)(zc__xorshift(&state) >> 24);
}

size_t zc_test_check_pattern(const void *data, size_t n, uint64_t seed)
{
    uint64_t state = seed | 1;
    const unsigned char *bytes = data;
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] != (unsigned char)(zc__xorshift(&state) >> 24))
            return i;
    }
    return n;
}
