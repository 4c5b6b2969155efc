/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's block_copies on hand-made logs: it fires on a loop of equal blocks copied one call
 * each between pinned and device memory, and not on a few, on varied sizes, on pageable memory,
 * on one large copy or on one block per program step; its price is the copies' time less the
 * block mover's prediction from the profile fitted to the committed H100 bench document, and
 * there is none without a measured profile. */
#include "test_support.h"
#include "test_json_file.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "trace_log_text.h"
#include "zerocopy/advise.h"
#include "zerocopy/json.h"
#include "zerocopy/trace.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)

/* 64 KiB at the naive loop's 17.11 GB/s on the H100 (blocks.md): 3830 ns a block. */
#define BLOCK_NS 3830ull

/* The profile fitted to the committed H100 document's block family. */
static zc_blocks_profile h100_profile(void)
{
    cJSON *doc = zc_test_json_file(ZC_BLOCKS_BENCH);
    zc_blocks_profile p;
    if (zc_blocks_bench_from_json(doc, 0, &p, NULL, NULL) != ZC_OK)
        fail_msg("fit refused: %s", zc_last_error());
    cJSON_Delete(doc);
    return p;
}

static zc_trace_report *analyze_with(const char *text, const zc_blocks_profile *profile)
{
    zc_trace_log log;
    zc_trace_log_init(&log);
    if (zc_trace_log_read_text(&log, text, "blocks.log") != ZC_OK)
        fail_msg("parse failed: %s", log.error);
    zc_trace_params params = {55.0, "test", 0, profile, NULL};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_OK);
    zc_trace_log_free(&log);
    for (size_t i = 0; i < report->finding_count; i++)
        fprintf(stderr, "  finding %s: %s\n", report->findings[i].key,
                report->findings[i].evidence);
    return report;
}

/* count copies of bytes each way dir names, one after the other from *now with gap_ns between
 * them; *now moves past them. */
static void copies(log_text *t, uint64_t *now, int count, unsigned long long bytes, const char *dir,
                   const char *src, const char *dst, uint64_t ns_each, uint64_t gap_ns)
{
    for (int i = 0; i < count; i++, *now += ns_each + gap_ns)
        fprintf(t->f, "copy %s %s %s %llu %llu %llu 7 1 0\n", dir, src, dst, bytes,
                (unsigned long long)*now, (unsigned long long)(*now + ns_each));
}

/* A log of count blocks of bytes from pinned memory to the device, one call each. */
static char *block_loop(int count, unsigned long long bytes, const char *src)
{
    log_text t;
    log_open(&t, 2, 64 * GIB);
    uint64_t now = 5000000;
    copies(&t, &now, count, bytes, "h2d", src, "device", BLOCK_NS, 1000);
    log_close(&t);
    return t.text;
}

static void expect_only(const zc_trace_report *r, const char *key)
{
    if (key == NULL) {
        assert_int_equal(r->finding_count, 0);
        return;
    }
    assert_non_null(zc_trace_report_find(r, key));
    assert_int_equal(r->finding_count, 1);
}

static void test_fires_on_a_loop_of_blocks(void **state)
{
    (void)state;
    char *text = block_loop(256, 64 * KIB, "pinned");
    zc_trace_report *r = analyze_with(text, NULL);
    /* 64 KiB is not small (small_transfers counts copies under it): block_copies alone. */
    expect_only(r, "block_copies");
    const zc_trace_finding *f = zc_trace_report_find(r, "block_copies");
    assert_int_equal(f->severity, ZC_TRACE_WARNING);
    assert_int_equal(f->count, 256);
    assert_int_equal(f->bytes, 256 * 64 * KIB);
    assert_double_equal(f->time_s, 256 * BLOCK_NS * 1e-9, 1e-12);
    /* No profile, no price; the evidence says how to get one. */
    assert_true(f->saving_s < 0);
    assert_non_null(strstr(f->evidence, "256 x 64 KiB to the device"));
    assert_non_null(strstr(f->evidence, "zc trace --bench FILE"));
    assert_non_null(strstr(f->fix, "zc_blocks_move"));
    assert_non_null(strstr(f->fix, "zerocopy.Mover"));
    assert_non_null(strstr(f->fix, "docs/blocks.md"));
    assert_non_null(strstr(f->fix, "zc advise --blocks"));
    free(r);
    free(text);
}

