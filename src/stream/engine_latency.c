/* SPDX-License-Identifier: Apache-2.0 */
/* Latency records of the streaming engine: the histogram of every frame, exact min, max and
 * mean, and the values behind the percentiles (all of them, then a uniform sample). */
#include "stream/engine_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 2^(1/4): four histogram bins per octave. */
#define ZC__OCTAVE_QUARTER 1.18920711500272106672

void zc__latency_init(zc__latency *l, size_t kept_max, uint64_t seed)
{
    memset(l, 0, sizeof *l);
    l->kept_max = kept_max;
    l->rng = seed | 1u;
    l->min = INFINITY;
}

void zc__latency_reserve(zc__latency *l, uint64_t n)
{
    size_t cap = n < l->kept_max ? (size_t)n : l->kept_max;
    if (cap <= l->kept_cap)
        return;
    double *grown = realloc(l->kept, cap * sizeof *grown);
    if (grown == NULL)
        return; /* it grows as it goes instead */
    l->kept = grown;
    l->kept_cap = cap;
}

static uint64_t zc__xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

static int zc__histo_bin(double us)
{
    double edge = 0.25 * ZC__OCTAVE_QUARTER;
    int i = 0;
    while (i < ZC_STREAM_HISTO_BINS - 1 && us >= edge) {
        edge *= ZC__OCTAVE_QUARTER;
        i++;
    }
    return i;
}

int zc__latency_add(zc__latency *l, double us)
{
    l->seen++;
    l->sum += us;
    l->min = us < l->min ? us : l->min;
    l->max = us > l->max ? us : l->max;
    l->histo[zc__histo_bin(us)]++;
    if (l->kept_count < l->kept_max) {
        if (l->kept_count == l->kept_cap) {
            size_t cap = l->kept_cap ? l->kept_cap * 2 : 4096;
            if (cap > l->kept_max)
                cap = l->kept_max;
            double *grown = realloc(l->kept, cap * sizeof *grown);
            if (grown == NULL)
                return 0;
            l->kept = grown;
            l->kept_cap = cap;
        }
        l->kept[l->kept_count++] = us;
        return 1;
    }
    /* Reservoir sampling: the kept values stay a uniform sample of all seen. */
    uint64_t j = zc__xorshift(&l->rng) % l->seen;
    if (j < l->kept_count)
        l->kept[j] = us;
    return 1;
}

void zc__latency_stats(const zc__latency *l, zc_stats *st)
{
    memset(st, 0, sizeof *st);
    if (l->seen == 0 || l->kept_count == 0 || zc_stats_compute(l->kept, l->kept_count, st) != ZC_OK)
        return;
    st->count = (size_t)l->seen;
    st->min = l->min;
    st->max = l->max;
    st->mean = l->sum / (double)l->seen;
}

void zc__latency_histogram(const zc__latency *l, zc_stream_histo_bin *bins)
{
    double lo = 0.0, hi = 0.25 * ZC__OCTAVE_QUARTER;
    for (int i = 0; i < ZC_STREAM_HISTO_BINS; i++) {
        bins[i].lo_us = lo;
        bins[i].hi_us = i == ZC_STREAM_HISTO_BINS - 1 ? INFINITY : hi;
        bins[i].count = l->histo[i];
        lo = hi;
        hi *= ZC__OCTAVE_QUARTER;
    }
}

void zc__latency_free(zc__latency *l)
{
    free(l->kept);
    l->kept = NULL;
    l->kept_count = l->kept_cap = 0;
}
