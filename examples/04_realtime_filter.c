/* SPDX-License-Identifier: Apache-2.0 */
/* Example 4 (real-time filtering through mapped memory, the chapter's section 4.2 made real):
 * a producer thread pushes samples as they are "acquired", in blocks of any size, into the
 * streaming engine; a persistent GPU kernel low-pass filters them frame by frame in mapped
 * pinned memory, its state carried across frames; a consumer thread pulls the filtered samples
 * back, in order, every one of them. The engine checks every frame against the CPU reference
 * and measures each frame's latency. Exits 3 without a GPU; --cpu runs the same pipeline with
 * the filter on the host. */
#include <pthread.h>
#include <string.h>

#include "example_common.h"

#define FRAME_SAMPLES 1024 /* 4 KiB of float32 per frame */
#define TAPS          64
#define BLOCK         441     /* samples per acquisition: 10 ms at 44.1 kHz */
#define SAMPLES       5000000 /* not a multiple of the frame: the last one is partial */

typedef struct consumer {
    zc_stream *stream;
    size_t pulled;
    zc_status status;
} consumer;

/* The consumer: take the filtered samples as they come, until the end of the stream. */
static void *consume(void *arg)
{
    consumer *c = arg;
    static float out[4 * FRAME_SAMPLES];
    for (;;) {
        size_t got = 0;
        zc_status st = zc_stream_pull(c->stream, out, 4 * FRAME_SAMPLES, 1000000000ull, &got);
        if (st == ZC_ERR_NOT_FOUND) /* flushed, and everything pulled */
            break;
        if (st != ZC_OK) {
            c->status = st;
            fprintf(stderr, "zc_stream_pull: %s: %s\n", zc_status_str(st), zc_last_error());
            break;
        }
        c->pulled += got; /* a real program would play, store or forward out[0..got) here */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const int on_host = argc > 1 && strcmp(argv[1], "--cpu") == 0;
    if (!on_host)
        example_require_gpu("04_realtime_filter");

    /* A 64-tap low-pass at 1/8 of the sample rate, and a signal of two tones (one in the pass
     * band, one in the stop band) plus noise, at 1 M samples/s. */
    const double rate = 1e6, tones[2] = {5000.0, 300000.0};
    static float taps[TAPS];
    CHECK_ZC(zc_fir_design_lowpass(0.125, TAPS, taps));
    zc_synth synth;
    CHECK_ZC(zc_synth_init(&synth, rate, tones, 2, 0.05, 1));

    /* Zero-copy mode: the persistent kernel and its ring are set up and running after this. */
    zc_stream_config config;
    zc_stream_config_init(&config);
    config.mode = on_host ? ZC_STREAM_CPU : ZC_STREAM_ZEROCOPY;
    config.protocol = ZC_RING_PROTO_LL;
    config.frame_samples = FRAME_SAMPLES;
    config.taps = taps;
    config.ntaps = TAPS;
    config.verify = ZC_STREAM_VERIFY_ALL;
    config.warmup_frames = 100;
    consumer c = {0};
    CHECK_ZC(zc_stream_create(&config, &c.stream));
    pthread_t thread;
    if (pthread_create(&thread, NULL, consume, &c) != 0) {
        fprintf(stderr, "04_realtime_filter: pthread_create failed\n");
        return EXAMPLE_FAILED;
    }

    /* The producer: acquire a block, push it; frames go to the GPU as they fill. */
    static float block[BLOCK];
    size_t pushed = 0;
    while (pushed < SAMPLES) {
        size_t n = SAMPLES - pushed < BLOCK ? SAMPLES - pushed : BLOCK;
        zc_synth_fill(&synth, block, n);
        CHECK_ZC(zc_stream_push(c.stream, block, n, NULL));
        pushed += n;
    }
    CHECK_ZC(zc_stream_flush(c.stream)); /* the partial last frame is filtered too */
    pthread_join(thread, NULL);

    zc_stream_stats stats;
    CHECK_ZC(zc_stream_stats_get(c.stream, &stats));
    zc_stream_destroy(c.stream);
    printf("%zu samples in blocks of %d through the %s and back: %zu out, %llu frames of %d, "
           "%d taps\n",
           pushed, BLOCK, on_host ? "host filter" : "GPU", c.pulled,
           (unsigned long long)stats.frames_received, FRAME_SAMPLES, TAPS);
    printf("latency per frame: p50 %.2f us, p99 %.2f us, p99.9 %.2f us, max %.1f us\n",
           stats.latency_us.median, stats.latency_us.p99, stats.latency_us.p999,
           stats.latency_us.max);
    printf("%llu frames checked against the CPU reference, largest relative error %.2e\n",
           (unsigned long long)stats.verified, stats.max_rel_error);
    if (c.status != ZC_OK)
        return EXAMPLE_FAILED;
    if (c.pulled != pushed || !stats.verify_passed) {
        fprintf(stderr, "04_realtime_filter: %zu samples back of %zu, results %s\n", c.pulled,
                pushed, stats.verify_passed ? "right" : "differ from the reference");
        return EXAMPLE_WRONG_DATA;
    }
    return EXAMPLE_OK;
}
