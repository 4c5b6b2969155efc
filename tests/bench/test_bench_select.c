/* SPDX-License-Identifier: Apache-2.0 */
/* The case catalogue, key matching, case selection, size lists, names and method. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "zerocopy/bench.h"
#include "zerocopy/clock.h"

static void test_catalogue_keys_are_unique_and_complete(void **state)
{
    (void)state;
    size_t n = zc_bench_case_count();
    assert_true(n >= 30);
    assert_null(zc_bench_case_at(n));
    for (size_t i = 0; i < n; i++) {
        const zc_bench_case_info *a = zc_bench_case_at(i);
        assert_non_null(a);
        assert_true(strlen(a->key) > 0 && strlen(a->key) < ZC_BENCH_KEY_MAX);
        assert_non_null(a->group);
        assert_non_null(a->technique);
        assert_non_null(a->direction);
        assert_true(strlen(a->title) > 0);
        /* The key starts with its group. */
        assert_int_equal(strncmp(a->key, a->group, strlen(a->group)), 0);
        for (size_t j = i + 1; j < n; j++)
            assert_string_not_equal(a->key, zc_bench_case_at(j)->key);
    }
    /* The cases the issue names are there. */
    static const char *needed[] = {
        "copy.h2d.pinned",   "copy.d2h.pinned",         "copy.bidir.pinned",
        "copy.h2d.pageable", "copy.h2d.write_combined", "copy.h2d.registered",
        "zerocopy.read.16b", "zerocopy.write.16b",      "zerocopy.read.strided",
        "device.read.16b",   "managed.first_touch",     "managed.prefetched",
        "latency.pingpong",  "latency.gpu_read.host",   "latency.launch",
        "crossover.read_k",  "overlap.pipeline",        "zerocopy.read.random128",
    };
    for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++) {
        int found = 0;
        for (size_t i = 0; i < n; i++)
            found |= strcmp(zc_bench_case_at(i)->key, needed[k]) == 0;
        if (!found)
            fail_msg("case %s missing from the catalogue", needed[k]);
    }
}

static void test_key_matching(void **state)
{
    (void)state;
    assert_true(zc_bench_key_matches("copy", "copy.h2d.pinned"));
    assert_true(zc_bench_key_matches("copy.h2d", "copy.h2d.pinned"));
    assert_true(zc_bench_key_matches("copy.h2d.pinned", "copy.h2d.pinned"));
    assert_false(zc_bench_key_matches("copy.h", "copy.h2d.pinned"));
    assert_false(zc_bench_key_matches("copy.h2d.pinned.x", "copy.h2d.pinned"));
    assert_false(zc_bench_key_matches("latency", "copy.h2d.pinned"));
    assert_true(zc_bench_key_matches("*.pinned", "copy.h2d.pinned"));
    assert_true(zc_bench_key_matches("copy.*.pinned", "copy.bidir.pinned"));
    assert_false(zc_bench_key_matches("copy.*.pinned", "copy.bidir.pageable"));
    assert_true(zc_bench_key_matches("copy.h?d.pinned", "copy.h2d.pinned"));
    assert_false(zc_bench_key_matches("", "copy.h2d.pinned"));
    assert_false(zc_bench_key_matches(NULL, "copy"));
    assert_true(zc_bench_key_matches("*", "copy.h2d.pinned"));
    assert_true(zc_bench_key_matches("c*y.*2*.p*d", "copy.h2d.pinned"));
    assert_false(zc_bench_key_matches("c*y.*3*.p*d", "copy.h2d.pinned"));
    assert_true(zc_bench_key_matches("*d", "copy.h2d.pinned"));
    assert_false(zc_bench_key_matches("*x", "copy.h2d.pinned"));
    /* Many stars and no match: answered at once (a recursive matcher took minutes). */
    char stars[64];
    memset(stars, '*', 40);
    strcpy(stars + 40, "#");
    uint64_t t0 = zc_clock_ns();
    assert_false(zc_bench_key_matches(stars, "copy.h2d.pinned.and.a.long.key.to.try"));
    assert_true(zc_clock_ns() - t0 < 100000000ull);
}

static size_t count_selected(const unsigned char *sel, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += sel[i];
    return c;
}

