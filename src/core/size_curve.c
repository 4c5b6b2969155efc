/* SPDX-License-Identifier: Apache-2.0 */
/* A cost measured at a few sizes, priced at any size by its cost per byte. */
#include "core/size_curve.h"

#include <math.h>

int zc__size_curve_ok(const size_t *bytes, const double *seconds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] == 0 || (i > 0 && bytes[i] <= bytes[i - 1]) || !isfinite(seconds[i]) ||
            !(seconds[i] > 0.0))
            return 0;
    }
    return 1;
}

/*
 * Per byte, not per call: pinning's cost grows with the pages it pins, so the cost per byte is
 * nearly flat between sizes measured a power of 16 apart, where the seconds themselves are not
 * (interpolating seconds would price 8 GiB halfway between 1 and 16 GiB's). Outside the
 * measured sizes the nearest one's cost per byte holds: the pages cost what they cost there.
 */
double zc__size_curve_seconds(const size_t *bytes, const double *seconds, size_t n, size_t at,
                              int *outside_p)
{
    if (outside_p != NULL)
        *outside_p = 0;
    if (n == 0 || at == 0 || bytes == NULL || seconds == NULL)
        return NAN;
    const double x = (double)at;
    if (at < bytes[0] || at > bytes[n - 1]) {
        size_t i = at < bytes[0] ? 0 : n - 1;
        if (outside_p != NULL)
            *outside_p = 1;
        return seconds[i] / (double)bytes[i] * x;
    }
    size_t hi = 0;
    while (hi < n - 1 && bytes[hi] < at)
        hi++;
    if (bytes[hi] == at || hi == 0)
        return seconds[hi] / (double)bytes[hi] * x;
    const double x0 = (double)bytes[hi - 1], x1 = (double)bytes[hi];
    const double c0 = seconds[hi - 1] / x0, c1 = seconds[hi] / x1;
    return (c0 + (c1 - c0) * (x - x0) / (x1 - x0)) * x;
}
