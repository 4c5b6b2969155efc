/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pageable-copy cure for 2D copies (cuMemcpy2D, cuMemcpy2DUnaligned, cuMemcpy2DAsync; the
 * runtime's cudaMemcpy2D and cudaMemcpy2DAsync): rows between pageable host memory and device
 * memory go through the staging buffers a block of whole rows at a time, packed there at the
 * copy's width, while the copy engine moves the block before; the device keeps its own pitch.
 * CUDA's semantics stay as for the plain copies (run_copy.c). A 2D copy whose row is wider than
 * a staging buffer, one with a CUDA array on either side, or a pitch below the width, goes to
 * the driver as it was.
 */
#include <stdint.h>
#include <string.h>

#include "run_config.h"
#include "run_copy.h"
#include "run_hooks.h"
#include "run_pipeline.h"
#include "run_workers.h"

/* One 2D copy the cure may take: the first byte of each side and its pitch. */
typedef struct zc__copy_2d {
    zc__run_dir dir;
    char *host;
    size_t host_pitch;
    CUdeviceptr device;
    size_t device_pitch;
    size_t width, height;
    CUstream stream;
    int async;
    CUcontext ctx;
} zc__copy_2d;

/* A side of a 2D copy: host memory (its pointer), device memory, or neither. */
static zc__where zc__side(const zc__run_driver *d, CUmemorytype type, const void *host,
                          CUdeviceptr device, size_t x, size_t y, size_t pitch, uintptr_t *at_p)
{
    uintptr_t base = type == CU_MEMORYTYPE_HOST ? (uintptr_t)host : (uintptr_t)device;
    if ((type != CU_MEMORYTYPE_HOST && type != CU_MEMORYTYPE_DEVICE &&
         type != CU_MEMORYTYPE_UNIFIED) ||
        base == 0 || (pitch != 0 && y > (UINTPTR_MAX - base - x) / pitch))
        return ZC__OTHER;
    *at_p = base + y * pitch + x;
    zc__where where = zc__run_classify(d, (CUdeviceptr)*at_p);
    /* A host-typed side must be host memory; a device-typed one device memory. */
    if (type == CU_MEMORYTYPE_HOST && where == ZC__DEVICE)
        return ZC__OTHER;
    if (type == CU_MEMORYTYPE_DEVICE && where != ZC__DEVICE)
        return ZC__OTHER;
    return where;
}

static zc__plan zc__plan_2d(const CUDA_MEMCPY2D *p, zc__copy_2d *c)
{
    const zc__run_driver *d = zc__run_driver_get();
    if (d == NULL || !zc__run_fix_on(ZC_RUN_FIX_PAGEABLE) || p == NULL || p->WidthInBytes == 0 ||
        p->Height == 0)
        return ZC__AS_IT_WAS;
    uintptr_t src = 0, dst = 0;
    zc__where from = zc__side(d, p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes,
                              p->srcY, p->srcPitch, &src);
    zc__where to = zc__side(d, p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY,
                            p->dstPitch, &dst);
    c->width = p->WidthInBytes;
    c->height = p->Height;
    if (from == ZC__PAGEABLE && to == ZC__DEVICE) {
        *c = (zc__copy_2d){.dir = ZC__RUN_H2D,
                           .host = (char *)src,
                           .host_pitch = p->srcPitch,
                           .device = dst,
                           .device_pitch = p->dstPitch,
                           .width = c->width,
                           .height = c->height,
                           .stream = c->stream,
                           .async = c->async};
    } else if (from == ZC__DEVICE && to == ZC__PAGEABLE) {
        *c = (zc__copy_2d){.dir = ZC__RUN_D2H,
                           .host = (char *)dst,
                           .host_pitch = p->dstPitch,
                           .device = src,
                           .device_pitch = p->srcPitch,
                           .width = c->width,
                           .height = c->height,
                           .stream = c->stream,
                           .async = c->async};
    } else {
        return ZC__AS_IT_WAS; /* not a pageable copy: nothing to cure */
    }
    /* The bytes each side spans: (height - 1) pitches and a row; a pitch below the width, or
     * an extent that does not fit in an address, is the driver's to refuse. */
    size_t bytes = c->width * c->height;
    if (c->host_pitch < c->width || c->device_pitch < c->width || bytes / c->height != c->width ||
        (c->height - 1) > (SIZE_MAX - c->width) / c->host_pitch ||
        (c->height - 1) > (SIZE_MAX - c->width) / c->device_pitch ||
        (uintptr_t)c->host + (c->height - 1) * c->host_pitch + c->width < (uintptr_t)c->host) {
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, bytes);
    }
    size_t extent = (c->height - 1) * c->device_pitch + c->width;
    if (c->width > zc__run_config_get()->chunk_bytes && !zc__run_copy_small(c->dir, bytes)) {
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, bytes); /* a row too wide */
    }
    return zc__run_copy_plan(d, c->dir, bytes, c->device, extent, c->stream, &c->ctx);
}

