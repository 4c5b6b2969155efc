/* SPDX-License-Identifier: Apache-2.0 */
/* SM cases: kernels reading and writing mapped host memory (zero-copy) with each access
 * pattern, the launch-shape sweep, and the same kernels on device memory for contrast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "bench/pattern.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "core/c_locale.h"

/* Launch shapes measured by the tune cases. The first is the plain float4 kernel (one 16-byte
 * word per thread, one pass) that earlier measurements started from. */
const zc__kshape zc__shapes[] = {
    {"plain: 16 B per thread, one pass", 1, 0, 256, 0, 0},
    {"u1 b4 t256", 1, 4, 256, 0, 0},
    {"u2 b4 t256", 2, 4, 256, 0, 0},
    {"u4 b4 t256", 4, 4, 256, 0, 0},
    {"u8 b4 t256", 8, 4, 256, 0, 0},
    {"u2 b8 t256", 2, 8, 256, 0, 0},
    {"u4 b8 t256", 4, 8, 256, 0, 0},
    {"u8 b8 t256", 8, 8, 256, 0, 0},
    {"u4 b16 t128", 4, 16, 128, 0, 0},
    {"u4 b2 t1024", 4, 2, 1024, 0, 0},
    {"u4 b4 t256 warp-contiguous", 4, 4, 256, 0, 1},
    {"u4 b8 t256 warp-contiguous", 4, 8, 256, 0, 1},
    {"u8 b8 t256 warp-contiguous", 8, 8, 256, 0, 1},
    {"u2 b8 t256 st.cs", 2, 8, 256, 1, 0},
    {"u4 b8 t256 st.cs", 4, 8, 256, 1, 0},
    {"u4 b8 t256 warp-contiguous st.cs", 4, 8, 256, 1, 1},
};
const size_t zc__shape_count = ZC__COUNT(zc__shapes);

static const size_t zc__sm_quick[] = {64u << 20};
static const size_t zc__sm_default[] = {1u << 20, 16u << 20, 256u << 20};
static const size_t zc__sm_full[] = {64u << 10, 1u << 20, 16u << 20, 256u << 20, 1u << 30};
static const size_t zc__strides[] = {64, 128, 512, 4096};
/* The walks (zc advise's strided and random workload kernels) on device memory: a step at the
 * GPU's L2 (50 MB on the H200) between 16 and 256 MiB, which 32 and 64 MiB find. */
static const size_t zc__walk_quick[] = {1u << 20, 64u << 20};
static const size_t zc__walk_default[] = {64u << 10, 1u << 20,  16u << 20,
                                          32u << 20, 64u << 20, 256u << 20};
static const size_t zc__walk_full[] = {64u << 10, 1u << 20,   16u << 20, 32u << 20,
                                       64u << 20, 256u << 20, 1u << 30};
/* The walks on mapped memory, a word at a time over the link (a few GB/s on the H200): up to
 * 64 MiB, the largest buffer zc advise's random workloads walk. */
static const size_t zc__mapped_walk_quick[] = {1u << 20, 16u << 20};
static const size_t zc__mapped_walk_default[] = {64u << 10, 1u << 20, 16u << 20, 64u << 20};
static const size_t zc__mapped_walk_full[] = {64u << 10, 1u << 20, 16u << 20, 64u << 20,
                                              256u << 20};

size_t zc__sm_sizes(const zc_bench_ctx *ctx, const size_t **sizes_p)
{
    return zc__bench_sizes(ctx, zc__sm_quick, ZC__COUNT(zc__sm_quick), zc__sm_default,
                           ZC__COUNT(zc__sm_default), zc__sm_full, ZC__COUNT(zc__sm_full), sizes_p);
}

/* One size for cases that sweep something else: 64 MiB quick, 256 MiB otherwise, or the
 * largest --sizes entry. */
size_t zc__sm_one_size(const zc_bench_ctx *ctx)
{
    if (ctx->size_count > 0) {
        size_t m = 0;
        for (size_t i = 0; i < ctx->size_count; i++)
            if (ctx->sizes[i] > m)
                m = ctx->sizes[i];
        return m;
    }
    return ctx->config.mode == ZC_BENCH_QUICK ? (size_t)64 << 20 : (size_t)256 << 20;
}

