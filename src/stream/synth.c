/* SPDX-License-Identifier: Apache-2.0 */
/* A synthetic test signal: tones by phasor rotation plus xorshift noise. */
#include "zerocopy/filter.h"

#include <math.h>
#include <string.h>

#include "core/error.h"

ZC_EXTERN zc_status zc_synth_init(zc_synth *s, double rate, const double *tones, int count,
                                  double noise, size_t channels)
{
    ZC_REQUIRE_ARG(s);
    if (count < 0 || count > ZC_SYNTH_MAX_TONES || (count > 0 && tones == NULL))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_synth_init: %d tones (0..%d)", count,
                       ZC_SYNTH_MAX_TONES);
    if (!(rate > 0) || !(noise >= 0) || (channels != 1 && channels != 2))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_synth_init: rate %g, noise %g, %zu channels (1 or 2)", rate, noise,
                       channels);
    const double pi = 3.14159265358979323846;
    memset(s, 0, sizeof *s);
    for (int t = 0; t < count; t++) {
        if (!(tones[t] >= 0 && tones[t] < rate / 2))
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_synth_init: tone %g Hz not in [0, %g)", tones[t],
                           rate / 2);
        double w = 2.0 * pi * tones[t] / rate;
        s->re[t] = 1.0;
        s->step_re[t] = cos(w);
        s->step_im[t] = sin(w);
    }
    s->channels = channels;
    s->tones = count;
    s->amplitude = count > 0 ? 1.0 / count : 0.0;
    s->noise = noise;
    s->state = 0x9e3779b97f4a7c15ull;
    return ZC_OK;
}

ZC_EXTERN void zc_synth_fill(zc_synth *s, float *out, size_t samples)
{
    /* One complex multiply per tone and sample, not a sin: fast enough for 100 M samples/s
     * with a few tones. Renormalised every 4096 samples of the stream (not of the call, so that
     * how the stream is cut into calls never changes it) so rounding never grows the amplitude. */
    for (size_t n = 0; n < samples; n++) {
        if ((++s->count & 4095u) == 0) {
            for (int t = 0; t < s->tones; t++) {
                double norm = sqrt(s->re[t] * s->re[t] + s->im[t] * s->im[t]);
                s->re[t] /= norm;
                s->im[t] /= norm;
            }
        }
        double i_sum = 0.0, q_sum = 0.0;
        for (int t = 0; t < s->tones; t++) {
            i_sum += s->re[t];
            q_sum += s->im[t];
            double re = s->re[t] * s->step_re[t] - s->im[t] * s->step_im[t];
            s->im[t] = s->re[t] * s->step_im[t] + s->im[t] * s->step_re[t];
            s->re[t] = re;
        }
        for (size_t c = 0; c < s->channels; c++) {
            double noise = 0.0;
            if (s->noise > 0) {
                uint64_t x = s->state;
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s->state = x;
                noise = s->noise * ((double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0);
            }
            out[n * s->channels + c] = (float)(s->amplitude * (c == 0 ? i_sum : q_sum) + noise);
        }
    }
}
