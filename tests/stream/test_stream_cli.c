/* zc stream's command line without a GPU: help, bad options, and the no-GPU exit code. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

static const char *const no_gpu_env[] = {"CUDA_VISIBLE_DEVICES=-1", NULL};

static void expect(const char *const *args, const char *const *env, int exit_code,
                   const char *in_stdout, const char *in_stderr)
{
    zc_test_output r;
    zc_test_run_zc(args, env, &r);
    if (r.exit_code != exit_code)
        fprintf(stderr, "exit %d (wanted %d)\nstdout: %s\nstderr: %s\n", r.exit_code, exit_code,
                r.out, r.err);
    assert_int_equal(r.exit_code, exit_code);
    if (in_stdout != NULL)
        assert_non_null(strstr(r.out, in_stdout));
    if (in_stderr != NULL)
        assert_non_null(strstr(r.err, in_stderr));
    zc_test_output_free(&r);
}

static void test_help(void **state)
{
    (void)state;
    expect((const char *[]){"stream", "--help", NULL}, NULL, 0, "usage: zc stream", NULL);
    expect((const char *[]){"stream", "--help", NULL}, NULL, 0, "classic-pinned", NULL);
    expect((const char *[]){"--help", NULL}, NULL, 0, "stream", NULL);
}

static void test_bad_options(void **state)
{
    (void)state;
    expect((const char *[]){"stream", "--bogus", NULL}, NULL, 2, NULL, "unknown option");
    expect((const char *[]){"stream", "--mode", "fast", NULL}, NULL, 2, NULL, "unknown mode");
    expect((const char *[]){"stream", "--protocol", "ll128", NULL}, NULL, 2, NULL, "--protocol");
    expect((const char *[]){"stream", "--frames", "0", NULL}, NULL, 2, NULL, "--frames");
    expect((const char *[]){"stream", "--in-flight", "5000", NULL}, NULL, 2, NULL, "--in-flight");
    expect((const char *[]){"stream", "--frame-samples", "1022", NULL}, NULL, 2, NULL,
           "multiple of 4");
    expect((const char *[]){"stream", "--rate", "1000", "--lowpass", "600", NULL}, NULL, 2, NULL,
           "half the sample rate");
    expect((const char *[]){"stream", "--rate", "1000", "--tones", "100,700", NULL}, NULL, 2, NULL,
           "half the sample rate");
    expect((const char *[]){"stream", "--lowpass", "100", "--taps-file", "x", NULL}, NULL, 2, NULL,
           "exclude");
    expect((const char *[]){"stream", "--output", "-", "--json", "-", NULL}, NULL, 2, NULL,
           "stdout");
    expect((const char *[]){"stream", "--frames", NULL}, NULL, 2, NULL, "needs a value");
    expect((const char *[]){"stream", "extra", NULL}, NULL, 2, NULL, "unexpected argument");
}

static void test_no_gpu(void **state)
{
    (void)state;
    expect((const char *[]){"stream", "--frames", "10", NULL}, no_gpu_env, 3, NULL, "zc stream");
}

static void test_taps_file_errors(void **state)
{
    (void)state;
    char path[] = "/tmp/zc_taps_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("0.25, 0.5\n0.25 nonsense\n", f);
    fclose(f);
    expect((const char *[]){"stream", "--taps-file", path, NULL}, NULL, 2, NULL, "not a number");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_taps_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
