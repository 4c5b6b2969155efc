/* SPDX-License-Identifier: Apache-2.0 */
/* The ways of getting pinned host memory that the pinning family sets against its floor, one
 * row each: the calls a program writes by hand, PyTorch's register path's shape (malloc'd memory
 * registered), zerocopy's own, and the floor's first touch, with the check of what each made. */
#include <stdio.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "bench/pinning.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "mem/pages.h"
#include "zerocopy/clock.h"

static double zc__pin_since(uint64_t t0)
{
    return (double)(zc_clock_ns() - t0) / 1e9;
}

/* The floor: fresh pages (huge ones when huge is set) first touched by every CPU this process
 * may use. */
static zc_status zc__pin_floor(size_t bytes, int device, int huge, zc__pin_made *made, double *s)
{
    (void)device;
    ZC_CHECK(zc__pin_region_map(bytes, huge, &made->region));
    zc_status st = zc__pin_region_touch(&made->region, 0, &s[0]);
    if (st != ZC_OK)
        ZC_CHECK_IGNORE(zc__pin_region_unmap(&made->region, NULL));
    return st;
}

static zc_status zc__pin_floor_undo(zc__pin_made *made, double *seconds_p)
{
    return zc__pin_region_unmap(&made->region, seconds_p);
}

/* cudaHostAlloc(cudaHostAllocDefault), the pinned kind's exact call (src/mem/exact.h). */
static zc_status zc__pin_host_alloc(size_t bytes, int device, int option, zc__pin_made *made,
                                    double *s)
{
    (void)device;
    (void)option;
    uint64_t t0 = zc_clock_ns();
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_PINNED, bytes, &made->host));
    s[0] = zc__pin_since(t0);
    return ZC_OK;
}

/* cudaMallocHost: the same kind by the call CUDA's samples and many programs use
 * (zc__mem_exact_malloc_host). */
static zc_status zc__pin_malloc_host(size_t bytes, int device, int option, zc__pin_made *made,
                                     double *s)
{
    (void)device;
    (void)option;
    uint64_t t0 = zc_clock_ns();
    ZC_CHECK(zc__mem_exact_malloc_host(bytes, &made->host));
    s[0] = zc__pin_since(t0);
    return ZC_OK;
}

static zc_status zc__pin_free_host(zc__pin_made *made, double *seconds_p)
{
    uint64_t t0 = zc_clock_ns();
    zc_status st = zc__mem_exact_free_checked(ZC_BUFFER_PINNED, made->host);
    if (seconds_p != NULL)
        *seconds_p = zc__pin_since(t0);
    made->host = NULL;
    return st;
}

/* malloc'd memory (the pageable kind's exact call) registered in place
 * (cudaHostRegisterDefault), as PyTorch's register knob and a program pinning its own buffer do:
 * touched first (one byte a page on the calling thread, as a program that filled it) when touch
 * is set, or fresh, when cudaHostRegister faults the pages in itself. */
static zc_status zc__pin_register(size_t bytes, int device, int touch, zc__pin_made *made,
                                  double *s)
{
    (void)device;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_PAGEABLE, bytes, &made->raw));
    uint64_t t0 = zc_clock_ns();
    if (touch)
        zc__pages_touch(made->raw, bytes, 1);
    uint64_t t1 = zc_clock_ns();
    zc_status st = zc__mem_exact_register(made->raw, bytes, 0);
    if (st != ZC_OK) {
        zc__mem_exact_free(ZC_BUFFER_PAGEABLE, made->raw);
        made->raw = NULL;
        return st;
    }
    s[0] = zc__pin_since(t1);
    s[1] = zc__pin_since(t0);
    made->host = made->raw;
    return ZC_OK;
}

static zc_status zc__pin_unregister(zc__pin_made *made, double *seconds_p)
{
    uint64_t t0 = zc_clock_ns();
    /* Timed and checked here: the checked form, not exact.h's cleanup one. */
    zc_status st = zc__mem_exact_unregister_checked(made->raw);
    /* Unregistering leaves the memory to its owner. */
    zc__mem_exact_free(ZC_BUFFER_PAGEABLE, made->raw);
    if (seconds_p != NULL)
        *seconds_p = zc__pin_since(t0);
    made->raw = made->host = NULL;
    return st;
}

/* zerocopy's own path: zc_buffer_alloc(ZC_BUFFER_PINNED), huge-page-aligned pages registered
 * above ZC_PIN_REGISTER_THRESHOLD beside the threads that touch them (core/page_touch.h). */
static zc_status zc__pin_zc(size_t bytes, int device, int option, zc__pin_made *made, double *s)
{
    (void)option;
    uint64_t t0 = zc_clock_ns();
    ZC_CHECK(zc_buffer_alloc(bytes, ZC_BUFFER_PINNED, 0, device, &made->buf));
    s[0] = zc__pin_since(t0);
    made->host = zc_buffer_host_ptr(made->buf);
    return ZC_OK;
}

static zc_status zc__pin_zc_free(zc__pin_made *made, double *seconds_p)
{
    uint64_t t0 = zc_clock_ns();
    zc_status st = zc_buffer_free(made->buf);
    if (seconds_p != NULL)
        *seconds_p = zc__pin_since(t0);
    made->buf = NULL;
    made->host = NULL;
    return st;
}

