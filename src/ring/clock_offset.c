/* SPDX-License-Identifier: Apache-2.0 */
/* The host-GPU clock offset from flag round trips: each bounds it, their bounds intersect. */
#include "ring/budget_math.h"

#include <stdlib.h>

#include "core/error.h"

typedef struct zc__round_trip {
    double rtt_ns;
    int64_t mid, half; /* the middle and half width of this round trip's bound on the offset */
} zc__round_trip;

static int zc__round_trip_faster(const void *a, const void *b)
{
    double x = ((const zc__round_trip *)a)->rtt_ns, y = ((const zc__round_trip *)b)->rtt_ns;
    return (x > y) - (x < y);
}

static int zc__int64_order(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The round trips' bounds did not meet (the clocks moved apart within the measurement, or a
 * timer read was late): the fastest tenth are the tightest bounds; their middles' median. */
static void zc__offset_from_fastest(zc__round_trip *trips, uint32_t n, int64_t *scratch,
                                    zc_ring_clock_sync *out)
{
    qsort(trips, n, sizeof *trips, zc__round_trip_faster);
    uint32_t keep = n / 10 > 0 ? n / 10 : 1;
    for (uint32_t i = 0; i < keep; i++)
        scratch[i] = trips[i].mid;
    qsort(scratch, keep, sizeof *scratch, zc__int64_order);
    out->offset_ns = scratch[keep / 2];
    for (uint32_t i = 0; i < keep; i++)
        scratch[i] = trips[i].half;
    qsort(scratch, keep, sizeof *scratch, zc__int64_order);
    out->uncertainty_ns = (double)scratch[keep / 2];
    out->interval_empty = 1;
}

zc_status zc__clock_offset_solve(const uint64_t *send, const uint64_t *back, const uint64_t *gpu,
                                 uint32_t n, double tick_ns, zc_ring_clock_sync *out)
{
    if (send == NULL || back == NULL || gpu == NULL || out == NULL || n == 0 || !(tick_ns >= 0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__clock_offset_solve: no round trips to solve");
    zc__round_trip *trips = malloc((size_t)n * sizeof *trips);
    int64_t *scratch = malloc((size_t)n * sizeof *scratch);
    double *rtt_us = malloc((size_t)n * sizeof *rtt_us);
    zc_status st = ZC_OK;
    if (trips == NULL || scratch == NULL || rtt_us == NULL) {
        st = ZC_FAIL(ZC_ERR_NO_MEMORY, "zc__clock_offset_solve: no memory for %u round trips", n);
        goto done;
    }
    /* The GPU read its timer at some host time in [send, back]; the timer reads low by up to a
     * tick. So offset = timer - host time lies in [gpu - back, gpu - send + tick]. */
    const int64_t tick = (int64_t)(tick_ns + 0.999);
    int64_t lo_max = INT64_MIN, hi_min = INT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (back[i] < send[i]) {
            st = ZC_FAIL(ZC_ERR_INVALID_ARG,
                         "zc__clock_offset_solve: round trip %u came back before it was sent", i);
            goto done;
        }
        int64_t lo = (int64_t)(gpu[i] - back[i]), hi = (int64_t)(gpu[i] - send[i]) + tick;
        lo_max = lo > lo_max ? lo : lo_max;
        hi_min = hi < hi_min ? hi : hi_min;
        trips[i].rtt_ns = (double)(back[i] - send[i]);
        trips[i].mid = lo + (hi - lo) / 2;
        trips[i].half = (hi - lo) / 2;
        rtt_us[i] = trips[i].rtt_ns / 1e3;
    }
    zc_stats rtt;
    ZC_CHECK_GOTO(zc_stats_compute(rtt_us, n, &rtt), st, done);
    out->round_trips = n;
    out->tick_ns = tick_ns;
    out->rtt_min_us = rtt.min;
    out->rtt_p50_us = rtt.median;
    out->rtt_p99_us = rtt.p99;
    out->interval_empty = 0;
    if (lo_max <= hi_min) {
        out->offset_ns = lo_max + (hi_min - lo_max) / 2;
        out->uncertainty_ns = (double)(hi_min - lo_max) / 2.0;
    } else {
        zc__offset_from_fastest(trips, n, scratch, out);
    }
done:
    free(trips);
    free(scratch);
    free(rtt_us);
    return st;
}
