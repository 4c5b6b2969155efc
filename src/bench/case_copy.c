/* SPDX-License-Identifier: Apache-2.0 */
/* Copy-engine cases: H2D, D2H and both at once from pageable, pinned, write-combined and
 * registered memory, over a sweep of sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "bench/kernels.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"

static const size_t zc__copy_quick[] = {64u << 10, 64u << 20};
static const size_t zc__copy_default[] = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 256u << 20};
static const size_t zc__copy_full[] = {4u << 10,   8u << 10,   16u << 10,  32u << 10, 64u << 10,
                                       128u << 10, 256u << 10, 512u << 10, 1u << 20,  2u << 20,
                                       4u << 20,   8u << 20,   16u << 20,  32u << 20, 64u << 20,
                                       128u << 20, 256u << 20, 512u << 20, 1u << 30};

size_t zc__copy_sizes(const zc_bench_ctx *ctx, const size_t **sizes_p)
{
    return zc__bench_sizes(ctx, zc__copy_quick, ZC__COUNT(zc__copy_quick), zc__copy_default,
                           ZC__COUNT(zc__copy_default), zc__copy_full, ZC__COUNT(zc__copy_full),
                           sizes_p);
}

size_t zc__copy_target(const zc_bench_ctx *ctx)
{
    switch (ctx->config.mode) {
    case ZC_BENCH_QUICK:
        return (size_t)256 << 20;
    case ZC_BENCH_FULL:
        return (size_t)2 << 30;
    default:
        return (size_t)1 << 30;
    }
}

typedef struct zc__copy_arg {
    int dir;
    void *h_src, *h_dst, *d_src, *d_dst;
    size_t bytes;
    size_t copies;
} zc__copy_arg;

static zc_status zc__copy_sample_gated(zc_bench_ctx *ctx, void *varg, size_t slot,
                                       double *seconds_p)
{
    (void)slot;
    zc__copy_arg *a = varg;
    int nstreams = a->dir == ZC__DIR_BIDIR ? 2 : 1;
    ZC_CHECK(zc__gate_begin(ctx, nstreams, NULL));
    for (size_t c = 0; c < a->copies; c++) {
        if (a->dir != ZC__DIR_D2H)
            ZC_CUDA_RETURN(cudaMemcpyAsync(a->d_dst, a->h_src, a->bytes, cudaMemcpyHostToDevice,
                                           ctx->streams[0]));
        if (a->dir != ZC__DIR_H2D)
            ZC_CUDA_RETURN(cudaMemcpyAsync(a->h_dst, a->d_src, a->bytes, cudaMemcpyDeviceToHost,
                                           ctx->streams[nstreams - 1]));
    }
    return zc__gate_finish(ctx, nstreams, seconds_p);
}

/* Pageable copies are staged through the driver's pinned buffers and return only when the
 * host side is done: they cannot sit behind a gate, so the host clock times them. */
static zc_status zc__copy_sample_host(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)slot;
    zc__copy_arg *a = varg;
    uint64_t t0 = zc_clock_ns();
    for (size_t c = 0; c < a->copies; c++) {
        if (a->dir == ZC__DIR_H2D) {
            ZC_CUDA_RETURN(cudaMemcpy(a->d_dst, a->h_src, a->bytes, cudaMemcpyHostToDevice));
        } else if (a->dir == ZC__DIR_D2H) {
            ZC_CUDA_RETURN(cudaMemcpy(a->h_dst, a->d_src, a->bytes, cudaMemcpyDeviceToHost));
        } else {
            ZC_CUDA_RETURN(cudaMemcpyAsync(a->d_dst, a->h_src, a->bytes, cudaMemcpyHostToDevice,
                                           ctx->streams[0]));
            ZC_CUDA_RETURN(cudaMemcpyAsync(a->h_dst, a->d_src, a->bytes, cudaMemcpyDeviceToHost,
                                           ctx->streams[1]));
        }
    }
    if (a->dir == ZC__DIR_BIDIR) {
        ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
        ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[1]));
    } else if (a->dir == ZC__DIR_H2D) {
        /* A pageable H2D cudaMemcpy returns once the data is staged, perhaps before the last
         * DMA lands: the sample ends when the data is on the device. */
        ZC_CUDA_RETURN(cudaDeviceSynchronize());
    }
    *seconds_p = (double)(zc_clock_ns() - t0) / 1e9;
    return ZC_OK;
}

