/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench's command line on any machine: listing, selection errors, option errors. */
#include "test_support.h"

#include <string.h>

#include "zerocopy/bench.h"

/* Every GPU hidden, so the same answers come on any machine. */
static void expect(const char *const *args, int exit_code, const char *in_stdout,
                   const char *in_stderr)
{
    zc_test_expect_zc(args, zc_test_no_gpu_env, exit_code, in_stdout, in_stderr);
}

static size_t lines(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void test_list_needs_no_gpu(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"bench", "--list", NULL}, zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(lines(r.out), zc_bench_case_count());
    for (size_t i = 0; i < zc_bench_case_count(); i++)
        assert_non_null(strstr(r.out, zc_bench_case_at(i)->key));
    zc_test_output_free(&r);

    zc_test_run_zc(
        (const char *[]){"bench", "--list", "--case", "copy.h2d", "--case", "*.pingpong", NULL},
        zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(lines(r.out), 5);
    assert_non_null(strstr(r.out, "copy.h2d.registered"));
    assert_non_null(strstr(r.out, "latency.pingpong"));
    assert_null(strstr(r.out, "copy.d2h"));
    zc_test_output_free(&r);
}

static void test_option_errors(void **state)
{
    (void)state;
    expect((const char *[]){"bench", "--help", NULL}, 0, "usage: zc bench", NULL);
    expect((const char *[]){"bench", "--case", "no.such.case", NULL}, 2, NULL, "no.such.case");
    expect((const char *[]){"bench", "--list", "--case", "copy,bogus", NULL}, 2, NULL, "bogus");
    expect((const char *[]){"bench", "--sizes", "4K,banana", NULL}, 2, NULL, "banana");
    expect((const char *[]){"bench", "--sizes", "0", NULL}, 2, NULL, "--sizes");
    /* A unit it does not know: the library's reason, not an empty one. */
    expect((const char *[]){"bench", "--sizes", "1.5X", NULL}, 2, NULL, "'1.5X' is not a size");
    expect((const char *[]){"bench", "--sizes", NULL}, 2, NULL, "needs a value");
    expect((const char *[]){"bench", "--quick", "--full", NULL}, 2, NULL, "exclude each other");
    expect((const char *[]){"bench", "--frobnicate", NULL}, 2, NULL, "unknown option");
    expect((const char *[]){"bench", "--device", "x", NULL}, 2, NULL, "GPU number");
    expect((const char *[]){"bench", "extra", NULL}, 2, NULL, "unexpected argument");
}

static void test_no_gpu_is_exit_3(void **state)
{
    (void)state;
    expect((const char *[]){"bench", "--quick", "--case", "copy.h2d.pinned", NULL}, 3, NULL,
           "no GPU");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_needs_no_gpu),
        cmocka_unit_test(test_option_errors),
        cmocka_unit_test(test_no_gpu_is_exit_3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
