/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover's profile measured: its cost model fitted to zc bench's block family. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise/blocks_fit.h"
#include "blocks/blocks_engines.h"
#include "advise/bench_results.h"
#include "core/error.h"

/* Fewest points an engine's fit rests on in a direction, of at least two block sizes: three
 * costs, and a size alone cannot tell a cost per block from a cost per byte. */
#define ZC__FIT_POINTS_MIN 3

/* What the fit of one engine in one direction gathers. */
typedef struct zc__fit_set {
    zc__blk_obs obs[64];
    size_t n;
    size_t bytes_min, bytes_max;
} zc__fit_set;

/*
 * One point as a move the model prices: n blocks of bytes each, in the time its median GB/s
 * gives. The calls are counted as the mover counted them when it was measured: zc bench's mover
 * plans with the placeholder profile, whose batch_max the fitted profile keeps.
 */
static zc_status zc__point_obs(const char *key, const zc_bench_point *p,
                               const zc_blocks_profile *as_run, zc_blocks_engine e, zc__blk_obs *o)
{
    double n = p->param, gbps = p->stats.median;
    if (p->bytes == 0 || !(n >= 1.0) || n != floor(n) || n > 1e12)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_blocks_profile_from_bench: %s, %s at %zu bytes: no block size or "
                       "count of blocks (param %g)",
                       key, p->variant, p->bytes, n);
    if (!isfinite(gbps) || !(gbps > 0.0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_blocks_profile_from_bench: %s, %s at %zu bytes x%.0f: median %g is "
                       "not a finite positive GB/s",
                       key, p->variant, p->bytes, n, gbps);
    double bytes = n * (double)p->bytes;
    o->x[0] = (double)zc__blocks_calls(as_run, e, (size_t)n, 0);
    o->x[1] = n;
    o->x[2] = bytes / 1e3;
    o->us = bytes / (gbps * 1e3);
    return ZC_OK;
}

/* The points of engine e in result r. */
static zc_status zc__gather(const zc_bench_result *r, const zc_blocks_profile *as_run,
                            zc_blocks_engine e, zc__fit_set *set)
{
    memset(set, 0, sizeof *set);
    for (size_t i = 0; i < r->point_count; i++) {
        const zc_bench_point *p = &r->points[i];
        if (strcmp(p->variant, zc_blocks_engine_name(e)) != 0)
            continue;
        if (set->n == sizeof set->obs / sizeof set->obs[0])
            return ZC_FAIL(ZC_ERR_OVERFLOW,
                           "zc_blocks_profile_from_bench: %s has more than %zu points of "
                           "engine %s",
                           r->key, set->n, zc_blocks_engine_name(e));
        ZC_CHECK(zc__point_obs(r->key, p, as_run, e, &set->obs[set->n]));
        set->bytes_min =
            set->n == 0 ? p->bytes : (p->bytes < set->bytes_min ? p->bytes : set->bytes_min);
        set->bytes_max = p->bytes > set->bytes_max ? p->bytes : set->bytes_max;
        set->n++;
    }
    if (set->n < ZC__FIT_POINTS_MIN || set->bytes_min == set->bytes_max)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_blocks_profile_from_bench: %s has %zu point%s of engine %s%s; the fit "
                       "needs %d of 2 block sizes or more (zc bench --case blocks in its default "
                       "or full mode: --quick measures one size)",
                       r->key, set->n, set->n == 1 ? "" : "s", zc_blocks_engine_name(e),
                       set->n > 0 && set->bytes_min == set->bytes_max ? ", all of one size" : "",
                       ZC__FIT_POINTS_MIN);
    return ZC_OK;
}

/*
 * The least cost per kilobyte (1 / GB/s) an engine is fitted with in a direction: no engine
 * moves bytes faster than the fastest move measured that way, by any engine at any size.
 * Without this floor, points at two move sizes let a fixed cost and a bandwidth above the link
 * trade off (an H100's batch to the device fitted 2.8 ms a move at 131 GB/s): the measured
 * moves fit, and every other count of blocks is priced wrong (64 KiB x256: 5.4 GB/s predicted,
 * 26.4 measured).
 */
static double zc__least_us_per_kb(const zc_bench_result *r)
{
    double fastest = 0.0;
    for (size_t i = 0; i < r->point_count; i++) {
        double gbps = r->points[i].stats.median;
        if (isfinite(gbps) && gbps > fastest)
            fastest = gbps;
    }
    return fastest > 0.0 ? 1.0 / fastest : 0.0;
}

/*
 * One engine in one direction. The form is the mover's own (zc__blocks_predict_us), so that
 * what is fitted is what plans. Where every block is a call (the copy engine) the call and
 * block columns are the same and the cost is all per block (call_us 0, as the placeholders
 * say). Where every point is one call (a batch of at most batch_max blocks: zc bench moves at
 * most 4096), the per-call cost cannot be told from a fixed cost per move, and whatever the
 * form misses at the measured sizes is folded into it: the fit holds at the measured moves and
 * may not below them (docs/blocks.md, "Measuring the engines").
 */
