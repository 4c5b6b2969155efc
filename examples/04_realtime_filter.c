/* Example 4 (real-time filtering through mapped memory, the chapter's section 4.2 made real):
 * a synthetic signal goes frame by frame to a persistent GPU kernel through a ring in mapped
 * pinned memory, is low-pass filtered there with its state carried across frames, and comes
 * back without a copy. Every result is checked against the CPU reference; the latency of each
 * frame is printed as percentiles. Exits 3 without a GPU. */
#include <string.h>

#include "example_common.h"

#define FRAME_SAMPLES 1024 /* 4 KiB of float32 per frame */
#define TAPS          64
#define FRAMES        20000

int main(void)
{
    example_require_gpu("04_realtime_filter");

    /* A 64-tap low-pass at 1/8 of the sample rate, and a signal of two tones (one in the pass
     * band, one in the stop band) plus noise, at 1 M samples/s. */
    const double rate = 1e6, tones[2] = {5000.0, 300000.0};
    static float taps[TAPS];
    CHECK_ZC(zc_fir_design_lowpass(0.125, TAPS, taps));
    zc_synth synth;
    CHECK_ZC(zc_synth_init(&synth, rate, tones, 2, 0.05, 1));

    /* Zero-copy mode: the persistent kernel and its ring are set up and running after this. */
    zc_filter_config config;
    zc_filter_config_init(&config);
    config.mode = ZC_STREAM_ZEROCOPY;
    config.protocol = ZC_RING_PROTO_LL;
    config.frame_samples = FRAME_SAMPLES;
    config.taps = taps;
    config.ntaps = TAPS;
    zc_filter *filter = NULL;
    CHECK_ZC(zc_filter_create(&config, &filter));

    static float frame[FRAME_SAMPLES], history[TAPS - 1];
    static double reference[FRAME_SAMPLES], latency_us[FRAMES];
    double worst = 0.0;
    for (int k = 0; k < FRAMES; k++) {
        zc_synth_fill(&synth, frame, FRAME_SAMPLES);
        uint64_t t0 = zc_clock_ns();
        CHECK_ZC(zc_filter_submit(filter, frame, NULL));
        const float *result = NULL;
        CHECK_ZC(zc_filter_result_wait(filter, 1000000000ull, &result, NULL));
        latency_us[k] = (double)(zc_clock_ns() - t0) / 1e3;

        /* The same filter on the CPU, in double precision, from the same history. */
        CHECK_ZC(zc_fir_reference(taps, TAPS, 1, history, frame, FRAME_SAMPLES, reference));
        double err = zc_fir_error(reference, result, FRAME_SAMPLES, taps, TAPS, 1.1);
        if (err > worst)
            worst = err;
        CHECK_ZC(zc_filter_result_release(filter));
        memcpy(history, frame + FRAME_SAMPLES - (TAPS - 1), sizeof history);
    }
    zc_filter_destroy(filter);

    zc_stats stats;
    CHECK_ZC(zc_stats_compute(latency_us, FRAMES, &stats));
    printf("%d frames of %d samples through the GPU and back, %d taps\n", FRAMES, FRAME_SAMPLES,
           TAPS);
    printf("latency per frame: p50 %.2f us, p99 %.2f us, p99.9 %.2f us, max %.1f us\n",
           stats.median, stats.p99, stats.p999, stats.max);
    printf("largest relative error against the CPU reference: %.2e\n", worst);
    if (!(worst <= 1e-5)) {
        fprintf(stderr, "04_realtime_filter: results differ from the reference\n");
        return EXAMPLE_WRONG_DATA;
    }
    return EXAMPLE_OK;
}
