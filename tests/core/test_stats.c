/* SPDX-License-Identifier: Apache-2.0 */
/* Median, spread and nearest-rank percentiles against inputs with known answers. */
#include "test_support.h"

#include <math.h>

#include "zerocopy/stats.h"

static void test_odd_count(void **state)
{
    (void)state;
    const double samples[] = {5, 1, 4, 2, 3};
    zc_stats s;
    assert_int_equal(zc_stats_compute(samples, 5, &s), ZC_OK);
    assert_int_equal(s.count, 5);
    assert_double_equal(s.min, 1, 0);
    assert_double_equal(s.max, 5, 0);
    assert_double_equal(s.median, 3, 0);
    assert_double_equal(s.mean, 3, 1e-12);
    assert_double_equal(s.stddev, sqrt(2.5), 1e-12);
    assert_double_equal(s.cov, sqrt(2.5) / 3.0, 1e-12);
    /* the input is left as it was */
    assert_double_equal(samples[0], 5, 0);
}

static void test_even_count_median_is_midpoint(void **state)
{
    (void)state;
    const double samples[] = {10, 2, 8, 4};
    zc_stats s;
    assert_int_equal(zc_stats_compute(samples, 4, &s), ZC_OK);
    assert_double_equal(s.median, 6, 0);
}

static void test_percentiles_nearest_rank(void **state)
{
    (void)state;
    double samples[1000];
    for (int i = 0; i < 1000; i++)
        samples[i] = 1000 - i; /* 1..1000, reversed */
    zc_stats s;
    assert_int_equal(zc_stats_compute(samples, 1000, &s), ZC_OK);
    assert_double_equal(s.p90, 900, 0);
    assert_double_equal(s.p99, 990, 0);
    assert_double_equal(s.p999, 999, 0);
    assert_double_equal(s.max, 1000, 0);

    /* with 10 samples, p99.9 is the largest (rank ceil(9.99) = 10) */
    assert_int_equal(zc_stats_compute(samples + 990, 10, &s), ZC_OK);
    assert_double_equal(s.p999, 10, 0);
    assert_double_equal(s.p90, 9, 0);
}

static void test_single_sample(void **state)
{
    (void)state;
    const double one = 42;
    zc_stats s;
    assert_int_equal(zc_stats_compute(&one, 1, &s), ZC_OK);
    assert_double_equal(s.median, 42, 0);
    assert_double_equal(s.stddev, 0, 0);
    assert_double_equal(s.cov, 0, 0);
    assert_double_equal(s.p999, 42, 0);
}

static void test_bad_input(void **state)
{
    (void)state;
    const double samples[] = {1, NAN, 3};
    zc_stats s;
    assert_int_equal(zc_stats_compute(NULL, 3, &s), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stats_compute(samples, 0, &s), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stats_compute(samples, 1, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stats_compute(samples, 3, &s), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stats_compute(samples, SIZE_MAX / 4, &s), ZC_ERR_OVERFLOW);

    const double sorted[] = {1, 2, 3};
    assert_true(isnan(zc_stats_percentile_sorted(sorted, 3, NAN)));
    assert_true(isnan(zc_stats_percentile_sorted(NULL, 3, 50)));
    assert_true(isnan(zc_stats_percentile_sorted(sorted, 0, 50)));
    assert_double_equal(zc_stats_percentile_sorted(sorted, 3, -1), 1, 0);
    assert_double_equal(zc_stats_percentile_sorted(sorted, 3, 200), 3, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_count),
        cmocka_unit_test(test_even_count_median_is_midpoint),
        cmocka_unit_test(test_percentiles_nearest_rank),
        cmocka_unit_test(test_single_sample),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
