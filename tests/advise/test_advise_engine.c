/* SPDX-License-Identifier: Apache-2.0 */
/* The advise engine without a GPU: the profile from bench results in memory (typed names,
 * origins), assumptions kept apart when saved, the validation's verdict (medians, noise, ties),
 * random workloads, stream advice on the committed H200 zc stream runs, and the model held to
 * the committed H200 validation measurements. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "advise_files.h"
#include "zerocopy/zerocopy.h"

#define RESULTS ZC_ADVISE_FIXTURES "/../../bench/results"

/* A result of one case with one point per (variant, bytes, param, median), three samples each
 * around the median so that the median is exactly it. */
static void add_point(zc_bench_result *r, const char *variant, size_t bytes, double param,
                      zc_bench_metric metric, double median)
{
    double s[3] = {median * 0.99, median, median * 1.01};
    assert_int_equal(zc_bench_result_add(r, variant, bytes, param > 0.0 ? "k" : NULL, param, metric,
                                         (double)bytes, 1.0, s, 3, 0, 1),
                     ZC_OK);
}

static void test_profile_from_bench_in_memory(void **state)
{
    (void)state;
    zc_bench_result rs[6];
    memset(rs, 0, sizeof rs);
    assert_int_equal(zc_bench_result_init(&rs[0], "copy.h2d.pinned"), ZC_OK);
    add_point(&rs[0], NULL, 4096, 0, ZC_BENCH_BANDWIDTH, 1.7);
    add_point(&rs[0], NULL, (size_t)1 << 20, 0, ZC_BENCH_BANDWIDTH, 48.0);
    add_point(&rs[0], NULL, (size_t)256 << 20, 0, ZC_BENCH_BANDWIDTH, 55.0);
    assert_int_equal(zc_bench_result_init(&rs[1], "latency.launch"), ZC_OK);
    add_point(&rs[1], "empty kernel", 0, 0, ZC_BENCH_LATENCY, 8.0);
    assert_int_equal(zc_bench_result_init(&rs[2], "alloc.cost"), ZC_OK);
    add_point(&rs[2], "cudaHostAlloc: allocate", (size_t)16 << 20, 0, ZC_BENCH_DURATION, 5600.0);
    add_point(&rs[2], "cudaHostAlloc: allocate", (size_t)256 << 20, 0, ZC_BENCH_DURATION, 93600.0);
    add_point(&rs[2], "cudaHostAlloc: free", (size_t)256 << 20, 0, ZC_BENCH_DURATION, 1.0);
    assert_int_equal(zc_bench_result_init(&rs[3], "managed.first_touch"), ZC_OK);
    add_point(&rs[3], NULL, (size_t)256 << 20, 0, ZC_BENCH_BANDWIDTH, 10.0);
    assert_int_equal(zc_bench_result_init(&rs[4], "managed.prefetched"), ZC_OK);
    add_point(&rs[4], NULL, (size_t)256 << 20, 0, ZC_BENCH_BANDWIDTH, 4000.0);
    /* A case that did not end OK gives nothing, whatever its points say. */
    assert_int_equal(zc_bench_result_init(&rs[5], "latency.pingpong"), ZC_OK);
    add_point(&rs[5], NULL, 4, 0, ZC_BENCH_LATENCY, 99.0);
    rs[5].outcome = ZC_BENCH_FAIL;
    zc_profile p;
    char notes[4096];
    assert_int_equal(zc_profile_from_bench(rs, 6, &p, notes, sizeof notes), ZC_OK);
    assert_int_equal(p.copy[ZC_HOST_PINNED][ZC_DIR_H2D].count, 3);
    assert_int_equal(p.copy_origin[ZC_HOST_PINNED][ZC_DIR_H2D], ZC_ORIGIN_MEASURED);
    assert_double_equal(p.launch_sync_us, 8.0, 1e-9);
    assert_int_equal(p.origin[ZC_PF_LAUNCH_SYNC_US], ZC_ORIGIN_MEASURED);
    assert_double_equal(p.pingpong_us, 0.0, 0.0);
    assert_non_null(strstr(notes, "latency.pingpong"));
    /* alloc.cost: the measured curve, and the straight line through its two largest points. */
    assert_int_equal(p.alloc[ZC_BUFFER_PINNED].count, 2);
    assert_double_equal(p.alloc_pinned_us_per_mib, (93600.0 - 5600.0) / 240.0, 1e-6);
    assert_int_equal(p.origin[ZC_PF_ALLOC_PINNED_US_PER_MIB], ZC_ORIGIN_DERIVED);
    double us = 0.0;
    assert_int_equal(zc_profile_alloc_us(&p, ZC_BUFFER_PINNED, (size_t)136 << 20, &us), ZC_OK);
    assert_double_equal(us, 5600.0 + (93600.0 - 5600.0) / 2.0, 1e-6);
    /* The allocation curves are the memory kinds' own: the deprecated names are the kinds, the
     * document keys stay as they were, and a kind without an allocation cost is refused. */
    assert_int_equal(ZC_ALLOC_PINNED, ZC_BUFFER_PINNED);
    assert_int_equal(ZC_ALLOC_REGISTER, ZC_BUFFER_REGISTERED);
    assert_string_equal(zc_alloc_kind_key(ZC_BUFFER_REGISTERED), "register");
    assert_string_equal(zc_alloc_kind_key(ZC_BUFFER_DEVICE), "device");
    assert_null(zc_alloc_kind_key(ZC_BUFFER_MAPPED));
    assert_null(zc_alloc_kind_key((zc_buffer_kind)ZC_BUFFER_KIND_COUNT));
    assert_int_equal(zc_profile_alloc_us(&p, ZC_BUFFER_PAGEABLE, 4096, &us), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "no allocation cost"));
    /* The fault cost: first touch against the prefetched read, per MiB. */
    assert_double_equal(p.managed_fault_us_per_mib, 1048576.0 / 10e3 - 1048576.0 / 4000e3, 1e-6);
    assert_int_equal(p.origin[ZC_PF_MANAGED_FAULT_US_PER_MIB], ZC_ORIGIN_DERIVED);
    /* Completing it marks what it assumed, and only that. */
    assert_int_equal(zc_profile_fill_gaps(&p, notes, sizeof notes), ZC_OK);
    assert_int_equal(p.origin[ZC_PF_HOST_WRITE_GBPS], ZC_ORIGIN_ASSUMED);
    assert_int_equal(p.origin[ZC_PF_LAUNCH_SYNC_US], ZC_ORIGIN_MEASURED);
    assert_int_equal(p.copy_origin[ZC_HOST_REGISTERED][ZC_DIR_H2D], ZC_ORIGIN_ASSUMED);
    /* Without the pinned copies the model has nothing to stand on. */
    assert_int_equal(zc_profile_from_bench(&rs[1], 1, &p, NULL, 0), ZC_ERR_INVALID_ARG);
    for (int i = 0; i < 6; i++)
        zc_bench_result_clear(&rs[i]);
}