static void test_quiet_below_its_count(void **state)
{
    (void)state;
    const int counts[] = {10, ZC_TRACE_BLOCK_MIN_COUNT - 1};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char *text = block_loop(counts[i], 64 * KIB, "pinned");
        zc_trace_report *r = analyze_with(text, NULL);
        expect_only(r, NULL);
        free(r);
        free(text);
    }
    /* At the count it fires. */
    char *text = block_loop(ZC_TRACE_BLOCK_MIN_COUNT, 64 * KIB, "pinned");
    zc_trace_report *r = analyze_with(text, NULL);
    expect_only(r, "block_copies");
    free(r);
    free(text);
}

/* 256 copies of eight sizes, 32 of each: no size makes a move. */
static void test_quiet_on_varied_sizes(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 2, 64 * GIB);
    uint64_t now = 5000000;
    for (int i = 0; i < 256; i++)
        copies(&t, &now, 1, 64 * KIB + (unsigned long long)(i % 8) * 4 * KIB, "h2d", "pinned",
               "device", BLOCK_NS, 1000);
    log_close(&t);
    zc_trace_report *r = analyze_with(t.text, NULL);
    expect_only(r, NULL);
    free(r);
    free(t.text);
}

/* Pageable blocks are pageable_transfers' to report: the mover takes pinned memory only, and
 * pinning is the first fix. */
static void test_quiet_on_pageable(void **state)
{
    (void)state;
    char *text = block_loop(256, 64 * KIB, "pageable");
    zc_trace_report *r = analyze_with(text, NULL);
    expect_only(r, "pageable_transfers");
    free(r);
    free(text);
}

static void test_quiet_on_one_large_copy(void **state)
{
    (void)state;
    char *text = block_loop(1, 16 * MIB, "pinned");
    zc_trace_report *r = analyze_with(text, NULL);
    expect_only(r, NULL);
    free(r);
    free(text);
    /* Nor on a loop of blocks over 4 MiB, where a loop runs within a few % of the mover. */
    text = block_loop(256, ZC_TRACE_BLOCK_MAX_BYTES + 4 * KIB, "pinned");
    r = analyze_with(text, NULL);
    expect_only(r, NULL);
    free(r);
    free(text);
}

/* One block per program step, a kernel's time between them: no move to make in one call. */
static void test_quiet_on_one_block_per_step(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 2, 64 * GIB);
    uint64_t now = 5000000;
    copies(&t, &now, 256, 64 * KIB, "h2d", "pinned", "device", BLOCK_NS,
           ZC_TRACE_BLOCK_MAX_GAP_NS + 1000);
    log_close(&t);
    zc_trace_report *r = analyze_with(t.text, NULL);
    expect_only(r, NULL);
    free(r);
    free(t.text);
}

/* Moves each way and repeated: two moves of 128 blocks to the device apart by a step, and one
 * of 64 blocks of 1 MiB back, are three moves; 100 blocks in two runs of 50 are none. */
static void test_moves_each_way(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 2, 64 * GIB);
    uint64_t now = 5000000;
    copies(&t, &now, 128, 64 * KIB, "h2d", "pinned", "device", BLOCK_NS, 1000);
    now += 2000000;
    copies(&t, &now, 128, 64 * KIB, "h2d", "pinned", "device", BLOCK_NS, 1000);
    copies(&t, &now, 64, MIB, "d2h", "device", "pinned", 21000, 1000);
    copies(&t, &now, 50, 256 * KIB, "h2d", "pinned", "device", 6000, 1000);
    now += 2000000;
    copies(&t, &now, 50, 256 * KIB, "h2d", "pinned", "device", 6000, 1000);
    log_close(&t);
    zc_trace_report *r = analyze_with(t.text, NULL);
    expect_only(r, "block_copies");
    const zc_trace_finding *f = zc_trace_report_find(r, "block_copies");
    assert_int_equal(f->count, 320);
    assert_int_equal(f->bytes, 256 * 64 * KIB + 64 * MIB);
    assert_non_null(strstr(f->evidence, "in 3 moves"));
    assert_non_null(strstr(f->evidence, "256 pinned -> device, 64 device -> pinned"));
    assert_non_null(strstr(f->evidence, "64 x 1 MiB to the host"));
    free(r);
    free(t.text);
}

/* 4 KiB blocks are small copies too: both findings fire, each with its own fix (one staging
 * buffer; the mover, priced). */
static void test_beside_small_transfers(void **state)
{
    (void)state;
    char *text = block_loop(300, 4 * KIB, "pinned");
    zc_trace_report *r = analyze_with(text, NULL);
    assert_non_null(zc_trace_report_find(r, "small_transfers"));
    assert_non_null(zc_trace_report_find(r, "block_copies"));
    assert_int_equal(r->finding_count, 2);
    free(r);
    free(text);
}

