/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine without a GPU (cpu mode, one or several host lanes): every sample back in
 * order whatever the push sizes, the partial last frame, one producer and one consumer thread,
 * drops counted exactly, a full output queue that loses nothing, non-finite samples and taps,
 * misuse. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "stream_check.h"
#include "zerocopy/stream.h"

#define TAPS 33

static float g_taps[TAPS];

static int setup_taps(void **state)
{
    (void)state;
    return zc_fir_design_lowpass(0.1, TAPS, g_taps) == ZC_OK ? 0 : -1;
}

static void config_cpu(zc_stream_config *c, size_t frame_samples, size_t channels, size_t lanes)
{
    static const int unused[ZC_STREAM_MAX_LANES];
    zc_stream_config_init(c);
    c->mode = ZC_STREAM_CPU;
    c->taps = g_taps;
    c->ntaps = TAPS;
    c->frame_samples = frame_samples;
    c->channels = channels;
    c->devices = unused;
    c->device_count = lanes;
    c->verify = ZC_STREAM_VERIFY_ALL;
}

static double whole_error(const float *signal, size_t halo, size_t samples, size_t channels,
                          const float *out)
{
    return stream_check_error(g_taps, TAPS, signal, halo, samples, channels, out);
}

static void check_whole(size_t frame_samples, size_t channels, size_t lanes, size_t samples,
                        const size_t *pieces, size_t npieces)
{
    const size_t halo = (TAPS - 1) * channels;
    float *signal = stream_check_signal(samples * channels, halo, samples + lanes);
    float *out = calloc(samples * channels + channels, sizeof(float));
    zc_stream_config c;
    config_cpu(&c, frame_samples, channels, lanes);
    c.in_flight = 3;
    zc_stream *s = NULL;
    zc_status st = zc_stream_create(&c, &s);
    if (st != ZC_OK)
        fail_msg("create: %s", zc_last_error());
    size_t got = stream_check_run(s, signal + halo, samples, channels, pieces, npieces, out);
    assert_int_equal(got, samples);
    double err = whole_error(signal, halo, samples, channels, out);
    zc_stream_stats stats;
    assert_int_equal(zc_stream_stats_get(s, &stats), ZC_OK);
    assert_true(stats.finished);
    assert_int_equal(stats.samples_in, samples);
    assert_int_equal(stats.samples_out, samples);
    assert_int_equal(stats.samples_dropped, 0);
    const size_t frames = (samples + frame_samples - 1) / frame_samples;
    assert_int_equal(stats.frames_submitted, frames);
    assert_int_equal(stats.frames_received, frames);
    assert_int_equal(stats.samples_padded, frames * frame_samples - samples);
    assert_int_equal(stats.verified, frames);
    assert_true(stats.verify_passed);
    assert_int_equal(stats.lanes, lanes);
    uint64_t lane_frames = 0, histo = 0;
    for (size_t i = 0; i < stats.lanes; i++)
        lane_frames += stats.lane[i].frames;
    for (int i = 0; i < ZC_STREAM_HISTO_BINS; i++)
        histo += stats.histogram[i].count;
    assert_int_equal(lane_frames, frames);
    assert_int_equal(histo, frames);
    assert_int_equal(stats.latency_us.count, frames);
    if (!(err <= 1e-6))
        fail_msg("%zu samples x %zu, frames of %zu, %zu lanes: error %.3g", samples, channels,
                 frame_samples, lanes, err);
    zc_stream_destroy(s);
    free(signal);
    free(out);
}

static void test_any_length_in_order(void **state)
{
    (void)state;
    const size_t odd[] = {1, 7, 1000, 3, 4096, 333};
    const size_t whole[] = {256};
    check_whole(256, 1, 1, 256 * 40, whole, 1);    /* a multiple of the frame */
    check_whole(256, 1, 1, 256 * 40 + 77, odd, 6); /* not, and pushed in odd pieces */
    check_whole(64, 2, 1, 5000, odd, 6);           /* complex */
    check_whole(48, 1, 1, 47, odd, 6);             /* shorter than one frame */
    check_whole(40, 1, 1, 1, odd, 1);              /* one sample */
}

