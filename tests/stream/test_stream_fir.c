/* SPDX-License-Identifier: Apache-2.0 */
/* FIR design, the double-precision reference, the error measure, the synthetic signal and the
 * filter's configuration checks: all on the CPU. */
#include "test_support.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "zerocopy/stream.h"

static void test_lowpass_design(void **state)
{
    (void)state;
    float h[64];
    assert_int_equal(zc_fir_design_lowpass(0.125, 64, h), ZC_OK);
    double sum = 0.0;
    for (int k = 0; k < 64; k++) {
        sum += h[k];
        assert_float_equal(h[k], h[63 - k], 1e-7); /* linear phase: symmetric */
    }
    assert_double_equal(sum, 1.0, 1e-6); /* unity gain at DC */
    /* Gain at a frequency well in the stop band is small; in the pass band near 1. */
    double re = 0, im = 0, re_pass = 0, im_pass = 0;
    for (int k = 0; k < 64; k++) {
        re += h[k] * cos(2 * M_PI * 0.3 * k);
        im += h[k] * sin(2 * M_PI * 0.3 * k);
        re_pass += h[k] * cos(2 * M_PI * 0.02 * k);
        im_pass += h[k] * sin(2 * M_PI * 0.02 * k);
    }
    assert_true(sqrt(re * re + im * im) < 1e-3);
    assert_true(fabs(sqrt(re_pass * re_pass + im_pass * im_pass) - 1.0) < 0.01);
    assert_int_equal(zc_fir_design_lowpass(0.5, 64, h), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_fir_design_lowpass(0.0, 64, h), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_fir_design_lowpass(0.1, 0, h), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_fir_design_lowpass(0.1, ZC_FIR_MAX_TAPS + 1, h), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_fir_design_lowpass(0.1, 4, NULL), ZC_ERR_INVALID_ARG);
    float one;
    assert_int_equal(zc_fir_design_lowpass(0.1, 1, &one), ZC_OK);
    assert_float_equal(one, 1.0f, 1e-7);
}

static void test_reference_impulse_and_frames(void **state)
{
    (void)state;
    enum { T = 5, N = 40 };
    const float h[T] = {0.5f, -0.25f, 0.125f, 2.0f, -1.0f};
    float hist[T - 1] = {0}, x[N] = {0};
    double y[N];
    x[3] = 1.0f;
    assert_int_equal(zc_fir_reference(h, T, 1, hist, x, N, y), ZC_OK);
    for (int n = 0; n < N; n++)
        assert_double_equal(y[n], n >= 3 && n < 3 + T ? h[n - 3] : 0.0, 0.0);

    /* A long signal cut into frames, each given the previous frame's tail as history, filters
     * exactly as the whole does: the state is carried across frames. Two channels. */
    enum { C = 2, F = 8, FRAMES = 5 };
    float sig[FRAMES * F * C], zeros[(T - 1) * C] = {0};
    for (int i = 0; i < FRAMES * F * C; i++)
        sig[i] = (float)sin(0.37 * i) + (float)(i % 7) * 0.1f;
    double whole[FRAMES * F * C], part[F * C];
    assert_int_equal(zc_fir_reference(h, T, C, zeros, sig, FRAMES * F, whole), ZC_OK);
    for (int f = 0; f < FRAMES; f++) {
        const float *frame = sig + f * F * C;
        const float *history = f == 0 ? zeros : frame - (T - 1) * C;
        assert_int_equal(zc_fir_reference(h, T, C, history, frame, F, part), ZC_OK);
        for (int i = 0; i < F * C; i++)
            assert_double_equal(part[i], whole[f * F * C + i], 1e-12);
    }
    assert_int_equal(zc_fir_reference(h, T, 1, NULL, x, N, y), ZC_ERR_INVALID_ARG);
}

static void test_error_measure(void **state)
{
    (void)state;
    const float h[3] = {0.5f, 0.5f, -1.0f}; /* sum |h| = 2 */
    double ref[4] = {1.0, -2.0, 0.0, 3.0};
    float got[4] = {1.0f, -2.0f, 0.0f, 3.0f};
    assert_double_equal(zc_fir_error(ref, got, 4, h, 3, 2.0), 0.0, 0.0);
    got[2] = 0.004f; /* 0.004 / (2 * 2) = 1e-3 */
    assert_double_equal(zc_fir_error(ref, got, 4, h, 3, 2.0), 1e-3, 1e-9);
    got[2] = NAN;
    assert_true(isinf(zc_fir_error(ref, got, 4, h, 3, 2.0)));
    got[2] = 0.0f;
    assert_double_equal(zc_fir_error(ref, got, 4, h, 3, 0.0), 0.0, 0.0);
}

/* Subnormal samples: a result that differs from the reference only as flushing subnormals to
 * zero (FTZ) or rounding in the subnormal range would make it is no error, while a result
 * that is wrong by more than that still is. */