/* Launches of bytes each so that a sample moves about target bytes, within the queue. */
static size_t zc__launches_for(size_t target, size_t bytes)
{
    size_t n = (target + bytes - 1) / bytes;
    return n < 1 ? 1 : (n > ZC__BENCH_QUEUE_MAX ? ZC__BENCH_QUEUE_MAX : n);
}

/* Launches per sample so that a sample moves about the copy cases' volume (x16 for device
 * memory, which is that much faster). */
size_t zc__sm_launches(const zc_bench_ctx *ctx, size_t bytes, int device)
{
    size_t target = ctx->config.mode == ZC_BENCH_QUICK ? (size_t)256 << 20 : (size_t)1 << 30;
    if (device)
        target *= 16;
    return zc__launches_for(target, bytes);
}

/* A walk visits every word: one of the zc advise workload kernel's orders. */
static int zc__is_walk(zc__access access)
{
    return access == ZC__ACCESS_WALK_STRIDED || access == ZC__ACCESS_WALK_RANDOM;
}

/* Launches per sample of a case: a walk over mapped memory goes about 20 times slower than the
 * coalesced kernels (one word per line: 2.7 against 51 GB/s on the H200), so its samples move
 * 16-32 MiB, not 256 MiB-1 GiB. */
static size_t zc__case_launches(const zc_bench_ctx *ctx, zc__access access, size_t bytes,
                                int device)
{
    if (zc__is_walk(access) && !device)
        return zc__launches_for(
            ctx->config.mode == ZC_BENCH_QUICK ? (size_t)16 << 20 : (size_t)32 << 20, bytes);
    return zc__sm_launches(ctx, bytes, device);
}

typedef struct zc__sm_arg {
    void *p;
    size_t bytes;
    zc__access access;
    size_t stride;
    int passes;
    int write;
    uint32_t seed;
    const zc__kshape *shape;
    size_t launches;
} zc__sm_arg;

static zc_status zc__sm_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    zc__sm_arg *a = varg;
    uint32_t *s = ctx->d_slots + slot;
    ZC_CHECK(zc__gate_begin(ctx, 1, a->write ? NULL : s));
    for (size_t l = 0; l < a->launches; l++)
        ZC_CHECK(a->write ? zc__k_write(a->p, a->bytes, a->access, a->stride, a->seed, a->shape,
                                        ctx->info.sm_count, ctx->streams[0])
                          : zc__k_read(a->p, a->bytes, a->access, a->stride, a->passes, a->shape,
                                       ctx->info.sm_count, s, ctx->streams[0]));
    return zc__gate_finish(ctx, 1, seconds_p);
}

/* The bytes an access pattern really uses of a buffer: random needs a power of two of
 * 128-byte segments, a walk whole 128-byte lines. */
static size_t zc__usable(zc__access access, size_t bytes)
{
    if (zc__is_walk(access))
        return bytes - bytes % 128;
    if (access == ZC__ACCESS_RANDOM) {
        size_t seg = 1;
        while (seg * 2 <= bytes / 128)
            seg *= 2;
        return seg * 128;
    }
    return bytes - bytes % 16;
}

/* Bytes the kernel asks for in one launch (strided: only the words it touches). */
static double zc__useful(zc__access access, size_t bytes, size_t stride)
{
    if (access == ZC__ACCESS_STRIDED)
        return 4.0 * (double)((bytes / 4 + stride / 4 - 1) / (stride / 4));
    return (double)bytes;
}

static zc_status zc__check_strided(const char *key, const uint32_t *p, size_t bytes, size_t stride,
                                   uint32_t seed)
{
    size_t sw = stride / 4;
    for (size_t w = 0; w < bytes / 4; w += sw)
        if (p[w] != zc__pattern32(seed, w))
            return zc__verify_fail_host(key, "strided words written by the kernel", bytes, p, w * 4,
                                        seed);
    return ZC_OK;
}

/* Measure one point: fill or poison, time, verify, record. passes: reads over the whole buffer
 * in one launch (1 for writes); a point of more than one says so in its param "passes". */