static void test_lanes_match_one_lane(void **state)
{
    (void)state;
    /* Round-robin over host lanes, each frame sent with the previous one's end in front: the
     * output must be the one-lane filter's, whatever the frame is shorter or longer than the
     * history. */
    const size_t odd[] = {5, 999, 64, 2048};
    check_whole(256, 1, 3, 256 * 31 + 5, odd, 4);
    check_whole(16, 1, 4, 3001, odd, 4); /* frames shorter than the 32-value history */
    check_whole(128, 2, 2, 4000, odd, 4);
}

static void test_empty_stream(void **state)
{
    (void)state;
    zc_stream_config c;
    config_cpu(&c, 256, 1, 1);
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    assert_int_equal(zc_stream_push(s, NULL, 0, NULL), ZC_OK);
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    assert_int_equal(zc_stream_flush(s), ZC_OK); /* twice: harmless */
    float out[4];
    size_t got = 9;
    assert_int_equal(zc_stream_pull(s, out, 4, 0, &got), ZC_ERR_NOT_FOUND);
    assert_int_equal(got, 0);
    assert_true(strstr(zc_last_error(), "end of the stream") != NULL);
    zc_stream_stats st;
    assert_int_equal(zc_stream_stats_get(s, &st), ZC_OK);
    assert_true(st.finished);
    assert_int_equal(st.frames_submitted, 0);
    assert_int_equal(st.latency_us.count, 0);
    assert_int_equal(st.verified, 0);
    assert_false(st.verify_passed); /* nothing was checked: nothing passed */
    assert_int_equal(zc_stream_push(s, out, 1, NULL), ZC_ERR_STATE);
    zc_stream_destroy(s);
}

static void test_two_threads(void **state)
{
    (void)state;
    const size_t samples = 200000, halo = TAPS - 1;
    float *signal = stream_check_signal(samples, halo, 42);
    float *out = calloc(samples + 300, sizeof(float));
    zc_stream_config c;
    config_cpu(&c, 512, 1, 2);
    c.in_flight = 2;
    c.queue_max_bytes = 4 * 512 * sizeof(float); /* a small queue: the producer waits for pull */
    c.verify = ZC_STREAM_VERIFY_SAMPLE;
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    assert_int_equal(stream_check_two_threads(s, signal + halo, samples, 1500, 300, out), samples);
    assert_true(whole_error(signal, halo, samples, 1, out) <= 1e-6);
    zc_stream_stats st;
    assert_int_equal(zc_stream_stats_get(s, &st), ZC_OK);
    assert_int_equal(st.samples_out, samples);
    assert_true(st.verified >= 2);
    assert_true(st.verify_passed);
    zc_stream_destroy(s);
    free(signal);
    free(out);
}

static void test_drop_policy_counts_exactly(void **state)
{
    (void)state;
    zc_stream_config c;
    config_cpu(&c, 64, 1, 1);
    c.policy = ZC_RING_FULL_DROP;
    c.queue_max_bytes = 64 * sizeof(float); /* one frame: nothing else fits while unpulled */
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    float x[64 * 5];
    for (int i = 0; i < 64 * 5; i++)
        x[i] = (float)(i % 17) / 17.0f;
    size_t accepted = 0;
    /* Frame 0 goes out, frame 1 moves 0's result into the (full) queue, 2..4 find no room. */
    assert_int_equal(zc_stream_push(s, x, 64 * 5, &accepted), ZC_OK);
    assert_int_equal(accepted, 64 * 5);
    zc_stream_stats st;
    assert_int_equal(zc_stream_stats_get(s, &st), ZC_OK);
    assert_int_equal(st.frames_submitted, 2);
    assert_int_equal(st.frames_dropped, 3);
    assert_int_equal(st.samples_dropped, 64 * 3);
    assert_int_equal(st.measured_offered, 5);
    float out[64 * 5];
    size_t got = 0, total = 0;
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    while (zc_stream_pull(s, out + total, 64 * 5 - total, 1000000000ull, &got) == ZC_OK)
        total += got;
    assert_int_equal(total, 64 * 2);
    assert_int_equal(zc_stream_stats_get(s, &st), ZC_OK);
    assert_int_equal(st.samples_in, st.samples_out + st.samples_dropped);
    zc_stream_destroy(s);
}

