/* SPDX-License-Identifier: Apache-2.0 */
/* Managed-memory cases: a kernel's first touch (page faults), after prefetch, the prefetch
 * itself, and with access advice that keeps the pages on the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"

static const size_t zc__managed_quick[] = {64u << 20};
static const size_t zc__managed_default[] = {16u << 20, 256u << 20};
static const size_t zc__managed_full[] = {16u << 20, 256u << 20, 1u << 30, (size_t)4 << 30};

typedef struct zc__managed_arg {
    int what;
    void *p;
    size_t bytes;
    size_t launches;
    int device;
} zc__managed_arg;

struct cudaMemLocation zc__managed_where(int device)
{
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = device >= 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = device >= 0 ? device : 0;
    return loc;
}

static zc_status zc__to_host(zc_bench_ctx *ctx, zc__managed_arg *a)
{
    ZC_CUDA_RETURN(cudaMemPrefetchAsync(a->p, a->bytes, zc__managed_where(-1), 0, ctx->streams[0]));
    ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
    return ZC_OK;
}

static zc_status zc__managed_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    zc__managed_arg *a = varg;
    /* First touch and the prefetch itself start every sample with the pages on the host. */
    if (a->what == ZC__MANAGED_FIRST_TOUCH || a->what == ZC__MANAGED_PREFETCH)
        ZC_CHECK(zc__to_host(ctx, a));
    uint32_t *s = ctx->d_slots + slot;
    ZC_CHECK(zc__gate_begin(ctx, 1, s));
    if (a->what == ZC__MANAGED_PREFETCH) {
        ZC_CUDA_RETURN(
            cudaMemPrefetchAsync(a->p, a->bytes, zc__managed_where(a->device), 0, ctx->streams[0]));
    } else {
        for (size_t l = 0; l < a->launches; l++)
            ZC_CHECK(zc__k_read(a->p, a->bytes, ZC__ACCESS_16B, 0, 1,
                                &zc__shapes[ZC__SHAPE_DEFAULT], ctx->info.sm_count, s,
                                ctx->streams[0]));
    }
    return zc__gate_finish(ctx, 1, seconds_p);
}

zc_status zc__managed_fit(const char *key, const size_t *sizes, size_t n, size_t *limit_p,
                          size_t *largest_p)
{
    size_t free_b = 0, total_b = 0;
    ZC_CUDA_RETURN(cudaMemGetInfo(&free_b, &total_b));
    /* Never ask for more managed memory than a quarter of what the card has free: migrating
     * pages must find room without evicting the run's other buffers. */
    size_t limit = free_b / 4, largest = 0;
    for (size_t i = 0; i < n; i++)
        if (sizes[i] <= limit && sizes[i] > largest)
            largest = sizes[i];
    if (largest == 0)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no size fits in a quarter of the %zu free bytes", key,
                       free_b);
    *limit_p = limit;
    *largest_p = largest;
    return ZC_OK;
}

int zc__can_managed(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n)
{
    if (!ctx->info.managed_memory) {
        snprintf(reason, n, "this GPU has no managed memory (managedMemory = 0)");
        return 0;
    }
    if (self->arg != ZC__MANAGED_FIRST_TOUCH && !ctx->info.concurrent_managed_access) {
        snprintf(reason, n,
                 "prefetch and access advice need concurrentManagedAccess, which is 0 "
                 "here");
        return 0;
    }
    if (!ctx->info.can_map_host_memory) {
        snprintf(reason, n, "the timing gate needs mapped host memory (canMapHostMemory = 0)");
        return 0;
    }
    return 1;
}

