/* SPDX-License-Identifier: Apache-2.0 */
/* The machine profile from zc bench's results in memory, each case found by its typed name. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/model_internal.h"
#include "core/error.h"
#include "core/c_locale.h"
#include "core/sorted.h"
#include "zerocopy/stats.h"

#define ZC__MIB (1024.0 * 1024.0)

/* The results by case: NULL where the case was not run or did not end ZC_BENCH_OK. */
typedef struct zc__by_id {
    const zc_bench_result *r[ZC_BENCH_CASE_ID_COUNT];
} zc__by_id;

/* Each copy kind's case in one direction, made from zerocopy/buffer.h's list. */
#define ZC__COPY_USED(DIR, NAME, name, key, copy, ...)                                             \
    ZC_BUFFER_KIND_IF_##copy(ZC_BENCH_CASE_COPY_##DIR##_##NAME, )

/* The cases zc_profile_from_bench reads: asked for by a caller that runs only these. */
static const zc_bench_case_id zc__used[] = {
    ZC_BUFFER_KIND_MAP(ZC__COPY_USED, H2D) ZC_BUFFER_KIND_MAP(ZC__COPY_USED, D2H)
        ZC_BENCH_CASE_COPY_BIDIR_PINNED,
    ZC_BENCH_CASE_ZEROCOPY_READ_16B,
    ZC_BENCH_CASE_ZEROCOPY_READ_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_READ_RANDOM128,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_16B,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_RANDOM128,
    ZC_BENCH_CASE_DEVICE_READ_16B,
    ZC_BENCH_CASE_MANAGED_FIRST_TOUCH,
    ZC_BENCH_CASE_MANAGED_PREFETCH,
    ZC_BENCH_CASE_MANAGED_PREFETCHED,
    ZC_BENCH_CASE_MANAGED_ADVISED,
    ZC_BENCH_CASE_LATENCY_LAUNCH,
    ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PINNED,
    ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PAGEABLE,
    ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_H2D,
    ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_D2H,
    ZC_BENCH_CASE_LATENCY_COPY_PINNED_H2D,
    ZC_BENCH_CASE_LATENCY_COPY_PINNED_D2H,
    ZC_BENCH_CASE_LATENCY_GPU_READ_HOST,
    ZC_BENCH_CASE_LATENCY_PINGPONG,
    ZC_BENCH_CASE_OVERLAP_PIPELINE,
    ZC_BENCH_CASE_ALLOC_COST,
    ZC_BENCH_CASE_DEVICE_WRITE_16B,
    ZC_BENCH_CASE_CROSSOVER_READ_K,
    ZC_BENCH_CASE_MANAGED_TRANSFER,
    ZC_BENCH_CASE_DEVICE_READ_STRIDED,
    ZC_BENCH_CASE_DEVICE_READ_RANDOM,
    ZC_BENCH_CASE_DEVICE_WRITE_STRIDED,
    ZC_BENCH_CASE_DEVICE_WRITE_RANDOM,
    ZC_BENCH_CASE_ZEROCOPY_READ_WALK_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_READ_WALK_RANDOM,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_RANDOM,
};

#define ZC__USED_COUNT (sizeof zc__used / sizeof zc__used[0])

ZC_EXTERN zc_status zc_profile_bench_cases(zc_bench_case_id *ids, size_t capacity, size_t *count_p)
{
    ZC_REQUIRE_ARG(ids);
    ZC_REQUIRE_ARG(count_p);
    if (capacity < ZC__USED_COUNT)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_profile_bench_cases: %zu ids need room, %zu given",
                       ZC__USED_COUNT, capacity);
    memcpy(ids, zc__used, sizeof zc__used);
    *count_p = ZC__USED_COUNT;
    return ZC_OK;
}

static void zc__note(char *notes, size_t size, const char *fmt, ...) ZC__PRINTF(3, 4);
static void zc__note(char *notes, size_t size, const char *fmt, ...)
{
    if (notes == NULL || size == 0)
        return;
    size_t used = strlen(notes);
    if (used + 2 >= size)
        return;
    va_list args;
    va_start(args, fmt);
    zc__vsnprintf_c(notes + used, size - used - 1, fmt, args);
    va_end(args);
    used = strlen(notes);
    notes[used] = '\n';
    notes[used + 1] = '\0';
}