int zc__can_copy(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n)
{
    zc_buffer_kind kind = (zc_buffer_kind)self->arg;
    if (kind == ZC_BUFFER_REGISTERED && !ctx->info.host_register_supported) {
        snprintf(reason, n,
                 "cudaHostRegister is not supported on this device "
                 "(hostRegisterSupported = 0)");
        return 0;
    }
    if (kind != ZC_BUFFER_PAGEABLE && !ctx->info.can_map_host_memory) {
        snprintf(reason, n, "the timing gate needs mapped host memory (canMapHostMemory = 0)");
        return 0;
    }
    return 1;
}

/* Check a host destination: on the GPU when the CPU reads it slowly (write-combined). */
zc_status zc__verify_host_dst(zc_bench_ctx *ctx, const char *key, const char *what,
                              zc_buffer_kind kind, void *p, size_t bytes, uint32_t seed)
{
    if (kind == ZC_BUFFER_WRITE_COMBINED) {
        void *dev = NULL;
        ZC_CHECK(zc__mem_exact_device_ptr(kind, p, &dev));
        return zc__verify_device(ctx, key, what, dev, bytes, seed);
    }
    size_t bad = 0;
    if (!zc__pattern_check(p, bytes, seed, 0, &bad))
        return zc__verify_fail_host(key, what, bytes, p, bad, seed);
    return ZC_OK;
}

zc_status zc__run_copy(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    zc_buffer_kind kind = (zc_buffer_kind)self->arg;
    int dir = self->arg2;
    const char *key = self->info.key;
    const size_t *sizes;
    size_t nsizes = zc__copy_sizes(ctx, &sizes);
    size_t maxb = 0;
    for (size_t i = 0; i < nsizes; i++)
        if (sizes[i] > maxb)
            maxb = sizes[i];
    zc__copy_arg a;
    memset(&a, 0, sizeof a);
    a.dir = dir;
    zc_status st;
    if (dir != ZC__DIR_D2H) {
        ZC_CHECK(zc__bench_host(ctx, kind, 0, maxb, &a.h_src));
        ZC_CHECK(zc__bench_device(ctx, 0, maxb, &a.d_dst));
    }
    if (dir != ZC__DIR_H2D) {
        ZC_CHECK(zc__bench_host(ctx, kind, 1, maxb, &a.h_dst));
        ZC_CHECK(zc__bench_device(ctx, 1, maxb, &a.d_src));
    }
    int gated = kind != ZC_BUFFER_PAGEABLE;
    size_t target = zc__copy_target(ctx);
    for (size_t i = 0; i < nsizes; i++) {
        zc__bench_tick(ctx, i, nsizes);
        size_t b = sizes[i];
        uint32_t seed_h = zc__bench_seed(ctx), seed_d = zc__bench_seed(ctx);
        if (dir != ZC__DIR_D2H) {
            zc__pattern_fill(a.h_src, b, seed_h);
            ZC_CHECK(zc__poison_device(ctx, a.d_dst, b));
        }
        if (dir != ZC__DIR_H2D) {
            ZC_CHECK(zc__k_fill(a.d_src, b, seed_d, ctx->info.sm_count, ctx->streams[0]));
            ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
            memset(a.h_dst, 0xA5, b);
        }
        a.bytes = b;
        size_t copies = (target + b - 1) / b;
        size_t cap = gated ? ZC__BENCH_QUEUE_MAX : 64;
        if (!gated)
            copies = copies / 4 ? copies / 4 : 1;
        a.copies = copies > cap ? cap : copies;
        double *seconds = NULL;
        size_t count = 0, warmups = 0;
        ZC_CHECK(zc__measure(ctx, gated ? zc__copy_sample_gated : zc__copy_sample_host, &a, 0,
                             &seconds, &count, &warmups));
        if (zc__bench_corrupt(ctx, key)) {
            ZC_CHECK_GOTO(dir != ZC__DIR_D2H ? zc__corrupt_device(a.d_dst, b)
                                             : zc__corrupt_host(a.h_dst, b),
                          st, out);
        }
        if (dir != ZC__DIR_D2H)
            ZC_CHECK_GOTO(zc__verify_device(ctx, key, "device destination", a.d_dst, b, seed_h), st,
                          out);
        if (dir != ZC__DIR_H2D)
            ZC_CHECK_GOTO(
                zc__verify_host_dst(ctx, key, "host destination", kind, a.h_dst, b, seed_d), st,
                out);
        double moved = (double)b * (double)a.copies * (dir == ZC__DIR_BIDIR ? 2.0 : 1.0);
        st = zc__add_seconds(res, dir == ZC__DIR_BIDIR ? "both directions, total" : "", b, NULL, 0,
                             ZC_BENCH_BANDWIDTH, moved, (double)a.copies, seconds, count, warmups);
    out:
        free(seconds);
        ZC_CHECK(st);
    }
    return ZC_OK;
}