const zc__pin_way zc__pin_ways[ZC__PIN_WAY_COUNT] = {
    [ZC__PIN_FLOOR_4K] = {"floor 4 KiB pages",
                          "floor 4 KiB",
                          {"touch", NULL, "munmap"},
                          1,
                          0,
                          0,
                          zc__pin_floor,
                          zc__pin_floor_undo},
    [ZC__PIN_FLOOR_THP] =
        {"floor THP", "THP", {"touch", NULL, "munmap"}, 1, 0, 1, zc__pin_floor, zc__pin_floor_undo},
    {"cudaHostAlloc",
     "cudaHostAlloc",
     {"allocate", NULL, "free"},
     0,
     0,
     0,
     zc__pin_host_alloc,
     zc__pin_free_host},
    {"cudaMallocHost",
     "cudaMallocHost",
     {"allocate", NULL, "free"},
     0,
     0,
     0,
     zc__pin_malloc_host,
     zc__pin_free_host},
    {"malloc+cudaHostRegister",
     "register fresh",
     {"register", NULL, "unregister+free"},
     0,
     1,
     0,
     zc__pin_register,
     zc__pin_unregister},
    {"malloc+touch+cudaHostRegister",
     "touch+register",
     {"register", "touch+register", "unregister+free"},
     0,
     1,
     1,
     zc__pin_register,
     zc__pin_unregister},
    {"zc_buffer_alloc pinned",
     "zerocopy",
     {"allocate", NULL, "free"},
     0,
     0,
     0,
     zc__pin_zc,
     zc__pin_zc_free},
};

/* A floor's check: every page it touched is in memory. */
static zc_status zc__pin_check_floor(const char *key, const zc__pin_way *way,
                                     const zc__pin_made *made)
{
    size_t resident = 0, pages = 0;
    ZC_CHECK(zc__pin_region_resident(&made->region, &resident, &pages));
    if (resident != pages)
        return ZC_FAIL(ZC_ERR_VERIFY, "%s: %s: %zu of %zu pages not resident after the touch", key,
                       way->name, pages - resident, pages);
    return ZC_OK;
}

/* One span of pinned memory to the GPU and back: a pattern out, checked there; another written
 * there, back over the first, checked here. */
static zc_status zc__pin_round_trip(zc_bench_ctx *ctx, const char *key, const char *what, char *at,
                                    size_t span, void *scratch)
{
    uint32_t seed = zc__bench_seed(ctx);
    zc__pattern_fill(at, span, seed);
    if (zc__bench_corrupt(ctx, key))
        ZC_CHECK(zc__corrupt_host(at, span));
    ZC_CUDA_RETURN(cudaMemcpy(scratch, at, span, cudaMemcpyHostToDevice));
    ZC_CHECK(zc__verify_device(ctx, key, what, scratch, span, seed));
    uint32_t back = zc__bench_seed(ctx);
    ZC_CHECK(zc__k_fill(scratch, span, back, ctx->info.sm_count, ctx->streams[0]));
    ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
    ZC_CUDA_RETURN(cudaMemcpy(at, scratch, span, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    if (!zc__pattern_check(at, span, back, 0, &bad))
        return zc__verify_fail_host(key, what, span, at, bad, back);
    return ZC_OK;
}

/* The round trip's span at each place: enough to cross pages, little beside the pinning. */
#define ZC__PIN_SPAN ((size_t)64 << 10)

zc_status zc__pin_check(zc_bench_ctx *ctx, const char *key, const zc__pin_way *way,
                        const zc__pin_made *made, size_t bytes)
{
    ZC_REQUIRE_ARG(ctx);
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(way);
    ZC_REQUIRE_ARG(made);
    if (way->floor)
        return zc__pin_check_floor(key, way, made);
    if (made->host == NULL || bytes < 4)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__pin_check: %s made %zu bytes at %p", way->name,
                       bytes, made->host);
    /* Pageable memory would copy as well (staged): the runtime must call it pinned. */
    struct cudaPointerAttributes attr;
    ZC_CUDA_RETURN(cudaPointerGetAttributes(&attr, made->host));
    if (attr.type != cudaMemoryTypeHost)
        return ZC_FAIL(ZC_ERR_VERIFY,
                       "%s: %s: the runtime does not call the memory pinned (type %d)", key,
                       way->name, (int)attr.type);
    size_t span = (bytes < ZC__PIN_SPAN ? bytes : ZC__PIN_SPAN) & ~(size_t)3;
    void *scratch = NULL;
    ZC_CHECK(zc__bench_device(ctx, 0, ZC__PIN_SPAN, &scratch));
    const size_t at[3] = {0, (bytes / 2 - span / 2) & ~(size_t)3, (bytes - span) & ~(size_t)3};
    static const char *const where[3] = {"start", "middle", "end"};
    for (int i = 0; i < 3; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s, round trip at its %s", way->name, where[i]);
        ZC_CHECK(zc__pin_round_trip(ctx, key, what, (char *)made->host + at[i], span, scratch));
    }
    return ZC_OK;
}
