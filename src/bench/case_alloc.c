/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation cost: allocating, freeing and registering each kind of memory, per size, by hand
 * (cudaHostAlloc) and through the library's buffers (fast pinning) and pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/buffer.h"
#include "zerocopy/clock.h"
#include "zerocopy/pool.h"
#include "core/c_locale.h"

static const size_t zc__alloc_quick[] = {4u << 10, 1u << 20, 16u << 20};
static const size_t zc__alloc_default[] = {4u << 10, 1u << 20, 16u << 20, 256u << 20};
static const size_t zc__alloc_full[] = {4u << 10,   64u << 10, 1u << 20,       16u << 20,
                                        256u << 20, 1u << 30,  (size_t)4 << 30};

/* How one point allocates and frees. */
typedef enum zc__alloc_how {
    ZC__ALLOC_HOSTALLOC = 0,    /* cudaHostAlloc / cudaFreeHost, by hand */
    ZC__ALLOC_ZC_PINNED,        /* zc_buffer_alloc(PINNED): registration above the threshold */
    ZC__ALLOC_ZC_REGISTER,      /* zc_buffer_register of malloc'd, touched memory / unregister */
    ZC__ALLOC_ZC_PAGEABLE,      /* zc_buffer_alloc(PAGEABLE) */
    ZC__ALLOC_ZC_DEVICE,        /* zc_buffer_alloc(DEVICE) */
    ZC__ALLOC_ZC_MANAGED,       /* zc_buffer_alloc(MANAGED) */
    ZC__ALLOC_POOL_HIT,         /* zc_pool_alloc(PINNED) served from the cache / zc_pool_free */
    ZC__ALLOC_HOSTALLOC_BESIDE, /* cudaHostAlloc while another block of the size is alive */
    ZC__ALLOC_HOW_COUNT
} zc__alloc_how;

/* One name per way, in zc__alloc_how's order. */
static const char *const zc__alloc_names[] = {
    "cudaHostAlloc",
    "zc_buffer_alloc pinned",
    "zc_buffer_register",
    "zc_buffer_alloc pageable",
    "zc_buffer_alloc device",
    "zc_buffer_alloc managed",
    "zc_pool_alloc pinned (hit)",
    "cudaHostAlloc beside another",
};
_Static_assert(sizeof zc__alloc_names / sizeof zc__alloc_names[0] == ZC__ALLOC_HOW_COUNT,
               "every way of allocating has its name");

/* One allocation's memory, whichever way it was made. */
typedef struct zc__alloc_one {
    void *raw;      /* cudaHostAlloc, or the malloc'd range a registration pins */
    zc_buffer *buf; /* library buffer */
    void *host;     /* host view (NULL for device memory) */
    void *dev;      /* device view */
} zc__alloc_one;

static zc_status zc__alloc_do(zc_bench_ctx *ctx, zc__alloc_how how, size_t bytes, zc_pool *pool,
                              zc__alloc_one *one, double *seconds_p)
{
    int device = ctx->config.device;
    memset(one, 0, sizeof *one);
    zc_status st = ZC_OK;
    uint64_t t0 = 0, t1 = 0;
    if (how == ZC__ALLOC_ZC_REGISTER) {
        /* The caller's memory already exists and is touched: only the pinning is timed. */
        one->raw = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
        if (one->raw == NULL)
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "aligned_alloc(%zu) failed", bytes);
        memset(one->raw, 0, bytes);
    }
    t0 = zc_clock_ns();
    switch (how) {
    case ZC__ALLOC_HOSTALLOC:
    case ZC__ALLOC_HOSTALLOC_BESIDE:
        st = zc__mem_exact_alloc(ZC_BUFFER_PINNED, bytes, &one->raw); /* cudaHostAlloc, as is */
        break;
    case ZC__ALLOC_ZC_PINNED:
        st = zc_buffer_alloc(bytes, ZC_BUFFER_PINNED, 0, device, &one->buf);
        break;
    case ZC__ALLOC_ZC_REGISTER:
        st = zc_buffer_register(one->raw, bytes, 0, device, &one->buf);
        break;
    case ZC__ALLOC_ZC_PAGEABLE:
        st = zc_buffer_alloc(bytes, ZC_BUFFER_PAGEABLE, 0, device, &one->buf);
        break;
    case ZC__ALLOC_ZC_DEVICE:
        st = zc_buffer_alloc(bytes, ZC_BUFFER_DEVICE, 0, device, &one->buf);
        break;
    case ZC__ALLOC_ZC_MANAGED:
        st = zc_buffer_alloc(bytes, ZC_BUFFER_MANAGED, 0, device, &one->buf);
        break;
    case ZC__ALLOC_POOL_HIT:
        st = zc_pool_alloc(pool, bytes, &one->buf);
        break;
    default:
        st = ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__alloc_do: method %d", (int)how);
    }
    t1 = zc_clock_ns();
    if (st != ZC_OK) {
        if (how == ZC__ALLOC_ZC_REGISTER)
            free(one->raw);
        one->raw = NULL;
        return st;
    }
    if (how == ZC__ALLOC_HOSTALLOC || how == ZC__ALLOC_HOSTALLOC_BESIDE) {
        one->host = one->raw;
    } else {
        one->host = zc_buffer_host_ptr(one->buf);
        one->dev = zc_buffer_device_ptr(one->buf);
    }
    *seconds_p = (double)(t1 - t0) / 1e9;
    return ZC_OK;
}

