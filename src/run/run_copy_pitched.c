/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pageable-copy cure for pitched copies: 2D (cuMemcpy2D, cuMemcpy2DUnaligned,
 * cuMemcpy2DAsync; the runtime's cudaMemcpy2D and cudaMemcpy2DAsync) and 3D (cuMemcpy3D,
 * cuMemcpy3DAsync; cudaMemcpy3D and cudaMemcpy3DAsync between host and linear device memory).
 * Rows between pageable host memory and device memory go through the staging buffers a block
 * of whole rows of one slice at a time, packed there at the copy's width, while the copy engine
 * moves the block before as a 2D copy; the device keeps its own pitch and slice height. CUDA's
 * semantics stay as for the plain copies (run_copy.c). A copy whose row is wider than a staging
 * buffer, one with a CUDA array on either side or a level of detail, or a pitch below the width
 * (or a slice height below the height), goes to the driver as it was.
 */
#include <stdint.h>
#include <string.h>

#include "run_config.h"
#include "run_copy.h"
#include "run_hooks.h"
#include "run_pipeline.h"
#include "run_workers.h"

/* One side of a pitched copy, as both CUDA_MEMCPY2D and CUDA_MEMCPY3D describe it. */
typedef struct zc__side_desc {
    CUmemorytype type;
    const void *host;
    CUdeviceptr device;
    size_t x, y, z;
    size_t pitch;
    size_t height; /* rows per slice (3D); unused for one slice */
    int lod;       /* a level of detail other than 0 (arrays only) */
} zc__side_desc;

/* A pitched copy: its two sides and its extent. */
typedef struct zc__pitched {
    zc__side_desc src, dst;
    size_t width, height, depth;
} zc__pitched;

/* One pitched copy the cure may take: the first byte of each side, its pitch and the bytes
 * between two slices. */
typedef struct zc__copy_rows {
    zc__run_dir dir;
    char *host;
    size_t host_pitch, host_slice;
    CUdeviceptr device;
    size_t device_pitch, device_slice;
    size_t width, height, depth;
    CUstream stream;
    int async;
    CUcontext ctx;
    zc__run_pin_use pin; /* ZC__PINNED: the pin it uses */
    uint64_t pin_ns;     /* ZC__PINNED: the time it took to pin the buffer, if this copy did */
} zc__copy_rows;

static zc__pitched zc__from_2d(const CUDA_MEMCPY2D *p)
{
    return (zc__pitched){.src = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes,
                                 p->srcY, 0, p->srcPitch, 0, 0},
                         .dst = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes,
                                 p->dstY, 0, p->dstPitch, 0, 0},
                         .width = p->WidthInBytes,
                         .height = p->Height,
                         .depth = 1};
}

static zc__pitched zc__from_peer(const CUDA_MEMCPY3D_PEER *p)
{
    return (zc__pitched){.src = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes,
                                 p->srcY, p->srcZ, p->srcPitch, p->srcHeight, p->srcLOD != 0},
                         .dst = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes,
                                 p->dstY, p->dstZ, p->dstPitch, p->dstHeight, p->dstLOD != 0},
                         .width = p->WidthInBytes,
                         .height = p->Height,
                         .depth = p->Depth};
}

static zc__pitched zc__from_3d(const CUDA_MEMCPY3D *p)
{
    return (zc__pitched){.src = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes,
                                 p->srcY, p->srcZ, p->srcPitch, p->srcHeight, p->srcLOD != 0},
                         .dst = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes,
                                 p->dstY, p->dstZ, p->dstPitch, p->dstHeight, p->dstLOD != 0},
                         .width = p->WidthInBytes,
                         .height = p->Height,
                         .depth = p->Depth};
}

/* a * b + c without overflow, else 0 with *ok cleared. */
static size_t zc__mad(size_t a, size_t b, size_t c, int *ok)
{
    if (b != 0 && a > (SIZE_MAX - c) / b) {
        *ok = 0;
        return 0;
    }
    return a * b + c;
}

/* The bytes between two slices of a side (0 for a single slice). */
static size_t zc__slice_bytes(const zc__side_desc *s, size_t depth, int *ok)
{
    return depth > 1 ? zc__mad(s->height, s->pitch, 0, ok) : 0;
}

/* The bytes a side spans from its first byte: (depth - 1) slices, (height - 1) pitches and a
 * row; 0 when that does not fit in an address (the driver's to refuse). */
