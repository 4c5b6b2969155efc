/* The chapter's comparison table rebuilt from the measured results. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_output.h"

const zc_bench_case_info *zc_cli_bench_info_for(const char *key)
{
    for (size_t i = 0; i < zc_bench_case_count(); i++) {
        const zc_bench_case_info *info = zc_bench_case_at(i);
        if (strcmp(info->key, key) == 0)
            return info;
    }
    return NULL;
}

static const zc_bench_result *zc__ok(const zc_bench_result *r, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].key, key) == 0 && r[i].outcome == ZC_BENCH_OK && r[i].point_count > 0)
            return &r[i];
    return NULL;
}

/* The median at the largest size measured (the copy engine's and the link's steady state). */
static double zc__largest(const zc_bench_result *r, size_t n, const char *key)
{
    const zc_bench_result *res = zc__ok(r, n, key);
    if (res == NULL)
        return NAN;
    const zc_bench_point *best = NULL;
    for (size_t i = 0; i < res->point_count; i++)
        if (best == NULL || res->points[i].bytes > best->bytes)
            best = &res->points[i];
    return best->stats.median;
}

/* The highest median of any point (the best launch shape of a tune case). */
static double zc__best(const zc_bench_result *r, size_t n, const char *key)
{
    const zc_bench_result *res = zc__ok(r, n, key);
    if (res == NULL)
        return NAN;
    double best = NAN;
    for (size_t i = 0; i < res->point_count; i++)
        if (isnan(best) || res->points[i].stats.median > best)
            best = res->points[i].stats.median;
    return best;
}

/* The median of the point of a given size (latency cases). */
static double zc__at(const zc_bench_result *r, size_t n, const char *key, size_t bytes)
{
    const zc_bench_result *res = zc__ok(r, n, key);
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

void zc_cli_bench_compare(const zc_bench_result *r, size_t n,
                          zc_bench_compare_row rows[ZC_BENCH_COMPARE_ROWS])
{
    double dev_read = zc__largest(r, n, "device.read.16b");
    double dev_write = zc__largest(r, n, "device.write.16b");
    double zc_read =
        zc__max2(zc__largest(r, n, "zerocopy.read.16b"), zc__best(r, n, "zerocopy.read.tune"));
    double zc_write =
        zc__max2(zc__largest(r, n, "zerocopy.write.16b"), zc__best(r, n, "zerocopy.write.tune"));
    const zc_bench_result *cross = zc__ok(r, n, "crossover.read_k");

    static const struct {
        const char *kind, *title;
    } copies[] = {
        {"pageable", "Pageable (malloc + cudaMemcpy)"},
        {"pinned", "Pinned (cudaHostAlloc)"},
        {"write_combined", "Write-combined pinned"},
        {"registered", "Registered (cudaHostRegister)"},
    };
    static const char *copy_use[] = {
        "occasional transfers where simplicity wins; avoid for large or frequent ones",
        "large and frequent transfers; async copies that overlap kernels",
        "buffers the CPU only writes and the GPU only reads (never read them on the CPU)",
        "pinning memory you already have (another library's buffer, a file mapping)",
    };
    for (int i = 0; i < 4; i++) {
        char key[64];
        zc__row(&rows[i], copies[i].kind, copies[i].title, "yes");
        snprintf(key, sizeof key, "copy.h2d.%s", copies[i].kind);
        rows[i].h2d_gbps = zc__largest(r, n, key);
        snprintf(key, sizeof key, "copy.d2h.%s", copies[i].kind);
        rows[i].d2h_gbps = zc__largest(r, n, key);
        rows[i].access_read_gbps = dev_read;
        rows[i].access_write_gbps = dev_write;
        rows[i].access_where = "device memory, after the copy";
        snprintf(rows[i].best_use, sizeof rows[i].best_use, "%s", copy_use[i]);
    }
    rows[0].latency_us = zc__at(r, n, "latency.roundtrip.pageable", 4096);
    rows[0].latency_what = "4 KiB in + kernel + 4 KiB out";
    rows[1].latency_us = zc__at(r, n, "latency.roundtrip.pinned", 4096);
    rows[1].latency_what = "4 KiB in + kernel + 4 KiB out";

    zc__row(&rows[4], "mapped", "Mapped pinned (zero-copy)", "no");
    rows[4].access_read_gbps = zc_read;
    rows[4].access_write_gbps = zc_write;
    rows[4].access_where = "host memory over PCIe, every access";
    rows[4].latency_us = zc__at(r, n, "latency.pingpong", 4);
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
    rows[6].access_read_gbps = zc__largest(r, n, "managed.prefetched");
    rows[6].access_write_gbps = NAN;
    rows[6].h2d_gbps = zc__largest(r, n, "managed.prefetch");
    rows[6].access_where = "device memory once migrated (prefetched)";
    double faults = zc__largest(r, n, "managed.first_touch");
    snprintf(rows[6].best_use, sizeof rows[6].best_use,
             "complex data structures, oversubscription; prefetch before use%s",
             isnan(faults) ? "" : " (first touch by page faults measured in managed.first_touch)");
}