static void test_saved_profile_keeps_assumptions_apart(void **state)
{
    (void)state;
    zc_profile p, back;
    char notes[4096];
    assert_int_equal(
        zc_test_profile_load(RESULTS "/h200-20261130/bench.json", &p, NULL, notes, sizeof notes),
        ZC_OK);
    assert_int_equal(p.origin[ZC_PF_HOST_WRITE_GBPS], ZC_ORIGIN_ASSUMED);
    /* The measured allocation curve, not the assumed 580 us/MiB. */
    assert_int_equal(p.alloc_origin[ZC_BUFFER_PINNED], ZC_ORIGIN_MEASURED);
    assert_true(fabs(p.alloc_pinned_us_per_mib - 580.0) > 1.0);
    assert_int_equal(p.origin[ZC_PF_OVERLAP_EFFICIENCY], ZC_ORIGIN_DERIVED);
    assert_true(p.overlap_efficiency > 0.5 && p.overlap_efficiency <= 1.0);
    cJSON *doc = NULL;
    assert_int_equal(zc_profile_to_saved_json(&p, notes, &doc), ZC_OK);
    assert_non_null(doc);
    /* An assumed figure is never among the machine's own. */
    assert_null(cJSON_GetObjectItem(doc, "host_write_gbps"));
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "assumed"), "host_write_gbps"));
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "origin"), "launch_sync_us")->valuestring,
        "measured");
    assert_int_equal(zc_profile_from_json(doc, &back), ZC_OK);
    cJSON_Delete(doc);
    assert_double_equal(back.host_write_gbps, 0.0, 0.0);
    assert_int_equal(back.origin[ZC_PF_COPY_LATENCY_PINNED], ZC_ORIGIN_DERIVED);
    assert_int_equal(back.alloc[ZC_BUFFER_PINNED].count, p.alloc[ZC_BUFFER_PINNED].count);
    assert_int_equal(back.mapped_reread.count, p.mapped_reread.count);
    assert_true(back.mapped_reread.count > 0);
    /* A profile/1 file listed its assumptions under not_measured: they are read as assumed. */
    zc_profile old;
    assert_int_equal(
        zc_test_profile_load(RESULTS "/h200-20261130/advise/profile.json", &old, NULL, NULL, 0),
        ZC_OK);
    assert_int_equal(old.origin[ZC_PF_LAUNCH_SYNC_US], ZC_ORIGIN_MEASURED);
}