static zc_status zc__alloc_undo(zc__alloc_how how, zc_pool *pool, zc__alloc_one *one,
                                double *seconds_p)
{
    uint64_t t0 = zc_clock_ns();
    zc_status st;
    if (how == ZC__ALLOC_HOSTALLOC || how == ZC__ALLOC_HOSTALLOC_BESIDE)
        st = zc__mem_exact_free_checked(ZC_BUFFER_PINNED, one->raw);
    else if (how == ZC__ALLOC_POOL_HIT)
        st = zc_pool_free(pool, one->buf);
    else
        st = zc_buffer_free(one->buf);
    uint64_t t1 = zc_clock_ns();
    if (how == ZC__ALLOC_ZC_REGISTER)
        free(one->raw); /* unregistering leaves the memory to its owner */
    memset(one, 0, sizeof *one);
    if (seconds_p)
        *seconds_p = (double)(t1 - t0) / 1e9;
    return st;
}

/* The new memory works: 4 KiB at its start and its end go to the GPU (or are written by it)
 * and are checked there. */
static zc_status zc__alloc_check(zc_bench_ctx *ctx, const char *key, zc__alloc_one *one,
                                 size_t bytes)
{
    size_t n = bytes < 4096 ? bytes : 4096;
    size_t offsets[2] = {0, bytes - n};
    void *scratch = NULL;
    ZC_CHECK(zc__bench_device(ctx, 0, 4096, &scratch));
    for (int i = 0; i < 2; i++) {
        uint32_t seed = zc__bench_seed(ctx);
        if (one->host != NULL) {
            char *at = (char *)one->host + offsets[i];
            zc__pattern_fill(at, n, seed);
            if (zc__bench_corrupt(ctx, key))
                ZC_CHECK(zc__corrupt_host(at, n));
            ZC_CUDA_RETURN(cudaMemcpy(scratch, at, n, cudaMemcpyDefault));
            ZC_CHECK(zc__verify_device(ctx, key, "new buffer copied to the GPU", scratch, n, seed));
        } else {
            char *at = (char *)one->dev + offsets[i];
            ZC_CHECK(zc__k_fill(at, n, seed, ctx->info.sm_count, ctx->streams[0]));
            /* The corruption hook's legacy-stream copies would not wait for the fill on the
             * non-blocking stream: the fill could overwrite the flipped byte. */
            ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
            if (zc__bench_corrupt(ctx, key))
                ZC_CHECK(zc__corrupt_device(at, n));
            ZC_CHECK(
                zc__verify_device(ctx, key, "new device buffer written by the GPU", at, n, seed));
        }
    }
    return ZC_OK;
}

static int zc__alloc_usable(const zc_bench_ctx *ctx, zc__alloc_how how)
{
    if (how == ZC__ALLOC_ZC_REGISTER && !ctx->info.host_register_supported)
        return 0;
    if (how == ZC__ALLOC_ZC_MANAGED && !ctx->info.managed_memory)
        return 0;
    return 1;
}