static void test_full_queue_loses_nothing(void **state)
{
    (void)state;
    /* One thread, wait policy, a queue of two frames and no pull: push stops with a timeout and
     * says how much it took; after pulling, the rest goes in and every sample comes back. */
    const size_t samples = 64 * 10, halo = TAPS - 1;
    float *signal = stream_check_signal(samples, halo, 7);
    zc_stream_config c;
    config_cpu(&c, 64, 1, 1);
    c.queue_max_bytes = 2 * 64 * sizeof(float);
    c.timeout_ns = 20000000ull;
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    size_t accepted = 0;
    zc_status st = zc_stream_push(s, signal + halo, samples, &accepted);
    assert_int_equal(st, ZC_ERR_TIMEOUT);
    assert_true(strstr(zc_last_error(), "pull") != NULL);
    assert_true(accepted > 0 && accepted < samples);
    float out[64 * 10];
    size_t got = 0, total = 0;
    while (zc_stream_pull(s, out + total, samples - total, 0, &got) == ZC_OK)
        total += got;
    size_t pushed = accepted;
    while (pushed < samples) {
        st = zc_stream_push(s, signal + halo + pushed, samples - pushed, &accepted);
        pushed += accepted;
        while (zc_stream_pull(s, out + total, samples - total, 0, &got) == ZC_OK)
            total += got;
        assert_true(st == ZC_OK || st == ZC_ERR_TIMEOUT);
    }
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    while (zc_stream_pull(s, out + total, samples - total, 1000000000ull, &got) == ZC_OK)
        total += got;
    assert_int_equal(total, samples);
    assert_true(whole_error(signal, halo, samples, 1, out) <= 1e-6);
    zc_stream_destroy(s);
    free(signal);
}

static void test_nonfinite(void **state)
{
    (void)state;
    zc_stream_config c;
    config_cpu(&c, 64, 2, 1);
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    float x[2 * 200] = {0};
    x[2 * 150 + 1] = NAN; /* sample 150, channel 1: frame 2 */
    size_t accepted = 0;
    assert_int_equal(zc_stream_push(s, x, 200, &accepted), ZC_ERR_PARSE);
    assert_int_equal(accepted, 150);
    assert_true(strstr(zc_last_error(), "sample 150 (frame 2, channel 1) is NaN") != NULL);
    zc_stream_destroy(s);

    c.nonfinite = ZC_STREAM_NONFINITE_ZERO;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    x[2 * 10] = INFINITY;
    assert_int_equal(zc_stream_push(s, x, 200, &accepted), ZC_OK);
    assert_int_equal(accepted, 200);
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    float out[2 * 200];
    size_t got = 0, total = 0;
    while (zc_stream_pull(s, out + 2 * total, 200 - total, 1000000000ull, &got) == ZC_OK)
        total += got;
    assert_int_equal(total, 200);
    for (size_t i = 0; i < 2 * 200; i++)
        assert_true(out[i] == 0.0f); /* the bad values were filtered as zeros */
    zc_stream_stats st;
    assert_int_equal(zc_stream_stats_get(s, &st), ZC_OK);
    assert_int_equal(st.nonfinite, 2);
    assert_int_equal(st.first_nonfinite, 10);
    zc_stream_destroy(s);
}

/* Push x (samples x channels values) in pieces of the given sizes (cycled) until a push fails;
 * gives the samples taken in all, and the failing push's status in *st_p. */
static size_t push_in_pieces(zc_stream *s, const float *x, size_t samples, size_t channels,
                             const size_t *pieces, size_t npieces, zc_status *st_p)
{
    size_t pushed = 0;
    *st_p = ZC_OK;
    for (size_t p = 0; pushed < samples && *st_p == ZC_OK; p++) {
        size_t n = pieces[p % npieces], accepted = 0;
        if (n > samples - pushed)
            n = samples - pushed;
        *st_p = zc_stream_push(s, x + pushed * channels, n, &accepted);
        pushed += accepted;
    }
    return pushed;
}

/* A bad sample met in the middle of a push, after other pushes left part of a frame staged, is
 * named by its own index in the stream and its own frame. */