static size_t zc__extent(const zc__side_desc *s, const zc__pitched *p)
{
    int ok = 1;
    size_t slice = zc__slice_bytes(s, p->depth, &ok);
    size_t rows = zc__mad(p->height - 1, s->pitch, p->width, &ok);
    size_t all = zc__mad(p->depth - 1, slice, rows, &ok);
    return ok ? all : 0;
}

/* The address of a side's first byte, or 0 when it does not fit in an address. */
static uintptr_t zc__first(const zc__side_desc *s, const zc__pitched *p)
{
    uintptr_t base = s->type == CU_MEMORYTYPE_HOST ? (uintptr_t)s->host : (uintptr_t)s->device;
    int ok = base != 0;
    size_t slice = zc__slice_bytes(s, p->depth, &ok);
    size_t offset = zc__mad(s->z, slice, zc__mad(s->y, s->pitch, s->x, &ok), &ok);
    if (!ok || offset > UINTPTR_MAX - base)
        return 0;
    return base + offset;
}

/* A side of a pitched copy: host memory, device memory, or neither (an array, a level of
 * detail, an address that does not fit). */
static zc__where zc__side(const zc__run_driver *d, const zc__side_desc *s, const zc__pitched *p,
                          uintptr_t *at_p)
{
    if ((s->type != CU_MEMORYTYPE_HOST && s->type != CU_MEMORYTYPE_DEVICE &&
         s->type != CU_MEMORYTYPE_UNIFIED) ||
        s->lod || (*at_p = zc__first(s, p)) == 0)
        return ZC__UNKNOWN;
    zc__where where = zc__run_classify(d, (CUdeviceptr)*at_p);
    /* A host-typed side must be host memory; a device-typed one device memory. */
    if (s->type == CU_MEMORYTYPE_HOST && where == ZC__DEVICE)
        return ZC__UNKNOWN;
    if (s->type == CU_MEMORYTYPE_DEVICE && where != ZC__DEVICE)
        return ZC__UNKNOWN;
    return where;
}

/* A side that may be host memory, from its type: its first byte and extent, or 0. */
static zc__plan zc__guard_side(const zc__run_driver *d, const zc__side_desc *s,
                               const zc__pitched *p, const zc__copy_rows *c)
{
    if (s->type != CU_MEMORYTYPE_HOST && s->type != CU_MEMORYTYPE_UNIFIED)
        return ZC__AS_IT_WAS;
    uintptr_t first = zc__first(s, p);
    return first == 0
               ? ZC__AS_IT_WAS
               : zc__run_copy_guard(d, (const void *)first, zc__extent(s, p), c->stream, c->async);
}

/* A pitched copy no cure takes: it still must not reach the driver as it was if either host
 * side touches a buffer pinned in place. */
static zc__plan zc__guard(const zc__run_driver *d, const zc__pitched *p, const zc__copy_rows *c)
{
    if (p->width == 0 || p->height == 0 || p->depth == 0)
        return ZC__AS_IT_WAS;
    zc__plan plan = zc__guard_side(d, &p->src, p, c);
    return plan != ZC__AS_IT_WAS ? plan : zc__guard_side(d, &p->dst, p, c);
}

zc__plan zc__run_pitched_guard_peer(const zc__run_driver *d, const CUDA_MEMCPY3D_PEER *p,
                                    CUstream stream)
{
    if (p == NULL)
        return ZC__AS_IT_WAS;
    zc__pitched pitched = zc__from_peer(p);
    zc__copy_rows c = {.stream = stream, .async = 1};
    return zc__guard(d, &pitched, &c);
}

/* Unpin for good whatever a host side of p touches. */
static void zc__refuse_side(const zc__side_desc *s, const zc__pitched *p)
{
    uintptr_t first;
    if ((s->type == CU_MEMORYTYPE_HOST || s->type == CU_MEMORYTYPE_UNIFIED) &&
        (first = zc__first(s, p)) != 0)
        zc__run_pins_refuse(first, zc__extent(s, p));
}

void zc__run_pitched_refuse_3d(const CUDA_MEMCPY3D *p)
{
    if (p == NULL || p->WidthInBytes == 0 || p->Height == 0 || p->Depth == 0)
        return;
    zc__pitched pitched = zc__from_3d(p);
    zc__refuse_side(&pitched.src, &pitched);
    zc__refuse_side(&pitched.dst, &pitched);
}

/* Fill c's sides from p when it is a copy between host and device memory; gives what the host
 * side is (ZC__PAGEABLE, or ZC__OTHER for page-locked memory), else ZC__UNKNOWN. */