/* A point's median, when it is a usable figure. */
static int zc__median(const zc_bench_point *pt, double *v_p)
{
    double v = pt->stats.median;
    if (pt->stats.count == 0 || !isfinite(v) || !(v > 0.0))
        return 0;
    *v_p = v;
    return 1;
}

/* The medians of r's points named variant (bytes > 0), as a cost curve by size; measured once
 * it holds a point. r may be NULL (the case did not run). */
static void zc__variant_curve(const zc_bench_result *r, const char *variant, zc_cost_curve *c,
                              unsigned char *origin_p)
{
    double us = 0.0;
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        const zc_bench_point *pt = &r->points[i];
        if (strcmp(pt->variant, variant) == 0 && pt->bytes > 0 && zc__median(pt, &us) &&
            zc_cost_curve_add(c, pt->bytes, us) == ZC_OK)
            *origin_p = ZC_ORIGIN_MEASURED;
    }
}

/* The plain kernel's points: one pass per launch, no variant (a walk read twice in one launch
 * is the variant "2 passes"). */
static int zc__one_pass(const zc_bench_point *pt)
{
    return pt->variant[0] == '\0';
}

/* The median of every plain point of r (bytes > 0) as a GB/s curve by size; measured once it
 * holds a point. r may be NULL (the case did not run). */
static void zc__gbps_curve(const zc_bench_result *r, zc_curve *c, unsigned char *origin_p)
{
    double v = 0.0;
    for (size_t i = 0; r != NULL && i < r->point_count; i++)
        if (r->points[i].bytes > 0 && zc__one_pass(&r->points[i]) &&
            zc__median(&r->points[i], &v) && zc_curve_add(c, r->points[i].bytes, v) == ZC_OK)
            *origin_p = ZC_ORIGIN_MEASURED;
}

/* What one more pass of a walk over mapped memory costs at each size r measured it twice in
 * one launch: t(2 passes) - t(1 pass), from the two points' GB/s over the bytes each read. */
static void zc__walk_reread(const zc_bench_result *r, zc_cost_curve *c, unsigned char *origin_p)
{
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        const zc_bench_point *two = &r->points[i];
        double g2 = 0.0, g1 = 0.0;
        if (strcmp(two->variant, "2 passes") != 0 || two->bytes == 0 || !zc__median(two, &g2))
            continue;
        for (size_t j = 0; j < r->point_count; j++) {
            const zc_bench_point *one = &r->points[j];
            if (one->bytes != two->bytes || !zc__one_pass(one) || !zc__median(one, &g1))
                continue;
            double b = (double)two->bytes;
            double extra = zc__us_at(2.0 * b, g2) - zc__us_at(b, g1);
            if (zc_cost_curve_add(c, two->bytes, extra > 0.0 ? extra : 0.0) == ZC_OK)
                *origin_p = ZC_ORIGIN_DERIVED;
        }
    }
}

/* Whether a point's variant starts with prefix (NULL: any point). */
static int zc__variant_is(const zc_bench_point *pt, const char *prefix)
{
    return prefix == NULL || strncmp(pt->variant, prefix, strlen(prefix)) == 0;
}

/* The median at the largest size of a case's points whose variant starts with prefix. */
static double zc__at_largest(const zc__by_id *b, zc_bench_case_id id, const char *prefix)
{
    const zc_bench_result *r = b->r[id];
    const zc_bench_point *best = NULL;
    double v = 0.0;
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        const zc_bench_point *pt = &r->points[i];
        if (zc__variant_is(pt, prefix) && zc__median(pt, &v) &&
            (best == NULL || pt->bytes >= best->bytes))
            best = pt;
    }
    return best != NULL && zc__median(best, &v) ? v : 0.0;
}

/* A latency case's one point, or NULL when it has none. */
static const zc_bench_point *zc__only_point(const zc__by_id *b, zc_bench_case_id id)
{
    const zc_bench_result *r = b->r[id];
    return r != NULL && r->point_count > 0 && r->points[0].stats.count > 0 ? &r->points[0] : NULL;
}

/* The mean of a latency case's one point (0 when it has none): what a total of many such
 * operations adds up to. The round trip's samples gather in two modes on the H200 (about 13 and
 * 20 us, 4 in 10 in the first), so that its median is one mode or the other from run to run
 * while the totals the model predicts follow the mean. */
static double zc__mean_of(const zc__by_id *b, zc_bench_case_id id)
{
    const zc_bench_point *pt = zc__only_point(b, id);
    double v = pt != NULL ? pt->stats.mean : 0.0;
    return isfinite(v) && v > 0.0 ? v : 0.0;
}

