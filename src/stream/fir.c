/* SPDX-License-Identifier: Apache-2.0 */
/* FIR filters on the host: windowed-sinc design, the double-precision reference and the error
 * measure. */
#include "zerocopy/filter.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

ZC_EXTERN zc_status zc_fir_design_lowpass(double cutoff, size_t ntaps, float *taps)
{
    ZC_REQUIRE_ARG(taps);
    if (!(cutoff > 0.0 && cutoff < 0.5))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_fir_design_lowpass: cutoff %g is not a fraction of the sample rate "
                       "in (0, 0.5)",
                       cutoff);
    if (ntaps == 0 || ntaps > ZC_FIR_MAX_TAPS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_fir_design_lowpass: %zu taps not in 1..%d", ntaps,
                       ZC_FIR_MAX_TAPS);
    const double pi = 3.14159265358979323846;
    double h[ZC_FIR_MAX_TAPS], sum = 0.0;
    double mid = (double)(ntaps - 1) / 2.0;
    for (size_t k = 0; k < ntaps; k++) {
        double t = (double)k - mid;
        double sinc = t == 0.0 ? 2.0 * cutoff : sin(2.0 * pi * cutoff * t) / (pi * t);
        double w = ntaps == 1 ? 1.0
                              : 0.42 - 0.5 * cos(2.0 * pi * (double)k / (double)(ntaps - 1)) +
                                    0.08 * cos(4.0 * pi * (double)k / (double)(ntaps - 1));
        h[k] = sinc * w;
        sum += h[k];
    }
    if (sum == 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_fir_design_lowpass: the taps sum to 0");
    for (size_t k = 0; k < ntaps; k++)
        taps[k] = (float)(h[k] / sum);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_fir_reference(const float *taps, size_t ntaps, size_t channels,
                                     const float *history, const float *frame, size_t frame_samples,
                                     double *out)
{
    ZC_REQUIRE_ARG(taps);
    ZC_REQUIRE_ARG(frame);
    ZC_REQUIRE_ARG(out);
    if (ntaps == 0 || channels == 0 || (ntaps > 1 && history == NULL))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_fir_reference: %zu taps, %zu channels, history %s",
                       ntaps, channels, history ? "given" : "missing");
    const size_t halo = (ntaps - 1) * channels;
    const size_t words = frame_samples * channels;
    for (size_t n = 0; n < words; n++) {
        double acc = 0.0;
        for (size_t k = 0; k < ntaps; k++) {
            size_t back = k * channels;
            double x = n >= back ? frame[n - back] : history[halo + n - back];
            acc += (double)taps[k] * x;
        }
        out[n] = acc;
    }
    return ZC_OK;
}

/*
 * The most that flushing subnormals to zero (FTZ: GPU code built with -ftz or fast math, a host
 * with DAZ) or rounding in the subnormal range can change one output: every input below FLT_MIN
 * read as 0 (gain x FLT_MIN in all), every subnormal tap read as 0 (FLT_MIN x max |x| each), and
 * each of the ntaps partial sums and the result flushed or rounded (FLT_MIN each). Against a
 * subnormal signal that is a large relative error, yet no error in the filter; against any
 * normal signal it is below 1e-30 of it.
 */
static double zc__fir_flush_floor(double gain, size_t ntaps, double max_abs_input)
{
    return (double)FLT_MIN * (gain + (double)ntaps * (1.0 + max_abs_input) + 1.0);
}

ZC_EXTERN double zc_fir_error(const double *ref, const float *got, size_t count, const float *taps,
                              size_t ntaps, double max_abs_input)
{
    double gain = 0.0, worst = 0.0;
    for (size_t k = 0; k < ntaps; k++)
        gain += fabs((double)taps[k]);
    for (size_t i = 0; i < count; i++) {
        double d = fabs((double)got[i] - ref[i]);
        if (!(d <= worst)) /* also catches NaN */
            worst = isnan(d) ? INFINITY : d;
    }
    /* Differences within the flush floor count as none (an infinite one stays infinite). */
    double floor = zc__fir_flush_floor(gain, ntaps, max_abs_input);
    worst = worst > floor ? worst - floor : 0.0;
    double scale = gain * max_abs_input;
    if (scale <= 0.0)
        return worst == 0.0 ? 0.0 : INFINITY;
    return worst / scale;
}