static void test_error_measure_subnormal(void **state)
{
    (void)state;
    const float h[3] = {0.25f, 0.5f, 0.25f};
    const float tiny = 1e-41f; /* subnormal: below FLT_MIN (1.18e-38) */
    assert_true(tiny > 0.0f && tiny < FLT_MIN);
    double ref[4] = {0.25 * tiny, 0.75 * tiny, tiny, tiny};
    float ftz[4] = {0.0f, 0.0f, 0.0f, 0.0f}; /* everything flushed to zero */
    assert_true(zc_fir_error(ref, ftz, 4, h, 3, tiny) <= ZC_STREAM_VERIFY_TOLERANCE);
    float rounded[4] = {0.0f, 0.75f * tiny, tiny, tiny}; /* float rounding in the range */
    assert_true(zc_fir_error(ref, rounded, 4, h, 3, tiny) <= ZC_STREAM_VERIFY_TOLERANCE);
    /* A result wrong by far more than any flush could make still fails... */
    float wrong[4] = {0.0f, 0.0f, 1e-30f, 0.0f};
    assert_true(zc_fir_error(ref, wrong, 4, h, 3, tiny) > ZC_STREAM_VERIFY_TOLERANCE);
    /* ...and so does one wrong by the same tiny amount against a normal signal. */
    double ref_normal[4] = {0.25, 0.75, 1.0, 1.0};
    float got_normal[4] = {0.25f, 0.75f, 1.0f, 1.0f + 1e-4f};
    assert_true(zc_fir_error(ref_normal, got_normal, 4, h, 3, 1.0) > ZC_STREAM_VERIFY_TOLERANCE);
    /* Flushing cannot hide a wrong result on a zero input either. */
    double zero_ref[4] = {0.0, 0.0, 0.0, 0.0};
    float got_zero[4] = {0.0f, 1e-20f, 0.0f, 0.0f};
    assert_true(isinf(zc_fir_error(zero_ref, got_zero, 4, h, 3, 0.0)));
}

static void test_mode_names(void **state)
{
    (void)state;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        zc_stream_mode parsed;
        assert_int_equal(zc_stream_mode_parse(zc_stream_mode_name((zc_stream_mode)m), &parsed),
                         ZC_OK);
        assert_int_equal(parsed, m);
    }
    zc_stream_mode mode;
    assert_int_equal(zc_stream_mode_parse("zero-copy", &mode), ZC_ERR_PARSE);
    assert_string_equal(zc_stream_mode_name((zc_stream_mode)99), "unknown");
    assert_string_equal(zc_stream_mode_name(ZC_STREAM_CLASSIC_PINNED), "classic-pinned");
}

static void test_synth(void **state)
{
    (void)state;
    const double tones[2] = {1000.0, 250000.0};
    zc_synth a, b;
    assert_int_equal(zc_synth_init(&a, 1e6, tones, 2, 0.1, 1), ZC_OK);
    assert_int_equal(zc_synth_init(&b, 1e6, tones, 2, 0.1, 1), ZC_OK);
    static float x[100000], y[100000];
    zc_synth_fill(&a, x, 50000);
    zc_synth_fill(&a, x + 50000, 50000);
    zc_synth_fill(&b, y, 100000);
    assert_memory_equal(x, y, sizeof x); /* frame boundaries do not change the signal */
    double peak = 0.0;
    for (int i = 0; i < 100000; i++)
        peak = fmax(peak, fabs(x[i]));
    assert_true(peak <= 1.1 + 1e-6 && peak > 0.8);
    /* The 1 kHz tone completes a period every 1000 samples (plus noise). */
    assert_true(fabs(x[0] - x[1000]) < 0.25);
    float iq[200];
    assert_int_equal(zc_synth_init(&a, 1e6, tones, 1, 0.0, 2), ZC_OK);
    zc_synth_fill(&a, iq, 100);
    for (int n = 0; n < 100; n++)
        assert_double_equal(iq[2 * n] * iq[2 * n] + iq[2 * n + 1] * iq[2 * n + 1], 1.0, 1e-5);
    assert_int_equal(zc_synth_init(&a, 1e6, tones, 9, 0.0, 1), ZC_ERR_INVALID_ARG);
    const double too_high = 600000.0;
    assert_int_equal(zc_synth_init(&a, 1e6, &too_high, 1, 0.0, 1), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_synth_init(&a, 1e6, tones, 1, 0.0, 3), ZC_ERR_INVALID_ARG);
}

static void test_filter_config_checks(void **state)
{
    (void)state;
    float h[64];
    assert_int_equal(zc_fir_design_lowpass(0.1, 64, h), ZC_OK);
    zc_filter_config c;
    zc_filter_config_init(&c);
    assert_int_equal(zc_filter_config_check(&c), ZC_ERR_INVALID_ARG); /* no taps yet */
    c.taps = h;
    c.ntaps = 64;
    assert_int_equal(zc_filter_config_check(&c), ZC_OK);
    zc_filter_config bad = c;
    bad.frame_samples = 1022; /* not a multiple of 4 values */
    assert_int_equal(zc_filter_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.frame_samples = 32; /* shorter than the 63-sample history */
    assert_int_equal(zc_filter_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad.channels = 2; /* 64 values: still shorter than 126 */
    assert_int_equal(zc_filter_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.channels = 3;
    assert_int_equal(zc_filter_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.in_flight = 0;
    assert_int_equal(zc_filter_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.mode = (zc_stream_mode)ZC_STREAM_MODE_COUNT; /* one past the last mode */
    assert_int_equal(zc_filter_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.ntaps = 0;
    assert_int_equal(zc_filter_config_check(&bad), ZC_ERR_INVALID_ARG);
    zc_filter_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lowpass_design),
        cmocka_unit_test(test_reference_impulse_and_frames),
        cmocka_unit_test(test_error_measure),
        cmocka_unit_test(test_error_measure_subnormal),
        cmocka_unit_test(test_mode_names),
        cmocka_unit_test(test_synth),
        cmocka_unit_test(test_filter_config_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