/* The nearest-rank percentile p of a latency case's one point, from its samples (a bench
 * document keeps them; without them, the median stands); 0 when it has none. */
static double zc__percentile_of(const zc__by_id *b, zc_bench_case_id id, double p)
{
    const zc_bench_point *pt = zc__only_point(b, id);
    if (pt == NULL)
        return 0.0;
    size_t n = pt->stats.count;
    double *v = pt->samples != NULL ? malloc(n * sizeof *v) : NULL;
    double x = pt->stats.median;
    if (v != NULL) {
        memcpy(v, pt->samples, n * sizeof *v);
        zc__sort_doubles(v, n);
        x = zc_stats_percentile_sorted(v, n, p);
        free(v);
    }
    return isfinite(x) && x > 0.0 ? x : 0.0;
}

/* The best median over every point of a case. */
static double zc__max(const zc__by_id *b, zc_bench_case_id id)
{
    const zc_bench_result *r = b->r[id];
    double best = 0.0, v = 0.0;
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        if (zc__median(&r->points[i], &v) && v > best)
            best = v;
    }
    return best;
}

/* Set a figure when the value is one, with its origin. */
static void zc__put(zc_profile *p, zc_profile_field f, double value, zc_origin origin)
{
    if (isfinite(value) && value > 0.0)
        (void)zc_profile_set(p, f, value, origin);
}

/* The copy case of each copy kind and direction: made from zerocopy/buffer.h's list, as the
 * cases themselves are. */
#define ZC__COPY_IDS(A, NAME, name, key, copy, ...)                                                \
    ZC_BUFFER_KIND_IF_##copy(                                                                      \
        {ZC_BUFFER_##NAME, {ZC_BENCH_CASE_COPY_H2D_##NAME, ZC_BENCH_CASE_COPY_D2H_##NAME}}, )
static const struct {
    zc_buffer_kind kind;
    zc_bench_case_id id[2]; /* [ZC_DIR_H2D], [ZC_DIR_D2H] */
} zc__copy_ids[] = {ZC_BUFFER_KIND_MAP(ZC__COPY_IDS, _)};
#undef ZC__COPY_IDS

static void zc__copies(const zc__by_id *b, zc_profile *p)
{
    for (size_t c = 0; c < sizeof zc__copy_ids / sizeof zc__copy_ids[0]; c++) {
        zc_buffer_kind k = zc__copy_ids[c].kind;
        for (int d = 0; d < 2; d++) {
            const zc_bench_result *r = b->r[zc__copy_ids[c].id[d]];
            double v = 0.0;
            for (size_t i = 0; r != NULL && i < r->point_count; i++) {
                const zc_bench_point *pt = &r->points[i];
                if (pt->bytes > 0 && zc__median(pt, &v) &&
                    zc_curve_add(&p->copy[k][d], pt->bytes, v) == ZC_OK)
                    p->copy_origin[k][d] = ZC_ORIGIN_MEASURED;
            }
        }
    }
}

/* Round trips (launch + sync + two queued 4 KiB copies) less the launch: two copies' cost. */
static void zc__latencies(const zc__by_id *b, zc_profile *p)
{
    zc__put(p, ZC_PF_LAUNCH_SYNC_US, zc__at_largest(b, ZC_BENCH_CASE_LATENCY_LAUNCH, NULL),
            ZC_ORIGIN_MEASURED);
    /* The copies' part: the round trips' mean less the launch's, both ways of the same run. */
    double launch = zc__mean_of(b, ZC_BENCH_CASE_LATENCY_LAUNCH);
    double rt_pinned = zc__mean_of(b, ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PINNED);
    double rt_pageable = zc__mean_of(b, ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PAGEABLE);
    if (launch > 0.0) {
        if (rt_pinned > launch) {
            double each = (rt_pinned - launch) / 2.0;
            zc__put(p, ZC_PF_COPY_LATENCY_PINNED, each, ZC_ORIGIN_DERIVED);
            /* Write-combined and registered memory are pinned memory to the copy engine. */
            zc__put(p, ZC_PF_COPY_LATENCY_WRITE_COMBINED, each, ZC_ORIGIN_DERIVED);
            zc__put(p, ZC_PF_COPY_LATENCY_REGISTERED, each, ZC_ORIGIN_DERIVED);
            /* Any operation queued in a stream costs about what a queued copy does in the
             * round trip's fast mode: the slow mode's extra wait is the synchronisation's,
             * which a pipeline that never waits on one transfer does not pay. Its lowest
             * decile sits in the fast mode: the lower quartile did in four H200 runs (2.3-2.5
             * us, where the median gave 2.4-5.2), and not in a fifth, where 15% of the round
             * trips were fast (11.5-11.8 us, the rest 19-21) and the quartile gave 5.7 us, which
             * priced the overlapped technique 26-169% too slow; the overlapped technique pays
             * it per chunk and stage. */
            double rt_fast = zc__percentile_of(b, ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PINNED, 10.0);
            double launch_fast = zc__percentile_of(b, ZC_BENCH_CASE_LATENCY_LAUNCH, 10.0);
            zc__put(p, ZC_PF_ENQUEUE_US,
                    rt_fast > launch_fast ? (rt_fast - launch_fast) / 2.0 : each,
                    ZC_ORIGIN_DERIVED);
        }
        if (rt_pageable > launch)
            zc__put(p, ZC_PF_COPY_LATENCY_PAGEABLE, (rt_pageable - launch) / 2.0,
                    ZC_ORIGIN_DERIVED);
    }
    /* One copy alone, pageable and pinned, by size: what a pageable copy costs beyond a
     * pinned one (the model adds it to the pinned copy's price). */
    static const zc_bench_case_id alone[2][2] = {
        {ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_H2D, ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_D2H},
        {ZC_BENCH_CASE_LATENCY_COPY_PINNED_H2D, ZC_BENCH_CASE_LATENCY_COPY_PINNED_D2H}};
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 2; d++)
            zc__variant_curve(b->r[alone[k][d]], "", &p->copy_alone[k][d],
                              &p->copy_alone_origin[k][d]);
    zc__put(p, ZC_PF_MAPPED_LATENCY_US,
            zc__at_largest(b, ZC_BENCH_CASE_LATENCY_GPU_READ_HOST, NULL), ZC_ORIGIN_MEASURED);
    zc__put(p, ZC_PF_PINGPONG_US, zc__at_largest(b, ZC_BENCH_CASE_LATENCY_PINGPONG, NULL),
            ZC_ORIGIN_MEASURED);
}