zc_status zc__run_alloc(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const char *key = self->info.key;
    const size_t *sizes;
    size_t nsizes = zc__bench_sizes(ctx, zc__alloc_quick, ZC__COUNT(zc__alloc_quick),
                                    zc__alloc_default, ZC__COUNT(zc__alloc_default), zc__alloc_full,
                                    ZC__COUNT(zc__alloc_full), &sizes);
    size_t free_b = 0, total_b = 0;
    ZC_CUDA_RETURN(cudaMemGetInfo(&free_b, &total_b));
    zc_pool *pool = NULL;
    /* The buffers earlier cases left would hold the driver's pinned chunks: with none alive, a
     * small cudaHostAlloc costs what a program's first pinned buffer costs. */
    zc__bench_host_release(ctx);
    ZC_CHECK(zc_pool_create(ZC_BUFFER_PINNED, 0, ctx->config.device, 0, &pool));
    zc_status st = ZC_OK;
    zc__alloc_one beside;
    memset(&beside, 0, sizeof beside);
    double *alloc_s = NULL, *free_s = NULL;
    char summary[ZC_BENCH_REASON_MAX] = "";
    size_t used = 0;
    for (size_t i = 0; i < nsizes; i++) {
        size_t b = sizes[i];
        /* Large allocations cost up to seconds each: fewer samples as the size grows. */
        size_t samples = b >= ((size_t)256 << 20) ? 3 : b >= ((size_t)16 << 20) ? 5 : 20;
        if (ctx->config.mode == ZC_BENCH_FULL)
            samples *= 2;
        double hostalloc_med = 0.0, zc_med = 0.0, hit_med = 0.0;
        for (int h = 0; h < ZC__ALLOC_HOW_COUNT; h++) {
            zc__bench_tick(ctx, i * ZC__ALLOC_HOW_COUNT + (size_t)h, nsizes * ZC__ALLOC_HOW_COUNT);
            zc__alloc_how how = (zc__alloc_how)h;
            if (!zc__alloc_usable(ctx, how))
                continue;
            if ((how == ZC__ALLOC_ZC_DEVICE || how == ZC__ALLOC_ZC_MANAGED) && b > free_b / 4)
                continue; /* never take more than a quarter of the card's free memory */
            free(alloc_s);
            free(free_s);
            alloc_s = malloc(samples * sizeof *alloc_s);
            free_s = malloc(samples * sizeof *free_s);
            if (alloc_s == NULL || free_s == NULL) {
                st = ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: samples", key);
                goto out;
            }
            zc__alloc_one one;
            double unused_s = 0.0;
            if (how == ZC__ALLOC_POOL_HIT) {
                /* Warm the cache with one block of this size: every timed request is a hit. */
                ZC_CHECK_GOTO(zc__alloc_do(ctx, how, b, pool, &one, &alloc_s[0]), st, out);
                ZC_CHECK_GOTO(zc__alloc_undo(how, pool, &one, NULL), st, out);
            }
            /* Every sample's memory is used by the GPU before it is freed, as a program's is. */
            for (size_t s = 0; s < samples; s++) {
                /* A program's second buffer of a size, allocated right after its first: each
                 * sample a new pair, both used by the GPU, then both freed. The driver carves a
                 * small second block from the memory the first one brought (2.8 us at 1 MiB on
                 * the H200, where a first costs about 0.5 ms). */
                if (how == ZC__ALLOC_HOSTALLOC_BESIDE)
                    ZC_CHECK_GOTO(zc__alloc_do(ctx, how, b, pool, &beside, &unused_s), st, out);
                ZC_CHECK_GOTO(zc__alloc_do(ctx, how, b, pool, &one, &alloc_s[s]), st, out);
                if ((st = zc__alloc_check(ctx, key, &one, b)) != ZC_OK ||
                    (beside.raw != NULL && (st = zc__alloc_check(ctx, key, &beside, b)) != ZC_OK)) {
                    ZC_CHECK_IGNORE(zc__alloc_undo(how, pool, &one, NULL));
                    goto out;
                }
                ZC_CHECK_GOTO(zc__alloc_undo(how, pool, &one, &free_s[s]), st, out);
                if (beside.raw != NULL)
                    ZC_CHECK_GOTO(zc__alloc_undo(how, pool, &beside, NULL), st, out);
            }
            char variant[64];
            zc__snprintf_c(variant, sizeof variant, "%s: allocate", zc__alloc_names[h]);
            ZC_CHECK_GOTO(zc__add_seconds(res, variant, b, NULL, 0, ZC_BENCH_DURATION, (double)b,
                                          1.0, alloc_s, samples, how == ZC__ALLOC_POOL_HIT),
                          st, out);
            double med = res->points[res->point_count - 1].stats.median;
            zc__snprintf_c(variant, sizeof variant, "%s: free", zc__alloc_names[h]);
            ZC_CHECK_GOTO(zc__add_seconds(res, variant, b, NULL, 0, ZC_BENCH_DURATION, (double)b,
                                          1.0, free_s, samples, 0),
                          st, out);
            if (how == ZC__ALLOC_HOSTALLOC)
                hostalloc_med = med;
            else if (how == ZC__ALLOC_ZC_PINNED)
                zc_med = med;
            else if (how == ZC__ALLOC_POOL_HIT)
                hit_med = med;
            /* The pool's cached block would sit beside the next way's blocks: with it alive,
             * every pair's timed second 1 MiB block cost 0.65-0.95 ms on the H200 (the first, it
             * seems, took the room beside the cached block), 2.8 us without it. */
            ZC_CHECK_IGNORE(zc_pool_trim(pool, 0));
        }
        char sz[32], line[160];
        zc__bench_size_str(b, sz, sizeof sz);
        zc__snprintf_c(line, sizeof line,
                       "%s%s: cudaHostAlloc %.0f us, zc_buffer_alloc %.0f us, pool hit %.1f us",
                       used ? "; " : "", sz, hostalloc_med, zc_med, hit_med);
        size_t len = strlen(line);
        if (used + len < sizeof summary) {
            memcpy(summary + used, line, len + 1);
            used += len;
        }
    }
    zc__snprintf_c(res->reason, sizeof res->reason, "%s", summary);
out:
    if (beside.raw != NULL)
        ZC_CHECK_IGNORE(zc__alloc_undo(ZC__ALLOC_HOSTALLOC_BESIDE, pool, &beside, NULL));
    free(alloc_s);
    free(free_s);
    zc_pool_destroy(pool);
    return st;
}
