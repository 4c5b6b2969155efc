/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover's profile fitted to the committed H100 bench document: its choices against
 * what the document measured, its predictions against the medians, the planner's own choice
 * from it, a fit that follows its input, and every refusal. */
#include "test_support.h"
#include "test_json_file.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blocks/blocks_plan.h"
#include "zerocopy/advise.h"
#include "zerocopy/json.h"

#define KIB ((size_t)1024)
#define MIB ((size_t)1024 * 1024)

static cJSON *load_doc(void)
{
    return zc_test_json_file(ZC_BLOCKS_BENCH);
}

static zc_blocks_profile fit_of(const cJSON *doc, zc_blocks_fit *fit_p)
{
    zc_blocks_profile p;
    zc_status st = zc_blocks_bench_from_json(doc, 0, &p, fit_p, NULL);
    if (st != ZC_OK)
        fail_msg("fit refused: %s", zc_last_error());
    return p;
}

/* The case's points of a variant at a size, or NULL. */
/* The points of case key, or NULL. */
static cJSON *points_of(const cJSON *doc, const char *key)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
    {
        if (strcmp(cJSON_GetObjectItem(c, "key")->valuestring, key) == 0)
            return cJSON_GetObjectItem(c, "points");
    }
    return NULL;
}

static cJSON *point_of(const cJSON *doc, const char *key, const char *variant, size_t bytes)
{
    cJSON *pt;
    cJSON_ArrayForEach(pt, points_of(doc, key))
    {
        if (strcmp(cJSON_GetObjectItem(pt, "variant")->valuestring, variant) == 0 &&
            (size_t)cJSON_GetObjectItem(pt, "bytes")->valuedouble == bytes)
            return pt;
    }
    return NULL;
}

static double median_of(const cJSON *doc, const char *key, const char *variant, size_t bytes)
{
    cJSON *pt = point_of(doc, key, variant, bytes);
    assert_non_null(pt);
    return cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "stats"), "median")->valuedouble;
}

/* The measured points: block size and count, as zc bench's default mode had them. */
static const struct {
    size_t bytes, count;
} points[] = {{4 * KIB, 4096}, {64 * KIB, 4096}, {MIB, 256}, {4 * MIB, 64}};

static const struct {
    zc_blocks_dir dir;
    const char *key;
} dirs[] = {{ZC_BLOCKS_TO_DEVICE, "blocks.h2d"},
            {ZC_BLOCKS_TO_HOST, "blocks.d2h"},
            {ZC_BLOCKS_BOTH, "blocks.bidir"}};

static zc_blocks_advice advise(const zc_blocks_profile *p, const zc_blocks_fit *fit, size_t bytes,
                               size_t count, zc_blocks_dir dir)
{
    zc_blocks_workload w = {bytes, count, dir, 0};
    zc_blocks_advice a;
    zc_status st = zc_blocks_advise(p, fit, &w, &a);
    if (st != ZC_OK)
        fail_msg("advise refused: %s", zc_last_error());
    return a;
}

static const zc_blocks_option *option_of(const zc_blocks_advice *a, zc_blocks_engine e)
{
    for (size_t i = 0; i < a->count; i++)
        if (a->ranked[i].engine == e)
            return &a->ranked[i];
    fail_msg("engine %s not ranked", zc_blocks_engine_name(e));
    return NULL;
}

