/* SPDX-License-Identifier: Apache-2.0 */
/* The pinning family without a GPU: the floor touches every page it maps (mincore), the size cap
 * follows the host's memory and says which sizes it leaves out and why, and pin.floor runs whole
 * and verified on a CPU-only machine. */
#include "test_support.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/mempolicy.h>

#include "bench/bench_cases.h"
#include "bench/pinning.h"
#include "zerocopy/bench.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

/* One floor sample of bytes: every page absent before the touch and resident after it. */
static double floor_once(size_t bytes, int huge, unsigned threads, size_t *huge_bytes_p)
{
    zc__pin_region region;
    size_t resident = 1, pages = 0;
    double seconds = 0.0;
    assert_int_equal(zc__pin_region_map(bytes, huge, &region), ZC_OK);
    assert_true(region.len >= bytes && region.len % 4096 == 0);
    assert_int_equal(zc__pin_region_resident(&region, &resident, &pages), ZC_OK);
    assert_int_equal(pages, region.len / 4096);
    assert_int_equal(resident, 0); /* fresh: nothing faulted in yet */
    assert_int_equal(zc__pin_region_touch(&region, threads, &seconds), ZC_OK);
    assert_int_equal(zc__pin_region_resident(&region, &resident, &pages), ZC_OK);
    if (resident != pages)
        fail_msg("%zu of %zu pages resident after the touch (%s, %u threads)", resident, pages,
                 huge ? "THP" : "4 KiB", threads);
    assert_true(seconds > 0.0);
    assert_int_equal(zc__pin_region_huge_bytes(&region, huge_bytes_p), ZC_OK);
    assert_true(*huge_bytes_p <= region.len);
    double unmap_s = -1.0;
    assert_int_equal(zc__pin_region_unmap(&region, &unmap_s), ZC_OK);
    assert_null(region.base);
    assert_true(unmap_s >= 0.0);
    return seconds;
}

