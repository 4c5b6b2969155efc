/* SPDX-License-Identifier: Apache-2.0 */
/* The advise runner and the in-process profile on a real GPU: every technique moves the right
 * data, the model's prediction from a profile measured by the bench engine lands near the
 * measurement, and a short interleaved validation gives a verdict for every workload. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "advise_files.h"
#include "zerocopy/advise.h"

static zc_profile profile;

static int setup(void **state)
{
    (void)state;
    char notes[4096];
    /* Under compute-sanitizer the times mean nothing and kernels run one at a time, which
     * would make measuring a profile take minutes: the recorded H200 profile stands in (the
     * bench's own GPU test checks the bench engine under the sanitizer). */
    zc_status status;
    if (zc_test_under_sanitizer()) {
        status = zc_test_profile_load(ZC_ADVISE_FIXTURES "/h200.profile.json", &profile, NULL,
                                      notes, sizeof notes);
    } else {
        zc_bench_config config;
        zc_bench_config_init(&config);
        config.mode = ZC_BENCH_QUICK;
        status = zc_profile_measure_config(&config, &profile, notes, sizeof notes);
    }
    if (status == ZC_OK)
        status = zc_profile_fill_gaps(&profile, notes, sizeof notes);
    double gbps = 0.0;
    if (status == ZC_OK && (status = zc_advise_measure_host_write(&gbps)) == ZC_OK)
        status = zc_profile_set(&profile, ZC_PF_HOST_WRITE_GBPS, gbps, ZC_ORIGIN_MEASURED);
    if (status != ZC_OK) {
        fprintf(stderr, "measuring the profile failed: %s: %s\n", zc_status_str(status),
                zc_last_error());
        return -1;
    }
    fprintf(stderr,
            "measured: launch+sync %.2f us, pinned copy latency %.2f us, pinned H2D peak at "
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

/* A short validation: two workloads, three interleaved rounds each, every technique measured
 * in every round, a winner and a verdict for each, the table written. */
static void test_validation_interleaved(void **state)
{
    (void)state;
    zc_validation_workload w[2];
    memset(w, 0, sizeof w);
    w[0] = *zc_validation_fixed_at(0);
    /* A random workload of at most 1 MiB, so that the test stays short under memcheck. */
    for (size_t i = 0; i < 64; i++) {
        assert_int_equal(zc_validation_random(7, i, &w[1]), ZC_OK);
        if (w[1].workload.bytes <= ((size_t)1 << 20))
            break;
    }
    assert_true(w[1].workload.bytes <= ((size_t)1 << 20));
    w[1].workload.transfers = w[1].workload.transfers > 20 ? 20 : w[1].workload.transfers;
    zc_validation_config config;
    zc_validation_config_init(&config);
    config.rounds = 3;
    config.seconds_per_run = 0.01;
    zc_validation_result r[2];
    zc_validation_summary s;
    zc_status status = zc_advise_validate(&profile, w, 2, &config, r, &s);
    if (status != ZC_OK)
        fail_msg("validation: %s: %s", zc_status_str(status), zc_last_error());
    assert_int_equal(s.workloads, 2);
    assert_int_equal(s.rounds, 3);
    assert_true(s.host_write_gbps > 0.0);
    for (int i = 0; i < 2; i++) {
        assert_true(r[i].winner >= 0);
        for (int t = 0; t < ZC_TECH_COUNT; t++) {
            if (r[i].tech[t].ran == 1)
                assert_int_equal(r[i].tech[t].rounds, 3);
            assert_true(r[i].tech[t].ran != -1);
        }
        const zc_validation_technique *win = &r[i].tech[r[i].winner];
        for (int t = 0; t < ZC_TECH_COUNT; t++) {
            if (r[i].tech[t].ran == 1)
                assert_true(r[i].tech[t].median_us >= win->median_us);
        }
    }
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(zc_validation_markdown(&profile, "test", r, 2, &s, f), ZC_OK);
    assert_true(ftell(f) > 500);
    fclose(f);
}

int main(void)
{
    zc_test_require_gpu("gpu_advise_run");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h2d_small),
        cmocka_unit_test(test_both_chunked),
        cmocka_unit_test(test_d2h_random),
        cmocka_unit_test(test_runner_refuses_bad_sizes),
        cmocka_unit_test(test_validation_interleaved),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