/* A workload whose techniques' rounds are given; the recommendation is technique pick. */
static void fill(zc_validation_result *r, int pick, const double rounds[ZC_TECH_COUNT][5])
{
    memset(r, 0, sizeof *r);
    r->rec.ranked[0].technique = (zc_technique)pick;
    r->rec.count = 1;
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        r->tech[t].ran = rounds[t][0] > 0.0 ? 1 : 0;
        r->tech[t].predicted.usable = r->tech[t].ran;
        r->tech[t].predicted.total_us = rounds[t][0];
        for (int i = 0; r->tech[t].ran && i < 5; i++)
            r->tech[t].total_us[r->tech[t].rounds++] = rounds[t][i];
    }
}

static void test_validation_verdicts(void **state)
{
    (void)state;
    /* pinned and overlapped 0.5% apart with 2-3% spread: a tie; mapped 40% behind. */
    const double close[ZC_TECH_COUNT][5] = {
        {0}, {100, 103, 98, 101, 99}, {100.5, 97, 104, 100, 102}, {140, 141, 139, 142, 140}, {0},
        {0},
    };
    /* pinned clearly ahead of overlapped (20%, spread under 1%). */
    const double apart[ZC_TECH_COUNT][5] = {
        {0}, {100, 100.5, 99.5, 100, 100.2}, {120, 120.5, 119.8, 120.1, 120}, {0}, {0}, {0},
    };
    zc_validation_result r[3];
    fill(&r[0], ZC_TECH_OVERLAPPED, close);
    fill(&r[1], ZC_TECH_OVERLAPPED, apart);
    fill(&r[2], ZC_TECH_PINNED, apart);
    zc_validation_summary s;
    assert_int_equal(zc_validation_judge(r, 3, &s), ZC_OK);
    assert_int_equal(r[0].winner, ZC_TECH_PINNED);
    assert_int_equal(r[0].runner_up, ZC_TECH_OVERLAPPED);
    assert_false(r[0].pick_wins);
    assert_true(r[0].pick_tied);
    assert_true(r[0].runner_up_tied);
    assert_true(r[0].noise >= 0.01);
    assert_false(r[1].pick_tied);
    assert_double_equal(r[1].margin, 0.2, 0.01);
    assert_true(r[2].pick_wins);
    assert_int_equal(s.workloads, 3);
    assert_int_equal(s.pick_wins, 1);
    assert_int_equal(s.pick_wins_or_tied, 2);
    /* Predictions were the first round's figures: every error is small, the median near 0. */
    assert_true(s.median_abs_error < 0.02);
    assert_int_equal(s.techniques_measured, 7);
    FILE *f = tmpfile();
    zc_profile p;
    zc_profile_init(&p);
    assert_int_equal(zc_validation_markdown(&p, "verdicts", r, 3, &s, f), ZC_OK);
    rewind(f);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "runner-up, tied"));
    assert_non_null(strstr(text, "**runner-up**"));
}

