/* SPDX-License-Identifier: Apache-2.0 */
/* Workload cases: the crossover between zero-copy and copy-then-compute as reuse grows, and a
 * chunked pipeline (overlap on several streams) against both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "core/c_locale.h"

static const size_t zc__cross_quick[] = {64u << 10, 4u << 20, 64u << 20};
/* 32 and 64 MiB: around the H200's 50 MB L2, where a pass beyond the first goes from nearly
 * free to the link's full price; without them the step was drawn as a line from 16 to 128 MiB,
 * and zc advise priced mapped memory read 32 times at 32 and 64 MiB 28-125% too slow. */
static const size_t zc__cross_default[] = {64u << 10, 1u << 20,  16u << 20,
                                           32u << 20, 64u << 20, 128u << 20};
static const size_t zc__cross_full[] = {64u << 10, 1u << 20,   16u << 20, 32u << 20,
                                        64u << 20, 128u << 20, 1u << 30};
static const int zc__cross_k[] = {1, 2, 4, 8, 16};

typedef struct zc__cross_arg {
    void *host_dev; /* the device's view of the mapped host buffer */
    void *host;
    void *dev;
    size_t bytes;
    int k;
    int copy;
} zc__cross_arg;

static zc_status zc__cross_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    zc__cross_arg *a = varg;
    cudaStream_t s = ctx->streams[0];
    uint32_t *sl = ctx->d_slots + slot;
    if (a->copy) /* poison first (untimed) so the kernel can only see what this copy brought */
        ZC_CUDA_RETURN(cudaMemsetAsync(a->dev, 0xA5, a->bytes, s));
    ZC_CHECK(zc__gate_begin(ctx, 1, sl));
    if (a->copy)
        ZC_CUDA_RETURN(cudaMemcpyAsync(a->dev, a->host, a->bytes, cudaMemcpyHostToDevice, s));
    ZC_CHECK(zc__k_read(a->copy ? a->dev : a->host_dev, a->bytes, ZC__ACCESS_16B, 0, a->k,
                        &zc__shapes[ZC__SHAPE_DEFAULT], ctx->info.sm_count, sl, s));
    return zc__gate_finish(ctx, 1, seconds_p);
}

zc_status zc__run_crossover(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const char *key = self->info.key;
    const size_t *sizes;
    size_t nsizes = zc__bench_sizes(ctx, zc__cross_quick, ZC__COUNT(zc__cross_quick),
                                    zc__cross_default, ZC__COUNT(zc__cross_default), zc__cross_full,
                                    ZC__COUNT(zc__cross_full), &sizes);
    size_t maxb = 0;
    for (size_t i = 0; i < nsizes; i++)
        if (sizes[i] > maxb)
            maxb = sizes[i];
    zc__cross_arg a;
    memset(&a, 0, sizeof a);
    ZC_CHECK(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 0, maxb, &a.host));
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, a.host, &a.host_dev));
    ZC_CHECK(zc__bench_device(ctx, 0, maxb, &a.dev));
    size_t used = 0;
    res->reason[0] = '\0';
    size_t nk = ZC__COUNT(zc__cross_k);
    for (size_t i = 0; i < nsizes; i++) {
        size_t b = sizes[i] - sizes[i] % 16;
        if (b < 4096)
            continue;
        a.bytes = b;
        uint32_t seed = zc__bench_seed(ctx);
        zc__pattern_fill(a.host, b, seed);
        if (zc__bench_corrupt(ctx, key))
            ZC_CHECK(zc__corrupt_host(a.host, b));
        uint32_t sum = zc__pattern_sum(b, seed, 1);
        double zc_med[8] = {0}, cp_med[8] = {0};
        for (size_t ki = 0; ki < nk; ki++) {
            zc__bench_tick(ctx, i * nk + ki, nsizes * nk);
            for (int copy = 0; copy <= 1; copy++) {
                a.k = zc__cross_k[ki];
                a.copy = copy;
                double *seconds = NULL;
                size_t count = 0, warmups = 0;
                ZC_CHECK(zc__measure(ctx, zc__cross_sample, &a, 0, &seconds, &count, &warmups));
                zc_status st = zc__verify_slots(ctx, key, copy ? "copy-then-compute" : "zero-copy",
                                                warmups + count, sum * (uint32_t)a.k);
                if (st == ZC_OK)
                    st = zc__add_seconds(res, copy ? "copy-then-compute" : "zero-copy", b, "k",
                                         (double)a.k, ZC_BENCH_DURATION, (double)b, 1.0, seconds,
                                         count, warmups);
                free(seconds);
                ZC_CHECK(st);
                double med = res->points[res->point_count - 1].stats.median;
                if (copy)
                    cp_med[ki] = med;
                else
                    zc_med[ki] = med;
            }
        }
        /* The finding: up to which k zero-copy is faster at this size. */
        int last_zc = 0;
        for (size_t ki = 0; ki < nk; ki++)
            if (zc_med[ki] < cp_med[ki])
                last_zc = zc__cross_k[ki];
        char sz[32], line[128];
        zc__bench_size_str(b, sz, sizeof sz);
        if (last_zc == 0)
            zc__snprintf_c(line, sizeof line, "%s%s: copy-then-compute wins from k = 1",
                           used ? "; " : "", sz);
        else if (last_zc == zc__cross_k[nk - 1])
            zc__snprintf_c(line, sizeof line, "%s%s: zero-copy wins up to k = %d", used ? "; " : "",
                           sz, last_zc);
        else
            zc__snprintf_c(line, sizeof line, "%s%s: zero-copy wins up to k = %d, copy beyond",
                           used ? "; " : "", sz, last_zc);
        size_t len = strlen(line);
        if (used + len < sizeof res->reason) {
            memcpy(res->reason + used, line, len + 1);
            used += len;
        }
    }
    return ZC_OK;
}