static double median3(double a, double b, double c)
{
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/* 64 MiB with every CPU, both page sizes: every page touched; the figures this machine gives. */
static void test_floor_touches_every_page(void **state)
{
    (void)state;
    size_t huge = 0;
    double s4k[3], thp[3];
    for (int i = 0; i < 3; i++) {
        s4k[i] = floor_once(64 * MIB, 0, 0, &huge);
        assert_int_equal(huge, 0); /* MADV_NOHUGEPAGE keeps small pages */
        thp[i] = floor_once(64 * MIB, 1, 0, &huge);
    }
    char mode[16];
    double per_gib = (double)GIB / (double)(64 * MIB);
    fprintf(stderr,
            "floor at 64 MiB, %u CPUs, median of 3: 4 KiB pages %.4f s/GiB, THP %.4f s/GiB "
            "(last: %zu MiB of 64 in huge pages; THP mode %s)\n",
            zc__pin_cpus(), median3(s4k[0], s4k[1], s4k[2]) * per_gib,
            median3(thp[0], thp[1], thp[2]) * per_gib, huge / MIB,
            zc__pin_thp_mode(mode, sizeof mode));
}

/* The split into threads: one, an odd count, and more threads than huge pages. */
static void test_floor_thread_splits(void **state)
{
    (void)state;
    size_t huge = 0;
    floor_once(8 * MIB + 4096, 0, 1, &huge);
    floor_once(8 * MIB + 4096, 0, 3, &huge);
    floor_once(8 * MIB, 1, 64, &huge);
    floor_once(4096, 0, 0, &huge);
    assert_true(zc__pin_cpus() >= 1);
    zc__pin_region region = {0};
    assert_int_equal(zc__pin_region_map(0, 0, &region), ZC_ERR_INVALID_ARG);
    double s = 0.0;
    assert_int_equal(zc__pin_region_touch(&region, 1, &s), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc__pin_region_unmap(&region, NULL), ZC_OK); /* nothing to unmap */
}

static void test_meminfo_fields(void **state)
{
    (void)state;
    static const char meminfo[] = "MemTotal:       24683784 kB\n"
                                  "MemFree:        24514988 kB\n"
                                  "MemAvailable:    2097152 kB\n"
                                  "HugePages_Total:       0\n";
    static const char node[] = "Node 1 MemTotal:  1000 kB\nNode 1 MemFree:    512 kB\n";
    size_t bytes = 0;
    assert_int_equal(zc__pin_meminfo_field(meminfo, "MemAvailable", &bytes), ZC_OK);
    assert_int_equal(bytes, 2 * GIB);
    assert_int_equal(zc__pin_meminfo_field(meminfo, "MemFree", &bytes), ZC_OK);
    assert_int_equal(bytes, (size_t)24514988 * 1024);
    assert_int_equal(zc__pin_meminfo_field(node, "MemFree", &bytes), ZC_OK);
    assert_int_equal(bytes, 512 * 1024);
    assert_int_equal(zc__pin_meminfo_field(node, "Free", &bytes), ZC_ERR_NOT_FOUND);
    assert_int_equal(zc__pin_meminfo_field(meminfo, "Cached", &bytes), ZC_ERR_NOT_FOUND);
    assert_int_equal(zc__pin_meminfo_field("MemAvailable: lots kB\n", "MemAvailable", &bytes),
                     ZC_ERR_PARSE);
    assert_int_equal(zc__pin_meminfo_field("MemAvailable: 12 pages\n", "MemAvailable", &bytes),
                     ZC_ERR_PARSE);
    /* This machine's own. */
    size_t cap = 0;
    char what[96];
    assert_int_equal(zc__pin_memory_cap(-1, &cap, what, sizeof what), ZC_OK);
    assert_true(cap > 0);
    assert_non_null(strstr(what, "40% of MemAvailable"));
    fprintf(stderr, "the family may take %s here\n", what);
}

static void test_size_cap_and_plan(void **state)
{
    (void)state;
    assert_int_equal(zc__pin_size_cap(100 * GIB), 40 * GIB);
    assert_int_equal(zc__pin_size_cap(0), 0);
    assert_int_equal(zc__pin_size_cap(99), 39);
    assert_true(zc__pin_size_cap(SIZE_MAX) > SIZE_MAX / 100 * 39); /* no overflow */
    static const size_t sizes[] = {64 * MIB, 1000, GIB, 16 * GIB, 2 * GIB};
    size_t kept[5];
    char left[512];
    size_t n =
        zc__pin_plan(sizes, 5, 2 * GIB, "40% of MemAvailable (2 GiB)", kept, left, sizeof left);
    assert_int_equal(n, 3);
    assert_int_equal(kept[0], 64 * MIB);
    assert_int_equal(kept[1], GIB);
    assert_int_equal(kept[2], 2 * GIB);
    assert_non_null(strstr(left, "1000 B left out: less than a 4 KiB page"));
    assert_non_null(strstr(left, "16 GiB left out: more than 40% of MemAvailable (2 GiB)"));
    n = zc__pin_plan(sizes, 5, 100 * GIB, "x", kept, left, sizeof left);
    assert_int_equal(n, 4);
    assert_string_equal(left, "1000 B left out: less than a 4 KiB page");
    n = zc__pin_plan(sizes + 3, 1, 16 * GIB, "x", kept, left, sizeof left);
    assert_int_equal(n, 1);
    assert_string_equal(left, "");
}

static void test_numa_nodes(void **state)
{
    (void)state;
    assert_int_equal(zc__pin_node_count("0"), 1);
    assert_int_equal(zc__pin_node_count("0-3\n"), 4);
    assert_int_equal(zc__pin_node_count("0,2-3"), 3);
    assert_int_equal(zc__pin_node_count("x"), 0);
    assert_int_equal(zc__pin_node_count("3-1"), 0);
    assert_int_equal(zc__pin_node_count(""), 0);
    assert_true(zc__pin_numa_nodes() >= 1);
    /* Preferring node 0 for this thread and giving its policy back (a container may refuse). */
    int mode = -1;
    assert_int_equal(syscall(SYS_get_mempolicy, &mode, NULL, 0UL, NULL, 0UL), 0);
    assert_int_equal(mode, MPOL_DEFAULT);
    zc__pin_policy saved;
    zc_status st = zc__pin_numa_prefer(0, &saved);
    assert_true(st == ZC_OK || st == ZC_ERR_UNSUPPORTED);
    assert_int_equal(syscall(SYS_get_mempolicy, &mode, NULL, 0UL, NULL, 0UL), 0);
    assert_int_equal(mode, st == ZC_OK ? MPOL_PREFERRED : MPOL_DEFAULT);
    fprintf(stderr, "MPOL_PREFERRED on node 0: %s\n", st == ZC_OK ? "set" : zc_last_error());
    zc__pin_numa_restore(&saved);
    assert_int_equal(syscall(SYS_get_mempolicy, &mode, NULL, 0UL, NULL, 0UL), 0);
    assert_int_equal(mode, MPOL_DEFAULT);
    assert_int_equal(zc__pin_numa_prefer(-1, &saved), ZC_ERR_INVALID_ARG);
}

/* A bench context as zc_bench_ctx_create would make it, without a GPU: enough for the floor,
 * which touches host memory only. */
static zc_bench_ctx *cpu_context(const size_t *sizes, size_t count)
{
    zc_bench_ctx *ctx = test_calloc(1, sizeof *ctx);
    zc_bench_config_init(&ctx->config);
    ctx->config.mode = ZC_BENCH_QUICK;
    assert_int_equal(zc_bench_method_get(ZC_BENCH_QUICK, &ctx->method), ZC_OK);
    memcpy(ctx->sizes, sizes, count * sizeof *sizes);
    ctx->size_count = count;
    ctx->info.numa_node = -1;
    ctx->rng = 0x9E3779B97F4A7C15ull;
    return ctx;
}

static size_t case_index(const char *key)
{
    zc_bench_case_id id;
    assert_int_equal(zc_bench_case_id_of(key, &id), ZC_OK);
    return (size_t)id;
}

/* can_run says why: a size beyond the cap alone is a skip naming the cap; beside one that
 * fits, the case runs. */
static void test_can_run_says_why(void **state)
{
    (void)state;
    static const size_t too_big[] = {(size_t)1 << 50};
    static const size_t mixed[] = {64 * MIB, (size_t)1 << 50};
    for (int c = 0; c < 2; c++) {
        size_t index = case_index(c == 0 ? "pin.floor" : "pin.cost");
        zc_bench_ctx *ctx = cpu_context(too_big, 1);
        char reason[256] = "";
        int can = -1;
        assert_int_equal(zc_bench_can_run(ctx, index, reason, sizeof reason, &can), ZC_OK);
        assert_int_equal(can, 0);
        if (strstr(reason, "1 PiB left out: more than 40% of MemAvailable") == NULL)
            fail_msg("reason: %s", reason);
        test_free(ctx);
        ctx = cpu_context(mixed, 2);
        assert_int_equal(zc_bench_can_run(ctx, index, reason, sizeof reason, &can), ZC_OK);
        assert_int_equal(can, 1);
        test_free(ctx);
    }
}

/* pin.floor, the whole case, on this machine: every point verified, the one left out said. */
static void test_floor_case_runs_without_gpu(void **state)
{
    (void)state;
    static const size_t sizes[] = {16 * MIB, (size_t)1 << 50, 64 * MIB};
    zc_bench_ctx *ctx = cpu_context(sizes, 3);
    zc_bench_result res;
    assert_int_equal(zc_bench_run(ctx, case_index("pin.floor"), &res), ZC_OK);
    if (res.outcome != ZC_BENCH_OK)
        fail_msg("pin.floor: %s: %s", zc_bench_outcome_name(res.outcome), res.reason);
    fprintf(stderr, "pin.floor: %s\n", res.reason);
    for (size_t i = 0; i < res.point_count; i++)
        fprintf(stderr, "  %-28s %9zu B  median %10.1f us  min %10.1f  max %10.1f\n",
                res.points[i].variant, res.points[i].bytes, res.points[i].stats.median,
                res.points[i].stats.min, res.points[i].stats.max);
    /* Two sizes, two floors, touch and munmap each. */
    assert_int_equal(res.point_count, 8);
    for (size_t i = 0; i < res.point_count; i++) {
        const zc_bench_point *p = &res.points[i];
        assert_true(p->verified);
        assert_int_equal(p->stats.count, 3);
        assert_int_equal(p->warmups, p->bytes == 16 * MIB ? 1 : 0);
        assert_true(p->stats.median > 0.0);
        assert_int_equal(p->metric, ZC_BENCH_DURATION);
        assert_non_null(strstr(p->variant, "floor "));
    }
    assert_string_equal(res.points[0].variant, "floor 4 KiB pages: touch");
    assert_string_equal(res.points[3].variant, "floor THP: munmap");
    assert_non_null(strstr(res.reason, "left out: more than 40% of MemAvailable"));
    assert_non_null(strstr(res.reason, "at 64 MiB, seconds per GiB (2^30 B)"));
    /* The context knows no GPU's node: one node, or several and not placed, said so. */
    assert_true(strstr(res.reason, "node 0 (one NUMA node)") != NULL ||
                strstr(res.reason, "not placed") != NULL);
    assert_null(strstr(res.reason, "cudaHostAlloc")); /* the floor alone */
    zc_bench_result_clear(&res);
    test_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_touches_every_page),
        cmocka_unit_test(test_floor_thread_splits),
        cmocka_unit_test(test_meminfo_fields),
        cmocka_unit_test(test_size_cap_and_plan),
        cmocka_unit_test(test_numa_nodes),
        cmocka_unit_test(test_can_run_says_why),
        cmocka_unit_test(test_floor_case_runs_without_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