static void test_random_workloads(void **state)
{
    (void)state;
    zc_validation_workload a, b;
    int sizes[32] = {0}, dirs[3] = {0};
    for (size_t i = 0; i < 200; i++) {
        assert_int_equal(zc_validation_random(42, i, &a), ZC_OK);
        assert_int_equal(zc_validation_random(42, i, &b), ZC_OK);
        assert_memory_equal(&a, &b, sizeof a);
        assert_int_equal(zc_workload_check(&a.workload), ZC_OK);
        assert_int_equal(a.workload.bytes % 128, 0);
        assert_true(a.workload.transfers >= 1 && a.workload.transfers <= 2000);
        assert_true(a.workload.bytes * a.workload.transfers <= (double)((size_t)1 << 30) ||
                    a.workload.transfers == 1);
        int log2 = 0;
        for (size_t s = a.workload.bytes; s > 4096; s >>= 1)
            log2++;
        sizes[log2]++;
        dirs[a.workload.direction]++;
    }
    /* Every size and direction comes up. */
    for (int i = 0; i < 15; i++)
        assert_true(sizes[i] > 0);
    for (int i = 0; i < 3; i++)
        assert_true(dirs[i] > 0);
    assert_int_equal(zc_validation_random(43, 0, &b), ZC_OK);
    assert_int_equal(zc_validation_random(42, 0, &a), ZC_OK);
    assert_true(memcmp(&a.workload, &b.workload, sizeof a.workload) != 0 ||
                strcmp(a.name, b.name) != 0);
    assert_int_equal(zc_validation_fixed_count(), 12);
    assert_null(zc_validation_fixed_at(12));
}

static zc_profile stream_profile(const char *const *files, size_t n)
{
    zc_profile p;
    zc_profile_init(&p);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(zc_test_add_stream_file(&p, files[i]), ZC_OK);
    return p;
}

static void test_stream_advice_on_h200_runs(void **state)
{
    (void)state;
    const char *const runs[] = {
        RESULTS "/h200-20261201/engine/stream_latency_4k.json",
        RESULTS "/h200-20261201/engine/stream_throughput_1m.json",
        RESULTS "/h200-20261201/overlap/thr_1.json",
        RESULTS "/h200-20261201/overlap/thr256k.json",
    };
    zc_profile p = stream_profile(runs, 4);
    assert_true(p.stream_count >= 12);
    char name[48];
    zc_stream_advice a;
    /* 4 KiB frames at a rate: the lowest latency, LL's single trip. */
    zc_stream_workload w = {4096, 1000.0};
    assert_int_equal(zc_stream_advise(&p, &w, &a), ZC_OK);
    assert_int_equal(
        zc_stream_option_name(a.ranked[0].mode, a.ranked[0].protocol, name, sizeof name), ZC_OK);
    assert_string_equal(name, "zerocopy-ll");
    assert_true(a.ranked[0].p50_us > 3.0 && a.ranked[0].p50_us < 10.0);
    assert_non_null(strstr(a.explanation, "zerocopy-ll"));
    /* 1 MiB frames as fast as possible: classic-overlap's 38.5 GB/s, with its block count. */
    w = (zc_stream_workload){(size_t)1 << 20, 0.0};
    assert_int_equal(zc_stream_advise(&p, &w, &a), ZC_OK);
    (void)zc_stream_option_name(a.ranked[0].mode, a.ranked[0].protocol, name, sizeof name);
    assert_string_equal(name, "classic-overlap");
    assert_true(a.ranked[0].gbps > 30.0);
    assert_int_equal(a.ranked[0].in_flight, 16);
    assert_true(a.ranked[0].gpu_blocks > 0);
    /* A rate nobody keeps: the closest first, said so. */
    w = (zc_stream_workload){(size_t)1 << 20, 1e6};
    assert_int_equal(zc_stream_advise(&p, &w, &a), ZC_OK);
    assert_false(a.ranked[0].meets_rate);
    assert_non_null(strstr(a.explanation, "No mode keeps up"));
    /* Every mode is a row, the ones without a run last. */
    int rows = 0;
    for (size_t i = 0; i < a.count; i++)
        rows += a.ranked[i].usable;
    assert_int_equal(a.count, ZC_STREAM_MODE_COUNT + 2); /* zerocopy and hybrid per protocol */
    assert_true(rows < (int)a.count);
    assert_false(a.ranked[a.count - 1].usable);
    /* Checked against the earlier call's runs of the same sizes. */
    const char *const again[] = {
        RESULTS "/h200-20261201/engine-first/stream_latency_4k.json",
        RESULTS "/h200-20261201/engine-first/stream_throughput_1m.json",
    };
    zc_profile q = stream_profile(again, 2);
    zc_stream_check c;
    w = (zc_stream_workload){4096, 100.0};
    assert_int_equal(zc_stream_check_advice(&p, &q, &w, &c), ZC_OK);
    assert_true(c.pick_wins);
    w = (zc_stream_workload){(size_t)1 << 20, 0.0};
    /* The earlier call had no classic-overlap run: the check says it cannot judge. */
    assert_int_equal(zc_stream_check_advice(&p, &q, &w, &c), ZC_ERR_NOT_FOUND);
    zc_profile empty;
    zc_profile_init(&empty);
    assert_int_equal(zc_stream_advise(&empty, &w, &a), ZC_ERR_NOT_FOUND);
}

