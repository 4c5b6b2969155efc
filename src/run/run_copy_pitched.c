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
 * (or a slice height below the height), goes to the driver as it was. A slice offset (z) counts
 * whatever the depth: a copy of one slice at z = 2 reads or writes slice 2, as the driver does.
 */
#include <stdint.h>
#include <string.h>

#include "run_config.h"
#include "run_copy.h"
#include "run_cures.h"
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

/* One pitched copy the cure may take: the copy as the rows see it, then each side's pitch and
 * the bytes between two slices. */
typedef struct zc__copy_rows {
    zc__run_copy c; /* first: the shape's stage is handed the zc__run_copy */
    size_t host_pitch, host_slice;
    size_t device_pitch, device_slice;
    size_t width, height, depth;
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

/* The bytes between two slices of a side (0 for a 2D copy, whose height is 0). Whatever the
 * depth: a copy of one slice at z > 0 starts z slices in. */
static size_t zc__slice_bytes(const zc__side_desc *s, int *ok)
{
    return zc__mad(s->height, s->pitch, 0, ok);
}

/* The bytes a side spans from its first byte: (depth - 1) slices, (height - 1) pitches and a
 * row; 0 when that does not fit in an address (the driver's to refuse). */
static size_t zc__extent(const zc__side_desc *s, const zc__pitched *p)
{
    int ok = 1;
    size_t slice = zc__slice_bytes(s, &ok);
    size_t rows = zc__mad(p->height - 1, s->pitch, p->width, &ok);
    size_t all = zc__mad(p->depth - 1, slice, rows, &ok);
    return ok ? all : 0;
}

/* The address of a side's first byte, or 0 when it does not fit in an address. */
static uintptr_t zc__first(const zc__side_desc *s, const zc__pitched *p)
{
    uintptr_t base = s->type == CU_MEMORYTYPE_HOST ? (uintptr_t)s->host : (uintptr_t)s->device;
    int ok = base != 0;
    size_t slice = zc__slice_bytes(s, &ok);
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

/* A side that may be host memory (host or unified by its type): its first byte and the bytes it
 * spans, or 0. */
static const void *zc__host_range(const zc__side_desc *s, const zc__pitched *p, size_t *extent_p)
{
    if (s->type != CU_MEMORYTYPE_HOST && s->type != CU_MEMORYTYPE_UNIFIED)
        return NULL;
    uintptr_t first = zc__first(s, p);
    *extent_p = first != 0 ? zc__extent(s, p) : 0;
    return *extent_p != 0 ? (const void *)first : NULL;
}

/* A pitched copy no row stages: described by the host ranges it may touch, which a cure may
 * still have to guard. */
static void zc__describe_guard(zc__run_copy *c, const zc__pitched *p)
{
    c->kind = ZC__COPY_GUARD;
    c->guard[0] = zc__host_range(&p->src, p, &c->guard_extent[0]);
    c->guard[1] = zc__host_range(&p->dst, p, &c->guard_extent[1]);
}

int zc__run_describe_peer(zc__run_copy *c, const CUDA_MEMCPY3D_PEER *p)
{
    if (c->d == NULL || p == NULL || p->WidthInBytes == 0 || p->Height == 0 || p->Depth == 0)
        return 0;
    zc__pitched pitched = zc__from_peer(p);
    zc__describe_guard(c, &pitched);
    return 1;
}

void zc__run_pitched_in_graph(const CUDA_MEMCPY3D *p)
{
    if (p == NULL || p->WidthInBytes == 0 || p->Height == 0 || p->Depth == 0)
        return;
    zc__pitched pitched = zc__from_3d(p);
    const zc__side_desc *sides[] = {&pitched.src, &pitched.dst};
    for (int i = 0; i < 2; i++) {
        size_t extent;
        const void *host = zc__host_range(sides[i], &pitched, &extent);
        if (host != NULL) {
            zc__run_event e = {.id = ZC__EVENT_RANGE_IN_GRAPH,
                               .start = (uintptr_t)host,
                               .length = extent,
                               .may_call_cuda = 1};
            zc__run_raise(&e);
        }
    }
}

/* Fill r's sides from p when it is a copy between host and device memory; gives what the host
 * side is (ZC__PAGEABLE, or ZC__OTHER for page-locked memory), else ZC__UNKNOWN. *placeable_p
 * says whether the cures can place it (its ranges sound and inside the address space). */
static zc__where zc__sides(const zc__run_driver *d, const zc__pitched *p, zc__copy_rows *r,
                           int *placeable_p)
{
    uintptr_t src = 0, dst = 0;
    zc__where from = zc__side(d, &p->src, p, &src), to = zc__side(d, &p->dst, p, &dst);
    const zc__side_desc *host, *device;
    zc__where host_where;
    int ok = 1;
    if ((from == ZC__PAGEABLE || from == ZC__OTHER) && to == ZC__DEVICE &&
        p->src.type != CU_MEMORYTYPE_DEVICE) {
        r->c.dir = ZC__RUN_H2D;
        r->c.host = (char *)src;
        r->c.device = dst;
        host = &p->src;
        device = &p->dst;
        host_where = from;
    } else if (from == ZC__DEVICE && (to == ZC__PAGEABLE || to == ZC__OTHER) &&
               p->dst.type != CU_MEMORYTYPE_DEVICE) {
        r->c.dir = ZC__RUN_D2H;
        r->c.host = (char *)dst;
        r->c.device = src;
        host = &p->dst;
        device = &p->src;
        host_where = to;
    } else {
        return ZC__UNKNOWN;
    }
    r->host_pitch = host->pitch;
    r->host_slice = zc__slice_bytes(host, &ok);
    r->device_pitch = device->pitch;
    r->device_slice = zc__slice_bytes(device, &ok);
    r->width = p->width;
    r->height = p->height;
    r->depth = p->depth;
    r->c.host_extent = zc__extent(host, p);
    r->c.device_extent = zc__extent(device, p);
    r->c.bytes = zc__mad(zc__mad(p->width, p->height, 0, &ok), p->depth, 0, &ok);
    /* Rows that overlap (a pitch below the width, a slice below the rows), sizes that do not
     * fit, or a host range past the last address are the driver's to refuse. */
    *placeable_p = ok && r->host_pitch >= r->width && r->device_pitch >= r->width &&
                   (r->depth == 1 || (host->height >= r->height && device->height >= r->height)) &&
                   r->c.host_extent != 0 && r->c.device_extent != 0 &&
                   (uintptr_t)r->c.host + r->c.host_extent >= (uintptr_t)r->c.host &&
                   !zc__run_host_unusable(r->c.host);
    return host_where;
}

static const zc__run_shape zc__rows_shape;

/* Describe a pitched copy for the rows: between host and device memory, or only guarded; 0 when
 * there is nothing to ask (it goes as it was). */
static int zc__describe_rows(const zc__pitched *p, zc__copy_rows *r)
{
    zc__run_copy *c = &r->c;
    if (c->d == NULL || p->width == 0 || p->height == 0 || p->depth == 0)
        return 0;
    int placeable = 0;
    zc__where host_where = zc__sides(c->d, p, r, &placeable);
    if (host_where == ZC__UNKNOWN || !placeable) {
        /* A pageable copy the cures cannot place: counted, then only guarded. */
        if (host_where == ZC__PAGEABLE)
            zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, c->bytes);
        zc__describe_guard(c, p);
        return 1;
    }
    if (host_where == ZC__OTHER && !zc__run_view_changed((uintptr_t)c->host, c->host_extent))
        return 0;
    c->kind = ZC__COPY_HOST_DEVICE;
    c->host_where = host_where;
    c->row = r->width;
    c->shape = &zc__rows_shape;
    return 1;
}

/* A pitched copy cut in blocks of whole rows of one slice: piece k is block k % per_slice of
 * slice k / per_slice. */
typedef struct zc__blocks {
    const zc__copy_rows *r;
    size_t block;     /* rows per block */
    size_t per_slice; /* blocks per slice */
} zc__blocks;

/* Piece k's rows: how many, and where its first one starts on each side. */
static size_t zc__block_rows(const zc__blocks *p, size_t k, char **host_p, CUdeviceptr *device_p)
{
    const zc__copy_rows *r = p->r;
    size_t slice = k / p->per_slice, row = k % p->per_slice * p->block;
    *host_p = r->c.host + slice * r->host_slice + row * r->host_pitch;
    *device_p = r->c.device + slice * r->device_slice + row * r->device_pitch;
    return r->height - row < p->block ? r->height - row : p->block;
}

/* Pack a block's rows into a staging buffer at the copy's width, or unpack them, with every
 * thread. */
static void zc__host_side(const void *copy, size_t k, void *staging)
{
    const zc__blocks *p = copy;
    const zc__copy_rows *r = p->r;
    char *host;
    CUdeviceptr device;
    size_t rows = zc__block_rows(p, k, &host, &device);
    if (r->c.dir == ZC__RUN_H2D)
        zc__run_parallel_copy_2d(staging, r->width, host, r->host_pitch, r->width, rows);
    else
        zc__run_parallel_copy_2d(host, r->host_pitch, staging, r->width, r->width, rows);
}

/* Queue a block between a staging buffer (packed at the width) and the device (its pitch). */
static CUresult zc__device_side(const zc__run_driver *d, const void *copy, size_t k, void *staging,
                                CUstream stream)
{
    const zc__blocks *p = copy;
    const zc__copy_rows *r = p->r;
    char *host;
    CUdeviceptr device;
    size_t rows = zc__block_rows(p, k, &host, &device);
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    m.WidthInBytes = r->width;
    m.Height = rows;
    if (r->c.dir == ZC__RUN_H2D) {
        m.srcMemoryType = CU_MEMORYTYPE_HOST;
        m.srcHost = staging;
        m.srcPitch = r->width;
        m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        m.dstDevice = device;
        m.dstPitch = r->device_pitch;
    } else {
        m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        m.srcDevice = device;
        m.srcPitch = r->device_pitch;
        m.dstMemoryType = CU_MEMORYTYPE_HOST;
        m.dstHost = staging;
        m.dstPitch = r->width;
    }
    return d->memcpy_2d_async(&m, stream);
}

/* Whole rows per block, about the chunk a plain copy of these bytes would take. */
static CUresult zc__stage_rows(const zc__run_copy *c, zc__run_staging *s)
{
    const zc__copy_rows *r = (const zc__copy_rows *)c;
    zc__blocks blocks = {.r = r, .block = zc__run_chunk_for(s, c->bytes) / r->width};
    if (blocks.block == 0)
        blocks.block = 1;
    blocks.per_slice = (r->height + blocks.block - 1) / blocks.block;
    zc__run_pipeline p = {.dir = c->dir,
                          .pieces = blocks.per_slice * r->depth,
                          .stream = c->stream,
                          .async = c->async,
                          .host_side = zc__host_side,
                          .device_side = zc__device_side,
                          .copy = &blocks};
    return zc__run_pipeline_run(c->d, s, &p);
}

static const zc__run_shape zc__rows_shape = {zc__stage_rows};

/* The driver's own entry point of a row of the hook table, called with the program's
 * arguments: a 2D or 3D copy, synchronous or not. */
typedef struct zc__call {
    zc__run_hook_id id;
    const void *params; /* CUDA_MEMCPY2D or CUDA_MEMCPY3D */
    CUstream stream;    /* as the program gave it */
} zc__call;

typedef CUresult (*zc__sync_fn)(const void *);
typedef CUresult (*zc__async_fn)(const void *, CUstream);

static CUresult zc__call_sync(const zc__run_copy *c)
{
    const zc__call *call = c->args;
    zc__sync_fn real = (zc__sync_fn)zc__run_real(call->id);
    return real != NULL ? real(call->params) : CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult zc__call_async(const zc__run_copy *c)
{
    const zc__call *call = c->args;
    zc__async_fn real = (zc__async_fn)zc__run_real(call->id);
    return real != NULL ? real(call->params, call->stream) : CUDA_ERROR_NOT_INITIALIZED;
}

/* Describe, then dispatch through the cure table; the per-thread forms' stream 0 is the calling
 * thread's default stream (CU_STREAM_PER_THREAD to the legacy entry points the cure calls). */
static CUresult zc__dispatch(const zc__call *call, const zc__pitched *p, int async, int per_thread)
{
    zc__copy_rows r;
    zc__run_copy_init(&r.c, async ? zc__call_async : zc__call_sync, call, call->stream, per_thread,
                      async);
    if (!zc__describe_rows(p, &r))
        return r.c.call(&r.c);
    return zc__run_copy_dispatch(&r.c);
}

static CUresult zc__dispatch_2d(zc__run_hook_id id, const CUDA_MEMCPY2D *p, CUstream stream,
                                int async, int per_thread)
{
    zc__pitched pitched = {.width = 0};
    if (p != NULL)
        pitched = zc__from_2d(p);
    zc__call call = {id, p, stream};
    return zc__dispatch(&call, &pitched, async, per_thread);
}

static CUresult zc__dispatch_3d(zc__run_hook_id id, const CUDA_MEMCPY3D *p, CUstream stream,
                                int async, int per_thread)
{
    zc__pitched pitched = {.width = 0};
    if (p != NULL)
        pitched = zc__from_3d(p);
    zc__call call = {id, p, stream};
    return zc__dispatch(&call, &pitched, async, per_thread);
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
