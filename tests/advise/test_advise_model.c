/* SPDX-License-Identifier: Apache-2.0 */
/* The cost model on recorded profiles: an H200 from the baseline and a contrasting Gen4 x8. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "advise_files.h"
#include "zerocopy/size.h"

static zc_profile load(const char *name, char *notes, size_t notes_size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", ZC_ADVISE_FIXTURES, name);
    zc_profile p;
    zc_status status = zc_test_profile_load(path, &p, NULL, notes, notes_size);
    if (status != ZC_OK)
        fail_msg("loading %s: %s: %s", path, zc_status_str(status), zc_last_error());
    return p;
}

static zc_workload workload(size_t bytes, double transfers, zc_direction dir, double k)
{
    zc_workload w;
    memset(&w, 0, sizeof w);
    w.bytes = bytes;
    w.transfers = transfers;
    w.direction = dir;
    w.gpu_accesses = k;
    w.pattern = ZC_ACCESS_COALESCED;
    return w;
}

static zc_prediction predict(const zc_profile *p, const zc_workload *w, zc_technique t)
{
    zc_prediction r;
    zc_status status = zc_advise_predict(p, w, t, &r);
    if (status != ZC_OK)
        fail_msg("predict %s: %s", zc_technique_key(t), zc_last_error());
    return r;
}

static void test_curve_interpolates_time(void **state)
{
    (void)state;
    zc_curve c;
    memset(&c, 0, sizeof c);
    assert_int_equal(zc_curve_add(&c, 1 << 20, 10.0), ZC_OK);
    assert_int_equal(zc_curve_add(&c, 4096, 1.0), ZC_OK);
    assert_int_equal(zc_curve_add(&c, 4096, 0.5), ZC_OK); /* replaces */
    assert_int_equal(c.count, 2);
    assert_int_equal(c.bytes[0], 4096);
    double us = 0.0;
    assert_int_equal(zc_curve_time_us(&c, 4096, &us), ZC_OK);
    assert_double_equal(us, 4096 / 0.5e3, 1e-9);
    assert_int_equal(zc_curve_time_us(&c, 1024, &us), ZC_OK);
    assert_double_equal(us, 4096 / 0.5e3, 1e-9); /* never below the smallest measured */
    double t0 = 4096 / 0.5e3, t1 = (1 << 20) / 10e3;
    size_t mid = (4096 + (1 << 20)) / 2;
    assert_int_equal(zc_curve_time_us(&c, mid, &us), ZC_OK);
    assert_double_equal(us, t0 + (t1 - t0) * (double)(mid - 4096) / (double)((1 << 20) - 4096),
                        1e-6);
    assert_int_equal(zc_curve_time_us(&c, 2 << 20, &us), ZC_OK);
    assert_double_equal(us, 2.0 * t1, 1e-6); /* the last point's rate beyond it */
    assert_int_equal(zc_curve_add(&c, 0, 1.0), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_curve_add(&c, 10, -1.0), ZC_ERR_INVALID_ARG);
    zc_curve empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(zc_curve_time_us(&empty, 10, &us), ZC_ERR_NOT_FOUND);
    for (size_t i = 0; i < ZC_CURVE_MAX_POINTS; i++)
        (void)zc_curve_add(&empty, 100 + i, 1.0);
    assert_int_equal(zc_curve_add(&empty, 99999, 1.0), ZC_ERR_OVERFLOW);
}

static void test_fill_gaps_says_what_it_assumed(void **state)
{
    (void)state;
    zc_profile p;
    zc_profile_init(&p);
    char notes[1024];
    assert_int_equal(zc_profile_fill_gaps(&p, notes, sizeof notes), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "pinned"));

    p = load("h200.profile.json", notes, sizeof notes);
    assert_non_null(strstr(notes, "registered copies run as pinned"));
    assert_null(strstr(notes, "write_combined copies run as pinned")); /* it was measured */
    assert_int_equal(p.copy[ZC_HOST_REGISTERED][ZC_DIR_H2D].count,
                     p.copy[ZC_HOST_PINNED][ZC_DIR_H2D].count);
    assert_double_equal(p.copy_latency_us[ZC_HOST_PINNED], 1.95, 1e-12); /* measured stays */
    assert_true(p.mapped_read_gbps[ZC_ACCESS_STRIDED] < p.mapped_read_gbps[ZC_ACCESS_COALESCED]);
    assert_double_equal(p.mapped_latency_us, 2.28 / 2.0, 1e-12);
}

