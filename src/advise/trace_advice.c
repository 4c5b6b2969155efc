/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --trace's engine: each workload a traced program forms priced for every technique,
 * its current one and the best, the saving, the zc run cure that applies, and the totals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/trace_internal.h"
#include "core/error.h"

/* zc run's defaults (docs/run.md, "Settings"): pageable copies from these sizes are staged
 * through pinned memory (ZC_RUN_MIN_BYTES, ZC_RUN_MIN_D2H_BYTES); smaller ones go as they were.
 * The register cure pins buffers allocated at this size and more. */
#define ZC__CURE_MIN_H2D_BYTES      (1ull << 20)
#define ZC__CURE_MIN_D2H_BYTES      (256ull << 10)
#define ZC__CURE_MIN_REGISTER_BYTES (256ull << 10)

/* The technique a copy from host memory of kind is: the trace names registered and
 * write-combined memory "pinned", so those are priced as the pinned copies they are. */
static zc_technique zc__technique_of(zc_buffer_kind kind)
{
    if (kind == ZC_BUFFER_PAGEABLE)
        return ZC_TECH_PAGEABLE;
    if (kind == ZC_BUFFER_REGISTERED)
        return ZC_TECH_REGISTERED;
    return ZC_TECH_PINNED;
}

/* The zc run cure of a group of pageable copies: staging for copies large enough for it, and
 * pinning in place for a group copied again and again (the register cure pins a buffer only
 * when copies come back to it; the trace cannot say whether they do, zc run finds out). */
static void zc__cure(zc_trace_group *g)
{
    g->cure[0] = '\0';
    if (g->host_kind != ZC_BUFFER_PAGEABLE)
        return;
    uint64_t min =
        g->workload.direction == ZC_DIR_H2D ? ZC__CURE_MIN_H2D_BYTES : ZC__CURE_MIN_D2H_BYTES;
    int stage = g->bytes_min >= min;
    int reg = g->count > 1 && g->bytes_min >= ZC__CURE_MIN_REGISTER_BYTES;
    snprintf(g->cure, sizeof g->cure, "%s%s%s", stage ? "pageable" : "", stage && reg ? "," : "",
             reg ? "register" : "");
}

/* The group's workload as the model reads it: its mean copy size, its count, each byte read
 * once by a coalesced kernel, back to back (the trace measures neither the kernels' accesses
 * nor an arrival rate; the rate the program reached is kept beside it). */
static zc_status zc__group_workload(zc_trace_group *g, double span_s)
{
    uint64_t mean = (g->bytes + g->count / 2) / g->count;
    zc_workload *w = &g->workload;
    w->bytes = (size_t)(mean > 0 ? mean : 1);
    w->transfers = (double)g->count;
    w->rate_hz = 0.0;
    w->gpu_accesses = 1.0;
    w->pattern = ZC_ACCESS_COALESCED;
    w->concurrent = 0;
    w->latency_budget_us = 0.0;
    g->rate_hz = span_s > 0.0 ? (double)g->count / span_s : 0.0;
    return zc_workload_check(w);
}

/* Price one group for every technique; *priced_p 0 when the profile cannot price its current
 * technique (then why says so). */