/*
 * The model against the committed H200 validation (2026-11-30, every technique measured once
 * per workload): predictions from that machine's own zc bench, at the CPU fill rate its runs
 * imply (5.5 GB/s; the validation measures it on the spot). The recommendation is the measured
 * fastest in at least 11 of 12, and the median |error| stays near 10%.
 */
static void test_model_against_recorded_h200_validation(void **state)
{
    (void)state;
    zc_profile p;
    assert_int_equal(zc_test_profile_load(RESULTS "/h200-20261130/bench.json", &p, NULL, NULL, 0),
                     ZC_OK);
    assert_int_equal(zc_profile_set(&p, ZC_PF_HOST_WRITE_GBPS, 5.5, ZC_ORIGIN_MEASURED), ZC_OK);
    cJSON *doc = zc_test_read_json(RESULTS "/h200-20261130/advise/validation.json");
    assert_non_null(doc);
    double errors[128];
    size_t n = 0;
    int hits = 0, cases = 0;
    const cJSON *wl;
    cJSON_ArrayForEach(wl, cJSON_GetObjectItem(doc, "workloads"))
    {
        zc_workload w = {4096, 1, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0};
        assert_int_equal(zc_workload_from_json(cJSON_GetObjectItem(wl, "workload"), &w), ZC_OK);
        zc_recommendation rec;
        assert_int_equal(zc_advise_rank(&p, &w, &rec), ZC_OK);
        double best = INFINITY, picked = NAN;
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(wl, "techniques"))
        {
            const cJSON *m = cJSON_GetObjectItem(t, "measured_total_us");
            zc_technique tech;
            if (!cJSON_IsNumber(m) ||
                zc_technique_from_key(cJSON_GetObjectItem(t, "technique")->valuestring, &tech) !=
                    ZC_OK)
                continue;
            zc_prediction pr;
            assert_int_equal(zc_advise_predict(&p, &w, tech, &pr), ZC_OK);
            best = fmin(best, m->valuedouble);
            if (tech == rec.ranked[0].technique)
                picked = m->valuedouble;
            if (pr.usable && n < 128)
                errors[n++] = fabs(pr.total_us - m->valuedouble) / m->valuedouble;
        }
        cases++;
        hits += picked == best;
    }
    cJSON_Delete(doc);
    for (size_t i = 1; i < n; i++) {
        for (size_t j = i; j > 0 && errors[j] < errors[j - 1]; j--) {
            double x = errors[j];
            errors[j] = errors[j - 1];
            errors[j - 1] = x;
        }
    }
    fprintf(stderr, "recorded H200: %d of %d fastest, median |error| %.1f%%, largest %.1f%%\n",
            hits, cases, 100.0 * errors[n / 2], 100.0 * errors[n - 1]);
    assert_int_equal(cases, 12);
    assert_true(hits >= 11);
    assert_true(errors[n / 2] <= 0.12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_from_bench_in_memory),
        cmocka_unit_test(test_saved_profile_keeps_assumptions_apart),
        cmocka_unit_test(test_validation_verdicts),
        cmocka_unit_test(test_random_workloads),
        cmocka_unit_test(test_stream_advice_on_h200_runs),
        cmocka_unit_test(test_model_against_recorded_h200_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