/* The fit's shape: measured, every engine on four points, the kernel's SMs from the GPU. */
static void test_fit_shape(void **state)
{
    (void)state;
    cJSON *doc = load_doc();
    zc_blocks_fit fit;
    zc_blocks_profile p = fit_of(doc, &fit);
    assert_int_equal(p.measured, 1);
    assert_int_equal(fit.sms, 8); /* the mover's default limit; the H100 has 132 */
    assert_int_equal(fit.bytes_min, 4 * KIB);
    assert_int_equal(fit.bytes_max, 4 * MIB);
    assert_int_equal(fit.total_min, 16 * MIB);
    assert_int_equal(fit.total_max, 256 * MIB);
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        assert_int_equal(fit.points[0][e], 4);
        assert_int_equal(fit.points[1][e], 4);
    }
    /* Every block a call: the copy engine's cost is all per block. */
    assert_true(p.to_device[ZC_BLOCKS_COPY].call_us == 0.0);
    assert_true(p.to_device[ZC_BLOCKS_COPY].block_us > 1.0);
    /* The kernel's per-SM bandwidth gives its faster direction back at 8 SMs. */
    double kmax = fmax(p.to_device[ZC_BLOCKS_KERNEL].gbps, p.to_host[ZC_BLOCKS_KERNEL].gbps);
    assert_true(fabs(p.kernel_sm_gbps * 8.0 - kmax) < 1e-9 * kmax);
    /* The ceiling both ways: the fastest blocks.bidir point of the two copy engines (the batch
     * of 4 MiB blocks), not a kernel's or the naive loop's. */
    double both = 0.0;
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++)
        both = fmax(both, fmax(median_of(doc, "blocks.bidir", "copy", points[i].bytes),
                               median_of(doc, "blocks.bidir", "batch", points[i].bytes)));
    assert_double_equal(p.both_gbps, both, 0.0);
    assert_double_equal(p.both_gbps, median_of(doc, "blocks.bidir", "batch", 4 * MIB), 0.0);
    /* A document without blocks.bidir sets no ceiling. */
    cJSON *cases = cJSON_GetObjectItem(doc, "cases"), *c = NULL;
    int at = 0;
    cJSON_ArrayForEach(c, cases)
    {
        if (strcmp(cJSON_GetObjectItem(c, "key")->valuestring, "blocks.bidir") == 0)
            break;
        at++;
    }
    assert_non_null(c);
    cJSON_DeleteItemFromArray(cases, at);
    assert_double_equal(fit_of(doc, NULL).both_gbps, 0.0, 0.0);
    cJSON_Delete(doc);
}

/* The engine the document measured fastest of the three forced. */
static zc_blocks_engine measured_fastest(const cJSON *doc, const char *key, size_t bytes)
{
    zc_blocks_engine best = ZC_BLOCKS_AUTO;
    double best_gbps = 0.0;
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        double g = median_of(doc, key, zc_blocks_engine_name((zc_blocks_engine)e), bytes);
        if (g > best_gbps) {
            best_gbps = g;
            best = (zc_blocks_engine)e;
        }
    }
    return best;
}

/* The choice at every measured point and direction is the engine the document measured
 * fastest: kernel at 4 KiB, batch at 1 and 4 MiB, every way; at 64 KiB batch to the device and
 * both ways, kernel to the host. */
static void test_choices(void **state)
{
    (void)state;
    cJSON *doc = load_doc();
    zc_blocks_fit fit;
    zc_blocks_profile p = fit_of(doc, &fit);
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
            zc_blocks_advice a = advise(&p, &fit, points[i].bytes, points[i].count, dirs[d].dir);
            zc_blocks_engine want = measured_fastest(doc, dirs[d].key, points[i].bytes);
            print_message("%-12s %7zu B x%-4zu chose %-6s measured fastest %s\n", dirs[d].key,
                          points[i].bytes, points[i].count, zc_blocks_engine_name(a.choice),
                          zc_blocks_engine_name(want));
            assert_int_equal(a.choice, want);
            assert_int_equal(a.outside, 0);
        }
    }
    assert_int_equal(advise(&p, &fit, 4 * KIB, 4096, ZC_BLOCKS_BOTH).choice, ZC_BLOCKS_KERNEL);
    assert_int_equal(advise(&p, &fit, MIB, 256, ZC_BLOCKS_BOTH).choice, ZC_BLOCKS_BATCH);
    assert_int_equal(advise(&p, &fit, 4 * MIB, 64, ZC_BLOCKS_BOTH).choice, ZC_BLOCKS_BATCH);
    /* Outside the measured moves it says so. */
    assert_int_equal(advise(&p, &fit, 4 * KIB, 16, ZC_BLOCKS_TO_DEVICE).outside, 1);
    assert_int_equal(advise(&p, &fit, 16 * MIB, 64, ZC_BLOCKS_TO_DEVICE).outside, 1);
    cJSON_Delete(doc);
}

/* The fastest median of any point of a case of doc: the direction's most bytes a second. */
static double fastest_point(const cJSON *doc, const char *key)
{
    double fastest = 0.0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, points_of(doc, key))
    {
        double g = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "stats"), "median")->valuedouble;
        fastest = g > fastest ? g : fastest;
    }
    return fastest;
}