static zc_status zc__sm_point(zc_bench_ctx *ctx, const char *key, zc_bench_result *res, void *host,
                              void *dev, size_t bytes, zc__access access, size_t stride, int write,
                              int passes, const zc__kshape *shape, const char *variant,
                              int device_memory)
{
    zc__sm_arg a;
    memset(&a, 0, sizeof a);
    a.p = dev;
    a.bytes = zc__usable(access, bytes);
    a.access = access;
    a.stride = stride;
    a.passes = passes;
    a.write = write;
    a.shape = shape;
    a.launches = zc__case_launches(ctx, access, a.bytes, device_memory);
    a.seed = zc__bench_seed(ctx);
    if (write) {
        if (device_memory) {
            ZC_CHECK(zc__poison_device(ctx, dev, a.bytes));
        } else
            memset(host, 0xA5, a.bytes);
    } else {
        if (device_memory) {
            ZC_CHECK(zc__k_fill(dev, a.bytes, a.seed, ctx->info.sm_count, ctx->streams[0]));
            ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
        } else {
            zc__pattern_fill(host, a.bytes, a.seed);
        }
        if (zc__bench_corrupt(ctx, key)) {
            ZC_CHECK(device_memory ? zc__corrupt_device(dev, a.bytes)
                                   : zc__corrupt_host(host, a.bytes));
        }
    }
    double *seconds = NULL;
    size_t count = 0, warmups = 0;
    ZC_CHECK(zc__measure(ctx, zc__sm_sample, &a, 0, &seconds, &count, &warmups));
    zc_status st = ZC_OK;
    char what[96];
    zc__snprintf_c(what, sizeof what, "%s%s", variant[0] ? variant : "kernel",
                   write ? " (write)" : " (read)");
    if (write) {
        if (zc__bench_corrupt(ctx, key))
            st = device_memory ? zc__corrupt_device(dev, a.bytes) : zc__corrupt_host(host, a.bytes);
        if (st == ZC_OK) {
            if (device_memory)
                st = zc__verify_device(ctx, key, what, dev, a.bytes, a.seed);
            else if (access == ZC__ACCESS_STRIDED)
                st = zc__check_strided(key, host, a.bytes, stride, a.seed);
            else
                st = zc__verify_host_dst(ctx, key, what, ZC_BUFFER_MAPPED, host, a.bytes, a.seed);
        }
    } else {
        size_t sw = access == ZC__ACCESS_STRIDED ? stride / 4 : 1;
        uint32_t sum = zc__pattern_sum(a.bytes, a.seed, sw);
        uint32_t expected = sum * (uint32_t)a.launches * (uint32_t)a.passes;
        st = zc__verify_slots(ctx, key, what, warmups + count, expected);
    }
    const char *param_name = NULL;
    double param = 0.0;
    if (access == ZC__ACCESS_STRIDED) {
        param_name = "stride_bytes";
        param = (double)stride;
    } else if (passes > 1) {
        param_name = "passes";
        param = (double)passes;
    }
    if (st == ZC_OK)
        st = zc__add_seconds(res, variant, a.bytes, param_name, param, ZC_BENCH_BANDWIDTH,
                             zc__useful(access, a.bytes, stride) * (double)passes *
                                 (double)a.launches,
                             (double)a.launches, seconds, count, warmups);
    free(seconds);
    return st;
}

int zc__can_map(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n)
{
    (void)self;
    if (!ctx->info.can_map_host_memory) {
        zc__snprintf_c(reason, n, "this GPU cannot map host memory (canMapHostMemory = 0)");
        return 0;
    }
    return 1;
}

/* The sizes a case measures: the stride sweep one (into one), a walk its own, the rest the SM
 * sizes. */
