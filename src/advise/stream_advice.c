/* SPDX-License-Identifier: Apache-2.0 */
/* Stream advice: every zc stream mode priced for a frame size and a rate from measured runs. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "zerocopy/filter.h"
#include "core/c_locale.h"

/* The rows of the ranking: every mode of zc_stream_mode, those on a ring (zerocopy, hybrid)
 * once per protocol. A new mode is a new row without a change here. */
static size_t zc__rows(int *modes, int *protocols, size_t cap)
{
    size_t n = 0;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT && n < cap; m++) {
        if (zc_stream_mode_on_ring((zc_stream_mode)m)) {
            modes[n] = m;
            protocols[n++] = ZC_RING_PROTO_LL;
            if (n < cap) {
                modes[n] = m;
                protocols[n++] = ZC_RING_PROTO_FLAG;
            }
        } else {
            modes[n] = m;
            protocols[n++] = 0;
        }
    }
    return n;
}

ZC_EXTERN zc_status zc_stream_option_name(int mode, int protocol, char *out, size_t size)
{
    ZC_REQUIRE_ARG(out);
    if (mode < 0 || mode >= ZC_STREAM_MODE_COUNT)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_option_name: unknown mode %d", mode);
    /* The library's run names (zc_stream_run_name); any protocol but LL reads as FLAG here. */
    return zc_stream_run_name((zc_stream_mode)mode,
                              protocol == ZC_RING_PROTO_LL ? ZC_RING_PROTO_LL : ZC_RING_PROTO_FLAG,
                              out, size);
}

/* The runs of one row, sorted by size, one per size: for latency the one with the fewest
 * frames in flight, for throughput the best rate. */
typedef struct zc__series {
    size_t n;
    size_t bytes[ZC_PROFILE_STREAM_MAX];
    double value[ZC_PROFILE_STREAM_MAX]; /* latency us, or microseconds per frame */
    double p99[ZC_PROFILE_STREAM_MAX];
    double rank[ZC_PROFILE_STREAM_MAX]; /* lower is preferred at the same size */
    const zc_stream_point *at[ZC_PROFILE_STREAM_MAX];
} zc__series;

/* Keep pt in the series at its size when it is the first there, or has a lower rank (frames in
 * flight, for latency), or the same rank and a lower value. */
static void zc__series_put(zc__series *s, const zc_stream_point *pt, double value, double p99,
                           double rank)
{
    size_t i = 0;
    while (i < s->n && s->bytes[i] < pt->frame_bytes)
        i++;
    if (i < s->n && s->bytes[i] == pt->frame_bytes) {
        if (rank < s->rank[i] || (rank == s->rank[i] && value < s->value[i])) {
            s->value[i] = value;
            s->p99[i] = p99;
            s->rank[i] = rank;
            s->at[i] = pt;
        }
        return;
    }
    size_t tail = s->n - i;
    memmove(&s->bytes[i + 1], &s->bytes[i], tail * sizeof s->bytes[0]);
    memmove(&s->value[i + 1], &s->value[i], tail * sizeof s->value[0]);
    memmove(&s->p99[i + 1], &s->p99[i], tail * sizeof s->p99[0]);
    memmove(&s->rank[i + 1], &s->rank[i], tail * sizeof s->rank[0]);
    memmove(&s->at[i + 1], &s->at[i], tail * sizeof s->at[0]);
    s->bytes[i] = pt->frame_bytes;
    s->value[i] = value;
    s->p99[i] = p99;
    s->rank[i] = rank;
    s->at[i] = pt;
    s->n++;
}

/* Linear in frame size between measured sizes (a frame's time is close to affine in its
 * size); the nearest measured value outside them, never extrapolated. *nearest_p: the index
 * of the measured size nearest bytes (by ratio). */