static void check_nonfinite_in_pieces(size_t channels, size_t bad_sample, size_t bad_channel)
{
    const size_t samples = 5000, frame = 1024;
    const size_t pieces[] = {1, 7, 1000, 13};
    float *x = calloc(samples * channels, sizeof(float));
    assert_non_null(x);
    x[bad_sample * channels + bad_channel] = NAN;
    zc_stream_config c;
    config_cpu(&c, frame, channels, 1);
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    zc_status st;
    size_t taken = push_in_pieces(s, x, samples, channels, pieces, 4, &st);
    assert_int_equal(st, ZC_ERR_PARSE);
    assert_int_equal(taken, bad_sample);
    char want[128];
    snprintf(want, sizeof want, "sample %zu (frame %zu, channel %zu) is NaN", bad_sample,
             bad_sample / frame, bad_channel);
    if (strstr(zc_last_error(), want) == NULL)
        fail_msg("wanted '%s', got '%s'", want, zc_last_error());
    zc_stream_destroy(s);

    c.nonfinite = ZC_STREAM_NONFINITE_ZERO;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    assert_int_equal(push_in_pieces(s, x, samples, channels, pieces, 4, &st), samples);
    assert_int_equal(st, ZC_OK);
    zc_stream_stats stats;
    assert_int_equal(zc_stream_stats_get(s, &stats), ZC_OK);
    assert_int_equal(stats.nonfinite, 1);
    assert_int_equal(stats.first_nonfinite, bad_sample);
    zc_stream_destroy(s);
    free(x);
}

static void test_nonfinite_in_pieces(void **state)
{
    (void)state;
    check_nonfinite_in_pieces(1, 3000, 0); /* pieces 1, 7, 1000, 13: 952 staged in frame 2 */
    check_nonfinite_in_pieces(2, 3000, 1);
    check_nonfinite_in_pieces(1, 1030, 0);
    check_nonfinite_in_pieces(1, 0, 0); /* the very first sample */
}

/* Run samples (one channel) through a checked cpu-mode stream in odd pieces; the stream's
 * statistics in *stats. */
static void run_checked(const float *x, size_t samples, zc_stream_stats *stats)
{
    const size_t odd[] = {1, 7, 1000, 13};
    float *out = calloc(samples + 1, sizeof(float));
    assert_non_null(out);
    zc_stream_config c;
    config_cpu(&c, 256, 1, 1);
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    assert_int_equal(stream_check_run(s, x, samples, 1, odd, 4, out), samples);
    assert_int_equal(zc_stream_stats_get(s, stats), ZC_OK);
    zc_stream_destroy(s);
    free(out);
}

/* Subnormal input: float results differ from the double reference by rounding (or, on a GPU
 * that flushes subnormals, by the flush) in absolute terms that are huge against a subnormal
 * signal and negligible in themselves; the check accepts them. */
static void test_subnormal_input_passes_the_check(void **state)
{
    (void)state;
    const size_t samples = 256 * 12 + 5, halo = TAPS - 1;
    float *x = stream_check_signal(samples, halo, 11);
    for (size_t i = 0; i < samples; i++)
        x[halo + i] *= 1e-43f; /* every sample subnormal (or 0): some 70 steps of the least */
    zc_stream_stats st;
    run_checked(x + halo, samples, &st);
    assert_int_equal(st.verified, 13);
    if (!st.verify_passed)
        fail_msg("all-subnormal input: relative error %.3g", st.max_rel_error);
    /* Normal samples with subnormal ones among them. */
    float *y = stream_check_signal(samples, halo, 12);
    for (size_t i = 0; i < samples; i += 3)
        y[halo + i] *= 1e-42f;
    run_checked(y + halo, samples, &st);
    assert_true(st.verify_passed);
    free(x);
    free(y);
}

static void test_frame_acquire(void **state)
{
    (void)state;
    const size_t halo = TAPS - 1, samples = 128 * 6;
    float *signal = stream_check_signal(samples, halo, 3);
    zc_stream_config c;
    config_cpu(&c, 128, 1, 2);
    c.in_flight = 2;
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_OK);
    uint32_t buffers = 0;
    assert_int_equal(zc_stream_buffers(s, &buffers), ZC_OK);
    assert_int_equal(buffers, 4); /* two lanes of two */
    float out[128 * 6 + 8];
    size_t got = 0, total = 0;
    for (size_t f = 0; f < 6; f++) {
        float *frame = NULL;
        assert_int_equal(zc_stream_frame_acquire(s, &frame), ZC_OK);
        assert_int_equal(zc_stream_push(s, signal, 1, NULL), ZC_ERR_STATE);
        memcpy(frame, signal + halo + f * 128, 128 * sizeof(float));
        assert_int_equal(zc_stream_frame_publish(s), ZC_OK);
        while (zc_stream_pull(s, out + total, samples - total, 0, &got) == ZC_OK)
            total += got;
    }
    assert_int_equal(zc_stream_frame_publish(s), ZC_ERR_STATE);
    assert_int_equal(zc_stream_push(s, signal + halo, 5, NULL), ZC_OK);
    float *frame = NULL;
    assert_int_equal(zc_stream_frame_acquire(s, &frame), ZC_ERR_STATE); /* partial frame */
    assert_int_equal(zc_stream_flush(s), ZC_OK);
    while (zc_stream_pull(s, out + total, samples + 8 - total, 1000000000ull, &got) == ZC_OK)
        total += got;
    assert_int_equal(total, samples + 5);
    assert_true(whole_error(signal, halo, samples, 1, out) <= 1e-6);
    zc_stream_stats st;
    assert_int_equal(zc_stream_stats_get(s, &st), ZC_OK);
    assert_int_equal(st.verified, 7);
    assert_true(st.verify_passed);
    zc_stream_destroy(s);
    free(signal);
}

