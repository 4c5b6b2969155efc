/* SPDX-License-Identifier: Apache-2.0 */
/* Every streaming mode (both ring protocols) against the double-precision reference, frame by
 * frame with the filter's state carried across frames: real and complex, one and many frames in
 * flight, blocks whose share is shorter than the filter's history, large frames. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zerocopy/clock.h"
#include "stream_check.h"
#include "zerocopy/stream.h"

typedef struct shape {
    size_t frame_samples, channels, ntaps;
    uint32_t in_flight, gpu_blocks;
    uint64_t frames;
} shape;

static void check_mode(zc_stream_mode mode, zc_ring_protocol protocol, const shape *s)
{
    if (stream_check_sanitizer_skips(mode, protocol))
        return;
    const size_t words = s->frame_samples * s->channels, halo = (s->ntaps - 1) * s->channels;
    float *taps = malloc(s->ntaps * sizeof(float));
    assert_int_equal(zc_fir_design_lowpass(0.1, s->ntaps, taps), ZC_OK);
    zc_filter_config c;
    zc_filter_config_init(&c);
    c.mode = mode;
    c.protocol = protocol;
    c.frame_samples = s->frame_samples;
    c.channels = s->channels;
    c.taps = taps;
    c.ntaps = s->ntaps;
    c.in_flight = s->in_flight;
    c.gpu_blocks = s->gpu_blocks;
    zc_filter *f = NULL;
    zc_status st = zc_filter_create(&c, &f);
    if (st != ZC_OK)
        fail_msg("%s/%s: create: %s: %s", zc_stream_mode_name(mode),
                 protocol == ZC_RING_PROTO_LL ? "ll" : "flag", zc_status_str(st), zc_last_error());
    const double tones[3] = {3000.0, 40000.0, 300000.0};
    zc_synth synth;
    assert_int_equal(zc_synth_init(&synth, 1e6, tones, 3, 0.2, s->channels), ZC_OK);
    /* The whole signal is kept, so each frame's reference sees its true history. */
    float *signal = calloc((s->frames * words) + halo, sizeof(float));
    float *out = malloc(words * sizeof(float));
    double *ref = malloc(words * sizeof(double));
    assert_non_null(signal);
    float *x = signal + halo; /* halo zeros before the first frame */
    zc_synth_fill(&synth, x, s->frames * s->frame_samples);
    double worst = 0.0;
    uint64_t received = 0;
    for (uint64_t k = 0; k < s->frames || received < s->frames;) {
        uint64_t outstanding = 0;
        zc_filter_outstanding(f, &outstanding);
        if (k < s->frames && outstanding < s->in_flight) {
            uint64_t seq = 0;
            st = zc_filter_submit(f, x + k * words, &seq);
            if (st != ZC_OK)
                fail_msg("%s: submit %llu: %s", zc_stream_mode_name(mode), (unsigned long long)k,
                         zc_last_error());
            assert_int_equal(seq, k);
            k++;
            continue;
        }
        uint64_t seq = 0;
        st = zc_filter_receive(f, out, 2000000000ull, &seq);
        if (st != ZC_OK)
            fail_msg("%s: receive %llu: %s: %s", zc_stream_mode_name(mode),
                     (unsigned long long)received, zc_status_str(st), zc_last_error());
        assert_int_equal(seq, received);
        const float *frame = x + seq * words;
        assert_int_equal(zc_fir_reference(taps, s->ntaps, s->channels, frame - halo, frame,
                                          s->frame_samples, ref),
                         ZC_OK);
        double err = zc_fir_error(ref, out, words, taps, s->ntaps, 1.2);
        if (err > worst)
            worst = err;
        if (!(err <= 1e-5)) {
            size_t bad = 0;
            for (size_t i = 0; i < words; i++)
                if (fabs(out[i] - ref[i]) > fabs(out[bad] - ref[bad]))
                    bad = i;
            fail_msg("%s/%s frame %llu: relative error %.3g; worst at value %zu: got %.9g, "
                     "reference %.9g",
                     zc_stream_mode_name(mode), protocol == ZC_RING_PROTO_LL ? "ll" : "flag",
                     (unsigned long long)seq, err, bad, out[bad], ref[bad]);
        }
        received++;
    }
    uint32_t blocks = 0;
    zc_filter_gpu_blocks(f, &blocks);
    fprintf(stderr,
            "%-16s %-4s %7zu samples x %zu, %3zu taps, %2u in flight, %3u blocks: %llu "
            "frames, max relative error %.2e\n",
            zc_stream_mode_name(mode),
            zc_stream_mode_on_ring(mode) ? (protocol == ZC_RING_PROTO_LL ? "ll" : "flag") : "",
            s->frame_samples, s->channels, s->ntaps, s->in_flight, blocks,
            (unsigned long long)s->frames, worst);
    zc_filter_destroy(f);
    free(signal);
    free(out);
    free(ref);
    free(taps);
}

static void all_modes(const shape *s)
{
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        check_mode((zc_stream_mode)m, ZC_RING_PROTO_LL, s);
        if (zc_stream_mode_on_ring((zc_stream_mode)m))
            check_mode((zc_stream_mode)m, ZC_RING_PROTO_FLAG, s);
    }
}