zc_status zc__run_managed(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const char *key = self->info.key;
    const size_t *sizes;
    size_t nsizes = zc__bench_sizes(ctx, zc__managed_quick, ZC__COUNT(zc__managed_quick),
                                    zc__managed_default, ZC__COUNT(zc__managed_default),
                                    zc__managed_full, ZC__COUNT(zc__managed_full), &sizes);
    size_t limit = 0, maxb = 0;
    ZC_CHECK(zc__managed_fit(key, sizes, nsizes, &limit, &maxb));
    if (maxb < 4096)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no size of 4 KiB or more fits in %zu bytes", key,
                       limit);
    zc__managed_arg a;
    memset(&a, 0, sizeof a);
    a.what = self->arg;
    a.device = ctx->config.device;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MANAGED, maxb, &a.p));
    zc_status st = ZC_OK;
    size_t skipped = 0;
    if (a.what == ZC__MANAGED_ADVISED) {
        ZC_CUDA_GOTO(
            cudaMemAdvise(a.p, maxb, cudaMemAdviseSetPreferredLocation, zc__managed_where(-1)), st,
            out);
        ZC_CUDA_GOTO(
            cudaMemAdvise(a.p, maxb, cudaMemAdviseSetAccessedBy, zc__managed_where(a.device)), st,
            out);
    }
    for (size_t i = 0; i < nsizes; i++) {
        zc__bench_tick(ctx, i, nsizes);
        size_t b = sizes[i] - sizes[i] % 16;
        if (sizes[i] > limit || b < 4096) {
            skipped++;
            continue;
        }
        a.bytes = b;
        uint32_t seed = zc__bench_seed(ctx);
        zc__pattern_fill(a.p, b, seed); /* the CPU writes first: the pages start on the host */
        if (zc__bench_corrupt(ctx, key))
            ZC_CHECK_GOTO(zc__corrupt_host(a.p, b), st, out);
        a.launches = 1;
        if (a.what == ZC__MANAGED_PREFETCHED) {
            ZC_CUDA_GOTO(
                cudaMemPrefetchAsync(a.p, b, zc__managed_where(a.device), 0, ctx->streams[0]), st,
                out);
            ZC_CUDA_GOTO(cudaStreamSynchronize(ctx->streams[0]), st, out);
            a.launches = zc__sm_launches(ctx, b, 1);
        } else if (a.what == ZC__MANAGED_ADVISED) {
            a.launches = zc__sm_launches(ctx, b, 0);
        }
        double *seconds = NULL;
        size_t count = 0, warmups = 0;
        ZC_CHECK_GOTO(zc__measure(ctx, zc__managed_sample, &a, 0, &seconds, &count, &warmups), st,
                      out);
        uint32_t sum = zc__pattern_sum(b, seed, 1);
        if (a.what == ZC__MANAGED_PREFETCH) {
            /* The prefetch moved the data; one kernel then reads it to prove it arrived whole. */
            st = ZC_CUDA(cudaMemsetAsync(ctx->d_slots, 0, sizeof(uint32_t), ctx->streams[0]));
            if (st == ZC_OK)
                st = zc__k_read(a.p, b, ZC__ACCESS_16B, 0, 1, &zc__shapes[ZC__SHAPE_DEFAULT],
                                ctx->info.sm_count, ctx->d_slots, ctx->streams[0]);
            if (st == ZC_OK)
                st = zc__verify_slots(ctx, key, "data after prefetch", 1, sum);
        } else {
            st = zc__verify_slots(ctx, key, "managed data read by the kernel", warmups + count,
                                  sum * (uint32_t)a.launches);
        }
        if (st == ZC_OK)
            st = zc__add_seconds(res, "", b, NULL, 0, ZC_BENCH_BANDWIDTH,
                                 (double)b * (double)a.launches, (double)a.launches, seconds, count,
                                 warmups);
        free(seconds);
        if (st != ZC_OK)
            goto out;
    }
    if (skipped)
        snprintf(res->reason, sizeof res->reason,
                 "%zu size(s) left out: larger than a quarter of the GPU's free memory", skipped);
out:
    (void)ZC_CUDA(cudaStreamSynchronize(ctx->streams[0]));
    zc__mem_exact_free(ZC_BUFFER_MANAGED, a.p);
    return st;
}
