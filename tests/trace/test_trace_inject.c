/* SPDX-License-Identifier: Apache-2.0 */
/* The injection library loaded by hand, as the CUDA driver loads it: it finds CUPTI through its
 * run path, writes a log zc trace can read, and ends it at exit. Without a GPU, CUPTI refuses
 * and the log says so in notes; with one, nothing is refused. */
#include "test_support.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_run.h"
#include "zerocopy/trace.h"

static int run_host(const char *log_dir)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (log_dir != NULL)
            setenv(ZC_TRACE_DIR_ENV, log_dir, 1);
        else
            unsetenv(ZC_TRACE_DIR_ENV);
        execl(ZC_TEST_INJECT_HOST, ZC_TEST_INJECT_HOST, ZC_TEST_TRACE_LIB, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_library_writes_a_complete_log(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(zc_cli_trace_make_log_dir(dir, sizeof dir), 0);
    assert_int_equal(run_host(dir), 0);

    zc_trace_log log;
    zc_trace_log_init(&log);
    zc_status status = zc_trace_log_read_dir(&log, dir);
    if (status != ZC_OK)
        fail_msg("reading the log: %s", log.error);
    for (size_t i = 0; i < log.note_count; i++)
        fprintf(stderr, "note: %s\n", log.notes[i]);
    assert_int_equal(log.process_count, 1);
    assert_int_equal(log.complete_count, 1);
    assert_true(log.ram_bytes > 0);
    /* Nothing ran on a GPU, so there are no records. */
    assert_int_equal(log.copy_count + log.kernel_count + log.memset_count, 0);
    if (!zc_test_gpu_present())
        assert_true(log.note_count > 0); /* CUPTI said why it could not trace */
    zc_trace_log_free(&log);
    zc_cli_trace_remove_log_dir(dir);
    assert_int_equal(access(dir, F_OK), -1);
}

static void test_library_outside_zc_trace_does_nothing(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(zc_cli_trace_make_log_dir(dir, sizeof dir), 0);
    assert_int_equal(run_host(NULL), 0);
    zc_trace_log log;
    zc_trace_log_init(&log);
    assert_int_equal(zc_trace_log_read_dir(&log, dir), ZC_OK);
    assert_int_equal(log.process_count, 0);
    zc_trace_log_free(&log);
    zc_cli_trace_remove_log_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_writes_a_complete_log),
        cmocka_unit_test(test_library_outside_zc_trace_does_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