static void test_4k_frames_one_in_flight(void **state)
{
    (void)state;
    shape s = {1024, 1, 64, 1, 0, 400};
    all_modes(&s);
}

static void test_complex_many_in_flight(void **state)
{
    (void)state;
    shape s = {512, 2, 33, 6, 0, 300};
    all_modes(&s);
}

static void test_blocks_shorter_than_history(void **state)
{
    (void)state;
    /* 16 blocks of 16 samples each, 64 taps: every block's history reaches back across the
     * previous blocks' shares and, for the first ones, into the previous frame. */
    shape s = {256, 1, 64, 2, 16, 300};
    check_mode(ZC_STREAM_ZEROCOPY, ZC_RING_PROTO_LL, &s);
    check_mode(ZC_STREAM_ZEROCOPY, ZC_RING_PROTO_FLAG, &s);
    shape tiny = {64, 1, 1, 1, 0, 200}; /* one tap: no history at all */
    all_modes(&tiny);
}

static void test_large_frames(void **state)
{
    (void)state;
    /* 1 MiB frames, several tiles per block. */
    shape s = {262144, 1, 64, 4, 32, 24};
    all_modes(&s);
}

static void test_drop_policy_counts(void **state)
{
    (void)state;
    float taps[8];
    assert_int_equal(zc_fir_design_lowpass(0.2, 8, taps), ZC_OK);
    zc_filter_config c;
    zc_filter_config_init(&c);
    c.taps = taps;
    c.ntaps = 8;
    c.in_flight = 2;
    c.policy = ZC_RING_FULL_DROP;
    zc_filter *f = NULL;
    assert_int_equal(zc_filter_create(&c, &f), ZC_OK);
    float frame[1024] = {0};
    assert_int_equal(zc_filter_submit(f, frame, NULL), ZC_OK);
    assert_int_equal(zc_filter_submit(f, frame, NULL), ZC_OK);
    assert_int_equal(zc_filter_submit(f, frame, NULL), ZC_ERR_DROPPED);
    zc_filter_counters k;
    assert_int_equal(zc_filter_counters_get(f, &k), ZC_OK);
    assert_int_equal(k.dropped, 1);
    assert_int_equal(k.submitted, 2);
    assert_int_equal(zc_filter_receive(f, frame, 2000000000ull, NULL), ZC_OK);
    assert_int_equal(zc_filter_receive(f, frame, 2000000000ull, NULL), ZC_OK);
    assert_int_equal(zc_filter_receive(f, frame, 0, NULL), ZC_ERR_STATE);
    zc_filter_destroy(f);
}

/* stream-wait queues each frame's work ahead behind a wait on a word the CPU stores. Destroying
 * it with frames queued and never published, and with a result not taken, must drain the
 * stream and end, not wait for ever on words nobody will store; and a filter made again on the
 * same device must work (nothing was left behind on the stream or in the context). */
static void test_stream_wait_destroy_with_work_queued(void **state)
{
    (void)state;
    float taps[16];
    assert_int_equal(zc_fir_design_lowpass(0.2, 16, taps), ZC_OK);
    zc_filter_config c;
    zc_filter_config_init(&c);
    c.mode = ZC_STREAM_STREAM_WAIT;
    c.taps = taps;
    c.ntaps = 16;
    c.in_flight = 4;
    for (int round = 0; round < 2; round++) {
        zc_filter *f = NULL;
        zc_status st = zc_filter_create(&c, &f);
        if (st != ZC_OK)
            fail_msg("stream-wait create: %s: %s", zc_status_str(st), zc_last_error());
        uint32_t buffers = 0;
        assert_int_equal(zc_filter_buffers(f, &buffers), ZC_OK);
        assert_true(buffers >= c.in_flight); /* frames queued ahead */
        float frame[1024];
        for (int i = 0; i < 1024; i++)
            frame[i] = (float)(i % 7);
        assert_int_equal(zc_filter_submit(f, frame, NULL), ZC_OK);
        assert_int_equal(zc_filter_submit(f, frame, NULL), ZC_OK);
        float out[1024];
        assert_int_equal(zc_filter_receive(f, out, 2000000000ull, NULL), ZC_OK);
        assert_true(out[1023] != 0.0f); /* filtered, not the zeros the slot started with */
        const uint64_t t0 = zc_clock_ns();
        zc_filter_destroy(f); /* one result not taken, the rest of the queue never published */
        const double ms = (double)(zc_clock_ns() - t0) / 1e6;
        fprintf(stderr, "stream-wait: destroyed with %u frames queued in %.2f ms\n", buffers, ms);
        assert_true(ms < 2000.0);
    }
}

int main(void)
{
    zc_test_require_gpu("gpu_stream_modes");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_4k_frames_one_in_flight),
        cmocka_unit_test(test_complex_many_in_flight),
        cmocka_unit_test(test_blocks_shorter_than_history),
        cmocka_unit_test(test_large_frames),
        cmocka_unit_test(test_drop_policy_counts),
        cmocka_unit_test(test_stream_wait_destroy_with_work_queued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