static void test_bad_config(void **state)
{
    (void)state;
    zc_stream_config c;
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(NULL, &s), ZC_ERR_INVALID_ARG);
    config_cpu(&c, 256, 1, 1);
    assert_int_equal(zc_stream_create(&c, NULL), ZC_ERR_INVALID_ARG);
    c.taps = NULL;
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    config_cpu(&c, 256, 3, 1);
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    config_cpu(&c, 0, 1, 1);
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    config_cpu(&c, 8, 1, 1); /* shorter than the history with one lane */
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    assert_true(strstr(zc_last_error(), "history") != NULL);
    config_cpu(&c, 8, 1, 2); /* fine with two: each frame carries its history */
    assert_int_equal(zc_stream_config_check(&c), ZC_OK);
    config_cpu(&c, 256, 1, ZC_STREAM_MAX_LANES + 1);
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    config_cpu(&c, 256, 1, 1);
    c.queue_max_bytes = 16;
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    config_cpu(&c, 256, 1, 1);
    c.in_flight = 0;
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    int twice[2] = {0, 0};
    config_cpu(&c, 256, 1, 2);
    c.mode = ZC_STREAM_ZEROCOPY;
    c.devices = twice;
    assert_int_equal(zc_stream_config_check(&c), ZC_ERR_INVALID_ARG);
    assert_true(strstr(zc_last_error(), "twice") != NULL);
    zc_stream_destroy(NULL);
    size_t got = 0;
    assert_int_equal(zc_stream_pull(NULL, NULL, 1, 0, &got), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stream_push(NULL, NULL, 0, NULL), ZC_ERR_INVALID_ARG);
}

/* A NaN or infinite tap would make every output NaN: refused at create, naming the tap, by the
 * stream and by the filter alike. */
static void test_nonfinite_taps(void **state)
{
    (void)state;
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        float taps[TAPS];
        memcpy(taps, g_taps, sizeof taps);
        taps[7] = bad[i];
        zc_stream_config c;
        config_cpu(&c, 256, 1, 1);
        c.taps = taps;
        zc_stream *s = NULL;
        assert_int_equal(zc_stream_create(&c, &s), ZC_ERR_INVALID_ARG);
        assert_null(s);
        assert_non_null(strstr(zc_last_error(), "tap 7 of 33"));
        assert_non_null(strstr(zc_last_error(), "not a finite number"));
        zc_filter_config fc;
        zc_filter_config_init(&fc);
        fc.mode = ZC_STREAM_CPU;
        fc.taps = taps;
        fc.ntaps = TAPS;
        fc.frame_samples = 256;
        fc.channels = 1;
        assert_int_equal(zc_filter_config_check(&fc), ZC_ERR_INVALID_ARG);
        assert_non_null(strstr(zc_last_error(), "tap 7 of 33"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_length_in_order),
        cmocka_unit_test(test_lanes_match_one_lane),
        cmocka_unit_test(test_empty_stream),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_drop_policy_counts_exactly),
        cmocka_unit_test(test_full_queue_loses_nothing),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_nonfinite_in_pieces),
        cmocka_unit_test(test_subnormal_input_passes_the_check),
        cmocka_unit_test(test_frame_acquire),
        cmocka_unit_test(test_bad_config),
        cmocka_unit_test(test_nonfinite_taps),
    };
    return cmocka_run_group_tests(tests, setup_taps, NULL);
}
