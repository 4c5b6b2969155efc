/* SPDX-License-Identifier: Apache-2.0 */
/* The chapter's comparison table (pinned, mapped, UVA, managed ...) rebuilt from this machine's
 * bench results, each figure found by its case's typed name. */
#include "zerocopy/bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

/* The usable result of each case (OK, with points), by typed name; NULL where there is none. */
typedef struct zc__results {
    const zc_bench_result *of[ZC_BENCH_CASE_ID_COUNT];
} zc__results;

static void zc__index(const zc_bench_result *r, size_t n, zc__results *by)
{
    memset(by, 0, sizeof *by);
    for (int id = 0; id < ZC_BENCH_CASE_ID_COUNT; id++) {
        const char *key = zc_bench_case_at((size_t)id)->key;
        for (size_t i = 0; i < n && by->of[id] == NULL; i++)
            if (r[i].outcome == ZC_BENCH_OK && r[i].point_count > 0 && strcmp(r[i].key, key) == 0)
                by->of[id] = &r[i];
    }
}

/* The median at the largest size measured (the copy engine's and the link's steady state). */
static double zc__largest(const zc__results *by, zc_bench_case_id id)
{
    const zc_bench_result *res = by->of[id];
    if (res == NULL)
        return NAN;
    const zc_bench_point *best = &res->points[0];
    for (size_t i = 1; i < res->point_count; i++)
        if (res->points[i].bytes > best->bytes)
            best = &res->points[i];
    return best->stats.median;
}

/* The highest median of any point (the best launch shape of a tune case). */
static double zc__best(const zc__results *by, zc_bench_case_id id)
{
    const zc_bench_result *res = by->of[id];
    if (res == NULL)
        return NAN;
    double best = NAN;
    for (size_t i = 0; i < res->point_count; i++)
        if (isnan(best) || res->points[i].stats.median > best)
            best = res->points[i].stats.median;
    return best;
}

/* The median of the point of a given size, else the first (latency cases). */
static double zc__at(const zc__results *by, zc_bench_case_id id, size_t bytes)
{
    const zc_bench_result *res = by->of[id];
    if (res == NULL)
        return NAN;
    for (size_t i = 0; i < res->point_count; i++)
        if (res->points[i].bytes == bytes)
            return res->points[i].stats.median;
    return res->points[0].stats.median;
}

static double zc__max2(double a, double b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return a > b ? a : b;
}

static void zc__row(zc_bench_compare_row *row, const char *technique, const char *title,
                    const char *needs_copy)
{
    memset(row, 0, sizeof *row);
    row->technique = technique;
    row->title = title;
    row->needs_copy = needs_copy;
    row->h2d_gbps = row->d2h_gbps = NAN;
    row->access_read_gbps = row->access_write_gbps = NAN;
    row->latency_us = NAN;
    row->access_where = "";
    row->latency_what = "";
}

/* The four ways of copying, in row order: the kind, the title, the cases, what each is for. */
static const struct {
    zc_buffer_kind kind;
    const char *title;
    zc_bench_case_id h2d, d2h;
    const char *use;
} zc__copies[] = {
    {ZC_BUFFER_PAGEABLE, "Pageable (malloc + cudaMemcpy)", ZC_BENCH_CASE_COPY_H2D_PAGEABLE,
     ZC_BENCH_CASE_COPY_D2H_PAGEABLE,
     "occasional transfers where simplicity wins; avoid for large or frequent ones"},
    {ZC_BUFFER_PINNED, "Pinned (cudaHostAlloc)", ZC_BENCH_CASE_COPY_H2D_PINNED,
     ZC_BENCH_CASE_COPY_D2H_PINNED,
     "large and frequent transfers; async copies that overlap kernels"},
    {ZC_BUFFER_WRITE_COMBINED, "Write-combined pinned", ZC_BENCH_CASE_COPY_H2D_WRITE_COMBINED,
     ZC_BENCH_CASE_COPY_D2H_WRITE_COMBINED,
     "buffers the CPU only writes and the GPU only reads (never read them on the CPU)"},
    {ZC_BUFFER_REGISTERED, "Registered (cudaHostRegister)", ZC_BENCH_CASE_COPY_H2D_REGISTERED,
     ZC_BENCH_CASE_COPY_D2H_REGISTERED,
     "pinning memory you already have (another library's buffer, a file mapping)"},
};

