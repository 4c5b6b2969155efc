/* zc stream's command line without a GPU: help, bad options, and the no-GPU exit code. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

static void test_help(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"stream", "--help", NULL}, NULL, 0, "usage: zc stream",
                      NULL);
    zc_test_expect_zc((const char *[]){"stream", "--help", NULL}, NULL, 0, "classic-pinned", NULL);
    zc_test_expect_zc((const char *[]){"--help", NULL}, NULL, 0, "stream", NULL);
}

static void test_bad_options(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"stream", "--bogus", NULL}, NULL, 2, NULL, "unknown option");
    zc_test_expect_zc((const char *[]){"stream", "--mode", "fast", NULL}, NULL, 2, NULL,
                      "unknown mode");
    zc_test_expect_zc((const char *[]){"stream", "--protocol", "ll128", NULL}, NULL, 2, NULL,
                      "--protocol");
    zc_test_expect_zc((const char *[]){"stream", "--frames", "0", NULL}, NULL, 2, NULL, "--frames");
    zc_test_expect_zc((const char *[]){"stream", "--in-flight", "5000", NULL}, NULL, 2, NULL,
                      "--in-flight");
    zc_test_expect_zc((const char *[]){"stream", "--frame-samples", "1022", NULL}, NULL, 2, NULL,
                      "multiple of 4");
    zc_test_expect_zc((const char *[]){"stream", "--rate", "1000", "--lowpass", "600", NULL}, NULL,
                      2, NULL, "half the sample rate");
    zc_test_expect_zc((const char *[]){"stream", "--rate", "1000", "--tones", "100,700", NULL},
                      NULL, 2, NULL, "half the sample rate");
    zc_test_expect_zc((const char *[]){"stream", "--lowpass", "100", "--taps-file", "x", NULL},
                      NULL, 2, NULL, "exclude");
    zc_test_expect_zc((const char *[]){"stream", "--output", "-", "--json", "-", NULL}, NULL, 2,
                      NULL, "stdout");
    zc_test_expect_zc((const char *[]){"stream", "--frames", NULL}, NULL, 2, NULL, "needs a value");
    zc_test_expect_zc((const char *[]){"stream", "extra", NULL}, NULL, 2, NULL,
                      "unexpected argument");
}

static void test_no_gpu(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"stream", "--frames", "10", NULL}, zc_test_no_gpu_env, 3,
                      NULL, "zc stream");
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
    zc_test_expect_zc((const char *[]){"stream", "--taps-file", path, NULL}, NULL, 2, NULL,
                      "not a number");
    /* A comma after white space separates too: the word after it is read, not ignored. */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("0.25 , 0.5 , nonsense\n", f);
    fclose(f);
    zc_test_expect_zc((const char *[]){"stream", "--taps-file", path, NULL}, NULL, 2, NULL,
                      "not a number");
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
