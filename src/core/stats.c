/* SPDX-License-Identifier: Apache-2.0 */
/* Median, spread and nearest-rank percentiles of a set of samples. */
#include "zerocopy/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "core/error.h"
#include "core/sorted.h"

static int zc__compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

void zc__sort_doubles(double *values, size_t count)
{
    qsort(values, count, sizeof *values, zc__compare_doubles);
}

ZC_EXTERN double zc_stats_percentile_sorted(const double *sorted, size_t count, double p)
{
    /* A NaN p would reach the cast of ceil(NaN) to size_t below, which is undefined. */
    if (sorted == NULL || count == 0 || isnan(p))
        return NAN;
    if (p <= 0.0)
        return sorted[0];
    if (p >= 100.0)
        return sorted[count - 1];
    /* Nearest rank: ceil(p/100 * n), 1-based. 99.9 has no exact binary form, so a product
     * that should be whole lands a hair above it; the slack keeps ceil from skipping a rank. */
    double rank = ceil(p / 100.0 * (double)count - 1e-9);
    size_t index = rank < 1.0 ? 0 : (size_t)rank - 1;
    if (index >= count)
        index = count - 1;
    return sorted[index];
}

ZC_EXTERN zc_status zc_stats_compute(const double *samples, size_t count, zc_stats *stats_p)
{
    ZC_REQUIRE_ARG(samples);
    ZC_REQUIRE_ARG(stats_p);
    if (count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stats_compute: no samples");
    size_t bytes;
    if (!zc__size_mul(count, sizeof *samples, &bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_stats_compute: %zu samples overflow size_t", count);
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(samples[i]))
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stats_compute: sample %zu is not finite", i);
    }
    double *sorted = malloc(bytes);
    if (sorted == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_stats_compute: malloc(%zu) failed", bytes);
    memcpy(sorted, samples, bytes);
    zc__sort_doubles(sorted, count);

    double sum = 0.0;
    for (size_t i = 0; i < count; i++)
        sum += sorted[i];
    double mean = sum / (double)count;
    double squares = 0.0;
    for (size_t i = 0; i < count; i++)
        squares += (sorted[i] - mean) * (sorted[i] - mean);

    zc_stats stats;
    stats.count = count;
    stats.min = sorted[0];
    stats.max = sorted[count - 1];
    stats.mean = mean;
    stats.median =
        count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    stats.stddev = count > 1 ? sqrt(squares / (double)(count - 1)) : 0.0;
    stats.cov = mean != 0.0 ? stats.stddev / fabs(mean) : 0.0;
    stats.p90 = zc_stats_percentile_sorted(sorted, count, 90.0);
    stats.p99 = zc_stats_percentile_sorted(sorted, count, 99.0);
    stats.p999 = zc_stats_percentile_sorted(sorted, count, 99.9);
    free(sorted);
    *stats_p = stats;
    return ZC_OK;
}