/*
 * A later H100 document (bench/results/h100-20261206d, call 8), whose points the unbounded fit
 * met with batch to the device at 131 GB/s and 2.8 ms a move: no engine is fitted faster than
 * the fastest point of its direction, and the moves PyTorch's benchmark measured beside it in
 * the same call (torch_kv_mover.jsonl) go to the engine that was fastest there: 64 KiB blocks
 * to the device, 256 and 1024 of them, by batch (26.4 and 30.8 GB/s; the kernel 16.4 and 17.9,
 * which the unbounded fit chose).
 */
static void test_fit_within_the_link(void **state)
{
    (void)state;
    cJSON *doc = zc_test_json_file(ZC_BLOCKS_BENCH_LATER);
    zc_blocks_fit fit;
    zc_blocks_profile p = fit_of(doc, &fit);
    const double to_device = fastest_point(doc, "blocks.h2d"),
                 to_host = fastest_point(doc, "blocks.d2h");
    assert_true(to_device > 50.0 && to_host > 50.0);
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        print_message("%-6s to device %.2f GB/s (fastest point %.2f), to host %.2f (%.2f)\n",
                      zc_blocks_engine_name((zc_blocks_engine)e), p.to_device[e].gbps, to_device,
                      p.to_host[e].gbps, to_host);
        assert_true(p.to_device[e].gbps <= to_device * (1 + 1e-9));
        assert_true(p.to_host[e].gbps <= to_host * (1 + 1e-9));
    }
    assert_int_equal(advise(&p, &fit, 64 * KIB, 256, ZC_BLOCKS_TO_DEVICE).choice, ZC_BLOCKS_BATCH);
    assert_int_equal(advise(&p, &fit, 64 * KIB, 1024, ZC_BLOCKS_TO_DEVICE).choice, ZC_BLOCKS_BATCH);
    cJSON_Delete(doc);
}

/* The true costs of the synthetic document below: each engine, each direction. */
static const zc_blocks_cost truth[2][ZC_BLOCKS_ENGINE_COUNT] = {
    {{0, 0, 0}, {0.0, 3.0, 54.0}, {15.0, 1.0, 54.0}, {12.0, 0.5, 23.0}},
    {{0, 0, 0}, {0.0, 2.7, 54.0}, {15.0, 0.7, 54.0}, {15.0, 0.3, 50.0}},
};

/* A point of engine e moving count blocks of bytes at the truth's speed, but for blocks of
 * 4 KiB, which cost 60% more each, as the H100's did: a machine the straight line does not fit
 * exactly. */
static double truth_us(int dir, int e, size_t bytes, size_t count)
{
    const zc_blocks_cost *c = &truth[dir][e];
    double block_us = c->block_us * (bytes == 4 * KIB ? 1.6 : 1.0);
    double calls = e == ZC_BLOCKS_COPY ? (double)count : 1.0;
    return calls * c->call_us + (double)count * block_us +
           (double)count * (double)bytes / (c->gbps * 1e3);
}

static cJSON *synthetic_point(int dir, int e, size_t bytes, size_t count)
{
    double gbps = (double)count * (double)bytes / (truth_us(dir, e, bytes, count) * 1e3);
    cJSON *pt = cJSON_CreateObject(), *stats = cJSON_CreateObject(), *samples;
    cJSON_AddStringToObject(pt, "variant", zc_blocks_engine_name((zc_blocks_engine)e));
    cJSON_AddNumberToObject(pt, "bytes", (double)bytes);
    cJSON_AddStringToObject(pt, "param_name", "blocks");
    cJSON_AddNumberToObject(pt, "param", (double)count);
    cJSON_AddStringToObject(pt, "metric", "bandwidth");
    cJSON_AddStringToObject(pt, "unit", "GB/s");
    cJSON_AddNumberToObject(pt, "bytes_per_sample", (double)count * (double)bytes);
    cJSON_AddNumberToObject(pt, "ops_per_sample", (double)count);
    cJSON_AddNumberToObject(pt, "warmups", 2);
    cJSON_AddTrueToObject(pt, "verified");
    cJSON_AddNumberToObject(stats, "count", 3);
    cJSON_AddNumberToObject(stats, "median", gbps);
    cJSON_AddItemToObject(pt, "stats", stats);
    samples = cJSON_AddArrayToObject(pt, "samples");
    for (int i = 0; i < 3; i++)
        cJSON_AddItemToArray(samples, cJSON_CreateNumber(gbps));
    return pt;
}