static void zc__mapped(const zc__by_id *b, zc_profile *p)
{
    static const zc_bench_case_id reads[ZC_ACCESS_COUNT] = {ZC_BENCH_CASE_ZEROCOPY_READ_16B,
                                                            ZC_BENCH_CASE_ZEROCOPY_READ_STRIDED,
                                                            ZC_BENCH_CASE_ZEROCOPY_READ_RANDOM128};
    static const zc_bench_case_id writes[ZC_ACCESS_COUNT] = {
        ZC_BENCH_CASE_ZEROCOPY_WRITE_16B, ZC_BENCH_CASE_ZEROCOPY_WRITE_STRIDED,
        ZC_BENCH_CASE_ZEROCOPY_WRITE_RANDOM128};
    for (int a = 0; a < ZC_ACCESS_COUNT; a++) {
        /* Strided: one word per 128-byte line is the model's strided walk. */
        const char *variant = a == ZC_ACCESS_STRIDED ? "stride 128 B" : NULL;
        double r = zc__at_largest(b, reads[a], variant);
        double w = zc__at_largest(b, writes[a], variant);
        if (a == ZC_ACCESS_STRIDED && !(r > 0.0))
            r = zc__at_largest(b, reads[a], NULL);
        if (a == ZC_ACCESS_STRIDED && !(w > 0.0))
            w = zc__at_largest(b, writes[a], NULL);
        /* The model's random walk touches one 4-byte word per line, as the strided walk does;
         * random128 reads whole 128-byte lines at random, nearly the coalesced rate (51 against
         * 2.6 GB/s on the H200), so it prices random words far too cheaply (validation: -47%).
         * The strided figure stands for random words. */
        zc_origin o = ZC_ORIGIN_MEASURED;
        if (a == ZC_ACCESS_RANDOM && p->mapped_read_gbps[ZC_ACCESS_STRIDED] > 0.0) {
            r = p->mapped_read_gbps[ZC_ACCESS_STRIDED];
            w = p->mapped_write_gbps[ZC_ACCESS_STRIDED];
            o = ZC_ORIGIN_DERIVED;
        }
        zc__put(p, (zc_profile_field)(ZC_PF_MAPPED_READ_COALESCED + a), r, o);
        zc__put(p, (zc_profile_field)(ZC_PF_MAPPED_WRITE_COALESCED + a), w, o);
    }
    zc__put(p, ZC_PF_DEVICE_GBPS, zc__at_largest(b, ZC_BENCH_CASE_DEVICE_READ_16B, NULL),
            ZC_ORIGIN_MEASURED);
    static const zc_bench_case_id device[2] = {ZC_BENCH_CASE_DEVICE_READ_16B,
                                               ZC_BENCH_CASE_DEVICE_WRITE_16B};
    static const zc_bench_case_id walks[2][2] = {
        {ZC_BENCH_CASE_DEVICE_READ_STRIDED, ZC_BENCH_CASE_DEVICE_WRITE_STRIDED},
        {ZC_BENCH_CASE_DEVICE_READ_RANDOM, ZC_BENCH_CASE_DEVICE_WRITE_RANDOM},
    };
    static const zc_bench_case_id mapped_walks[2][2] = {
        {ZC_BENCH_CASE_ZEROCOPY_READ_WALK_STRIDED, ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_STRIDED},
        {ZC_BENCH_CASE_ZEROCOPY_READ_WALK_RANDOM, ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_RANDOM},
    };
    for (int d = 0; d < 2; d++) {
        zc__gbps_curve(b->r[device[d]], &p->device_curve[d], &p->device_origin[d]);
        for (int w = 0; w < 2; w++) {
            zc__gbps_curve(b->r[walks[w][d]], &p->device_walk[w][d], &p->device_walk_origin[w][d]);
            zc__gbps_curve(b->r[mapped_walks[w][d]], &p->mapped_walk[w][d],
                           &p->mapped_walk_origin[w][d]);
        }
    }
    for (int w = 0; w < 2; w++)
        zc__walk_reread(b->r[mapped_walks[w][0]], &p->mapped_walk_reread[w],
                        &p->mapped_walk_reread_origin[w]);
    zc__put(p, ZC_PF_BOTH_DIRECTIONS_GBPS, zc__max(b, ZC_BENCH_CASE_COPY_BIDIR_PINNED),
            ZC_ORIGIN_MEASURED);
}