static void test_small_concurrent_frames_go_mapped(void **state)
{
    (void)state;
    zc_profile p = load("h200.profile.json", NULL, 0);
    zc_workload w = workload(4096, 10000, ZC_DIR_H2D, 1);
    w.concurrent = 1;
    w.latency_budget_us = 10.0;
    zc_recommendation rec;
    assert_int_equal(zc_advise_rank(&p, &w, &rec), ZC_OK);
    assert_int_equal(rec.ranked[0].technique, ZC_TECH_MAPPED);
    assert_true(rec.ranked[0].meets_budget);
    assert_true(rec.ranked[0].per_transfer_us < 5.0);
    /* Every copy technique pays a launch and a synchronisation: over 8 us on this machine. */
    for (size_t i = 1; i < rec.count; i++) {
        if (rec.ranked[i].usable)
            assert_false(rec.ranked[i].meets_budget);
    }
    assert_true(strncmp(rec.explanation, "mapped: 1 read of 4 KiB", 23) == 0);
    assert_non_null(strstr(rec.explanation, "latency budget"));
    print_message("explanation: %s\n", rec.explanation);
}

static void test_large_reused_data_is_copied(void **state)
{
    (void)state;
    zc_profile p = load("h200.profile.json", NULL, 0);
    zc_workload w = workload((size_t)256 << 20, 10, ZC_DIR_H2D, 10);
    zc_recommendation rec;
    assert_int_equal(zc_advise_rank(&p, &w, &rec), ZC_OK);
    assert_int_not_equal(rec.ranked[0].technique, ZC_TECH_MAPPED);
    assert_int_not_equal(rec.ranked[0].technique, ZC_TECH_PAGEABLE);
    zc_prediction mapped = predict(&p, &w, ZC_TECH_MAPPED);
    /* Ten reads of 256 MiB, each over the link at the measured 51.4 GB/s. */
    assert_double_equal(mapped.link_us, 10.0 * (double)(256 << 20) / 51.4e3, 1.0);
    zc_prediction pinned = predict(&p, &w, ZC_TECH_PINNED);
    assert_true(pinned.compute_us < mapped.link_us / 50.0);
}

static void test_pageable_pays_for_staging(void **state)
{
    (void)state;
    zc_profile p = load("h200.profile.json", NULL, 0);
    zc_workload w = workload((size_t)16 << 20, 100, ZC_DIR_H2D, 1);
    zc_prediction pageable = predict(&p, &w, ZC_TECH_PAGEABLE);
    zc_prediction pinned = predict(&p, &w, ZC_TECH_PINNED);
    assert_true(pageable.link_us > 3.0 * pinned.link_us);
    assert_double_equal(pageable.setup_us, 0.0, 0.0);
    assert_true(pinned.setup_us > 0.0);
    zc_prediction reg = predict(&p, &w, ZC_TECH_REGISTERED);
    assert_true(reg.setup_us < pinned.setup_us); /* registering is cheaper than cudaHostAlloc */
}

static void test_slower_machine_predicts_slower(void **state)
{
    (void)state;
    zc_profile h200 = load("h200.profile.json", NULL, 0);
    zc_profile gen4 = load("gen4x8.profile.json", NULL, 0);
    zc_workload w = workload((size_t)64 << 20, 50, ZC_DIR_BOTH, 1);
    zc_prediction a = predict(&h200, &w, ZC_TECH_PINNED);
    zc_prediction b = predict(&gen4, &w, ZC_TECH_PINNED);
    assert_true(b.link_us > 3.0 * a.link_us);
    assert_true(b.compute_us > a.compute_us);
    /* Managed memory is priced only where it was measured. */
    assert_false(predict(&h200, &w, ZC_TECH_MANAGED).usable);
    zc_prediction m = predict(&gen4, &w, ZC_TECH_MANAGED);
    assert_true(m.usable);
    assert_true(m.cpu_us > 0.0);
    zc_recommendation rec;
    assert_int_equal(zc_advise_rank(&gen4, &w, &rec), ZC_OK);
    for (size_t i = 1; i < rec.count; i++) {
        if (rec.ranked[i].usable)
            assert_true(rec.ranked[i - 1].total_us <= rec.ranked[i].total_us);
    }
    assert_false(rec.ranked[rec.count - 1].usable && !rec.ranked[0].usable);
}

