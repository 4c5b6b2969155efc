/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench on a GPU, through the library: every case runs at small sizes and verifies its
 * data, a corrupted buffer FAILs. Small enough to run under compute-sanitizer memcheck. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "zerocopy/bench.h"
#include "zerocopy/device.h"

/* Under compute-sanitizer kernels run one at a time: a launch queued behind the timing gate's
 * kernel waits for it, and the gate waits for the host to finish queuing. Measure ungated
 * there (the data is checked all the same). */
static void sanitizer_settings(zc_bench_config *config)
{
    config->ungated = zc_test_under_sanitizer();
}

static void test_library_directly(void **state)
{
    (void)state;
    zc_bench_config config;
    zc_bench_config_init(&config);
    config.mode = ZC_BENCH_QUICK;
    sanitizer_settings(&config);
    zc_bench_ctx *ctx = NULL;
    config.device = 4096;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_ERR_INVALID_ARG);
    assert_null(ctx);
    config.device = 0;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    assert_int_equal(zc_bench_ctx_plan(ctx, 1), ZC_OK);
    size_t launch = zc_bench_case_count();
    for (size_t i = 0; i < zc_bench_case_count(); i++) {
        char reason[256];
        int can = -1;
        assert_int_equal(zc_bench_can_run(ctx, i, reason, sizeof reason, &can), ZC_OK);
        assert_true(can == 0 || can == 1);
        if (!can)
            assert_true(strlen(reason) > 0);
        if (strcmp(zc_bench_case_at(i)->key, "latency.launch") == 0)
            launch = i;
    }
    assert_true(launch < zc_bench_case_count());
    zc_bench_result res;
    assert_int_equal(zc_bench_run(ctx, launch, &res), ZC_OK);
    if (res.outcome != ZC_BENCH_OK)
        fail_msg("latency.launch: %s: %s", zc_bench_outcome_name(res.outcome), res.reason);
    assert_int_equal(res.point_count, 1);
    assert_true(res.points[0].stats.median > 0.5 && res.points[0].stats.median < 10000.0);
    fprintf(stderr, "launch + sync p50 %.2f us\n", res.points[0].stats.median);
    zc_bench_result_clear(&res);
    assert_int_equal(zc_bench_run(ctx, zc_bench_case_count(), &res), ZC_ERR_INVALID_ARG);
    zc_bench_ctx_destroy(ctx);
}

/* Every case in one context at two small sizes: ok or skipped with a reason, every point
 * verified and positive. */