static zc__where zc__sides(const zc__run_driver *d, const zc__pitched *p, zc__copy_rows *c)
{
    uintptr_t src = 0, dst = 0;
    zc__where from = zc__side(d, &p->src, p, &src), to = zc__side(d, &p->dst, p, &dst);
    const zc__side_desc *host, *device;
    zc__where host_where;
    int ok = 1;
    if ((from == ZC__PAGEABLE || from == ZC__OTHER) && to == ZC__DEVICE &&
        p->src.type != CU_MEMORYTYPE_DEVICE) {
        c->dir = ZC__RUN_H2D;
        c->host = (char *)src;
        c->device = dst;
        host = &p->src;
        device = &p->dst;
        host_where = from;
    } else if (from == ZC__DEVICE && (to == ZC__PAGEABLE || to == ZC__OTHER) &&
               p->dst.type != CU_MEMORYTYPE_DEVICE) {
        c->dir = ZC__RUN_D2H;
        c->host = (char *)dst;
        c->device = src;
        host = &p->dst;
        device = &p->src;
        host_where = to;
    } else {
        return ZC__UNKNOWN;
    }
    c->host_pitch = host->pitch;
    c->host_slice = zc__slice_bytes(host, p->depth, &ok);
    c->device_pitch = device->pitch;
    c->device_slice = zc__slice_bytes(device, p->depth, &ok);
    c->width = p->width;
    c->height = p->height;
    c->depth = p->depth;
    /* Rows that overlap (a pitch below the width, a slice below the rows), or sizes that do
     * not fit, are the driver's to refuse. */
    if (!ok || c->host_pitch < c->width || c->device_pitch < c->width ||
        (c->depth > 1 && (host->height < c->height || device->height < c->height)))
        return ZC__UNKNOWN;
    return host_where;
}

static zc__plan zc__plan_rows(const zc__pitched *p, zc__copy_rows *c)
{
    const zc__run_driver *d = zc__run_driver_get();
    c->pin.slot = -1;
    if (d == NULL || p->width == 0 || p->height == 0 || p->depth == 0)
        return ZC__AS_IT_WAS;
    if (!zc__run_copy_cures_on())
        return zc__guard(d, p, c);
    zc__where host_where = zc__sides(d, p, c);
    int ok = 1;
    size_t bytes = zc__mad(zc__mad(c->width, c->height, 0, &ok), c->depth, 0, &ok);
    size_t host_extent = zc__extent(c->dir == ZC__RUN_H2D ? &p->src : &p->dst, p);
    size_t extent = zc__extent(c->dir == ZC__RUN_H2D ? &p->dst : &p->src, p);
    if (host_where == ZC__UNKNOWN || !ok || host_extent == 0 || extent == 0 ||
        (uintptr_t)c->host + host_extent < (uintptr_t)c->host) {
        if (host_where == ZC__PAGEABLE)
            zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, bytes);
        return zc__guard(d, p, c);
    }
    const int too_wide = c->width > zc__run_config_get()->chunk_bytes;
    switch (zc__run_copy_touch(d, c->host, host_extent, c->dir, c->stream, c->async, &c->ctx,
                               &c->pin)) {
    case ZC__TOUCH_USE:
        return ZC__PINNED;
    case ZC__TOUCH_STAGE:
        return too_wide ? ZC__WAIT : zc__run_copy_plan_forced(d, c->device, extent, &c->ctx);
    case ZC__TOUCH_WAIT:
        return ZC__WAIT;
    case ZC__TOUCH_NONE:
        break;
    }
    if (host_where != ZC__PAGEABLE)
        return ZC__AS_IT_WAS;
    if (too_wide && !zc__run_copy_small(c->dir, bytes))
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, bytes); /* a row too wide */
    zc__plan plan = zc__run_copy_plan(d, c->dir, bytes, c->device, extent, c->stream, &c->ctx);
    /* The buffer is pinned in place when copies that start at its first byte have moved twice
     * its size: the host extent is what a pitched copy moves through it. */
    return zc__run_copy_pin_plan(d, plan, c->dir, c->host, host_extent, c->stream, c->async, c->ctx,
                                 &c->pin, &c->pin_ns);
}

/* A pitched copy cut in blocks of whole rows of one slice: piece k is block k % per_slice of
 * slice k / per_slice. */
typedef struct zc__blocks {
    const zc__copy_rows *c;
    size_t block;     /* rows per block */
    size_t per_slice; /* blocks per slice */
} zc__blocks;