/* The committed document with its one-way points replaced by synthetic ones: the four sizes at
 * their counts, and with small_moves also at a sixteenth of each count (16 at least), as zc
 * bench measures them. */
static cJSON *synthetic_doc(int small_moves)
{
    static const size_t sizes[] = {4 * KIB, 64 * KIB, MIB, 4 * MIB},
                        counts[] = {4096, 4096, 256, 64};
    cJSON *doc = load_doc(), *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
    {
        const char *key = cJSON_GetObjectItem(c, "key")->valuestring;
        int dir = strcmp(key, "blocks.h2d") == 0 ? 0 : strcmp(key, "blocks.d2h") == 0 ? 1 : -1;
        if (dir < 0)
            continue;
        cJSON *pts = cJSON_CreateArray();
        for (size_t i = 0; i < 4; i++) {
            for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
                cJSON_AddItemToArray(pts, synthetic_point(dir, e, sizes[i], counts[i]));
                size_t small = counts[i] / 16 < 16 ? 16 : counts[i] / 16;
                if (small_moves && small < counts[i])
                    cJSON_AddItemToArray(pts, synthetic_point(dir, e, sizes[i], small));
            }
        }
        cJSON_ReplaceItemInObject(c, "points", pts);
    }
    return doc;
}

/*
 * A move's fixed cost is found where zc bench measures two counts of each size, and not where
 * it measures one: with one, the call cost takes up what the straight line misses between the
 * sizes (as the H100's kernel to the host was fitted 229-263 us a launch), and a small move is
 * priced many times what it costs. Judged on 16 blocks of 64 KiB each way: every engine's
 * predicted time within 30% of the true one with two counts; the kernel's more than twice it
 * with one.
 */
static void test_small_moves_find_the_fixed_cost(void **state)
{
    (void)state;
    for (int small = 0; small < 2; small++) {
        cJSON *doc = synthetic_doc(small);
        zc_blocks_profile p = fit_of(doc, NULL);
        cJSON_Delete(doc);
        for (int dir = 0; dir < 2; dir++) {
            zc_blocks_advice a =
                advise(&p, NULL, 64 * KIB, 16, dir ? ZC_BLOCKS_TO_HOST : ZC_BLOCKS_TO_DEVICE);
            for (size_t i = 0; i < a.count; i++) {
                int e = (int)a.ranked[i].engine;
                const zc_blocks_cost *got = dir ? &p.to_host[e] : &p.to_device[e];
                double want = truth_us(dir, e, 64 * KIB, 16), pred = a.ranked[i].predicted_us;
                print_message("%s count%s, %s %-6s call %.1f us (true %.1f); 16 x 64 KiB "
                              "%.1f us (true %.1f)\n",
                              small ? "two" : "one", small ? "s" : " ",
                              dir ? "to host  " : "to device",
                              zc_blocks_engine_name((zc_blocks_engine)e), got->call_us,
                              truth[dir][e].call_us, pred, want);
                if (small)
                    assert_true(fabs(pred - want) <= 0.3 * want);
                else if (e == ZC_BLOCKS_KERNEL)
                    assert_true(pred > 2.0 * want);
            }
        }
    }
}

/*
 * Each engine's predicted GB/s within 25% of the median at every point of the directions the
 * fit read (it holds within 3% there). Both ways is not held to it: the mover's model takes the
 * two directions of the copy engines as overlapping fully and the kernel's as adding up, and
 * the document measured otherwise (docs/blocks.md); the figures are printed.
 */
static void test_predictions(void **state)
{
    (void)state;
    cJSON *doc = load_doc();
    zc_blocks_fit fit;
    zc_blocks_profile p = fit_of(doc, &fit);
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
            zc_blocks_advice a = advise(&p, &fit, points[i].bytes, points[i].count, dirs[d].dir);
            for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
                const char *name = zc_blocks_engine_name((zc_blocks_engine)e);
                double meas = median_of(doc, dirs[d].key, name, points[i].bytes);
                double pred = option_of(&a, (zc_blocks_engine)e)->gbps;
                double err = pred / meas - 1.0;
                print_message("%-12s %7zu B %-6s measured %7.2f predicted %7.2f (%+.1f%%)\n",
                              dirs[d].key, points[i].bytes, name, meas, pred, 100.0 * err);
                if (dirs[d].dir != ZC_BLOCKS_BOTH && fabs(err) > 0.25)
                    fail_msg("%s %zu B %s: predicted %.2f GB/s, measured %.2f", dirs[d].key,
                             points[i].bytes, name, pred, meas);
            }
        }
    }
    cJSON_Delete(doc);
}