static double zc__series_at(const zc__series *s, size_t bytes, double *p99_p, size_t *nearest_p)
{
    size_t n = s->n, near = 0;
    double b = (double)bytes;
    for (size_t i = 1; i < n; i++) {
        if (fabs(log(b / (double)s->bytes[i])) < fabs(log(b / (double)s->bytes[near])))
            near = i;
    }
    *nearest_p = near;
    if (bytes <= s->bytes[0] || n == 1) {
        *p99_p = s->p99[bytes <= s->bytes[0] ? 0 : n - 1];
        return s->value[bytes <= s->bytes[0] ? 0 : n - 1];
    }
    if (bytes >= s->bytes[n - 1]) {
        *p99_p = s->p99[n - 1];
        return s->value[n - 1];
    }
    size_t i = 1;
    while (s->bytes[i] < bytes)
        i++;
    double f = (b - (double)s->bytes[i - 1]) / ((double)s->bytes[i] - (double)s->bytes[i - 1]);
    *p99_p = s->p99[i - 1] + f * (s->p99[i] - s->p99[i - 1]);
    return s->value[i - 1] + f * (s->value[i] - s->value[i - 1]);
}

/* Whether a series can speak for frames of bytes: they lie between two measured sizes, or
 * within a factor of 4 of one. Beyond that a frame's cost changes too much to carry over (a
 * mode measured at 4 KiB says nothing about 1 MiB frames). */
static int zc__covers(const zc__series *s, size_t bytes)
{
    if (bytes >= s->bytes[0] && bytes <= s->bytes[s->n - 1])
        return 1;
    size_t edge = bytes < s->bytes[0] ? s->bytes[0] : s->bytes[s->n - 1];
    double ratio = (double)bytes / (double)edge;
    return ratio >= 0.25 && ratio <= 4.0;
}

/* Price one row from the profile's runs of it. */
static void zc__price(const zc_profile *p, const zc_stream_workload *w, zc_stream_option *o)
{
    zc__series lat, thr;
    memset(&lat, 0, sizeof lat);
    memset(&thr, 0, sizeof thr);
    for (size_t i = 0; i < p->stream_count; i++) {
        const zc_stream_point *pt = &p->stream[i];
        if (pt->mode != o->mode ||
            (zc_stream_mode_on_ring((zc_stream_mode)o->mode) && pt->protocol != o->protocol))
            continue;
        /* Latency at each size from its run with the fewest frames in flight: queued frames
         * wait for each other, which a paced stream below its limit does not. */
        zc__series_put(&lat, pt, pt->p50_us, pt->p99_us, (double)pt->in_flight);
        zc__series_put(&thr, pt, (double)pt->frame_bytes / (pt->gbps * 1e3), 0.0, 0.0);
    }
    if (lat.n == 0 || thr.n == 0 || !zc__covers(&lat, w->frame_bytes) ||
        !zc__covers(&thr, w->frame_bytes))
        return;
    size_t near_lat = 0, near_thr = 0;
    double unused = 0.0;
    o->usable = 1;
    o->p50_us = zc__series_at(&lat, w->frame_bytes, &o->p99_us, &near_lat);
    double us_per_frame = zc__series_at(&thr, w->frame_bytes, &unused, &near_thr);
    /* Between measured sizes the time per frame is interpolated; the rate follows from it. */
    o->gbps = (double)w->frame_bytes / (us_per_frame * 1e3);
    o->max_hz = 1e6 / us_per_frame;
    o->gpu_blocks = thr.at[near_thr]->gpu_blocks;
    o->in_flight = thr.at[near_thr]->in_flight;
    o->nearest_bytes = thr.bytes[near_thr];
    o->meets_rate = w->rate_hz <= 0.0 || o->max_hz >= w->rate_hz;
}

/* Usable first, then those keeping the rate; then, with a rate, the lowest latency, and as
 * fast as possible, the highest rate. */