/* Piece k's rows: how many, and where its first one starts on each side. */
static size_t zc__block_rows(const zc__blocks *p, size_t k, char **host_p, CUdeviceptr *device_p)
{
    const zc__copy_rows *c = p->c;
    size_t slice = k / p->per_slice, row = k % p->per_slice * p->block;
    *host_p = c->host + slice * c->host_slice + row * c->host_pitch;
    *device_p = c->device + slice * c->device_slice + row * c->device_pitch;
    return c->height - row < p->block ? c->height - row : p->block;
}

/* Pack a block's rows into a staging buffer at the copy's width, or unpack them, with every
 * thread. */
static void zc__host_side(const void *copy, size_t k, void *staging)
{
    const zc__blocks *p = copy;
    const zc__copy_rows *c = p->c;
    char *host;
    CUdeviceptr device;
    size_t rows = zc__block_rows(p, k, &host, &device);
    if (c->dir == ZC__RUN_H2D)
        zc__run_parallel_copy_2d(staging, c->width, host, c->host_pitch, c->width, rows);
    else
        zc__run_parallel_copy_2d(host, c->host_pitch, staging, c->width, c->width, rows);
}

/* Queue a block between a staging buffer (packed at the width) and the device (its pitch). */
static CUresult zc__device_side(const zc__run_driver *d, const void *copy, size_t k, void *staging,
                                CUstream stream)
{
    const zc__blocks *p = copy;
    const zc__copy_rows *c = p->c;
    char *host;
    CUdeviceptr device;
    size_t rows = zc__block_rows(p, k, &host, &device);
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    m.WidthInBytes = c->width;
    m.Height = rows;
    if (c->dir == ZC__RUN_H2D) {
        m.srcMemoryType = CU_MEMORYTYPE_HOST;
        m.srcHost = staging;
        m.srcPitch = c->width;
        m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        m.dstDevice = device;
        m.dstPitch = c->device_pitch;
    } else {
        m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        m.srcDevice = device;
        m.srcPitch = c->device_pitch;
        m.dstMemoryType = CU_MEMORYTYPE_HOST;
        m.dstHost = staging;
        m.dstPitch = c->width;
    }
    return d->memcpy_2d_async(&m, stream);
}

/* Run a cured pitched copy; 0 when no staging could be had (the caller leaves it as it was). */
static int zc__cure_rows(const zc__copy_rows *c, CUresult *result_p)
{
    const zc__run_driver *d = zc__run_driver_get();
    size_t bytes = c->width * c->height * c->depth;
    /* The clock starts before the staging is had: the first copy of a context pays for making
     * it, and the report says so. */
    uint64_t start = zc__run_now_ns();
    zc__run_staging *s = zc__run_staging_acquire(c->ctx);
    if (s == NULL) {
        zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, bytes);
        return 0;
    }
    /* Whole rows per block, about the chunk a plain copy of these bytes would take. */
    zc__blocks blocks = {.c = c, .block = zc__run_chunk_for(s, bytes) / c->width};
    if (blocks.block == 0)
        blocks.block = 1;
    blocks.per_slice = (c->height + blocks.block - 1) / blocks.block;
    zc__run_pipeline p = {.dir = c->dir,
                          .pieces = blocks.per_slice * c->depth,
                          .stream = c->stream,
                          .async = c->async,
                          .host_side = zc__host_side,
                          .device_side = zc__device_side,
                          .copy = &blocks};
    CUresult r = zc__run_pipeline_run(d, s, &p);
    zc__run_staging_release(s);
    if (r == CUDA_SUCCESS)
        zc__run_pageable_cured(ZC__RUN_STAGED, c->dir, bytes, zc__run_now_ns() - start);
    *result_p = r;
    return 1;
}

/* The driver's own entry point of a row of the hook table, called with the program's
 * arguments: a 2D or 3D copy, synchronous or not. */
typedef struct zc__call {
    zc__run_hook_id id;
    const void *params; /* CUDA_MEMCPY2D or CUDA_MEMCPY3D */
    CUstream stream;    /* as the program gave it */
    int async;
} zc__call;

typedef CUresult (*zc__sync_fn)(const void *);
typedef CUresult (*zc__async_fn)(const void *, CUstream);

/* Plan, then cure, or time the driver's own call as the sample, or give it to the driver on a
 * buffer pinned in place, or pass it on (waited for if it touches one). The per-thread forms'
 * stream 0 is the calling thread's default stream (CU_STREAM_PER_THREAD to the legacy entry
 * points the cure calls). */
