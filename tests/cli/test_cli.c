/* SPDX-License-Identifier: Apache-2.0 */
/* zc's command line: help, version, bad options, and behaviour with no GPU. */
#include "test_support.h"

#include <string.h>

#include "zerocopy/version.h"

static void test_help_lists_commands_and_exit_codes(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"--help", NULL}, NULL, 0, "info", NULL);
    zc_test_expect_zc((const char *[]){"--help", NULL}, NULL, 0, "Exit codes:", NULL);
    zc_test_expect_zc((const char *[]){"info", "--help", NULL}, NULL, 0, "usage: zc info", NULL);
}

static void test_version(void **state)
{
    (void)state;
    /* The version comes from the generated zerocopy/version.h, that is from CMakeLists.txt. */
    zc_test_expect_zc((const char *[]){"--version", NULL}, NULL, 0,
                      "zerocopy library " ZC_VERSION_STRING, NULL);
    zc_test_expect_zc((const char *[]){"--version", NULL}, NULL, 0,
                      "zc " ZC_VERSION_STRING " (zerocopy library " ZC_VERSION_STRING
                      "); licence: Apache-2.0, see LICENSE\n",
                      NULL);
    zc_test_expect_zc((const char *[]){"-V", NULL}, NULL, 0, "licence: " ZC_LICENSE, NULL);
}

static void test_no_arguments_is_usage_error(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){NULL}, NULL, 2, NULL, "usage: zc <command>");
}

static void test_unknown_command(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"frobnicate", NULL}, NULL, 2, NULL,
                      "unknown command 'frobnicate'");
}

static void test_bad_options_rejected_with_usage(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"info", "--bogus", NULL}, NULL, 2, NULL,
                      "unknown option '--bogus'");
    zc_test_expect_zc((const char *[]){"info", "--bogus", NULL}, NULL, 2, NULL, "usage: zc info");
    zc_test_expect_zc((const char *[]){"info", "--device", NULL}, NULL, 2, NULL, "needs a value");
    zc_test_expect_zc((const char *[]){"info", "--device", "x", NULL}, NULL, 2, NULL, "GPU number");
    zc_test_expect_zc((const char *[]){"info", "--device", "-3", NULL}, NULL, 2, NULL,
                      "GPU number");
    zc_test_expect_zc((const char *[]){"info", "--device", "0", "--all", NULL}, NULL, 2, NULL,
                      "exclude each other");
    zc_test_expect_zc((const char *[]){"info", "stray", NULL}, NULL, 2, NULL,
                      "unexpected argument");
}

static void test_info_without_gpu(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"info", NULL}, zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, "");
    /* one clear line naming the CUDA error, not a stack of errors */
    assert_non_null(strstr(r.err, "zc info: no GPU to describe: no usable CUDA device"));
    assert_non_null(strstr(r.err, "cudaError"));
    assert_non_null(strchr(r.err, '\n'));
    assert_string_equal(strchr(r.err, '\n') + 1, "");
    zc_test_output_free(&r);

    zc_test_run_zc((const char *[]){"info", "--json", "-", NULL}, zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, "");
    zc_test_output_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_lists_commands_and_exit_codes),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_no_arguments_is_usage_error),
        cmocka_unit_test(test_unknown_command),
        cmocka_unit_test(test_bad_options_rejected_with_usage),
        cmocka_unit_test(test_info_without_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
