/* SPDX-License-Identifier: Apache-2.0 */
/* managed.transfer: one whole transfer through managed memory, by size, the way a program
 * moves its data with it (zc advise's managed technique): in, the CPU writes pages the last
 * prefetch left on the GPU, prefetches them there and a kernel reads them; out, the pages
 * go to the GPU, a kernel writes them and they come back. Timed on the host clock, one
 * transfer per sample, each ended by a stream synchronisation, so that page-fault batches,
 * the prefetches' fixed costs and the migration granularity at small sizes are in the figure.
 * "both" is the two in one transfer, with one buffer each way (a program's input and its
 * result): the CPU writes the input, both go to the GPU, kernels read one and write the other,
 * the result comes back. The "h2d" and "both" figures leave out what the same writes cost on
 * pages already on the host (timed in the same sample), so that they are what managed memory
 * adds to the program's own fill. Each size moves buffers of its own size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"

static const size_t zc__transfer_quick[] = {4u << 10, 1u << 20, 16u << 20};
static const size_t zc__transfer_default[] = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20};
static const size_t zc__transfer_full[] = {4u << 10, 64u << 10, 256u << 10, 1u << 20,
                                           4u << 20, 16u << 20, 64u << 20,  256u << 20};

/* Which way a transfer goes; the point's variant is its name. */
typedef enum zc__transfer_dir {
    ZC__TRANSFER_IN,
    ZC__TRANSFER_OUT,
    ZC__TRANSFER_BOTH
} zc__transfer_dir;
static const char *const zc__transfer_names[] = {"h2d", "d2h", "both"};

typedef struct zc__transfer_arg {
    const char *key;
    void *p;      /* what moves (h2d, d2h), or the input (both) */
    void *result; /* both: the result, a buffer of its own */
    size_t bytes;
    int device;
    zc__transfer_dir dir; /* in: the CPU writes, the GPU reads; out: the GPU writes; both */
    uint32_t seed;        /* in: what each transfer carries, seed + 1 written between samples; out:
                             seed + the sample's number, so that each sample's data is new; both:
                             the input as in, the result seed + 1000 + the sample's number */
    int corrupt;          /* the corruption test hook: flip a byte of what moves */
    uint32_t last_result; /* the seed of the last sample's result (out, both), checked after the
                             samples */
} zc__transfer_arg;

static zc_status zc__move(zc_bench_ctx *ctx, void *p, size_t bytes, int device)
{
    ZC_CUDA_RETURN(cudaMemPrefetchAsync(p, bytes, zc__managed_where(device), 0, ctx->streams[0]));
    return ZC_OK;
}

static double zc__since_s(uint64_t t0)
{
    return (double)(zc_clock_ns() - t0) / 1e9;
}

/* The result the kernel wrote, back on the host, holds the last sample's own data. Checked once
 * after the samples, as the copy cases check their destination: a CPU that reads the result
 * between samples makes the next prefetch to the GPU dearer (on the H200 a 1 MiB transfer out
 * took 280 us with the result read after each, 204 us untouched), and zc advise's runner, whose
 * time the model predicts, reads its results only at its end. */
static zc_status zc__result_check(const zc__transfer_arg *a, void *result, uint32_t seed)
{
    if (a->corrupt)
        ZC_CHECK(zc__corrupt_host(result, a->bytes));
    size_t bad = 0;
    if (!zc__pattern_check(result, a->bytes, seed, 0, &bad))
        return zc__verify_fail_host(a->key, "data the kernel wrote, back on the host", a->bytes,
                                    result, bad, seed);
    return ZC_OK;
}

/* In (and both): the input's pages start on the GPU holding the last sample's poison; the CPU
 * writes the data, it is prefetched and read. Both: the result's pages, on the host where the
 * last sample left them, go to the GPU as well, a kernel writes them and they come back. Then
 * the same writes on host-resident pages, timed to subtract, leave the next poison. */
static zc_status zc__in_sample(zc_bench_ctx *ctx, zc__transfer_arg *a, size_t slot,
                               double *seconds_p)
{
    uint32_t *s = ctx->d_slots + slot;
    cudaStream_t st0 = ctx->streams[0];
    uint32_t result_seed = a->seed + 1000u + (uint32_t)slot;
    ZC_CHECK(zc__move(ctx, a->p, a->bytes, a->device));
    ZC_CUDA_RETURN(cudaMemsetAsync(s, 0, sizeof *s, st0));
    ZC_CUDA_RETURN(cudaStreamSynchronize(st0));
    uint64_t t0 = zc_clock_ns();
    zc__pattern_fill(a->p, a->bytes, a->seed);
    if (a->corrupt && a->dir == ZC__TRANSFER_IN)
        ZC_CHECK(zc__corrupt_host(a->p, a->bytes));
    ZC_CHECK(zc__move(ctx, a->p, a->bytes, a->device));
    if (a->dir == ZC__TRANSFER_BOTH)
        ZC_CHECK(zc__move(ctx, a->result, a->bytes, a->device));
    ZC_CHECK(zc__k_read(a->p, a->bytes, ZC__ACCESS_16B, 0, 1, &zc__shapes[ZC__SHAPE_DEFAULT],
                        ctx->info.sm_count, s, st0));
    if (a->dir == ZC__TRANSFER_BOTH) {
        ZC_CHECK(zc__k_fill(a->result, a->bytes, result_seed, ctx->info.sm_count, st0));
        ZC_CHECK(zc__move(ctx, a->result, a->bytes, -1));
    }
    ZC_CUDA_RETURN(cudaStreamSynchronize(st0));
    double whole = zc__since_s(t0);
    ZC_CHECK(zc__move(ctx, a->p, a->bytes, -1));
    ZC_CUDA_RETURN(cudaStreamSynchronize(st0));
    t0 = zc_clock_ns();
    zc__pattern_fill(a->p, a->bytes, a->seed + 1);
    double plain = zc__since_s(t0);
    *seconds_p = whole > plain ? whole - plain : 0.0;
    a->last_result = result_seed;
    return ZC_OK;
}

