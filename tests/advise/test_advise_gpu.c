/* The advise runner and calibration on a real GPU: every technique moves the right data, and the
 * model's prediction from the calibrated profile lands near the measurement. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "zerocopy/advise.h"

static zc_profile profile;

static int setup(void **state)
{
    (void)state;
    zc_status status = zc_advise_calibrate(0, &profile);
    if (status != ZC_OK) {
        fprintf(stderr, "calibration failed: %s: %s\n", zc_status_str(status), zc_last_error());
        return -1;
    }
    fprintf(stderr,
            "calibrated: launch+sync %.2f us, pinned copy latency %.2f us, pinned H2D peak at "
            "%zu B %.1f GB/s, mapped read %.1f GB/s, device %.0f GB/s, managed prefetch %.1f "
            "GB/s\n",
            profile.launch_sync_us, profile.copy_latency_us[ZC_HOST_PINNED],
            profile.copy[ZC_HOST_PINNED][0].bytes[profile.copy[ZC_HOST_PINNED][0].count - 1],
            profile.copy[ZC_HOST_PINNED][0].gbps[profile.copy[ZC_HOST_PINNED][0].count - 1],
            profile.mapped_read_gbps[0], profile.device_gbps, profile.managed_prefetch_gbps);
    return 0;
}

static void run_all(const zc_workload *w)
{
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        zc_prediction p;
        assert_int_equal(zc_advise_predict(&profile, w, (zc_technique)t, &p), ZC_OK);
        zc_measurement m;
        zc_status status = zc_advise_run(0, w, (zc_technique)t, 0.05, &m);
        if (status != ZC_OK)
            fail_msg("%s, %zu bytes, direction %s, k %g: %s: %s", zc_technique_key(t), w->bytes,
                     zc_direction_key(w->direction), w->gpu_accesses, zc_status_str(status),
                     zc_last_error());
        assert_true(m.verified);
        assert_true(m.total_us > 0.0 && m.per_transfer_us > 0.0);
        fprintf(stderr, "  %-10s %8zu B %-4s k=%g: predicted %10.1f us, measured %10.1f us\n",
                zc_technique_key(t), w->bytes, zc_direction_key(w->direction), w->gpu_accesses,
                p.total_us, m.total_us);
        /* A loose bound: the validation table holds the 20% target; this catches a model or a
         * runner that is off by a factor. Under a sanitizer the measured times mean nothing. */
        if (p.usable && !zc_test_under_sanitizer() &&
            (p.total_us > 4.0 * m.total_us || p.total_us < m.total_us / 4.0))
            fail_msg("%s: predicted %.1f us, measured %.1f us: off by more than 4x",
                     zc_technique_key(t), p.total_us, m.total_us);
    }
}

static void test_h2d_small(void **state)
{
    (void)state;
    zc_workload w = {4096, 200, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0};
    run_all(&w);
}

static void test_both_chunked(void **state)
{
    (void)state;
    zc_workload w = {(size_t)8 << 20, 10, 0, ZC_DIR_BOTH, 2, ZC_ACCESS_COALESCED, 0, 0};
    run_all(&w);
}

static void test_d2h_random(void **state)
{
    (void)state;
    zc_workload w = {(size_t)256 << 10, 20, 0, ZC_DIR_D2H, 1, ZC_ACCESS_RANDOM, 0, 0};
    run_all(&w);
    w.pattern = ZC_ACCESS_STRIDED;
    w.direction = ZC_DIR_H2D;
    run_all(&w);
}

static void test_runner_refuses_bad_sizes(void **state)
{
    (void)state;
    zc_workload w = {100, 1, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0};
    zc_measurement m;
    assert_int_equal(zc_advise_run(0, &w, ZC_TECH_PINNED, 0.1, &m), ZC_ERR_INVALID_ARG);
    w.bytes = 4096;
    w.gpu_accesses = 1.5;
    assert_int_equal(zc_advise_run(0, &w, ZC_TECH_PINNED, 0.1, &m), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    zc_test_require_gpu("gpu_advise_run");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h2d_small),
        cmocka_unit_test(test_both_chunked),
        cmocka_unit_test(test_d2h_random),
        cmocka_unit_test(test_runner_refuses_bad_sizes),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
