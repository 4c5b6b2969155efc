/* SPDX-License-Identifier: Apache-2.0 */
/* Summary statistics of repeated measurements: median, spread and tail percentiles. */
#ifndef ZEROCOPY_STATS_H
#define ZEROCOPY_STATS_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

typedef struct zc_stats {
    size_t count;
    double min;
    double max;
    double mean;
    double median;
    double stddev; /* sample standard deviation (n - 1); 0 for one sample */
    double cov;    /* coefficient of variation: stddev / mean; 0 when mean is 0 */
    double p90;
    double p99;
    double p999;
} zc_stats;

ZC_BEGIN_DECLS

/*
 * Summarise count samples into *stats_p. Percentiles use the nearest-rank method (the smallest
 * sample with at least p% of the samples at or below it), so every reported figure is a sample
 * that was actually measured. The samples are not modified. Fails on NULL, count 0, or a
 * non-finite sample.
 */
ZC_EXTERN zc_status zc_stats_compute(const double *samples, size_t count, zc_stats *stats_p);

/* The nearest-rank percentile p (0 < p <= 100) of samples already sorted ascending: the
 * smallest sample for p <= 0, the largest for p >= 100, NaN for no samples or a NaN p. */
ZC_EXTERN double zc_stats_percentile_sorted(const double *sorted, size_t count, double p);

ZC_END_DECLS

#endif