typedef struct zc__overlap_arg {
    void *h_in, *h_out, *d_in, *d_out, *hd_in, *hd_out;
    size_t bytes;
    int mode; /* 0 serial, 1 chunked, 2 zero-copy */
    int streams;
    int chunks;
} zc__overlap_arg;

static zc_status zc__overlap_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)slot;
    zc__overlap_arg *a = varg;
    int ns = a->mode == 1 ? a->streams : 1;
    ZC_CHECK(zc__gate_begin(ctx, ns, NULL));
    zc_status st = ZC_OK;
    int sm = ctx->info.sm_count;
    if (a->mode == 2) {
        st = zc__k_increment(a->hd_in, a->hd_out, a->bytes, sm, ctx->streams[0]);
    } else {
        int chunks = a->mode == 1 ? a->chunks : 1;
        size_t cb = a->bytes / (size_t)chunks;
        for (int c = 0; c < chunks && st == ZC_OK; c++) {
            cudaStream_t s = ctx->streams[c % ns];
            size_t off = (size_t)c * cb;
            ZC_CUDA_RETURN(cudaMemcpyAsync((char *)a->d_in + off, (char *)a->h_in + off, cb,
                                           cudaMemcpyHostToDevice, s));
            st = zc__k_increment((char *)a->d_in + off, (char *)a->d_out + off, cb, sm, s);
            if (st == ZC_OK)
                ZC_CUDA_RETURN(cudaMemcpyAsync((char *)a->h_out + off, (char *)a->d_out + off, cb,
                                               cudaMemcpyDeviceToHost, s));
        }
    }
    ZC_CHECK(st);
    return zc__gate_finish(ctx, ns, seconds_p);
}

zc_status zc__run_overlap(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const char *key = self->info.key;
    size_t b = ctx->config.mode == ZC_BENCH_QUICK  ? (size_t)64 << 20
               : ctx->config.mode == ZC_BENCH_FULL ? (size_t)1 << 30
                                                   : (size_t)256 << 20;
    if (ctx->size_count > 0)
        b = zc__sm_one_size(ctx);
    b -= b % (16 * 64);
    if (b < (1u << 20))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: the buffer must be at least 1 MiB", key);
    zc__overlap_arg a;
    memset(&a, 0, sizeof a);
    a.bytes = b;
    ZC_CHECK(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 0, b, &a.h_in));
    ZC_CHECK(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 1, b, &a.h_out));
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, a.h_in, &a.hd_in));
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, a.h_out, &a.hd_out));
    ZC_CHECK(zc__bench_device(ctx, 0, b, &a.d_in));
    ZC_CHECK(zc__bench_device(ctx, 1, b, &a.d_out));
    uint32_t seed = zc__bench_seed(ctx);
    zc__pattern_fill(a.h_in, b, seed);
    static const struct {
        int mode, streams, chunks;
        const char *name;
    } plans[] = {
        {0, 1, 1, "copy, then compute, then copy back (1 stream)"},
        {1, 2, 8, "overlap: 2 streams x 8 chunks"},
        {1, 3, 16, "overlap: 3 streams x 16 chunks"},
        {1, 4, 64, "overlap: 4 streams x 64 chunks"},
        {2, 1, 1, "zero-copy: kernel reads and writes host memory"},
    };
    double med[ZC__COUNT(plans)];
    for (size_t p = 0; p < ZC__COUNT(plans); p++) {
        zc__bench_tick(ctx, p, ZC__COUNT(plans));
        a.mode = plans[p].mode;
        a.streams = plans[p].streams;
        a.chunks = plans[p].chunks;
        memset(a.h_out, 0xA5, b);
        ZC_CHECK(zc__poison_device(ctx, a.d_out, b));
        double *seconds = NULL;
        size_t count = 0, warmups = 0;
        ZC_CHECK(zc__measure(ctx, zc__overlap_sample, &a, 0, &seconds, &count, &warmups));
        zc_status st = zc__bench_corrupt(ctx, key) ? zc__corrupt_host(a.h_out, b) : ZC_OK;
        size_t bad = 0;
        if (st == ZC_OK && !zc__pattern_check(a.h_out, b, seed, 1, &bad))
            st = ZC_FAIL(ZC_ERR_VERIFY, "%s: %s: output word at byte %zu is not input + 1", key,
                         plans[p].name, bad);
        if (st == ZC_OK)
            st = zc__add_seconds(res, plans[p].name, b, a.mode == 1 ? "streams" : NULL,
                                 (double)a.streams, ZC_BENCH_BANDWIDTH, (double)b, 1.0, seconds,
                                 count, warmups);
        free(seconds);
        ZC_CHECK(st);
        med[p] = res->points[res->point_count - 1].stats.median;
    }
    double best_overlap = med[1];
    for (size_t p = 2; p + 1 < ZC__COUNT(plans); p++)
        if (med[p] > best_overlap)
            best_overlap = med[p];
    zc__snprintf_c(res->reason, sizeof res->reason,
                   "input processed: copy-then-compute %.1f GB/s, best overlap %.1f GB/s (x%.2f), "
                   "zero-copy %.1f GB/s",
                   med[0], best_overlap, med[0] > 0 ? best_overlap / med[0] : 0.0,
                   med[ZC__COUNT(plans) - 1]);
    return ZC_OK;
}
