/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine on a GPU: every GPU mode (both ring protocols) gives back every sample in
 * order, against the reference, whatever the push sizes and the last frame's length; one and
 * several frames in flight; the zero-copy frame path; a producer and a consumer thread. */
#include "test_support.h"

#include <string.h>

#include "stream_check.h"
#include "zerocopy/stream.h"

#define TAPS 64

static float g_taps[TAPS];

static int setup_taps(void **state)
{
    (void)state;
    return zc_fir_design_lowpass(0.1, TAPS, g_taps) == ZC_OK ? 0 : -1;
}

static void config_gpu(zc_stream_config *c, zc_stream_mode mode, zc_ring_protocol protocol,
                       size_t frame_samples, size_t channels, uint32_t in_flight)
{
    zc_stream_config_init(c);
    c->mode = mode;
    c->protocol = protocol;
    c->taps = g_taps;
    c->ntaps = TAPS;
    c->frame_samples = frame_samples;
    c->channels = channels;
    c->in_flight = in_flight;
    c->verify = ZC_STREAM_VERIFY_ALL;
}

static const char *name_of(zc_stream_mode mode, zc_ring_protocol protocol)
{
    if (mode != ZC_STREAM_ZEROCOPY)
        return zc_stream_mode_name(mode);
    return protocol == ZC_RING_PROTO_LL ? "zerocopy-ll" : "zerocopy-flag";
}

static void check_mode(zc_stream_mode mode, zc_ring_protocol protocol, size_t frame_samples,
                       size_t channels, uint32_t in_flight, size_t samples)
{
    if (stream_check_sanitizer_skips(mode, protocol))
        return;
    static const size_t pieces[] = {1, 441, 4096, 3, 1000, 65536};
    const size_t halo = (TAPS - 1) * channels;
    float *signal = stream_check_signal(samples * channels, halo, samples);
    float *out = calloc((samples + 1) * channels, sizeof(float));
    zc_stream_config c;
    config_gpu(&c, mode, protocol, frame_samples, channels, in_flight);
    zc_stream *s = NULL;
    zc_status st = zc_stream_create(&c, &s);
    if (st != ZC_OK)
        fail_msg("%s: create: %s", name_of(mode, protocol), zc_last_error());
    size_t got = stream_check_run(s, signal + halo, samples, channels, pieces, 6, out);
    double err = stream_check_error(g_taps, TAPS, signal, halo, samples, channels, out);
    zc_stream_stats stats;
    assert_int_equal(zc_stream_stats_get(s, &stats), ZC_OK);
    fprintf(stderr,
            "%-16s %6zu samples x %zu, %2u in flight: %zu of %zu back, %llu frames, p50 %.2f us, "
            "error %.2e\n",
            name_of(mode, protocol), frame_samples, channels, in_flight, got, samples,
            (unsigned long long)stats.frames_received, stats.latency_us.median, err);
    if (got != samples)
        fail_msg("%s: %zu samples back of %zu", name_of(mode, protocol), got, samples);
    if (!(err <= 1e-5) || !stats.verify_passed)
        fail_msg("%s: error %.3g against the whole signal, engine's check %.3g",
                 name_of(mode, protocol), err, stats.max_rel_error);
    assert_int_equal(stats.samples_out, samples);
    assert_int_equal(stats.verified, stats.frames_received);
    zc_stream_destroy(s);
    free(signal);
    free(out);
}

static void every_mode(size_t frame_samples, size_t channels, uint32_t in_flight, size_t samples)
{
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        if (m == ZC_STREAM_CPU)
            continue;
        check_mode((zc_stream_mode)m, ZC_RING_PROTO_LL, frame_samples, channels, in_flight,
                   samples);
        if (zc_stream_mode_on_ring((zc_stream_mode)m))
            check_mode((zc_stream_mode)m, ZC_RING_PROTO_FLAG, frame_samples, channels, in_flight,
                       samples);
    }
}

static void test_any_length_every_mode(void **state)
{
    (void)state;
    const size_t scale = zc_test_under_sanitizer() ? 20 : 1;
    every_mode(1024, 1, 1, 480000 / scale + 333); /* not a multiple of the frame */
    every_mode(1024, 1, 4, 1024 * 200 / scale);   /* a multiple */
    every_mode(512, 2, 3, 100000 / scale + 7);    /* complex */
    every_mode(4096, 1, 2, 1000);                 /* shorter than one frame */
}

static void test_frame_acquire_flag(void **state)
{
    (void)state;
    /* The mapped slot itself: written in place, published, checked. */
    const size_t fs = 4096, frames = 50, halo = TAPS - 1;
    float *signal = stream_check_signal(fs * frames, halo, 5);
    float *out = calloc(fs * frames + 1, sizeof(float));
    zc_stream_config c;
    config_gpu(&c, ZC_STREAM_ZEROCOPY, ZC_RING_PROTO_FLAG, fs, 1, 4);
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    size_t got = 0, total = 0;
    for (size_t f = 0; f < frames; f++) {
        float *frame = NULL;
        zc_status st = zc_stream_frame_acquire(s, &frame);
        if (st != ZC_OK)
            fail_msg("acquire %zu: %s", f, zc_last_error());
        memcpy(frame, signal + halo + f * fs, fs * sizeof(float));
        assert_int_equal(zc_stream_frame_publish(s), ZC_OK);
        while (zc_stream_pull(s, out + total, fs * frames - total + 1, 0, &got) == ZC_OK)
            total += got;
    }
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    while (zc_stream_pull(s, out + total, fs * frames - total + 1, 2000000000ull, &got) == ZC_OK)
        total += got;
    assert_int_equal(total, fs * frames);
    assert_true(stream_check_error(g_taps, TAPS, signal, halo, fs * frames, 1, out) <= 1e-5);
    zc_stream_destroy(s);
    free(signal);
    free(out);
}

static void test_two_threads(void **state)
{
    (void)state;
    const size_t samples = (zc_test_under_sanitizer() ? 50000 : 2000000) + 17, halo = TAPS - 1;
    float *signal = stream_check_signal(samples, halo, 11);
    for (int p = 0; p < 2; p++) {
        float *out = calloc(samples + 2048, sizeof(float));
        zc_stream_config c;
        config_gpu(&c, ZC_STREAM_ZEROCOPY, p ? ZC_RING_PROTO_FLAG : ZC_RING_PROTO_LL, 1024, 1, 8);
        c.verify = ZC_STREAM_VERIFY_SAMPLE;
        c.queue_max_bytes = 8 * 1024 * sizeof(float); /* the producer waits for the consumer */
        zc_stream *s = NULL;
        assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
        assert_int_equal(stream_check_two_threads(s, signal + halo, samples, 3000, 2048, out),
                         samples);
        assert_true(stream_check_error(g_taps, TAPS, signal, halo, samples, 1, out) <= 1e-5);
        zc_stream_stats st;
        assert_int_equal(zc_stream_stats_get(s, &st), ZC_OK);
        assert_true(st.verify_passed && st.verified >= 2);
        fprintf(stderr, "two threads, %s: %zu samples, p50 %.2f us, p99 %.2f us\n",
                p ? "flag" : "ll", samples, st.latency_us.median, st.latency_us.p99);
        zc_stream_destroy(s);
        free(out);
    }
    free(signal);
}

int main(void)
{
    zc_test_require_gpu("gpu_stream_engine");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_length_every_mode),
        cmocka_unit_test(test_frame_acquire_flag),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, setup_taps, NULL);
}