/* Managed memory: the four cases, the fault cost beyond reading, the prefetch's fixed part. */
static void zc__managed(const zc__by_id *b, zc_profile *p)
{
    zc__put(p, ZC_PF_MANAGED_PREFETCH_GBPS, zc__at_largest(b, ZC_BENCH_CASE_MANAGED_PREFETCH, NULL),
            ZC_ORIGIN_MEASURED);
    double touch = zc__at_largest(b, ZC_BENCH_CASE_MANAGED_FIRST_TOUCH, NULL);
    double on_gpu = zc__at_largest(b, ZC_BENCH_CASE_MANAGED_PREFETCHED, NULL);
    zc__put(p, ZC_PF_MANAGED_FIRST_TOUCH_GBPS, touch, ZC_ORIGIN_MEASURED);
    zc__put(p, ZC_PF_MANAGED_PREFETCHED_GBPS, on_gpu, ZC_ORIGIN_MEASURED);
    zc__put(p, ZC_PF_MANAGED_ADVISED_GBPS, zc__at_largest(b, ZC_BENCH_CASE_MANAGED_ADVISED, NULL),
            ZC_ORIGIN_MEASURED);
    if (touch > 0.0 && on_gpu > touch)
        zc__put(p, ZC_PF_MANAGED_FAULT_US_PER_MIB,
                zc__us_at(ZC__MIB, touch) - zc__us_at(ZC__MIB, on_gpu), ZC_ORIGIN_DERIVED);
    /* managed.transfer: the whole transfer each way by size, what the model prefers. */
    const zc_bench_result *t = b->r[ZC_BENCH_CASE_MANAGED_TRANSFER];
    for (int d = 0; d < 2; d++)
        zc__variant_curve(t, zc_direction_key((zc_direction)d), &p->managed_transfer[d],
                          &p->managed_transfer_origin[d]);
    zc__variant_curve(t, zc_direction_key(ZC_DIR_BOTH), &p->managed_transfer_both,
                      &p->managed_transfer_both_origin);
    /* Two prefetch sizes give the fixed part: time = fixed + bytes / rate. */
    const zc_bench_result *r = b->r[ZC_BENCH_CASE_MANAGED_PREFETCH];
    const zc_bench_point *lo = NULL, *hi = NULL;
    double v = 0.0;
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        const zc_bench_point *pt = &r->points[i];
        if (!zc__median(pt, &v) || pt->bytes == 0)
            continue;
        if (lo == NULL || pt->bytes < lo->bytes)
            lo = pt;
        if (hi == NULL || pt->bytes > hi->bytes)
            hi = pt;
    }
    if (lo != NULL && hi != NULL && hi->bytes > lo->bytes) {
        double t_lo = zc__us_at((double)lo->bytes, lo->stats.median);
        double t_hi = zc__us_at((double)hi->bytes, hi->stats.median);
        double per_byte = (t_hi - t_lo) / ((double)hi->bytes - (double)lo->bytes);
        double fixed = t_lo - per_byte * (double)lo->bytes;
        if (per_byte > 0.0 && fixed > 0.0)
            zc__put(p, ZC_PF_MANAGED_PREFETCH_US, fixed, ZC_ORIGIN_DERIVED);
    }
}