static size_t zc__case_sizes(const zc_bench_ctx *ctx, zc__access access, int device_memory,
                             size_t one[1], const size_t **sizes_p)
{
    if (access == ZC__ACCESS_STRIDED) {
        one[0] = zc__sm_one_size(ctx);
        *sizes_p = one;
        return 1;
    }
    if (zc__is_walk(access) && device_memory)
        return zc__bench_sizes(ctx, zc__walk_quick, ZC__COUNT(zc__walk_quick), zc__walk_default,
                               ZC__COUNT(zc__walk_default), zc__walk_full, ZC__COUNT(zc__walk_full),
                               sizes_p);
    if (zc__is_walk(access))
        return zc__bench_sizes(ctx, zc__mapped_walk_quick, ZC__COUNT(zc__mapped_walk_quick),
                               zc__mapped_walk_default, ZC__COUNT(zc__mapped_walk_default),
                               zc__mapped_walk_full, ZC__COUNT(zc__mapped_walk_full), sizes_p);
    return zc__sm_sizes(ctx, sizes_p);
}

/* arg: access pattern; arg2: bit 0 write, bit 1 device memory. */
zc_status zc__run_sm(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    zc__access access = (zc__access)self->arg;
    int write = self->arg2 & 1, device_memory = (self->arg2 & 2) != 0;
    const zc__kshape *shape = &zc__shapes[ZC__SHAPE_DEFAULT];
    const size_t *sizes;
    size_t one[1];
    size_t nsizes = zc__case_sizes(ctx, access, device_memory, one, &sizes);
    size_t maxb = 0;
    for (size_t i = 0; i < nsizes; i++)
        if (sizes[i] > maxb)
            maxb = sizes[i];
    void *host = NULL, *dev = NULL;
    if (device_memory) {
        ZC_CHECK(zc__bench_device(ctx, 0, maxb, &dev));
    } else {
        ZC_CHECK(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 0, maxb, &host));
        ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, host, &dev));
    }
    if (access == ZC__ACCESS_STRIDED) {
        for (size_t i = 0; i < ZC__COUNT(zc__strides); i++) {
            zc__bench_tick(ctx, i, ZC__COUNT(zc__strides));
            char variant[32];
            zc__snprintf_c(variant, sizeof variant, "stride %zu B", zc__strides[i]);
            ZC_CHECK(zc__sm_point(ctx, self->info.key, res, host, dev, sizes[0], access,
                                  zc__strides[i], write, 1, shape, variant, device_memory));
        }
        return ZC_OK;
    }
    for (size_t i = 0; i < nsizes; i++) {
        zc__bench_tick(ctx, i, nsizes);
        if (sizes[i] < 4096)
            continue; /* below a page the figure is launch latency, measured elsewhere */
        ZC_CHECK(zc__sm_point(ctx, self->info.key, res, host, dev, sizes[i], access, 0, write, 1,
                              shape, "", device_memory));
        /* A walk read twice in one launch over mapped memory: what the GPU's cache keeps of
         * the first pass for the second, by size (zc advise prices a workload's later passes
         * with it). */
        if (zc__is_walk(access) && !device_memory && !write)
            ZC_CHECK(zc__sm_point(ctx, self->info.key, res, host, dev, sizes[i], access, 0, write,
                                  2, shape, "2 passes", device_memory));
    }
    if (res->point_count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: no size of at least 4 KiB to measure",
                       self->info.key);
    return ZC_OK;
}

/* The launch-shape sweep: every shape at one size; the best is named in the reason. */
zc_status zc__run_tune(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    int write = self->arg2 & 1;
    size_t bytes = zc__sm_one_size(ctx);
    void *host = NULL, *dev = NULL;
    ZC_CHECK(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 0, bytes, &host));
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, host, &dev));
    double best = 0.0;
    const char *best_name = "";
    for (size_t i = 0; i < zc__shape_count; i++) {
        zc__bench_tick(ctx, i, zc__shape_count);
        if (!write && zc__shapes[i].streaming)
            continue; /* evict-first applies to stores */
        ZC_CHECK(zc__sm_point(ctx, self->info.key, res, host, dev, bytes, ZC__ACCESS_16B, 0, write,
                              1, &zc__shapes[i], zc__shapes[i].name, 0));
        double median = res->points[res->point_count - 1].stats.median;
        if (median > best) {
            best = median;
            best_name = zc__shapes[i].name;
        }
    }
    zc__snprintf_c(res->reason, sizeof res->reason,
                   "best shape: %s, %.1f GB/s (u = 16-byte accesses in "
                   "flight per thread, b = blocks per SM, t = threads per block)",
                   best_name, best);
    return ZC_OK;
}