static zc_status zc__fit_one(const zc_bench_result *r, const zc_blocks_profile *as_run,
                             zc_blocks_engine e, zc_blocks_cost *cost, zc_blocks_fit *fit, int dir)
{
    zc__fit_set set;
    ZC_CHECK(zc__gather(r, as_run, e, &set));
    int fitted[ZC__BLK_COLS] = {0, 1, 1};
    for (size_t i = 0; i < set.n; i++)
        fitted[0] |= set.obs[i].x[0] != set.obs[i].x[1];
    double c[ZC__BLK_COLS];
    if (!zc__blk_lsq(set.obs, set.n, fitted, zc__least_us_per_kb(r), c))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_blocks_profile_from_bench: %s, engine %s: no costs of the form calls "
                       "* call_us + blocks * block_us + bytes / gbps, none negative and gbps no "
                       "faster than the fastest point, fit its %zu points",
                       r->key, zc_blocks_engine_name(e), set.n);
    *cost = (zc_blocks_cost){c[0], c[1], 1.0 / c[2]};
    double worst = 0.0;
    for (size_t i = 0; i < set.n; i++) {
        const double *x = set.obs[i].x;
        double pred = x[0] * c[0] + x[1] * c[1] + x[2] * c[2];
        worst = fmax(worst, fabs(pred - set.obs[i].us) / set.obs[i].us);
        size_t total = (size_t)(x[2] * 1e3 + 0.5);
        fit->total_min = fit->total_min == 0 || total < fit->total_min ? total : fit->total_min;
        fit->total_max = total > fit->total_max ? total : fit->total_max;
    }
    fit->points[dir][e] = set.n;
    fit->worst[dir][e] = worst;
    fit->bytes_min =
        fit->bytes_min == 0 || set.bytes_min < fit->bytes_min ? set.bytes_min : fit->bytes_min;
    fit->bytes_max = set.bytes_max > fit->bytes_max ? set.bytes_max : fit->bytes_max;
    return ZC_OK;
}

/*
 * The kernel engine's bandwidth per SM. It was measured on sms SMs, so its fitted bandwidth in
 * each direction is what that many SMs carry: kernel_sm_gbps is the faster direction's over
 * them, and the model's min(gbps, sms * kernel_sm_gbps) gives the measured figure back at that
 * count and scales it down below it. More SMs were not measured, so the fitted bandwidth stays
 * the ceiling above it. Without the count the cap is set never to bind (one SM carries it all).
 */
static double zc__sm_gbps(const zc_blocks_profile *p, unsigned sms)
{
    double g = fmax(p->to_device[ZC_BLOCKS_KERNEL].gbps, p->to_host[ZC_BLOCKS_KERNEL].gbps);
    return sms > 0 ? g / (double)sms : g;
}

/*
 * The copy engines' ceiling both ways at once: the fastest blocks.bidir point of the per-block
 * copy or the batch (the two directions' bytes together), 0 without one. What each moved alone
 * one way does not say it: the H100 carried 54 GB/s each way alone and 72.4 both ways, not 108.
 */
static double zc__both_gbps(const zc_bench_result *results, size_t count)
{
    const zc_bench_result *r = zc__advise_ok_result(results, count, ZC_BENCH_CASE_BLOCKS_BIDIR);
    double fastest = 0.0;
    for (size_t i = 0; r != NULL && i < r->point_count; i++) {
        const zc_bench_point *p = &r->points[i];
        int copy_engine = strcmp(p->variant, zc_blocks_engine_name(ZC_BLOCKS_COPY)) == 0 ||
                          strcmp(p->variant, zc_blocks_engine_name(ZC_BLOCKS_BATCH)) == 0;
        if (copy_engine && isfinite(p->stats.median) && p->stats.median > fastest)
            fastest = p->stats.median;
    }
    return fastest;
}

ZC_EXTERN zc_status zc_blocks_profile_from_bench(const zc_bench_result *results, size_t count,
                                                 unsigned sms, zc_blocks_profile *profile_p,
                                                 zc_blocks_fit *fit_p)
{
    ZC_REQUIRE_ARG(results);
    ZC_REQUIRE_ARG(profile_p);
    const zc_bench_result *r[2] = {zc__advise_ok_result(results, count, ZC_BENCH_CASE_BLOCKS_H2D),
                                   zc__advise_ok_result(results, count, ZC_BENCH_CASE_BLOCKS_D2H)};
    if (r[0] == NULL || r[1] == NULL)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_blocks_profile_from_bench: no %s results that ran ok among the %zu "
                       "cases (zc bench --case blocks measures them)",
                       r[0] == NULL ? "blocks.h2d" : "blocks.d2h", count);
    zc_blocks_profile p, as_run;
    zc__blocks_profile_placeholder(&as_run);
    p = as_run;
    zc_blocks_fit fit;
    memset(&fit, 0, sizeof fit);
    fit.sms = sms;
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        ZC_CHECK(zc__fit_one(r[0], &as_run, (zc_blocks_engine)e, &p.to_device[e], &fit, 0));
        ZC_CHECK(zc__fit_one(r[1], &as_run, (zc_blocks_engine)e, &p.to_host[e], &fit, 1));
    }
    p.kernel_sm_gbps = zc__sm_gbps(&p, sms);
    p.both_gbps = zc__both_gbps(results, count);
    p.measured = 1;
    ZC_CHECK(zc__blocks_profile_check("zc_blocks_profile_from_bench", &p));
    *profile_p = p;
    if (fit_p != NULL)
        *fit_p = fit;
    return ZC_OK;
}
