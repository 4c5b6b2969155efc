/* SPDX-License-Identifier: Apache-2.0 */
/* The comparison table from bench results (zc_bench_compare, src/bench/compare.c): each figure
 * from its case, the largest size of a sweep, the best shape of a tune case, NAN for what was
 * not measured or not OK, and its checks. No GPU: the results are made by hand. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "zerocopy/bench.h"

/* A result of key with one point per (bytes, value), each of three equal samples. */
static void result(zc_bench_result *r, const char *key, const size_t *bytes, const double *value,
                   size_t n, zc_bench_metric metric)
{
    assert_int_equal(zc_bench_result_init(r, key), ZC_OK);
    for (size_t i = 0; i < n; i++) {
        double samples[3] = {value[i], value[i], value[i]};
        assert_int_equal(
            zc_bench_result_add(r, NULL, bytes[i], NULL, 0.0, metric, 0.0, 1.0, samples, 3, 0, 1),
            ZC_OK);
    }
}

static void test_rows_from_cases(void **state)
{
    (void)state;
    zc_bench_result r[5];
    const size_t sweep[] = {4096, 1u << 20, 64u << 20};
    const double pinned[] = {2.0, 30.0, 55.5}; /* the largest size is the steady state */
    result(&r[0], "copy.h2d.pinned", sweep, pinned, 3, ZC_BENCH_BANDWIDTH);
    const size_t shapes[] = {1u << 20, 1u << 20};
    const double tune[] = {40.0, 51.0}; /* the best shape of a tune case */
    result(&r[1], "zerocopy.read.tune", shapes, tune, 2, ZC_BENCH_BANDWIDTH);
    const size_t at[] = {4, 4096};
    const double rtt[] = {9.0, 21.5};
    result(&r[2], "latency.roundtrip.pinned", at, rtt, 2, ZC_BENCH_LATENCY);
    result(&r[3], "copy.h2d.write_combined", sweep, pinned, 3, ZC_BENCH_BANDWIDTH);
    r[3].outcome = ZC_BENCH_FAIL; /* a failed case gives nothing */
    const double other[] = {1.0};
    result(&r[4], "no.such.case", sweep, other, 1, ZC_BENCH_BANDWIDTH); /* ignored */

    zc_bench_compare_row rows[ZC_BENCH_COMPARE_ROWS];
    assert_int_equal(zc_bench_compare(r, 5, rows), ZC_OK);
    const char *techniques[] = {"pageable", "pinned", "write_combined", "registered",
                                "mapped",   "uva",    "managed"};
    for (int i = 0; i < ZC_BENCH_COMPARE_ROWS; i++)
        assert_string_equal(rows[i].technique, techniques[i]);
    assert_double_equal(rows[1].h2d_gbps, 55.5, 1e-12);
    assert_true(isnan(rows[1].d2h_gbps)); /* copy.d2h.pinned was not run */
    assert_double_equal(rows[1].latency_us, 21.5, 1e-12);
    assert_true(isnan(rows[2].h2d_gbps)); /* failed */
    assert_true(isnan(rows[0].h2d_gbps));
    assert_double_equal(rows[4].access_read_gbps, 51.0, 1e-12);
    assert_double_equal(rows[5].access_read_gbps, 51.0, 1e-12); /* UVA reads as mapped */
    assert_true(isnan(rows[4].latency_us));
    assert_string_equal(rows[4].needs_copy, "no");
    assert_true(strlen(rows[6].best_use) > 0);
    for (int i = 0; i < 5; i++)
        zc_bench_result_clear(&r[i]);
}

static void test_checks(void **state)
{
    (void)state;
    zc_bench_compare_row rows[ZC_BENCH_COMPARE_ROWS];
    assert_int_equal(zc_bench_compare(NULL, 0, rows), ZC_OK); /* nothing measured: all NAN */
    assert_true(isnan(rows[1].h2d_gbps));
    assert_int_equal(zc_bench_compare(NULL, 3, rows), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "zc_bench_compare"));
    zc_bench_result one;
    assert_int_equal(zc_bench_result_init(&one, "copy.h2d.pinned"), ZC_OK);
    assert_int_equal(zc_bench_compare(&one, 1, NULL), ZC_ERR_INVALID_ARG);
    zc_bench_result_clear(&one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_from_cases),
        cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