static int zc__compare(const zc_stream_workload *w, const zc_stream_option *x,
                       const zc_stream_option *y)
{
    if (x->usable != y->usable)
        return y->usable - x->usable;
    if (x->meets_rate != y->meets_rate)
        return y->meets_rate - x->meets_rate;
    if (w->rate_hz > 0.0 && x->meets_rate) {
        /* A rate it keeps: the lowest latency wins. */
        if (x->p50_us != y->p50_us)
            return x->p50_us < y->p50_us ? -1 : 1;
    } else if (x->gbps != y->gbps) {
        return x->gbps > y->gbps ? -1 : 1;
    }
    if (x->mode != y->mode)
        return x->mode - y->mode;
    return x->protocol - y->protocol;
}

static void zc__explain(const zc_stream_workload *w, const zc_stream_advice *a, char *out,
                        size_t size)
{
    const zc_stream_option *top = &a->ranked[0];
    char name[48], next[48] = "";
    (void)zc_stream_option_name(top->mode, top->protocol, name, sizeof name);
    int len;
    if (w->rate_hz > 0.0)
        len = zc__snprintf_c(
            out, size,
            "%s%s: expect %.3g us per frame (p50, p99 %.3g us) at %g frames/s; it "
            "takes up to %.3g frames/s (%.3g GB/s) with %u in flight and %u GPU blocks",
            top->meets_rate ? "" : "No mode keeps up with the rate; the closest is ", name,
            top->p50_us, top->p99_us, w->rate_hz, top->max_hz, top->gbps, top->in_flight,
            top->gpu_blocks);
    else
        len = zc__snprintf_c(out, size,
                             "%s: %.3g GB/s of input (%.3g frames/s) with %u in flight and %u GPU "
                             "blocks; one frame alone takes %.3g us (p50)",
                             name, top->gbps, top->max_hz, top->in_flight, top->gpu_blocks,
                             top->p50_us);
    if (len < 0 || (size_t)len >= size)
        return;
    if (a->count > 1 && a->ranked[1].usable) {
        const zc_stream_option *n = &a->ranked[1];
        (void)zc_stream_option_name(n->mode, n->protocol, next, sizeof next);
        if (w->rate_hz > 0.0 && n->meets_rate)
            zc__snprintf_c(out + len, size - (size_t)len, "; next %s at %.3g us.", next, n->p50_us);
        else
            zc__snprintf_c(out + len, size - (size_t)len, "; next %s at %.3g GB/s.", next, n->gbps);
    } else {
        zc__snprintf_c(out + len, size - (size_t)len, ".");
    }
}

ZC_EXTERN zc_status zc_stream_advise(const zc_profile *profile, const zc_stream_workload *workload,
                                     zc_stream_advice *advice_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(workload);
    ZC_REQUIRE_ARG(advice_p);
    if (workload->frame_bytes == 0 || !isfinite(workload->rate_hz) || workload->rate_hz < 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_stream_advise: a frame size > 0 and a rate >= 0 (0: as fast as "
                       "possible) are needed");
    if (profile->stream_count == 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_stream_advise: the profile holds no zc stream run (give zc stream "
                       "--json results)");
    zc_stream_advice a;
    memset(&a, 0, sizeof a);
    int modes[ZC_STREAM_OPTION_MAX], protocols[ZC_STREAM_OPTION_MAX];
    a.count = zc__rows(modes, protocols, ZC_STREAM_OPTION_MAX);
    for (size_t i = 0; i < a.count; i++) {
        a.ranked[i].mode = modes[i];
        a.ranked[i].protocol = protocols[i];
        zc__price(profile, workload, &a.ranked[i]);
    }
    /* Insertion sort: a handful of rows, and the comparison needs the workload. */
    for (size_t i = 1; i < a.count; i++) {
        zc_stream_option o = a.ranked[i];
        size_t j = i;
        while (j > 0 && zc__compare(workload, &o, &a.ranked[j - 1]) < 0) {
            a.ranked[j] = a.ranked[j - 1];
            j--;
        }
        a.ranked[j] = o;
    }
    if (!a.ranked[0].usable)
        return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_stream_advise: no run of any known mode");
    zc__explain(workload, &a, a.explanation, sizeof a.explanation);
    *advice_p = a;
    return ZC_OK;
}