ZC_EXTERN zc_status zc_bench_compare(const zc_bench_result *results, size_t count,
                                     zc_bench_compare_row rows[ZC_BENCH_COMPARE_ROWS])
{
    if (results == NULL && count > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_compare: results is NULL, count %zu", count);
    ZC_REQUIRE_ARG(rows);
    zc__results by;
    zc__index(results, count, &by);
    double dev_read = zc__largest(&by, ZC_BENCH_CASE_DEVICE_READ_16B);
    double dev_write = zc__largest(&by, ZC_BENCH_CASE_DEVICE_WRITE_16B);
    double zc_read = zc__max2(zc__largest(&by, ZC_BENCH_CASE_ZEROCOPY_READ_16B),
                              zc__best(&by, ZC_BENCH_CASE_ZEROCOPY_READ_TUNE));
    double zc_write = zc__max2(zc__largest(&by, ZC_BENCH_CASE_ZEROCOPY_WRITE_16B),
                               zc__best(&by, ZC_BENCH_CASE_ZEROCOPY_WRITE_TUNE));
    const zc_bench_result *cross = by.of[ZC_BENCH_CASE_CROSSOVER_READ_K];

    for (size_t i = 0; i < sizeof zc__copies / sizeof zc__copies[0]; i++) {
        zc__row(&rows[i], zc_buffer_kind_key(zc__copies[i].kind), zc__copies[i].title, "yes");
        rows[i].h2d_gbps = zc__largest(&by, zc__copies[i].h2d);
        rows[i].d2h_gbps = zc__largest(&by, zc__copies[i].d2h);
        rows[i].access_read_gbps = dev_read;
        rows[i].access_write_gbps = dev_write;
        rows[i].access_where = "device memory, after the copy";
        snprintf(rows[i].best_use, sizeof rows[i].best_use, "%s", zc__copies[i].use);
    }
    rows[0].latency_us = zc__at(&by, ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PAGEABLE, 4096);
    rows[0].latency_what = "4 KiB in + kernel + 4 KiB out";
    rows[1].latency_us = zc__at(&by, ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PINNED, 4096);
    rows[1].latency_what = "4 KiB in + kernel + 4 KiB out";

    zc__row(&rows[4], "mapped", "Mapped pinned (zero-copy)", "no");
    rows[4].access_read_gbps = zc_read;
    rows[4].access_write_gbps = zc_write;
    rows[4].access_where = "host memory over PCIe, every access";
    rows[4].latency_us = zc__at(&by, ZC_BENCH_CASE_LATENCY_PINGPONG, 4);
    rows[4].latency_what = "CPU-GPU flag round trip";
    snprintf(rows[4].best_use, sizeof rows[4].best_use,
             "small data, low latency, CPU-GPU sharing, data read once%s%.500s",
             cross && cross->reason[0] ? "; measured: " : "", cross ? cross->reason : "");

    zc__row(&rows[5], "uva", "Unified virtual addressing (same pointer)", "no");
    rows[5].access_read_gbps = zc_read;
    rows[5].access_write_gbps = zc_write;
    rows[5].access_where = "as mapped: the host pointer itself";
    rows[5].latency_us = rows[4].latency_us;
    rows[5].latency_what = rows[4].latency_what;
    snprintf(rows[5].best_use, sizeof rows[5].best_use,
             "simpler code (one pointer on both sides), multi-GPU");

    zc__row(&rows[6], "managed", "Managed (cudaMallocManaged)", "on demand (migrates pages)");
    rows[6].access_read_gbps = zc__largest(&by, ZC_BENCH_CASE_MANAGED_PREFETCHED);
    rows[6].access_write_gbps = NAN;
    rows[6].h2d_gbps = zc__largest(&by, ZC_BENCH_CASE_MANAGED_PREFETCH);
    rows[6].access_where = "device memory once migrated (prefetched)";
    double faults = zc__largest(&by, ZC_BENCH_CASE_MANAGED_FIRST_TOUCH);
    snprintf(rows[6].best_use, sizeof rows[6].best_use,
             "complex data structures, oversubscription; prefetch before use%s",
             isnan(faults) ? "" : " (first touch by page faults measured in managed.first_touch)");
    return ZC_OK;
}