static void test_overlap_helps_many_large_transfers(void **state)
{
    (void)state;
    zc_profile p = load("gen4x8.profile.json", NULL, 0);
    zc_workload w = workload((size_t)32 << 20, 200, ZC_DIR_BOTH, 4);
    zc_prediction over = predict(&p, &w, ZC_TECH_OVERLAPPED);
    zc_prediction pinned = predict(&p, &w, ZC_TECH_PINNED);
    assert_true(over.steady_us < pinned.steady_us);
    assert_true(over.steady_us <= over.per_transfer_us);
    zc_workload one = w;
    one.transfers = 1;
    /* One transfer alone has nothing to overlap with but its own chunks. */
    assert_true(predict(&p, &one, ZC_TECH_OVERLAPPED).per_transfer_us >
                0.5 * pinned.per_transfer_us);
}

static void test_rate_nobody_keeps(void **state)
{
    (void)state;
    zc_profile p = load("h200.profile.json", NULL, 0);
    zc_workload w = workload(65536, 0, ZC_DIR_H2D, 1);
    w.rate_hz = 1e6;
    assert_double_equal(zc_workload_transfer_count(&w), 1e6, 0.0);
    zc_recommendation rec;
    assert_int_equal(zc_advise_rank(&p, &w, &rec), ZC_OK);
    assert_false(rec.ranked[0].meets_rate);
    assert_true(strncmp(rec.explanation, "No technique keeps up", 21) == 0);
    w.rate_hz = 100.0;
    assert_int_equal(zc_advise_rank(&p, &w, &rec), ZC_OK);
    assert_true(rec.ranked[0].meets_rate);
}

static void test_bad_input_is_refused(void **state)
{
    (void)state;
    zc_profile p = load("h200.profile.json", NULL, 0);
    zc_prediction r;
    zc_workload w = workload(0, 1, ZC_DIR_H2D, 1);
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_PINNED, &r), ZC_ERR_INVALID_ARG);
    w = workload(4096, 1, ZC_DIR_H2D, 0.5);
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_PINNED, &r), ZC_ERR_INVALID_ARG);
    w = workload(4096, 1, (zc_direction)7, 1);
    assert_int_equal(zc_workload_check(&w), ZC_ERR_INVALID_ARG);
    w = workload(4096, -1, ZC_DIR_H2D, 1);
    assert_int_equal(zc_workload_check(&w), ZC_ERR_INVALID_ARG);
    w = workload(4096, 1, ZC_DIR_H2D, 1);
    assert_int_equal(zc_advise_predict(&p, &w, (zc_technique)99, &r), ZC_ERR_INVALID_ARG);
    zc_profile empty;
    zc_profile_init(&empty);
    assert_int_equal(zc_advise_predict(&empty, &w, ZC_TECH_PINNED, &r), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_advise_predict(NULL, &w, ZC_TECH_PINNED, &r), ZC_ERR_INVALID_ARG);
}

/* Counts are whole and at most ZC_WORKLOAD_TRANSFERS_MAX; a prediction that overflows is said
 * as such, not as figures missing from the profile. */
static void test_counts_and_overflow(void **state)
{
    (void)state;
    zc_profile p = load("h200.profile.json", NULL, 0);
    zc_workload w = workload(4096, 1.5, ZC_DIR_H2D, 1);
    assert_int_equal(zc_workload_check(&w), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "whole number"));
    w.transfers = (double)ZC_WORKLOAD_TRANSFERS_MAX;
    assert_int_equal(zc_workload_check(&w), ZC_OK);
    w.transfers = 1e18;
    assert_int_equal(zc_workload_check(&w), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "1000000000000000"));
    w.transfers = 0;
    w.rate_hz = 1e18;
    assert_int_equal(zc_workload_check(&w), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "largest supported"));
    w = workload((size_t)1 << 40, 1000, ZC_DIR_H2D, 1e300);
    zc_recommendation rec;
    assert_int_equal(zc_advise_rank(&p, &w, &rec), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "predicted time overflows"));
}