static void test_selection(void **state)
{
    (void)state;
    size_t n = zc_bench_case_count(), matched = 99;
    unsigned char *sel = calloc(n, 1);
    assert_non_null(sel);
    assert_int_equal(zc_bench_select(NULL, sel, n, &matched), ZC_OK);
    assert_int_equal(matched, n);
    assert_int_equal(count_selected(sel, n), n);

    assert_int_equal(zc_bench_select("copy.h2d", sel, n, &matched), ZC_OK);
    assert_int_equal(matched, 4);
    /* A dotted prefix takes the key and the keys below it: latency.pingpong.acquire too. */
    assert_int_equal(zc_bench_select("copy.h2d.pinned,latency.pingpong", sel, n, &matched), ZC_OK);
    assert_int_equal(matched, 3);
    assert_int_equal(zc_bench_select("*.pinned", sel, n, &matched), ZC_OK);
    assert_true(matched >= 3);
    for (size_t i = 0; i < n; i++)
        if (sel[i])
            assert_true(strstr(zc_bench_case_at(i)->key, "pinned") != NULL);
    /* Overlapping patterns select a case once. */
    assert_int_equal(zc_bench_select("copy,copy.h2d", sel, n, &matched), ZC_OK);
    assert_int_equal(matched, 12);

    /* A pattern that matches nothing is an error naming it, and leaves the selection alone. */
    memset(sel, 7, n);
    assert_int_equal(zc_bench_select("copy,nothing.here", sel, n, &matched), ZC_ERR_NOT_FOUND);
    assert_non_null(strstr(zc_last_error(), "nothing.here"));
    assert_int_equal(sel[0], 7);
    assert_int_equal(zc_bench_select("copy,,latency", sel, n, &matched), ZC_ERR_NOT_FOUND);
    assert_int_equal(zc_bench_select("copy", sel, n - 1, &matched), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_bench_select("copy", NULL, n, &matched), ZC_ERR_INVALID_ARG);
    free(sel);
}

static void test_sizes(void **state)
{
    (void)state;
    size_t s[8], n = 0;
    assert_int_equal(zc_bench_sizes_parse("4K,64K,1M,256M,1G,100,8B,2KiB", s, 8, &n), ZC_OK);
    assert_int_equal(n, 8);
    assert_int_equal(s[0], 4096);
    assert_int_equal(s[1], 65536);
    assert_int_equal(s[2], 1 << 20);
    assert_int_equal(s[3], 256u << 20);
    assert_int_equal(s[4], 1u << 30);
    assert_int_equal(s[5], 100);
    assert_int_equal(s[6], 8);
    assert_int_equal(s[7], 2048);
    n = 42;
    static const char *bad[] = {"",    "x",   "4X",   "0",    "-4K",   "4K,",
                                ",4K", "65G", "1.3K", "4  K", "4K,,8K"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (zc_bench_sizes_parse(bad[i], s, 8, &n) != ZC_ERR_PARSE)
            fail_msg("'%s' was accepted as a size list", bad[i]);
        assert_int_equal(n, 42); /* untouched on failure */
    }
    /* The one size grammar of zerocopy/size.h: fractions of a unit and one space are sizes. */
    assert_int_equal(zc_bench_sizes_parse("1.5M,4 K", s, 8, &n), ZC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(s[0], 1572864);
    assert_int_equal(s[1], 4096);
    assert_int_equal(zc_bench_sizes_parse("1,2,3", s, 2, &n), ZC_ERR_PARSE);
    assert_int_equal(zc_bench_sizes_parse("64G", s, 1, &n), ZC_OK);
    assert_int_equal(s[0], (size_t)64 << 30);
}

static void test_names_and_method(void **state)
{
    (void)state;
    assert_string_equal(zc_bench_mode_name(ZC_BENCH_QUICK), "quick");
    assert_string_equal(zc_bench_mode_name(ZC_BENCH_DEFAULT), "default");
    assert_string_equal(zc_bench_mode_name(ZC_BENCH_FULL), "full");
    assert_string_equal(zc_bench_outcome_name(ZC_BENCH_FAIL), "FAIL");
    assert_string_equal(zc_bench_outcome_name(ZC_BENCH_SKIPPED), "skipped");
    assert_string_equal(zc_bench_metric_unit(ZC_BENCH_BANDWIDTH), "GB/s");
    assert_string_equal(zc_bench_metric_unit(ZC_BENCH_LATENCY), "us");
    zc_bench_method q, d, f;
    assert_int_equal(zc_bench_method_get(ZC_BENCH_QUICK, &q), ZC_OK);
    assert_int_equal(zc_bench_method_get(ZC_BENCH_DEFAULT, &d), ZC_OK);
    assert_int_equal(zc_bench_method_get(ZC_BENCH_FULL, &f), ZC_OK);
    assert_true(q.max_samples <= d.max_samples && d.max_samples <= f.max_samples);
    assert_true(q.min_samples <= q.max_samples);
    assert_true(d.cov_target > 0.0 && d.cov_target < 0.05);
    assert_double_equal(d.gb_bytes, 1e9, 0);
    assert_true(q.warmups >= 1);
    assert_int_equal(zc_bench_method_get((zc_bench_mode)9, &q), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_bench_method_text(), "gate"));
    assert_non_null(strstr(zc_bench_method_text(), "1e9"));
    zc_bench_config c;
    zc_bench_config_init(&c);
    assert_int_equal(c.mode, ZC_BENCH_DEFAULT);
    assert_null(c.sizes);
    assert_null(c.corrupt_key);
    /* A size of 0 is refused before any device is touched. */
    static const size_t zero[] = {4096, 0};
    c.sizes = zero;
    c.size_count = 2;
    zc_bench_ctx *ctx = NULL;
    assert_int_equal(zc_bench_ctx_create(&c, &ctx), ZC_ERR_INVALID_ARG);
    assert_null(ctx);
    /* So is a gate timeout that is negative, not a number or absurd. */
    c.size_count = 0;
    c.sizes = NULL;
    const double bad_gates[] = {-1.0, NAN, 1e9};
    for (size_t i = 0; i < 3; i++) {
        c.gate_timeout_s = bad_gates[i];
        assert_int_equal(zc_bench_ctx_create(&c, &ctx), ZC_ERR_INVALID_ARG);
        assert_non_null(strstr(zc_last_error(), "gate_timeout_s"));
        assert_null(ctx);
    }
}