/* The fit follows its input: the kernel's medians to the device cut to a fifth, and the choice
 * at 4 KiB to the device is no longer the kernel; its fitted bandwidth falls with them. */
static void test_fit_follows_input(void **state)
{
    (void)state;
    cJSON *doc = load_doc();
    zc_blocks_profile before = fit_of(doc, NULL);
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        cJSON *pt = point_of(doc, "blocks.h2d", "kernel", points[i].bytes);
        cJSON *s;
        cJSON_ArrayForEach(s, cJSON_GetObjectItem(pt, "samples"))
            cJSON_SetNumberValue(s, s->valuedouble / 5.0);
    }
    zc_blocks_fit fit;
    zc_blocks_profile after = fit_of(doc, &fit);
    assert_true(after.to_device[ZC_BLOCKS_KERNEL].gbps <
                before.to_device[ZC_BLOCKS_KERNEL].gbps / 2.0);
    assert_true(after.to_host[ZC_BLOCKS_KERNEL].gbps == before.to_host[ZC_BLOCKS_KERNEL].gbps);
    assert_int_equal(advise(&before, NULL, 4 * KIB, 4096, ZC_BLOCKS_TO_DEVICE).choice,
                     ZC_BLOCKS_KERNEL);
    assert_int_equal(advise(&after, NULL, 4 * KIB, 4096, ZC_BLOCKS_TO_DEVICE).choice,
                     ZC_BLOCKS_BATCH);
    cJSON_Delete(doc);
}

/* A fake machine for the planner: one mapped host region and one device region, each 1 TiB,
 * as large as any move here needs; numbers, never touched. */
#define HOST_BASE ((uintptr_t)1 << 44)
#define DEV_BASE  ((uintptr_t)1 << 46)
#define REGION    ((size_t)1 << 40)

static zc_status fake_query(void *ctx, uintptr_t addr, zc__blocks_region *r)
{
    (void)ctx;
    if (addr >= HOST_BASE && addr - HOST_BASE < REGION)
        *r = (zc__blocks_region){ZC__BLOCKS_MEM_MAPPED, -1, HOST_BASE, REGION, HOST_BASE << 1};
    else if (addr >= DEV_BASE && addr - DEV_BASE < REGION)
        *r = (zc__blocks_region){ZC__BLOCKS_MEM_DEVICE, 0, DEV_BASE, REGION, 0};
    else
        *r = (zc__blocks_region){ZC__BLOCKS_MEM_OTHER, -1, addr, 0, 0};
    return ZC_OK;
}

/* The planner itself, given the fitted profile and a move of count blocks each way dir names
 * (indexed lists: to the device in the first half of each region, to the host in the second),
 * chooses what zc_blocks_advise says and predicts the same times. */
static void planner_agrees(const zc_blocks_profile *p, size_t bytes, size_t count,
                           zc_blocks_dir dir, size_t *index)
{
    zc__blocks_env env = {{fake_query, NULL}, "zc_blocks_plan", 0, 132, 8, 1, p};
    zc_blocks_options opts = {ZC_BLOCKS_AUTO, 0, (struct CUstream_st *)(uintptr_t)0x1000};
    zc_blocks_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.dir = dir;
    const size_t half = REGION / 2;
    if (dir & ZC_BLOCKS_TO_DEVICE)
        desc.to_device = (zc_blocks_list){
            count, NULL, (const void *)HOST_BASE, (void *)DEV_BASE, bytes, index, index};
    if (dir & ZC_BLOCKS_TO_HOST)
        desc.to_host = (zc_blocks_list){
            count, NULL, (const void *)(DEV_BASE + half), (void *)(HOST_BASE + half), bytes,
            index, index};
    zc__blocks_plan plan;
    zc__blocks_plan_init(&plan);
    zc_status st = zc__blocks_plan_make(&plan, &env, &desc, &opts);
    if (st != ZC_OK)
        fail_msg("planner refused: %s", zc_last_error());
    zc_blocks_advice a = advise(p, NULL, bytes, count, dir);
    assert_int_equal(plan.choice.engine, a.choice);
    for (size_t i = 0; i < a.count; i++) {
        double want = plan.choice.predicted_us[a.ranked[i].engine];
        assert_true(fabs(a.ranked[i].predicted_us - want) <= 1e-9 * want);
    }
    zc__blocks_plan_fini(&plan);
}