/* Out: the pages start on the host, where the last sample's prefetch left them, untouched by
 * the CPU; they go to the GPU, a kernel writes data of this sample's own seed and they come
 * back (the last sample's data is checked there after the samples). */
static zc_status zc__out_sample(zc_bench_ctx *ctx, zc__transfer_arg *a, size_t slot,
                                double *seconds_p)
{
    cudaStream_t st0 = ctx->streams[0];
    uint32_t seed = a->seed + (uint32_t)slot;
    uint64_t t0 = zc_clock_ns();
    ZC_CHECK(zc__move(ctx, a->p, a->bytes, a->device));
    ZC_CHECK(zc__k_fill(a->p, a->bytes, seed, ctx->info.sm_count, st0));
    ZC_CHECK(zc__move(ctx, a->p, a->bytes, -1));
    ZC_CUDA_RETURN(cudaStreamSynchronize(st0));
    *seconds_p = zc__since_s(t0);
    a->last_result = seed;
    return ZC_OK;
}

static zc_status zc__transfer_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    zc__transfer_arg *a = varg;
    return a->dir == ZC__TRANSFER_OUT ? zc__out_sample(ctx, a, slot, seconds_p)
                                      : zc__in_sample(ctx, a, slot, seconds_p);
}

/* One direction at one size: the samples, the check of what every kernel read, the point. */
static zc_status zc__transfer_point(zc_bench_ctx *ctx, const char *key, zc__transfer_arg *a,
                                    zc_bench_result *res)
{
    double *seconds = NULL;
    size_t count = 0, warmups = 0;
    ZC_CHECK(zc__measure(ctx, zc__transfer_sample, a, 0, &seconds, &count, &warmups));
    zc_status st = ZC_OK;
    if (a->dir != ZC__TRANSFER_OUT)
        st = zc__verify_slots(ctx, key, "managed data the kernel read after the CPU wrote it",
                              warmups + count, zc__pattern_sum(a->bytes, a->seed, 1));
    if (st == ZC_OK && a->dir != ZC__TRANSFER_IN)
        st = zc__result_check(a, a->dir == ZC__TRANSFER_OUT ? a->p : a->result, a->last_result);
    if (st == ZC_OK)
        st = zc__add_seconds(res, zc__transfer_names[a->dir], a->bytes, NULL, 0, ZC_BENCH_DURATION,
                             (double)a->bytes, 1.0, seconds, count, warmups);
    free(seconds);
    return st;
}

zc_status zc__run_managed_transfer(zc_bench_ctx *ctx, const zc__bench_case *self,
                                   zc_bench_result *res)
{
    const char *key = self->info.key;
    const size_t *sizes;
    size_t nsizes = zc__bench_sizes(ctx, zc__transfer_quick, ZC__COUNT(zc__transfer_quick),
                                    zc__transfer_default, ZC__COUNT(zc__transfer_default),
                                    zc__transfer_full, ZC__COUNT(zc__transfer_full), &sizes);
    size_t limit = 0, maxb = 0, skipped = 0;
    ZC_CHECK(zc__managed_fit(key, sizes, nsizes, &limit, &maxb));
    zc__transfer_arg a;
    memset(&a, 0, sizeof a);
    a.key = key;
    a.device = ctx->config.device;
    a.corrupt = zc__bench_corrupt(ctx, key);
    zc_status st = ZC_OK;
    for (size_t i = 0; i < nsizes && st == ZC_OK; i++) {
        if (sizes[i] > limit) {
            skipped++;
            continue;
        }
        /* Buffers of the size, as a program allocates its own: moving the start of a larger
         * one cost the H200 19% more at 1 MiB and 24% less at 16 MiB than a buffer of the size. */
        a.p = a.result = NULL;
        if ((st = zc__mem_exact_alloc(ZC_BUFFER_MANAGED, sizes[i], &a.p)) != ZC_OK)
            break;
        st = zc__mem_exact_alloc(ZC_BUFFER_MANAGED, sizes[i], &a.result);
        for (size_t d = 0; d < ZC__COUNT(zc__transfer_names) && st == ZC_OK; d++) {
            size_t ways = ZC__COUNT(zc__transfer_names);
            zc__bench_tick(ctx, ways * i + d, ways * nsizes);
            a.bytes = sizes[i];
            a.dir = (zc__transfer_dir)d;
            a.seed = zc__bench_seed(ctx);
            st = zc__transfer_point(ctx, key, &a, res);
        }
        ZC_CUDA_IGNORE(cudaStreamSynchronize(ctx->streams[0]));
        if (a.result != NULL)
            zc__mem_exact_free(ZC_BUFFER_MANAGED, a.result);
        zc__mem_exact_free(ZC_BUFFER_MANAGED, a.p);
    }
    if (st == ZC_OK && skipped)
        snprintf(res->reason, sizeof res->reason,
                 "%zu size(s) left out: larger than a quarter of the GPU's free memory", skipped);
    return st;
}