static zc_status zc__price_group(const zc_profile *profile, zc_trace_group *g, double span_s,
                                 int *priced_p, char *why, size_t size)
{
    ZC_CHECK(zc__group_workload(g, span_s));
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        ZC_CHECK(zc_advise_predict(profile, &g->workload, (zc_technique)t, &g->predicted[t]));
    g->current = zc__technique_of(g->host_kind);
    const zc_prediction *now = &g->predicted[g->current];
    *priced_p = now->usable && isfinite(now->total_us);
    if (!*priced_p) {
        snprintf(why, size, "the profile cannot price a %s (no %s %s copy curve)",
                 zc_technique_title(g->current), zc_buffer_kind_key(g->host_kind),
                 zc_direction_key(g->workload.direction));
        return ZC_OK;
    }
    g->best = g->current;
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        const zc_prediction *p = &g->predicted[t];
        if (p->usable && isfinite(p->total_us) && p->total_us < g->predicted[g->best].total_us)
            g->best = (zc_technique)t;
    }
    g->now_us = now->total_us;
    g->best_us = g->predicted[g->best].total_us;
    g->saving_us = g->now_us - g->best_us;
    /* What the trace measured is each copy's duration on the GPU: the copy curve's time at the
     * group's size (zc bench times back-to-back copies on the GPU too), without the host's
     * per-call cost that copy_latency_us prices for a synchronous copy. */
    double one = 0.0;
    const zc_curve *curve = &profile->copy[g->host_kind][g->workload.direction];
    if (zc_curve_time_us(curve, g->workload.bytes, &one) != ZC_OK)
        one = profile->copy_latency_us[g->host_kind] + now->link_us;
    g->copies_us = (double)g->count * one;
    zc__cure(g);
    return ZC_OK;
}

/* Groups in a stable order: host to device first, then by size, then by host kind. */
static int zc__group_order(const void *x, const void *y)
{
    const zc_trace_group *a = x, *b = y;
    if (a->workload.direction != b->workload.direction)
        return a->workload.direction < b->workload.direction ? -1 : 1;
    if (a->size_class != b->size_class)
        return a->size_class < b->size_class ? -1 : 1;
    return a->host_kind < b->host_kind ? -1 : a->host_kind > b->host_kind;
}

/* Price every group; one the profile cannot price moves to the unpriced lines. */
static zc_status zc__price_groups(const zc_profile *profile, zc_trace_advice *a)
{
    size_t kept = 0;
    for (size_t i = 0; i < a->group_count; i++) {
        zc_trace_group *g = &a->groups[i];
        int priced = 0;
        char why[192] = "";
        ZC_CHECK(zc__price_group(profile, g, a->span_s, &priced, why, sizeof why));
        if (!priced) {
            char what[64];
            snprintf(what, sizeof what, "%s %s", zc_direction_key(g->workload.direction),
                     zc_buffer_kind_key(g->host_kind));
            zc__trace_unpriced_add(a, what, g->count, g->bytes, g->measured_us * 1e-6, why);
            continue;
        }
        a->measured_us += g->measured_us;
        a->now_us += g->now_us;
        a->best_us += g->best_us;
        a->saving_us += g->saving_us;
        if (kept != i)
            a->groups[kept] = *g;
        kept++;
    }
    a->group_count = kept;
    qsort(a->groups, kept, sizeof a->groups[0], zc__group_order);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_advise_traced(const zc_profile *profile, const zc_traced_program *program,
                                     zc_trace_advice *advice_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(program);
    ZC_REQUIRE_ARG(advice_p);
    if (program->copy_count > 0 && program->copies == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_traced: %zu copy classes and no array",
                       program->copy_count);
    if (!isfinite(program->span_s) || program->span_s < 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_traced: span %g s is not a duration",
                       program->span_s);
    /* Built apart and handed over whole, so that a failure leaves *advice_p as it was. */
    zc_trace_advice *a = calloc(1, sizeof *a);
    if (a == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_advise_traced: %zu bytes", sizeof *a);
    a->span_s = program->span_s;
    a->sized = program->sized;
    a->pinning_saving_s = -1.0;
    if (program->pinning_in_loop) {
        snprintf(a->pinning_cure, sizeof a->pinning_cure, "pinning");
        a->pinning_saving_s = program->pinning_saving_s;
    }
    zc_status st = ZC_OK;
    ZC_CHECK_GOTO(zc__trace_group_copies(program, a), st, out);
    ZC_CHECK_GOTO(zc__price_groups(profile, a), st, out);
    memcpy(advice_p, a, sizeof *a);
out:
    free(a);
    return st;
}