static void test_planner_agrees(void **state)
{
    (void)state;
    cJSON *doc = load_doc();
    zc_blocks_profile p = fit_of(doc, NULL);
    size_t *index = malloc(5000 * sizeof *index);
    assert_non_null(index);
    for (size_t i = 0; i < 5000; i++)
        index[i] = i;
    static const size_t extra[][2] = {{4 * KIB, 16}, {64 * KIB, 1}, {512 * KIB, 5000}};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        for (size_t i = 0; i < sizeof points / sizeof points[0]; i++)
            planner_agrees(&p, points[i].bytes, points[i].count, dirs[d].dir, index);
        for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
            planner_agrees(&p, extra[i][0], extra[i][1], dirs[d].dir, index);
    }
    free(index);
    cJSON_Delete(doc);
}

/* The document with a case's key renamed: as if it had not run. */
static void drop_case(cJSON *doc, const char *key)
{
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
    {
        if (strcmp(cJSON_GetObjectItem(c, "key")->valuestring, key) == 0)
            cJSON_SetValuestring(cJSON_GetObjectItem(c, "outcome"), "skipped");
    }
}

static void expect_refused(const cJSON *doc, zc_status want, const char *words)
{
    zc_blocks_profile p;
    zc_clear_error();
    memset(&p, 0x5a, sizeof p);
    zc_blocks_profile untouched = p;
    zc_status st = zc_blocks_bench_from_json(doc, 0, &p, NULL, NULL);
    if (st != want || strstr(zc_last_error(), words) == NULL)
        fail_msg("want %s with '%s', got %s: %s", zc_status_name(want), words, zc_status_name(st),
                 zc_last_error());
    assert_memory_equal(&p, &untouched, sizeof p);
}

static void test_refusals(void **state)
{
    (void)state;
    cJSON *doc = load_doc();
    drop_case(doc, "blocks.d2h");
    expect_refused(doc, ZC_ERR_NOT_FOUND, "no blocks.d2h results");
    cJSON_Delete(doc);

    /* zc bench --quick's one size: too few points. */
    doc = load_doc();
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
    {
        cJSON *pts = cJSON_GetObjectItem(c, "points");
        for (int i = cJSON_GetArraySize(pts) - 1; i >= 0; i--)
            if (cJSON_GetObjectItem(cJSON_GetArrayItem(pts, i), "bytes")->valuedouble != 65536.0)
                cJSON_DeleteItemFromArray(pts, i);
    }
    expect_refused(doc, ZC_ERR_NOT_FOUND, "the fit needs 3 of 2 block sizes");
    cJSON_Delete(doc);

    /* A negative median. */
    doc = load_doc();
    cJSON *pt = point_of(doc, "blocks.d2h", "batch", MIB), *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(pt, "samples"))
        cJSON_SetNumberValue(s, -s->valuedouble);
    expect_refused(doc, ZC_ERR_INVALID_ARG, "not a finite positive GB/s");
    cJSON_Delete(doc);

    /* Not a bench document. */
    doc = cJSON_Parse("{\"schema\": \"zerocopy.profile/2\"}");
    expect_refused(doc, ZC_ERR_PARSE, "not a zerocopy.bench/1 document");
    cJSON_Delete(doc);
}