static CUresult zc__dispatch(const zc__call *call, const zc__pitched *p, int per_thread)
{
    zc__copy_rows c = {.stream = zc__run_stream(call->stream, per_thread), .async = call->async};
    zc__plan plan = zc__plan_rows(p, &c);
    CUresult r;
    if (plan == ZC__CURE && zc__cure_rows(&c, &r))
        return r;
    void *real = zc__run_real(call->id);
    if (real == NULL) {
        zc__run_pin_done(&c.pin);
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    zc__run_copy_end end = {.plan = plan,
                            .dir = c.dir,
                            .bytes = c.width * c.height * c.depth,
                            .host = c.host,
                            .host_extent = zc__extent(c.dir == ZC__RUN_H2D ? &p->src : &p->dst, p),
                            .stream = c.stream,
                            .async = c.async,
                            .pin = &c.pin,
                            .pin_ns = c.pin_ns,
                            .start = zc__run_now_ns()};
    r = call->async ? ((zc__async_fn)real)(call->params, call->stream)
                    : ((zc__sync_fn)real)(call->params);
    return zc__run_copy_finish(&end, r);
}

static CUresult zc__dispatch_2d(zc__run_hook_id id, const CUDA_MEMCPY2D *p, CUstream stream,
                                int async, int per_thread)
{
    zc__pitched pitched = {.width = 0};
    if (p != NULL)
        pitched = zc__from_2d(p);
    zc__call call = {id, p, stream, async};
    return zc__dispatch(&call, &pitched, per_thread);
}

static CUresult zc__dispatch_3d(zc__run_hook_id id, const CUDA_MEMCPY3D *p, CUstream stream,
                                int async, int per_thread)
{
    zc__pitched pitched = {.width = 0};
    if (p != NULL)
        pitched = zc__from_3d(p);
    zc__call call = {id, p, stream, async};
    return zc__dispatch(&call, &pitched, per_thread);
}

CUresult zc__hook_MEMCPY_2D(const CUDA_MEMCPY2D *p)
{
    return zc__dispatch_2d(ZC__HOOK_MEMCPY_2D, p, NULL, 0, 0);
}

CUresult zc__hook_MEMCPY_2D_PTDS(const CUDA_MEMCPY2D *p)
{
    return zc__dispatch_2d(ZC__HOOK_MEMCPY_2D_PTDS, p, NULL, 0, 1);
}

CUresult zc__hook_MEMCPY_2D_UNALIGNED(const CUDA_MEMCPY2D *p)
{
    return zc__dispatch_2d(ZC__HOOK_MEMCPY_2D_UNALIGNED, p, NULL, 0, 0);
}

CUresult zc__hook_MEMCPY_2D_UNALIGNED_PTDS(const CUDA_MEMCPY2D *p)
{
    return zc__dispatch_2d(ZC__HOOK_MEMCPY_2D_UNALIGNED_PTDS, p, NULL, 0, 1);
}

CUresult zc__hook_MEMCPY_2D_ASYNC(const CUDA_MEMCPY2D *p, CUstream stream)
{
    return zc__dispatch_2d(ZC__HOOK_MEMCPY_2D_ASYNC, p, stream, 1, 0);
}

CUresult zc__hook_MEMCPY_2D_ASYNC_PTSZ(const CUDA_MEMCPY2D *p, CUstream stream)
{
    return zc__dispatch_2d(ZC__HOOK_MEMCPY_2D_ASYNC_PTSZ, p, stream, 1, 1);
}

CUresult zc__hook_MEMCPY_3D(const CUDA_MEMCPY3D *p)
{
    return zc__dispatch_3d(ZC__HOOK_MEMCPY_3D, p, NULL, 0, 0);
}

CUresult zc__hook_MEMCPY_3D_PTDS(const CUDA_MEMCPY3D *p)
{
    return zc__dispatch_3d(ZC__HOOK_MEMCPY_3D_PTDS, p, NULL, 0, 1);
}

CUresult zc__hook_MEMCPY_3D_ASYNC(const CUDA_MEMCPY3D *p, CUstream stream)
{
    return zc__dispatch_3d(ZC__HOOK_MEMCPY_3D_ASYNC, p, stream, 1, 0);
}

CUresult zc__hook_MEMCPY_3D_ASYNC_PTSZ(const CUDA_MEMCPY3D *p, CUstream stream)
{
    return zc__dispatch_3d(ZC__HOOK_MEMCPY_3D_ASYNC_PTSZ, p, stream, 1, 1);
}
