/* SPDX-License-Identifier: Apache-2.0 */
/* Running a case of a stand-in driver test in a child (fake_child.h). */
#include "test_support.h"

#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_child.h"

void fake_child_fill(unsigned char *p, size_t n, unsigned seed)
{
    zc_test_fill_pattern(p, n, seed + 1);
}

int fake_child_pin_by_copies(unsigned char *host, CUdeviceptr dev, size_t n)
{
    for (unsigned i = 0; i < 3; i++) {
        fake_child_fill(host, n, 40 + i);
        CHECK_CU(cuMemcpyHtoD_v2(dev, host, n));
    }
    return 0;
}

static void slurp(const char *path, char *text, size_t size)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

void run_child(const char *mode, const char *const *extra_env, child_run *r)
{
    char dir[] = "/tmp/zc-run-fake-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out_path[64], err_path[64];
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    snprintf(err_path, sizeof err_path, "%s/err", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(out, 1);
        dup2(err, 2);
        /* The copy library after the library, as zc run preloads them for the hostcopy cure:
         * with that cure off it only passes every copy on. */
        setenv("LD_PRELOAD", ZC_TEST_RUN_LIB ":" ZC_TEST_RUN_COPY_LIB, 1);
        setenv("ZC_RUN_DIR", dir, 1);
        /* Small chunks and two buffers, so that every buffer is refilled many times. */
        setenv("ZC_RUN_CHUNK", "262144", 1);
        setenv("ZC_RUN_BUFFERS", "2", 1);
        setenv("ZC_RUN_THREADS", "3", 1);
        setenv("ZC_RUN_MIN_BYTES", "65536", 1);
        setenv("ZC_RUN_MIN_D2H_BYTES", "65536", 1);
        /* The cases count every copy exactly: no judgement of staging against a size's sample
         * (cpu_run_slower holds it), whose verdict depends on this machine's speed. */
        setenv("ZC_RUN_JUDGE_AFTER", "0", 1);
        for (size_t i = 0; extra_env != NULL && extra_env[i] != NULL; i += 2)
            setenv(extra_env[i], extra_env[i + 1], 1);
        execl("/proc/self/exe", "fake_child", mode, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    slurp(out_path, r->out, sizeof r->out);
    slurp(err_path, r->err, sizeof r->err);
    unlink(out_path);
    unlink(err_path);
    assert_int_equal(zc_run_logs_read(dir, &r->summary), ZC_OK);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    fprintf(stderr, "-- %s: exit %d\n%s%s", mode, r->exit_code, r->out, r->err);
}

uint64_t child_calls(const child_run *r, zc_run_counter c)
{
    return r->summary.counts[c].calls;
}