/* The price: the copies' time less the best engine's predicted time for the same move, the
 * ranking zc advise --blocks gives. */
static void test_priced_with_the_h100_profile(void **state)
{
    (void)state;
    zc_blocks_profile p = h100_profile();
    char *text = block_loop(256, 64 * KIB, "pinned");
    zc_trace_report *r = analyze_with(text, &p);
    const zc_trace_finding *f = zc_trace_report_find(r, "block_copies");
    assert_non_null(f);
    zc_blocks_workload w = {64 * KIB, 256, ZC_BLOCKS_TO_DEVICE, 0};
    zc_blocks_advice a;
    assert_int_equal(zc_blocks_advise(&p, NULL, &w, &a), ZC_OK);
    double mover_s = a.ranked[0].predicted_us * 1e-6;
    fprintf(stderr,
            "  256 x 64 KiB to the device: copies %.1f us, the mover (%s) %.1f us, saving "
            "%.1f us\n",
            f->time_s * 1e6, zc_blocks_engine_name(a.ranked[0].engine), mover_s * 1e6,
            f->saving_s * 1e6);
    assert_true(f->saving_s > 0);
    assert_true(f->saving_s < f->time_s);
    assert_double_equal(f->saving_s, f->time_s - mover_s, 1e-12);
    assert_non_null(strstr(f->evidence, zc_blocks_engine_name(a.ranked[0].engine)));
    assert_null(strstr(f->evidence, "zc trace --bench FILE"));
    free(r);

    /* Copies already as fast as the mover: the saving is 0, never negative. */
    free(text);
    log_text t;
    log_open(&t, 2, 64 * GIB);
    uint64_t now = 5000000;
    copies(&t, &now, 256, 64 * KIB, "h2d", "pinned", "device", 10, 1000);
    log_close(&t);
    r = analyze_with(t.text, &p);
    assert_true(zc_trace_report_find(r, "block_copies")->saving_s == 0.0);
    free(r);
    free(t.text);
}

/* The placeholder profile is no measurement: no price. A profile the mover would refuse fails
 * the analysis. */
static void test_unmeasured_and_bad_profiles(void **state)
{
    (void)state;
    zc_blocks_profile p;
    assert_int_equal(zc_blocks_profile_default(&p), ZC_OK);
    char *text = block_loop(256, 64 * KIB, "pinned");
    zc_trace_report *r = analyze_with(text, &p);
    assert_true(zc_trace_report_find(r, "block_copies")->saving_s < 0);
    free(r);

    p = h100_profile();
    p.batch_max = 0;
    zc_trace_log log;
    zc_trace_log_init(&log);
    assert_int_equal(zc_trace_log_read_text(&log, text, "blocks.log"), ZC_OK);
    zc_trace_params params = {55.0, "test", 0, &p, NULL};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "zc_trace_analyze"));
    free(report);
    zc_trace_log_free(&log);
    free(text);
}

/* A bench document without the block family gives no profile: zc trace --bench reads the
 * ceiling alone from it, as before, and block_copies goes unpriced (tested above). */
static void test_document_without_blocks(void **state)
{
    (void)state;
    cJSON *doc = cJSON_Parse(
        "{\"schema\":\"zerocopy.bench/1\",\"cases\":["
        "{\"key\":\"copy.h2d.pinned\",\"group\":\"copy\",\"technique\":\"pinned\","
        "\"direction\":\"h2d\",\"outcome\":\"ok\",\"points\":["
        "{\"bytes\":268435456,\"metric\":\"bandwidth\",\"stats\":{\"median\":55.4}}]}]}");
    assert_non_null(doc);
    double gbps = 0;
    assert_int_equal(zc_bench_copy_ceiling_from_json(doc, &gbps), ZC_OK);
    assert_double_equal(gbps, 55.4, 1e-9);
    zc_blocks_profile p;
    assert_int_equal(zc_blocks_bench_from_json(doc, 0, &p, NULL, NULL), ZC_ERR_NOT_FOUND);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fires_on_a_loop_of_blocks),
        cmocka_unit_test(test_quiet_below_its_count),
        cmocka_unit_test(test_quiet_on_varied_sizes),
        cmocka_unit_test(test_quiet_on_pageable),
        cmocka_unit_test(test_quiet_on_one_large_copy),
        cmocka_unit_test(test_quiet_on_one_block_per_step),
        cmocka_unit_test(test_moves_each_way),
        cmocka_unit_test(test_beside_small_transfers),
        cmocka_unit_test(test_priced_with_the_h100_profile),
        cmocka_unit_test(test_unmeasured_and_bad_profiles),
        cmocka_unit_test(test_document_without_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