/*
 * overlap.pipeline times a copy-in, kernel, copy-out job in one stream and chunked on several:
 * the overlapped time is the slowest stage plus what overlap fails to hide of the rest,
 * T_o = max + (1 - e) (T_s - max), so e = 1 - (T_o - max) / (T_s - max), where the slowest
 * stage is a copy alone or both copies sharing the link.
 */
static void zc__overlap(const zc__by_id *b, zc_profile *p)
{
    const zc_bench_result *r = b->r[ZC_BENCH_CASE_OVERLAP_PIPELINE];
    double serial = 0.0, best = 0.0, v = 0.0;
    size_t bytes = 0;
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        const zc_bench_point *pt = &r->points[i];
        if (!zc__median(pt, &v))
            continue;
        if (zc__variant_is(pt, "copy, then compute")) {
            serial = v;
            bytes = pt->bytes;
        } else if (zc__variant_is(pt, "overlap") && v > best) {
            best = v;
        }
    }
    const zc_curve *h2d = &p->copy[ZC_BUFFER_PINNED][ZC_DIR_H2D];
    const zc_curve *d2h = &p->copy[ZC_BUFFER_PINNED][ZC_DIR_D2H];
    if (!(serial > 0.0) || !(best > 0.0) || bytes == 0 || h2d->count == 0 || d2h->count == 0)
        return;
    double t_s = zc__us_at((double)bytes, serial), t_o = zc__us_at((double)bytes, best);
    double t_in = 0.0, t_out = 0.0;
    (void)zc_curve_time_us(h2d, bytes, &t_in);
    (void)zc_curve_time_us(d2h, bytes, &t_out);
    double slowest = fmax(t_in, t_out);
    if (p->both_directions_gbps > 0.0)
        slowest = fmax(slowest, zc__us_at(2.0 * (double)bytes, p->both_directions_gbps));
    if (!(t_s > slowest))
        return;
    double e = 1.0 - (t_o - slowest) / (t_s - slowest);
    zc__put(p, ZC_PF_OVERLAP_EFFICIENCY, fmin(fmax(e, 0.01), 1.0), ZC_ORIGIN_DERIVED);
}

/* crossover.read_k: a kernel reading mapped memory k times, by size. What a pass beyond the
 * first costs, (t(k_max) - t(1)) / (k_max - 1), is the reread curve: near nothing while the
 * buffer fits the GPU's cache, the link's full price beyond. */
static void zc__reread(const zc__by_id *b, zc_profile *p)
{
    const zc_bench_result *r = b->r[ZC_BENCH_CASE_CROSSOVER_READ_K];
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        const zc_bench_point *one = &r->points[i];
        double t1 = 0.0;
        if (strcmp(one->variant, "zero-copy") != 0 || one->param != 1.0 || one->bytes == 0 ||
            !zc__median(one, &t1))
            continue;
        const zc_bench_point *most = NULL;
        for (size_t j = 0; j < r->point_count; j++) {
            const zc_bench_point *pt = &r->points[j];
            double v = 0.0;
            if (strcmp(pt->variant, "zero-copy") == 0 && pt->bytes == one->bytes &&
                pt->param > 1.0 && zc__median(pt, &v) && (most == NULL || pt->param > most->param))
                most = pt;
        }
        if (most == NULL)
            continue;
        double extra = (most->stats.median - t1) / (most->param - 1.0);
        if (zc_cost_curve_add(&p->mapped_reread, one->bytes, extra > 0.0 ? extra : 0.0) == ZC_OK)
            p->mapped_reread_origin = ZC_ORIGIN_DERIVED;
    }
}