static void test_keys_round_trip(void **state)
{
    (void)state;
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        zc_technique back;
        assert_int_equal(zc_technique_from_key(zc_technique_key((zc_technique)t), &back), ZC_OK);
        assert_int_equal(back, t);
        assert_non_null(zc_technique_title((zc_technique)t));
    }
    assert_null(zc_technique_key(ZC_TECH_COUNT));
    zc_technique t;
    assert_int_equal(zc_technique_from_key("teleport", &t), ZC_ERR_NOT_FOUND);
    zc_direction d;
    assert_int_equal(zc_direction_from_key("both", &d), ZC_OK);
    assert_int_equal(d, ZC_DIR_BOTH);
    zc_buffer_kind k;
    assert_int_equal(zc_copy_kind_from_key("write_combined", &k), ZC_OK);
    assert_int_equal(k, ZC_BUFFER_WRITE_COMBINED);
    assert_int_equal(zc_copy_kind_from_key("mapped", &k), ZC_ERR_NOT_FOUND); /* not a copy kind */
    assert_int_equal(zc_copy_kind_from_key("write-combined", &k), ZC_ERR_NOT_FOUND); /* a name */
    /* The copy kinds are the buffer kinds marked so in src/mem's one table, in its order; the
     * deprecated zc_host_kind calls say the same. */
    static const zc_buffer_kind copy_kinds[] = {ZC_BUFFER_PAGEABLE, ZC_BUFFER_PINNED,
                                                ZC_BUFFER_WRITE_COMBINED, ZC_BUFFER_REGISTERED};
    size_t found = 0;
    for (int b = ZC_BUFFER_KIND_FIRST; b < ZC_BUFFER_KIND_COUNT; b++) {
        if (!(zc_buffer_kind_props((zc_buffer_kind)b) & ZC_KIND_COPY_SOURCE)) {
            assert_int_equal(zc_host_kind_buffer_kind((zc_host_kind)b), ZC_BUFFER_UNKNOWN);
            assert_null(zc_host_kind_key((zc_host_kind)b));
            continue;
        }
        assert_true(found < 4);
        assert_int_equal(b, copy_kinds[found++]);
        assert_int_equal(zc_host_kind_buffer_kind((zc_host_kind)b), b);
        assert_string_equal(zc_host_kind_key((zc_host_kind)b),
                            zc_buffer_kind_key((zc_buffer_kind)b));
        assert_int_equal(zc_host_kind_from_key(zc_buffer_kind_key((zc_buffer_kind)b), &k), ZC_OK);
        assert_int_equal(k, b);
    }
    assert_int_equal(found, 4);
    assert_int_equal(zc_host_kind_buffer_kind(ZC_BUFFER_KIND_COUNT), ZC_BUFFER_UNKNOWN);
    assert_null(zc_host_kind_key(ZC_BUFFER_KIND_COUNT));
}

static void test_profile_json_round_trip(void **state)
{
    (void)state;
    zc_profile p = load("gen4x8.profile.json", NULL, 0);
    cJSON *doc = NULL;
    assert_int_equal(zc_profile_to_json(&p, &doc), ZC_OK);
    assert_non_null(doc);
    zc_profile back;
    assert_int_equal(zc_profile_from_json(doc, &back), ZC_OK);
    cJSON_Delete(doc);
    assert_string_equal(back.device_name, p.device_name);
    assert_int_equal(back.copy[ZC_HOST_PAGEABLE][ZC_DIR_D2H].count,
                     p.copy[ZC_HOST_PAGEABLE][ZC_DIR_D2H].count);
    assert_double_equal(back.copy[ZC_HOST_PINNED][ZC_DIR_H2D].gbps[2],
                        p.copy[ZC_HOST_PINNED][ZC_DIR_H2D].gbps[2], 1e-9);
    assert_double_equal(back.managed_cpu_touch_gbps, 2.9, 1e-12);
    assert_double_equal(back.mapped_read_gbps[ZC_ACCESS_RANDOM], 0.55, 1e-12);
    assert_double_equal(back.copy_latency_us[ZC_HOST_REGISTERED], 2.6, 1e-12);
}

