/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover's engines ranked for a move, and a memory-bound kernel's loss beside each,
 * from a fitted profile and zc bench's blocks.beside points. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "advise/bench_results.h"
#include "blocks/blocks_engines.h"
#include "core/error.h"

static zc_status zc__workload_check(const zc_blocks_workload *w, size_t *bytes_p)
{
    if (w->block_bytes == 0 || w->count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_blocks_advise: a move of %zu blocks of %zu bytes",
                       w->count, w->block_bytes);
    if (w->dir != ZC_BLOCKS_TO_DEVICE && w->dir != ZC_BLOCKS_TO_HOST && w->dir != ZC_BLOCKS_BOTH)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_blocks_advise: direction %d is none of the three",
                       (int)w->dir);
    /* Both ways moves the bytes twice, and the mover adds the two lists' counts. */
    size_t ways = w->dir == ZC_BLOCKS_BOTH ? 2 : 1;
    if (w->count > SIZE_MAX / ways / w->block_bytes)
        return ZC_FAIL(ZC_ERR_OVERFLOW,
                       "zc_blocks_advise: %zu blocks of %zu bytes%s overflow a size", w->count,
                       w->block_bytes, ways == 2 ? " both ways" : "");
    *bytes_p = w->count * w->block_bytes;
    return ZC_OK;
}

/* Is the move outside what the fit measured? */
static int zc__outside(const zc_blocks_fit *fit, const zc_blocks_workload *w, size_t bytes)
{
    return fit != NULL && (w->block_bytes < fit->bytes_min || w->block_bytes > fit->bytes_max ||
                           bytes < fit->total_min || bytes > fit->total_max);
}

ZC_EXTERN zc_status zc_blocks_advise(const zc_blocks_profile *profile, const zc_blocks_fit *fit,
                                     const zc_blocks_workload *workload, zc_blocks_advice *advice_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(workload);
    ZC_REQUIRE_ARG(advice_p);
    size_t bytes = 0;
    ZC_CHECK(zc__workload_check(workload, &bytes));
    ZC_CHECK(zc__blocks_profile_check("zc_blocks_advise", profile));
    const int to_d = (workload->dir & ZC_BLOCKS_TO_DEVICE) != 0;
    const int to_h = (workload->dir & ZC_BLOCKS_TO_HOST) != 0;
    const size_t nd = to_d ? workload->count : 0, nh = to_h ? workload->count : 0;
    const unsigned sms = workload->sms != 0 ? workload->sms : ZC_BLOCKS_DEFAULT_MAX_SMS;
    zc_blocks_advice a;
    memset(&a, 0, sizeof a);
    a.choice = ZC_BLOCKS_AUTO;
    /* The list's order, then a stable insertion by time: on a tie the earlier engine stays
     * first, as the planner keeps the earlier row (the copy engines take no SMs). */
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        zc_blocks_option o;
        o.engine = (zc_blocks_engine)e;
        o.predicted_us = zc__blocks_predict_us(profile, o.engine, nd, to_d ? bytes : 0, nh,
                                               to_h ? bytes : 0, sms);
        o.gbps = (double)bytes * (double)(to_d + to_h) / (o.predicted_us * 1e3);
        o.calls = zc__blocks_calls(profile, o.engine, nd, nh);
        size_t at = a.count;
        while (at > 0 && o.predicted_us < a.ranked[at - 1].predicted_us) {
            a.ranked[at] = a.ranked[at - 1];
            at--;
        }
        a.ranked[at] = o;
        a.count++;
    }
    a.choice = a.ranked[0].engine;
    a.outside = zc__outside(fit, workload, bytes);
    *advice_p = a;
    return ZC_OK;
}

/* "compute alone" (0) or "compute beside <engine>" (the engine), else -1. */
static int zc__beside_of(const char *variant)
{
    static const char prefix[] = "compute beside ";
    if (strcmp(variant, "compute alone") == 0)
        return 0;
    if (strncmp(variant, prefix, sizeof prefix - 1) != 0)
        return -1;
    zc_blocks_engine e;
    if (zc_blocks_engine_from_name(variant + sizeof prefix - 1, &e) != ZC_OK ||
        e == ZC_BLOCKS_AUTO) {
        zc_clear_error();
        return -1;
    }
    return (int)e;
}

/* The measured size of r nearest want, in ratio (the smaller on a tie); 0 when none. */
static size_t zc__nearest(const zc_bench_result *r, size_t want)
{
    size_t best = 0;
    double best_d = INFINITY;
    for (size_t i = 0; i < r->point_count; i++) {
        const zc_bench_point *p = &r->points[i];
        if (p->bytes == 0 || zc__beside_of(p->variant) < 0)
            continue;
        double d = fabs(log((double)p->bytes / (double)want));
        if (d < best_d || (d == best_d && p->bytes < best)) {
            best_d = d;
            best = p->bytes;
        }
    }
    return best;
}

ZC_EXTERN zc_status zc_blocks_beside_from_bench(const zc_bench_result *results, size_t count,
                                                size_t block_bytes, zc_blocks_beside *beside_p)
{
    ZC_REQUIRE_ARG(results);
    ZC_REQUIRE_ARG(beside_p);
    if (block_bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_blocks_beside_from_bench: a block of 0 bytes");
    const zc_bench_result *r = zc__advise_ok_result(results, count, ZC_BENCH_CASE_BLOCKS_BESIDE);
    size_t at = r != NULL ? zc__nearest(r, block_bytes) : 0;
    if (at == 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_blocks_beside_from_bench: no blocks.beside points that ran ok (zc "
                       "bench --case blocks.beside measures them)");
    zc_blocks_beside b;
    memset(&b, 0, sizeof b);
    b.block_bytes = at;
    b.alone_gbps = NAN;
    double beside[ZC_BLOCKS_ENGINE_COUNT];
    for (int e = 0; e < ZC_BLOCKS_ENGINE_COUNT; e++)
        beside[e] = b.loss[e] = NAN;
    for (size_t i = 0; i < r->point_count; i++) {
        const zc_bench_point *p = &r->points[i];
        int e = zc__beside_of(p->variant);
        if (p->bytes != at || e < 0)
            continue;
        if (!isfinite(p->stats.median) || !(p->stats.median > 0.0))
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "zc_blocks_beside_from_bench: blocks.beside, %s at %zu bytes: median "
                           "%g is not a finite positive GB/s",
                           p->variant, p->bytes, p->stats.median);
        b.count = p->param >= 1.0 ? (size_t)p->param : b.count;
        if (e == 0)
            b.alone_gbps = p->stats.median;
        else
            beside[e] = p->stats.median;
    }
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++)
        b.loss[e] = isfinite(b.alone_gbps) ? 1.0 - beside[e] / b.alone_gbps : NAN;
    *beside_p = b;
    return ZC_OK;
}