static void test_result_points(void **state)
{
    (void)state;
    zc_bench_result r;
    assert_int_equal(zc_bench_result_init(&r, "copy.h2d.pinned"), ZC_OK);
    double samples[] = {50.0, 52.0, 51.0, 55.0, 54.0};
    assert_int_equal(zc_bench_result_add(&r, "v", 4096, "k", 2.0, ZC_BENCH_BANDWIDTH, 1e6, 3.0,
                                         samples, 5, 2, 1),
                     ZC_OK);
    samples[0] = 99.0; /* the result keeps its own copy */
    assert_int_equal(r.point_count, 1);
    assert_double_equal(r.points[0].stats.median, 52.0, 1e-12);
    assert_double_equal(r.points[0].samples[0], 50.0, 1e-12);
    assert_int_equal(r.points[0].warmups, 2);
    assert_string_equal(r.points[0].param_name, "k");
    assert_int_equal(
        zc_bench_result_add(&r, NULL, 1, NULL, 7.0, ZC_BENCH_LATENCY, 0, 1, samples, 0, 0, 1),
        ZC_ERR_INVALID_ARG);
    assert_int_equal(
        zc_bench_result_add(&r, NULL, 1, NULL, 7.0, ZC_BENCH_LATENCY, 0, 1, samples, 1, 0, 1),
        ZC_OK);
    assert_double_equal(r.points[1].param, 0.0, 0); /* no name, no value */
    zc_bench_result_clear(&r);
    assert_int_equal(r.point_count, 0);
    assert_null(r.points);
    zc_bench_result_clear(NULL);
    char longkey[ZC_BENCH_KEY_MAX + 4];
    memset(longkey, 'a', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    assert_int_equal(zc_bench_result_init(&r, longkey), ZC_ERR_INVALID_ARG);
    zc_bench_ctx_destroy(NULL);
}

/* Every launch shape the tune cases sweep is one the kernels accept and an SM can hold. */
static void test_launch_shapes(void **state)
{
    (void)state;
    assert_true(ZC__SHAPE_DEFAULT < zc__shape_count);
    assert_int_equal(zc__shapes[ZC__SHAPE_DEFAULT].streaming, 0);
    for (size_t i = 0; i < zc__shape_count; i++) {
        const zc__kshape *k = &zc__shapes[i];
        assert_true(strlen(k->name) > 0);
        assert_true(k->unroll == 1 || k->unroll == 2 || k->unroll == 4 || k->unroll == 8);
        assert_true(k->threads >= 32 && k->threads <= 1024 && k->threads % 32 == 0);
        assert_true(k->blocks_per_sm >= 0);
        /* 2048 resident threads per SM on every architecture built for. */
        assert_true(k->blocks_per_sm * k->threads <= 2048);
        assert_true(!k->contiguous || k->unroll > 1);
        for (size_t j = i + 1; j < zc__shape_count; j++)
            assert_string_not_equal(k->name, zc__shapes[j].name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalogue_keys_are_unique_and_complete),
        cmocka_unit_test(test_key_matching),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_names_and_method),
        cmocka_unit_test(test_result_points),
        cmocka_unit_test(test_launch_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
