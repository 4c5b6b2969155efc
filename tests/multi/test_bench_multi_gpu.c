/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-GPU bench cases on two GPUs or more, in-process at small sizes: each runs, every
 * point verified, each GPU's share reported; corrupted data FAILs. Skips below two GPUs. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "zerocopy/bench.h"

static int g_count;
static int g_devices[ZC_BENCH_DEVICES_MAX];

static zc_bench_ctx *make_ctx(const char *corrupt)
{
    static const size_t sizes[] = {4u << 20};
    zc_bench_config config;
    zc_bench_config_init(&config);
    config.mode = ZC_BENCH_QUICK;
    config.sizes = sizes;
    config.size_count = 1;
    config.devices = g_devices;
    config.device_count = (size_t)(g_count < ZC_BENCH_DEVICES_MAX ? g_count : ZC_BENCH_DEVICES_MAX);
    config.corrupt_key = corrupt;
    zc_bench_ctx *ctx = NULL;
    zc_status st = zc_bench_ctx_create(&config, &ctx);
    if (st != ZC_OK)
        fail_msg("zc_bench_ctx_create: %s: %s", zc_status_name(st), zc_last_error());
    return ctx;
}

static void test_every_multigpu_case_runs_verified(void **state)
{
    (void)state;
    zc_bench_ctx *ctx = make_ctx(NULL);
    int bad = 0, ran = 0;
    for (size_t i = 0; i < zc_bench_case_count(); i++) {
        const char *key = zc_bench_case_at(i)->key;
        if (!zc_bench_key_matches("multigpu", key))
            continue;
        zc_bench_result res;
        assert_int_equal(zc_bench_run(ctx, i, &res), ZC_OK);
        fprintf(stderr, "%s: %s (%.2f s): %s\n", key, zc_bench_outcome_name(res.outcome),
                res.seconds, res.reason);
        if (res.outcome == ZC_BENCH_SKIPPED && strstr(key, "peer.") != NULL &&
            strstr(res.reason, "cudaDeviceCanAccessPeer") != NULL) {
            /* Kernels cannot reach a peer without P2P: a fact of the machine, said so. */
        } else if (res.outcome != ZC_BENCH_OK || res.point_count == 0) {
            bad++;
        } else {
            ran++;
        }
        for (size_t j = 0; j < res.point_count; j++) {
            const zc_bench_point *p = &res.points[j];
            fprintf(stderr, "  %-36s %8.2f %s (n %zu)\n", p->variant, p->stats.median,
                    zc_bench_metric_unit(p->metric), p->stats.count);
            if (!p->verified || !(p->stats.median > 0.0) || !isfinite(p->stats.median))
                bad++;
        }
        /* The host cases give each GPU alone, all at once and each GPU's share. */
        if (strstr(key, ".all") != NULL && res.outcome == ZC_BENCH_OK) {
            size_t want = 2 * (size_t)g_count + 1;
            if (res.point_count != want) {
                fprintf(stderr, "%s: %zu points, expected %zu\n", key, res.point_count, want);
                bad++;
            }
            if (strstr(res.reason, "of the sum of each alone") == NULL) {
                fprintf(stderr, "%s: no host-limit finding\n", key);
                bad++;
            }
        }
        zc_bench_result_clear(&res);
    }
    /* The run's own device is current again. */
    int current = -1;
    assert_int_equal(cudaGetDevice(&current), cudaSuccess);
    assert_int_equal(current, g_devices[0]);
    zc_bench_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
    assert_true(ran >= 3); /* h2d.all, d2h.all and peer.copy run on any two GPUs */
}

static void test_corruption_fails(void **state)
{
    (void)state;
    if (zc_test_under_sanitizer()) {
        /* The same kernels ran above; under memcheck a second pass only costs time. */
        fprintf(stderr, "under the sanitizer: corruption pass left out\n");
        return;
    }
    zc_bench_ctx *ctx = make_ctx("multigpu");
    int bad = 0;
    for (size_t i = 0; i < zc_bench_case_count(); i++) {
        const char *key = zc_bench_case_at(i)->key;
        if (!zc_bench_key_matches("multigpu", key))
            continue;
        zc_bench_result res;
        assert_int_equal(zc_bench_run(ctx, i, &res), ZC_OK);
        fprintf(stderr, "%s corrupted: %s: %s\n", key, zc_bench_outcome_name(res.outcome),
                res.reason);
        if (res.outcome != ZC_BENCH_SKIPPED &&
            (res.outcome != ZC_BENCH_FAIL || res.point_count != 0))
            bad++;
        zc_bench_result_clear(&res);
    }
    zc_bench_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

static void test_one_gpu_skips_with_reason(void **state)
{
    (void)state;
    zc_bench_config config;
    zc_bench_config_init(&config);
    zc_bench_ctx *ctx = NULL;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    for (size_t i = 0; i < zc_bench_case_count(); i++) {
        if (!zc_bench_key_matches("multigpu", zc_bench_case_at(i)->key))
            continue;
        char reason[ZC_BENCH_REASON_MAX];
        int can = 1;
        assert_int_equal(zc_bench_can_run(ctx, i, reason, sizeof reason, &can), ZC_OK);
        assert_int_equal(can, 0);
        assert_non_null(strstr(reason, "needs two GPUs"));
    }
    zc_bench_ctx_destroy(ctx);
    /* A list with a GPU twice is refused. */
    int twice[] = {0, 0};
    config.devices = twice;
    config.device_count = 2;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    zc_test_require_gpu("gpu_bench_multi");
    if (cudaGetDeviceCount(&g_count) != cudaSuccess || g_count < 2) {
        fprintf(stderr, "SKIP gpu_bench_multi: needs two GPUs, found %d\n", g_count);
        return ZC_TEST_SKIP;
    }
    for (int d = 0; d < g_count && d < ZC_BENCH_DEVICES_MAX; d++)
        g_devices[d] = d;
    if (g_count > ZC_BENCH_DEVICES_MAX)
        g_count = ZC_BENCH_DEVICES_MAX;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_multigpu_case_runs_verified),
        cmocka_unit_test(test_corruption_fails),
        cmocka_unit_test(test_one_gpu_skips_with_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
