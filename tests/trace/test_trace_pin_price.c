/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's slow_pinned_alloc priced from the pinning family: with the committed H100
 * document's curves the fastpin cure's saving is the program's allocations of 64 MiB and more
 * less zerocopy's path predicted for the same sizes; smaller and write-combined ones are not
 * served; hand-made curves move the price as they move; without curves the finding is as it
 * was. */
#include "test_support.h"
#include "test_pinning_curves.h"

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "trace_log_text.h"
#include "zerocopy/advise.h"
#include "zerocopy/json.h"
#include "zerocopy/trace.h"

#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)
#define MS  1000000ull

static zc_pinning_curves h100_curves(void)
{
    return zc_test_pinning_curves(ZC_PINNING_BENCH);
}

/* The slow_pinned_alloc finding of the log analysed with curves (may be NULL), copied out. */
static zc_trace_finding slow_pin(const char *text, const zc_pinning_curves *curves)
{
    zc_trace_log log;
    zc_trace_log_init(&log);
    if (zc_trace_log_read_text(&log, text, "pin.log") != ZC_OK)
        fail_msg("parse failed: %s", log.error);
    zc_trace_params params = {55.0, "test", 0, NULL, curves};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_OK);
    zc_trace_log_free(&log);
    const zc_trace_finding *f = zc_trace_report_find(report, "slow_pinned_alloc");
    if (f == NULL)
        fail_msg("no slow_pinned_alloc");
    zc_trace_finding out = *f;
    fprintf(stderr, "  %s: %s (saving %g)\n", out.key, out.evidence, out.saving_s);
    free(report);
    return out;
}

/* One cudaHostAlloc of bytes with flags, taking ns, from *now; *now moves past it. */
static void host_alloc(log_text *t, uint64_t *now, unsigned long long bytes, unsigned flags,
                       uint64_t ns, unsigned id)
{
    fprintf(t->f, "api hostalloc %llu %u 7f00000%05x %llu %llu 1 rt\n", bytes, flags, id,
            (unsigned long long)*now, (unsigned long long)(*now + ns));
    *now += ns + 1000;
}

/* 4 GiB in 2.043 s (cudaHostAlloc's curve there), 32 MiB in 20 ms, a write-combined 1 GiB in
 * 510 ms. */
static char *program(void)
{
    log_text t;
    log_open(&t, 1, 64 * GIB);
    uint64_t now = 1000000;
    host_alloc(&t, &now, 4 * GIB, 0, 2043 * MS, 1);
    host_alloc(&t, &now, 32 * MIB, 0, 20 * MS, 2);
    host_alloc(&t, &now, GIB, 0x4, 510 * MS, 3);
    log_close(&t);
    return t.text;
}

static void test_h100_price(void **state)
{
    (void)state;
    char *text = program();
    zc_pinning_curves c = h100_curves();
    zc_trace_finding f = slow_pin(text, &c);
    /* Only the 4 GiB one is served: zerocopy's curve at 4 GiB, interpolated per byte. */
    zc_pinning_advice a;
    assert_int_equal(zc_pinning_advise(&c, 4 * GIB, &a), ZC_OK);
    double zc = NAN;
    for (size_t i = 0; i < a.count; i++)
        zc = a.ranked[i].way == ZC_PINNING_ZEROCOPY ? a.ranked[i].seconds : zc;
    assert_true(fabs(f.saving_s - (2.043 - zc)) < 1e-9);
    assert_true(f.saving_s > 1.7 && f.saving_s < 1.9);
    assert_non_null(strstr(f.evidence, "3 cudaHostAlloc/cudaMallocHost calls took"));
    assert_non_null(strstr(f.evidence, "predicts 229.8 ms"));
    assert_non_null(
        strstr(f.evidence, "for the 1 allocation of 64 MiB or more that zc run --fix fastpin"));
    assert_non_null(strstr(f.evidence, "(4 GiB, 2.04 s now)"));
    assert_null(strstr(f.evidence, "extrapolated"));
    free(text);
}

/* The price follows the curve: halve zerocopy's cost and the saving grows by what it saved. */
static void test_price_follows_curve(void **state)
{
    (void)state;
    char *text = program();
    zc_pinning_curves c;
    memset(&c, 0, sizeof c);
    zc_pinning_curve *z = &c.way[ZC_PINNING_ZEROCOPY];
    z->count = 1;
    z->bytes[0] = GIB;
    z->seconds[0] = 0.1; /* 0.4 s at 4 GiB, extrapolated */
    zc_trace_finding f = slow_pin(text, &c);
    assert_true(fabs(f.saving_s - (2.043 - 0.4)) < 1e-9);
    assert_non_null(strstr(f.evidence, "extrapolated beyond its measured sizes"));
    z->seconds[0] = 0.05;
    f = slow_pin(text, &c);
    assert_true(fabs(f.saving_s - (2.043 - 0.2)) < 1e-9);
    /* A path slower than the program's own saves nothing, never less. */
    z->seconds[0] = 1.0;
    f = slow_pin(text, &c);
    assert_true(f.saving_s == 0.0);
    free(text);
}

/* Nothing the cure serves: a saving of 0, said. */
static void test_nothing_served(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GIB);
    uint64_t now = 1000000;
    for (unsigned i = 0; i < 20; i++)
        host_alloc(&t, &now, 32 * MIB, 0, 20 * MS, i);
    log_close(&t);
    zc_pinning_curves c = h100_curves();
    zc_trace_finding f = slow_pin(t.text, &c);
    assert_true(f.saving_s == 0.0);
    assert_non_null(strstr(f.evidence, "none of them is of 64 MiB or more"));
    free(t.text);
}

/* Without curves, or with curves that lack zerocopy's way: the finding as before. */
static void test_without_curves(void **state)
{
    (void)state;
    char *text = program();
    zc_trace_finding before = slow_pin(text, NULL);
    assert_true(before.saving_s < 0.0);
    assert_string_equal(before.evidence,
                        "3 cudaHostAlloc/cudaMallocHost calls took 2.57 s for 5.03 GiB (511 ms "
                        "per GiB)");
    zc_pinning_curves c = h100_curves();
    memset(&c.way[ZC_PINNING_ZEROCOPY], 0, sizeof c.way[ZC_PINNING_ZEROCOPY]);
    zc_trace_finding without = slow_pin(text, &c);
    assert_string_equal(without.evidence, before.evidence);
    assert_true(without.saving_s < 0.0);
    free(text);
}

/* A curve out of order is refused by the analysis. */
static void test_bad_curve(void **state)
{
    (void)state;
    char *text = program();
    zc_pinning_curves c = h100_curves();
    c.way[ZC_PINNING_ZEROCOPY].bytes[2] = 1;
    zc_trace_log log;
    zc_trace_log_init(&log);
    assert_int_equal(zc_trace_log_read_text(&log, text, "pin.log"), ZC_OK);
    zc_trace_params params = {55.0, "test", 0, NULL, &c};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "pinning_curves"));
    free(report);
    zc_trace_log_free(&log);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_price),     cmocka_unit_test(test_price_follows_curve),
        cmocka_unit_test(test_nothing_served), cmocka_unit_test(test_without_curves),
        cmocka_unit_test(test_bad_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