/* In memory: a NaN median, and a fit of nothing. */
static void test_refusals_in_memory(void **state)
{
    (void)state;
    zc_bench_result r[2];
    const char *keys[] = {"blocks.h2d", "blocks.d2h"};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(zc_bench_result_init(&r[k], keys[k]), ZC_OK);
        for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++)
            for (size_t i = 0; i < 3; i++) {
                double v = 10.0 * (double)(i + 1);
                assert_int_equal(zc_bench_result_add(&r[k], zc_blocks_engine_name(e),
                                                     4096u << (4 * i), "blocks", 64.0,
                                                     ZC_BENCH_BANDWIDTH, 0, 64, &v, 1, 0, 1),
                                 ZC_OK);
            }
    }
    zc_blocks_profile p;
    assert_int_equal(zc_blocks_profile_from_bench(r, 2, 8, &p, NULL), ZC_OK);
    r[1].points[4].stats.median = NAN;
    assert_int_equal(zc_blocks_profile_from_bench(r, 2, 8, &p, NULL), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "median nan is not a finite positive"));
    r[1].points[4].param = 0.0;
    assert_int_equal(zc_blocks_profile_from_bench(r, 2, 8, &p, NULL), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "no block size or count"));
    assert_int_equal(zc_blocks_profile_from_bench(r, 0, 8, &p, NULL), ZC_ERR_NOT_FOUND);
    assert_int_equal(zc_blocks_profile_from_bench(NULL, 2, 8, &p, NULL), ZC_ERR_INVALID_ARG);
    for (int k = 0; k < 2; k++)
        zc_bench_result_clear(&r[k]);
}

static void test_advise_refusals(void **state)
{
    (void)state;
    zc_blocks_profile p;
    assert_int_equal(zc_blocks_profile_default(&p), ZC_OK);
    zc_blocks_advice a;
    zc_blocks_workload w = {0, 10, ZC_BLOCKS_TO_DEVICE, 0};
    assert_int_equal(zc_blocks_advise(&p, NULL, &w, &a), ZC_ERR_INVALID_ARG);
    w = (zc_blocks_workload){4096, 0, ZC_BLOCKS_TO_DEVICE, 0};
    assert_int_equal(zc_blocks_advise(&p, NULL, &w, &a), ZC_ERR_INVALID_ARG);
    w = (zc_blocks_workload){4096, 10, (zc_blocks_dir)0, 0};
    assert_int_equal(zc_blocks_advise(&p, NULL, &w, &a), ZC_ERR_INVALID_ARG);
    w = (zc_blocks_workload){SIZE_MAX / 2 + 1, 2, ZC_BLOCKS_TO_DEVICE, 0};
    assert_int_equal(zc_blocks_advise(&p, NULL, &w, &a), ZC_ERR_OVERFLOW);
    w = (zc_blocks_workload){SIZE_MAX / 4 + 1, 2, ZC_BLOCKS_BOTH, 0};
    assert_int_equal(zc_blocks_advise(&p, NULL, &w, &a), ZC_ERR_OVERFLOW);
    p.to_host[ZC_BLOCKS_BATCH].gbps = -1.0;
    w = (zc_blocks_workload){4096, 10, ZC_BLOCKS_TO_DEVICE, 0};
    assert_int_equal(zc_blocks_advise(&p, NULL, &w, &a), ZC_ERR_INVALID_ARG);
}

/* The loss beside each engine: the nearest measured size, in ratio. */
static void test_beside(void **state)
{
    (void)state;
    cJSON *doc = load_doc();
    zc_blocks_profile p;
    zc_blocks_beside b;
    assert_int_equal(zc_blocks_bench_from_json(doc, 4 * KIB, &p, NULL, &b), ZC_OK);
    assert_int_equal(b.block_bytes, 64 * KIB);
    assert_true(fabs(b.loss[ZC_BLOCKS_BATCH] - 0.021) < 0.001);
    assert_int_equal(zc_blocks_bench_from_json(doc, 4 * MIB, &p, NULL, &b), ZC_OK);
    assert_int_equal(b.block_bytes, MIB);
    assert_true(fabs(b.loss[ZC_BLOCKS_COPY] - 0.023) < 0.001);
    /* 256 KiB is as far from 64 KiB as from 1 MiB: the smaller. */
    assert_int_equal(zc_blocks_bench_from_json(doc, 256 * KIB, &p, NULL, &b), ZC_OK);
    assert_int_equal(b.block_bytes, 64 * KIB);
    drop_case(doc, "blocks.beside");
    assert_int_equal(zc_blocks_bench_from_json(doc, 4 * KIB, &p, NULL, &b), ZC_ERR_NOT_FOUND);
    assert_non_null(strstr(zc_last_error(), "no blocks.beside points"));
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_shape),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_predictions),
        cmocka_unit_test(test_fit_within_the_link),
        cmocka_unit_test(test_small_moves_find_the_fixed_cost),
        cmocka_unit_test(test_fit_follows_input),
        cmocka_unit_test(test_planner_agrees),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_refusals_in_memory),
        cmocka_unit_test(test_advise_refusals),
        cmocka_unit_test(test_beside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