static void test_bench_result_becomes_profile(void **state)
{
    (void)state;
    char notes[2048];
    zc_profile p;
    zc_status status = zc_test_profile_load(ZC_ADVISE_FIXTURES "/../report/h200.bench.json", &p,
                                            NULL, notes, sizeof notes);
    if (status != ZC_OK)
        fail_msg("loading the bench fixture: %s", zc_last_error());
    assert_string_equal(p.device_name, "NVIDIA H200");
    assert_non_null(strstr(p.source, "zc bench"));
    assert_int_equal(p.copy[ZC_HOST_PINNED][ZC_DIR_H2D].count, 5);
    assert_double_equal(p.copy[ZC_HOST_PINNED][ZC_DIR_H2D].gbps[4], 55.4, 1e-9);
    assert_double_equal(p.launch_sync_us, 8.0, 1e-9);
    /* Round trip 11.9 us = launch and sync 8.0 us + two queued copies. */
    assert_double_equal(p.copy_latency_us[ZC_HOST_PINNED], 1.95, 1e-9);
    assert_double_equal(p.copy_latency_us[ZC_HOST_PAGEABLE], 4.1, 1e-9);
    /* Strided: the one-word-per-128-byte-line variant, not the others. */
    assert_double_equal(p.mapped_read_gbps[ZC_ACCESS_STRIDED], 6.1, 1e-9);
    /* Random 4-byte words take the strided figure (one word per line, as the model's random
     * walk), not random128's whole lines: derived, and marked so. */
    assert_double_equal(p.mapped_read_gbps[ZC_ACCESS_RANDOM], 6.1, 1e-9);
    assert_int_equal(p.origin[ZC_PF_MAPPED_READ_RANDOM], ZC_ORIGIN_DERIVED);
    assert_int_equal(p.origin[ZC_PF_MAPPED_READ_STRIDED], ZC_ORIGIN_MEASURED);
    assert_int_equal(p.origin[ZC_PF_COPY_LATENCY_PINNED], ZC_ORIGIN_DERIVED);
    assert_double_equal(p.device_gbps, 4000.0, 1e-9);
    assert_double_equal(p.pingpong_us, 2.28, 1e-9);
    /* The registered case was skipped: its curve is assumed from pinned, and says so. */
    assert_non_null(strstr(notes, "registered copies run as pinned"));
    /* Skipped managed cases leave the technique unpriced rather than guessed. */
    zc_workload w = workload(4096, 10, ZC_DIR_H2D, 1);
    assert_false(predict(&p, &w, ZC_TECH_MANAGED).usable);

    cJSON *doc = cJSON_Parse("{\"schema\": \"zerocopy.bench/1\", \"cases\": []}");
    assert_int_equal(zc_profile_from_bench_json(doc, &p, NULL, 0), ZC_ERR_PARSE);
    cJSON_Delete(doc);
}

static void test_sizes_and_workload_json(void **state)
{
    (void)state;
    /* zc advise's sizes are the project's one grammar, at most 1 TiB per transfer. */
    const uint64_t tib = (uint64_t)1 << 40;
    uint64_t b = 0;
    assert_int_equal(zc_size_parse("4096", tib, &b), ZC_OK);
    assert_int_equal(b, 4096);
    assert_int_equal(zc_size_parse("4K", tib, &b), ZC_OK);
    assert_int_equal(b, 4096);
    assert_int_equal(zc_size_parse("1.5MiB", tib, &b), ZC_OK);
    assert_int_equal(b, 1572864);
    assert_int_equal(zc_size_parse("2G", tib, &b), ZC_OK);
    assert_int_equal(b, (uint64_t)2 << 30);
    assert_int_not_equal(zc_size_parse("4Q", tib, &b), ZC_OK);
    assert_int_not_equal(zc_size_parse("-1", tib, &b), ZC_OK);
    assert_int_not_equal(zc_size_parse("0.3", tib, &b), ZC_OK);
    cJSON *doc = cJSON_Parse("{\"bytes\":\"64KiB\",\"direction\":\"both\",\"gpu_accesses\":3,"
                             "\"pattern\":\"random\",\"concurrent\":true,\"rate_hz\":500}");
    zc_workload w = workload(1, 1, ZC_DIR_H2D, 1);
    assert_int_equal(zc_workload_from_json(doc, &w), ZC_OK);
    assert_int_equal(w.bytes, 65536);
    assert_int_equal(w.direction, ZC_DIR_BOTH);
    assert_int_equal(w.pattern, ZC_ACCESS_RANDOM);
    assert_true(w.concurrent);
    assert_double_equal(w.gpu_accesses, 3.0, 0.0);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"direction\":\"sideways\"}");
    assert_int_equal(zc_workload_from_json(doc, &w), ZC_ERR_PARSE);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_curve_interpolates_time),
        cmocka_unit_test(test_fill_gaps_says_what_it_assumed),
        cmocka_unit_test(test_small_concurrent_frames_go_mapped),
        cmocka_unit_test(test_large_reused_data_is_copied),
        cmocka_unit_test(test_pageable_pays_for_staging),
        cmocka_unit_test(test_slower_machine_predicts_slower),
        cmocka_unit_test(test_overlap_helps_many_large_transfers),
        cmocka_unit_test(test_rate_nobody_keeps),
        cmocka_unit_test(test_bad_input_is_refused),
        cmocka_unit_test(test_counts_and_overflow),
        cmocka_unit_test(test_keys_round_trip),
        cmocka_unit_test(test_profile_json_round_trip),
        cmocka_unit_test(test_bench_result_becomes_profile),
        cmocka_unit_test(test_sizes_and_workload_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