static void test_every_case_small(void **state)
{
    (void)state;
    static const size_t sizes[] = {64u << 10, 1u << 20};
    zc_bench_config config;
    zc_bench_config_init(&config);
    config.mode = ZC_BENCH_QUICK;
    sanitizer_settings(&config);
    /* Under compute-sanitizer, where every access is checked, one size (the larger: some cases
     * need 1 MiB) runs the same code. */
    config.sizes = zc_test_under_sanitizer() ? sizes + 1 : sizes;
    config.size_count = zc_test_under_sanitizer() ? 1 : 2;
    zc_bench_ctx *ctx = NULL;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    assert_int_equal(zc_bench_ctx_plan(ctx, zc_bench_case_count()), ZC_OK);
    int bad = 0;
    for (size_t i = 0; i < zc_bench_case_count(); i++) {
        const char *key = zc_bench_case_at(i)->key;
        zc_bench_result res;
        assert_int_equal(zc_bench_run(ctx, i, &res), ZC_OK);
        assert_string_equal(res.key, key);
        if (res.outcome == ZC_BENCH_SKIPPED) {
            fprintf(stderr, "%s skipped: %s\n", key, res.reason);
            if (res.reason[0] == '\0')
                bad++;
        } else if (res.outcome != ZC_BENCH_OK) {
            fprintf(stderr, "%s: %s: %s\n", key, zc_bench_outcome_name(res.outcome), res.reason);
            bad++;
        } else if (res.point_count == 0) {
            fprintf(stderr, "%s: ok without a point\n", key);
            bad++;
        }
        for (size_t j = 0; j < res.point_count; j++) {
            const zc_bench_point *p = &res.points[j];
            if (!p->verified || !(p->stats.median > 0.0) || !isfinite(p->stats.median) ||
                p->stats.count == 0) {
                fprintf(stderr, "%s: point '%s' %zu B: verified %d, median %g, n %zu\n", key,
                        p->variant, p->bytes, p->verified, p->stats.median, p->stats.count);
                bad++;
            }
        }
        if (res.outcome == ZC_BENCH_OK && res.point_count > 0)
            fprintf(stderr, "%-28s %3zu point(s), first median %.2f %s (%.2f s)\n", key,
                    res.point_count, res.points[0].stats.median,
                    zc_bench_metric_unit(res.points[0].metric), res.seconds);
        zc_bench_result_clear(&res);
    }
    zc_bench_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

/* Whether res has a point of variant at bytes, verified and measured. */
static int has_point(const zc_bench_result *res, const char *variant, size_t bytes)
{
    for (size_t i = 0; i < res->point_count; i++) {
        const zc_bench_point *p = &res->points[i];
        if (p->bytes == bytes && strcmp(p->variant, variant) == 0)
            return p->verified && p->stats.median > 0.0 && p->stats.count >= 3;
    }
    return 0;
}

/* The pinning family at small sizes: the floor alone, then every way of pinning beside it, each
 * allocation and free a point of its own at every size, every pinned buffer checked by its round
 * trip to the GPU, and the finding setting each way against the floor. */
static void test_pinning_family_small(void **state)
{
    (void)state;
    static const size_t sizes[] = {4u << 20, 16u << 20};
    static const char *const every_way[] = {
        "floor 4 KiB pages: touch",    "floor THP: munmap",
        "cudaHostAlloc: allocate",     "cudaHostAlloc: free",
        "cudaMallocHost: allocate",    "zc_buffer_alloc pinned: allocate",
        "zc_buffer_alloc pinned: free"};
    static const char *const registering[] = {"malloc+cudaHostRegister: register",
                                              "malloc+touch+cudaHostRegister: touch+register",
                                              "malloc+touch+cudaHostRegister: unregister+free"};
    zc_bench_config config;
    zc_bench_config_init(&config);
    config.mode = ZC_BENCH_QUICK;
    sanitizer_settings(&config);
    config.sizes = sizes;
    config.size_count = zc_test_under_sanitizer() ? 1 : 2;
    zc_device_info info;
    assert_int_equal(zc_device_info_get(0, &info), ZC_OK);
    zc_bench_ctx *ctx = NULL;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    for (int c = 0; c < 2; c++) {
        zc_bench_case_id id;
        assert_int_equal(zc_bench_case_id_of(c == 0 ? "pin.floor" : "pin.cost", &id), ZC_OK);
        zc_bench_result res;
        assert_int_equal(zc_bench_run(ctx, (size_t)id, &res), ZC_OK);
        if (res.outcome != ZC_BENCH_OK)
            fail_msg("%s: %s: %s", res.key, zc_bench_outcome_name(res.outcome), res.reason);
        fprintf(stderr, "%s: %s\n", res.key, res.reason);
        for (size_t i = 0; i < config.size_count; i++) {
            for (size_t w = 0; w < (c == 0 ? 2 : sizeof every_way / sizeof every_way[0]); w++)
                if (!has_point(&res, every_way[w], sizes[i]))
                    fail_msg("%s: no verified point '%s' at %zu B", res.key, every_way[w],
                             sizes[i]);
            for (size_t w = 0; c == 1 && info.host_register_supported && w < 3; w++)
                if (!has_point(&res, registering[w], sizes[i]))
                    fail_msg("%s: no verified point '%s' at %zu B", res.key, registering[w],
                             sizes[i]);
        }
        assert_non_null(strstr(res.reason, "seconds per GiB (2^30 B)"));
        if (c == 1)
            assert_non_null(strstr(res.reason, "; zerocopy "));
        zc_bench_result_clear(&res);
    }
    zc_bench_ctx_destroy(ctx);
    /* A pinned buffer whose data came back wrong FAILs the case, naming it. */
    config.size_count = 1;
    config.corrupt_key = "pin.cost";
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    zc_bench_case_id id;
    assert_int_equal(zc_bench_case_id_of("pin.cost", &id), ZC_OK);
    zc_bench_result res;
    assert_int_equal(zc_bench_run(ctx, (size_t)id, &res), ZC_OK);
    if (res.outcome != ZC_BENCH_FAIL)
        fail_msg("pin.cost with corrupted data: %s (%s), wanted FAIL",
                 zc_bench_outcome_name(res.outcome), res.reason);
    assert_int_equal(res.point_count, 0);
    assert_non_null(strstr(res.reason, "pin.cost"));
    fprintf(stderr, "pin.cost FAIL as expected: %s\n", res.reason);
    zc_bench_result_clear(&res);
    zc_bench_ctx_destroy(ctx);
}

/* Whether res has a point whose variant starts with prefix at bytes, verified and measured. */
static int has_point_prefix(const zc_bench_result *res, const char *prefix, size_t bytes)
{
    for (size_t i = 0; i < res->point_count; i++) {
        const zc_bench_point *p = &res->points[i];
        if (p->bytes == bytes && strncmp(p->variant, prefix, strlen(prefix)) == 0)
            return p->verified && p->stats.median > 0.0 && p->stats.count >= 3 &&
                   p->param_name != NULL && strcmp(p->param_name, "blocks") == 0 &&
                   p->param >= 16.0;
    }
    return 0;
}

/* The block family at small sizes: every way at each block size, each direction and both at
 * once, every destination checked; the kernel beside each engine; an engine the mover cannot
 * reach named in the finding, never a failure; wrong blocks FAIL the case. */
static void test_blocks_family_small(void **state)
{
    (void)state;
    static const size_t sizes[] = {4u << 10, 64u << 10};
    static const char *const ways[] = {"naive", "copy", "kernel", "auto: "};
    static const char *const beside[] = {"compute alone", "compute beside copy",
                                         "compute beside kernel"};
    static const char *const keys[] = {"blocks.h2d", "blocks.d2h", "blocks.bidir", "blocks.beside"};
    zc_bench_config config;
    zc_bench_config_init(&config);
    config.mode = ZC_BENCH_QUICK;
    sanitizer_settings(&config);
    config.sizes = sizes;
    config.size_count = zc_test_under_sanitizer() ? 1 : 2;
    zc_bench_ctx *ctx = NULL;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    for (size_t k = 0; k < 4; k++) {
        zc_bench_case_id id;
        assert_int_equal(zc_bench_case_id_of(keys[k], &id), ZC_OK);
        zc_bench_result res;
        assert_int_equal(zc_bench_run(ctx, (size_t)id, &res), ZC_OK);
        if (res.outcome != ZC_BENCH_OK)
            fail_msg("%s: %s: %s", res.key, zc_bench_outcome_name(res.outcome), res.reason);
        fprintf(stderr, "%s: %s\n", res.key, res.reason);
        for (size_t i = 0; i < config.size_count; i++) {
            for (size_t w = 0; k < 3 && w < sizeof ways / sizeof ways[0]; w++)
                if (!has_point_prefix(&res, ways[w], sizes[i]))
                    fail_msg("%s: no verified point '%s' at %zu B", res.key, ways[w], sizes[i]);
            for (size_t w = 0; k == 3 && w < sizeof beside / sizeof beside[0]; w++)
                if (!has_point_prefix(&res, beside[w], sizes[i]))
                    fail_msg("%s: no verified point '%s' at %zu B", res.key, beside[w], sizes[i]);
            /* batch is measured, or the finding says why not. */
            if (k < 3 && !has_point_prefix(&res, "batch", sizes[i]))
                assert_non_null(strstr(res.reason, "batch not measured: "));
        }
        assert_non_null(strstr(res.reason, k < 3 ? "x fastest (" : "lost beside"));
        zc_bench_result_clear(&res);
    }
    zc_bench_ctx_destroy(ctx);
    /* A block in the wrong place FAILs the case, naming it. */
    config.size_count = 1;
    config.corrupt_key = "blocks.d2h,blocks.beside";
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    for (size_t k = 1; k < 4; k += 2) {
        zc_bench_case_id id;
        assert_int_equal(zc_bench_case_id_of(keys[k], &id), ZC_OK);
        zc_bench_result res;
        assert_int_equal(zc_bench_run(ctx, (size_t)id, &res), ZC_OK);
        if (res.outcome != ZC_BENCH_FAIL)
            fail_msg("%s with corrupted data: %s (%s), wanted FAIL", keys[k],
                     zc_bench_outcome_name(res.outcome), res.reason);
        assert_int_equal(res.point_count, 0);
        assert_non_null(strstr(res.reason, keys[k]));
        fprintf(stderr, "%s FAIL as expected: %s\n", keys[k], res.reason);
        zc_bench_result_clear(&res);
    }
    zc_bench_ctx_destroy(ctx);
}

/* The corruption hook through the library: the case FAILs, keeps no point, and names where. */
static void test_corruption_fails_in_library(void **state)
{
    (void)state;
    static const size_t sizes[] = {1u << 20};
    static const char *keys[] = {
        "copy.h2d.pinned",          "copy.d2h.pageable",         "zerocopy.read.4b",
        "zerocopy.write.random128", "device.read.16b",           "latency.copy.pinned.d2h",
        "crossover.read_k",         "managed.transfer",          "device.read.random",
        "device.write.strided",     "zerocopy.write.walk-random"};
    zc_bench_config config;
    zc_bench_config_init(&config);
    config.mode = ZC_BENCH_QUICK;
    sanitizer_settings(&config);
    config.sizes = sizes;
    config.size_count = 1;
    config.corrupt_key = "copy.h2d.pinned,copy.d2h.pageable,zerocopy.read.4b,"
                         "zerocopy.write.random128,device.read.16b,latency.copy.pinned.d2h,"
                         "crossover.read_k,managed.transfer,device.read.random,"
                         "device.write.strided,zerocopy.write.walk-random";
    zc_bench_ctx *ctx = NULL;
    assert_int_equal(zc_bench_ctx_create(&config, &ctx), ZC_OK);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        size_t index = zc_bench_case_count();
        for (size_t i = 0; i < zc_bench_case_count(); i++)
            if (strcmp(zc_bench_case_at(i)->key, keys[k]) == 0)
                index = i;
        assert_true(index < zc_bench_case_count());
        zc_bench_result res;
        assert_int_equal(zc_bench_run(ctx, index, &res), ZC_OK);
        if (res.outcome != ZC_BENCH_FAIL)
            fail_msg("%s with corrupted data: %s (%s), wanted FAIL", keys[k],
                     zc_bench_outcome_name(res.outcome), res.reason);
        assert_int_equal(res.status, ZC_ERR_VERIFY);
        assert_int_equal(res.point_count, 0);
        assert_non_null(strstr(res.reason, keys[k]));
        fprintf(stderr, "%s FAIL as expected: %s\n", keys[k], res.reason);
        zc_bench_result_clear(&res);
    }
    /* A case the hook does not name still runs clean in the same context. */
    for (size_t i = 0; i < zc_bench_case_count(); i++)
        if (strcmp(zc_bench_case_at(i)->key, "copy.h2d.registered") == 0) {
            zc_bench_result res;
            assert_int_equal(zc_bench_run(ctx, i, &res), ZC_OK);
            assert_true(res.outcome == ZC_BENCH_OK || res.outcome == ZC_BENCH_SKIPPED);
            zc_bench_result_clear(&res);
        }
    zc_bench_ctx_destroy(ctx);
}

int main(void)
{
    zc_test_require_gpu("gpu_bench");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_directly),
        cmocka_unit_test(test_every_case_small),
        cmocka_unit_test(test_pinning_family_small),
        cmocka_unit_test(test_blocks_family_small),
        cmocka_unit_test(test_corruption_fails_in_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