/* alloc.cost: the measured allocation curves, and the straight line through their two largest
 * points as the fixed and per-MiB figures (what the large allocations that dominate cost). */
static void zc__alloc(const zc__by_id *b, zc_profile *p)
{
    static const struct {
        const char *variant;
        zc_buffer_kind kind;
        zc_profile_field fixed, per_mib;
    } rows[] = {
        {"cudaHostAlloc: allocate", ZC_BUFFER_PINNED, ZC_PF_ALLOC_PINNED_FIXED_US,
         ZC_PF_ALLOC_PINNED_US_PER_MIB},
        {"zc_buffer_register: allocate", ZC_BUFFER_REGISTERED, ZC_PF_REGISTER_FIXED_US,
         ZC_PF_REGISTER_US_PER_MIB},
        {"zc_buffer_alloc managed: allocate", ZC_BUFFER_MANAGED, ZC_PF_COUNT,
         ZC_PF_ALLOC_MANAGED_US_PER_MIB},
        {"zc_buffer_alloc device: allocate", ZC_BUFFER_DEVICE, ZC_PF_COUNT,
         ZC_PF_ALLOC_DEVICE_US_PER_MIB},
    };
    const zc_bench_result *r = b->r[ZC_BENCH_CASE_ALLOC_COST];
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        zc_cost_curve *c = &p->alloc[rows[k].kind];
        zc__variant_curve(r, rows[k].variant, c, &p->alloc_origin[rows[k].kind]);
        if (c->count == 0)
            continue;
        size_t n = c->count;
        double per_mib = 0.0, fixed = c->us[n - 1];
        if (n >= 2) {
            per_mib = (c->us[n - 1] - c->us[n - 2]) /
                      (((double)c->bytes[n - 1] - (double)c->bytes[n - 2]) / ZC__MIB);
            fixed = c->us[n - 1] - per_mib * (double)c->bytes[n - 1] / ZC__MIB;
        }
        /* The figures of the straight line; a negative intercept is the driver's cache of
         * small allocations showing, so the smallest measured call stands for it. */
        if (rows[k].fixed != ZC_PF_COUNT)
            zc__put(p, rows[k].fixed, fixed > 0.0 ? fixed : c->us[0], ZC_ORIGIN_DERIVED);
        zc__put(p, rows[k].per_mib, per_mib, ZC_ORIGIN_DERIVED);
    }
    /* What a technique's later buffers cost, beside its first. */
    zc__variant_curve(r, "cudaHostAlloc beside another: allocate", &p->alloc_pinned_beside,
                      &p->alloc_pinned_beside_origin);
}

ZC_EXTERN zc_status zc_profile_from_bench(const zc_bench_result *results, size_t count,
                                          zc_profile *profile_p, char *notes, size_t notes_size)
{
    ZC_REQUIRE_ARG(profile_p);
    if (results == NULL && count > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_profile_from_bench: %zu results at NULL", count);
    if (notes != NULL && notes_size > 0)
        notes[0] = '\0';
    zc__by_id b;
    memset(&b, 0, sizeof b);
    for (size_t i = 0; i < count; i++) {
        zc_bench_case_id id;
        if (results[i].outcome != ZC_BENCH_OK || zc_bench_case_id_of(results[i].key, &id) != ZC_OK)
            continue;
        b.r[id] = &results[i];
    }
    zc_clear_error();
    zc_profile p;
    zc_profile_init(&p);
    zc__copies(&b, &p);
    zc__latencies(&b, &p);
    zc__mapped(&b, &p);
    zc__managed(&b, &p);
    zc__overlap(&b, &p);
    zc__alloc(&b, &p);
    zc__reread(&b, &p);
    for (size_t i = 0; i < ZC__USED_COUNT; i++) {
        if (b.r[zc__used[i]] == NULL)
            zc__note(notes, notes_size, "no usable result of bench case %s",
                     zc_bench_case_at((size_t)zc__used[i])->key);
    }
    if (p.copy[ZC_BUFFER_PINNED][ZC_DIR_H2D].count == 0 || !(p.launch_sync_us > 0.0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_profile_from_bench: the results lack copy.h2d.pinned or "
                       "latency.launch, which the model needs");
    *profile_p = p;
    return ZC_OK;
}