/* A 2D copy cut in blocks of whole rows: piece k is the block from row k * block. */
typedef struct zc__blocks {
    const zc__copy_2d *c;
    size_t block;
} zc__blocks;

static size_t zc__block_rows(const zc__blocks *p, size_t k, size_t *row_p)
{
    *row_p = k * p->block;
    return p->c->height - *row_p < p->block ? p->c->height - *row_p : p->block;
}

/* Pack a block's rows into a staging buffer at the copy's width, or unpack them, with every
 * thread. */
static void zc__host_side(const void *copy, size_t k, void *staging)
{
    const zc__blocks *p = copy;
    const zc__copy_2d *c = p->c;
    size_t row, rows = zc__block_rows(p, k, &row);
    char *host = c->host + row * c->host_pitch;
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
    const zc__copy_2d *c = p->c;
    size_t row, rows = zc__block_rows(p, k, &row);
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    m.WidthInBytes = c->width;
    m.Height = rows;
    if (c->dir == ZC__RUN_H2D) {
        m.srcMemoryType = CU_MEMORYTYPE_HOST;
        m.srcHost = staging;
        m.srcPitch = c->width;
        m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        m.dstDevice = c->device + row * c->device_pitch;
        m.dstPitch = c->device_pitch;
    } else {
        m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        m.srcDevice = c->device + row * c->device_pitch;
        m.srcPitch = c->device_pitch;
        m.dstMemoryType = CU_MEMORYTYPE_HOST;
        m.dstHost = staging;
        m.dstPitch = c->width;
    }
    return d->memcpy_2d_async(&m, stream);
}

/* Run a cured 2D copy; 0 when no staging could be had (the caller leaves it as it was). */
static int zc__cure_2d(const zc__copy_2d *c, CUresult *result_p)
{
    const zc__run_driver *d = zc__run_driver_get();
    size_t bytes = c->width * c->height;
    zc__run_staging *s = zc__run_staging_acquire(c->ctx);
    if (s == NULL) {
        zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, bytes);
        return 0;
    }
    /* Whole rows per block, about the chunk a plain copy of these bytes would take. */
    zc__blocks blocks = {.c = c, .block = zc__run_chunk_for(s, bytes) / c->width};
    if (blocks.block == 0)
        blocks.block = 1;
    zc__run_pipeline p = {.dir = c->dir,
                          .pieces = (c->height + blocks.block - 1) / blocks.block,
                          .stream = c->stream,
                          .async = c->async,
                          .host_side = zc__host_side,
                          .device_side = zc__device_side,
                          .copy = &blocks};
    uint64_t start = zc__run_now_ns();
    CUresult r = zc__run_pipeline_run(d, s, &p);
    zc__run_staging_release(s);
    if (r == CUDA_SUCCESS)
        zc__run_pageable_cured(c->dir, bytes, zc__run_now_ns() - start);
    *result_p = r;
    return 1;
}

typedef CUresult (*zc__copy_2d_fn)(const CUDA_MEMCPY2D *);
typedef CUresult (*zc__copy_2d_async_fn)(const CUDA_MEMCPY2D *, CUstream);

/* Plan, then cure, or time the driver's own call as the sample, or pass it on untouched. The
 * per-thread forms' stream 0 is the calling thread's default stream (CU_STREAM_PER_THREAD to the
 * legacy entry points the cure calls). */
static CUresult zc__dispatch_2d(zc__run_hook_id id, const CUDA_MEMCPY2D *p, CUstream stream,
                                int async, int per_thread)
{
    zc__copy_2d c = {.stream = per_thread && stream == NULL ? CU_STREAM_PER_THREAD : stream,
                     .async = async};
    zc__plan plan = zc__plan_2d(p, &c);
    CUresult r;
    if (plan == ZC__CURE && zc__cure_2d(&c, &r))
        return r;
    void *real = zc__run_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    uint64_t start = zc__run_now_ns();
    r = async ? ((zc__copy_2d_async_fn)real)(p, stream) : ((zc__copy_2d_fn)real)(p);
    if (plan == ZC__SAMPLE && r == CUDA_SUCCESS)
        zc__run_pageable_sampled(c.dir, c.width * c.height, zc__run_now_ns() - start);
    return r;
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
