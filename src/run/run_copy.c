/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plain copies' hooks, and what every copy's planning shares. A hook describes the
 * program's call (its sides: which is host memory, pageable or page-locked, and which device
 * memory) and hands it to the dispatcher, which asks the cure table's rows in order
 * (run_cures.c) and runs the plan. What CUDA documents for each call stays true ("API
 * synchronization behavior"):
 * - cuMemcpyHtoD from pageable memory: a stream sync is performed before the copy starts, and
 *   the call returns once the source may be reused; a staged copy waits for the stream first
 *   (run_pipeline.c) and returns once the copy is done, which the documentation also allows.
 * - cuMemcpyHtoDAsync from pageable memory: returns once the source is staged; the device copy
 *   completes later, in stream order. A staged copy does the same.
 * - cuMemcpyDtoH and cuMemcpyDtoHAsync to pageable memory: return once the copy is done.
 * A copy no cure can place exactly (a pointer it cannot classify, a NULL or first-page host
 * pointer, a range beyond its allocation, a stream being captured, no current context) goes as
 * it was, so the driver gives the program its own answer, errors included.
 */
#include <stdint.h>
#include <string.h>

#include "run_copy.h"

#include "core/host.h"
#include "run_config.h"
#include "run_cures.h"
#include "run_hooks.h"
#include "run_pipeline.h"
#include "run_workers.h"

zc__where zc__run_classify(const zc__run_driver *d, CUdeviceptr ptr)
{
    unsigned int type = 0, managed = 0;
    CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                        CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void *data[] = {&type, &managed};
    /* Unlike cuPointerGetAttribute, this answers "no type" for memory CUDA has never seen. */
    if (d->pointer_get_attributes(2, attributes, data, ptr) != CUDA_SUCCESS)
        return ZC__UNKNOWN;
    if (managed)
        return ZC__OTHER;
    if (type == 0)
        return ZC__PAGEABLE;
    return type == CU_MEMORYTYPE_DEVICE ? ZC__DEVICE : ZC__OTHER;
}

int zc__run_host_unusable(const void *p)
{
    return (uintptr_t)p < (uintptr_t)zc__page_size();
}

zc__plan zc__run_copy_leave(zc_run_counter why, size_t bytes)
{
    zc__run_count(why, bytes, 0, 0, ZC_RUN_PRICED_NONE);
    return ZC__AS_IT_WAS;
}

int zc__run_copy_small(zc__run_dir dir, size_t bytes)
{
    const zc__run_config *config = zc__run_config_get();
    return bytes < (dir == ZC__RUN_H2D ? config->min_bytes : config->min_d2h_bytes);
}

int zc__run_copy_device_ok(zc__run_copy *c)
{
    const zc__run_driver *d = c->d;
    CUdeviceptr base = 0;
    size_t size = 0;
    return d->ctx_get_current(&c->ctx) == CUDA_SUCCESS && c->ctx != NULL &&
           d->mem_get_address_range(&base, &size, c->device) == CUDA_SUCCESS &&
           c->device - base <= size && size - (c->device - base) >= c->device_extent;
}

int zc__run_stream_capturing(const zc__run_driver *d, CUstream stream)
{
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    return d->stream_is_capturing(stream, &capture) != CUDA_SUCCESS ||
           capture != CU_STREAM_CAPTURE_STATUS_NONE;
}

static zc__plan zc__eligible(zc__run_copy *c)
{
    if ((uintptr_t)c->host + c->host_extent < (uintptr_t)c->host)
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, c->bytes);
    const int small = zc__run_copy_small(c->dir, c->bytes);
    if (c->row > zc__run_config_get()->chunk_bytes && !small)
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, c->bytes); /* a row too wide */
    if (small)
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_SMALL, c->bytes);
    if (!zc__run_copy_device_ok(c))
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, c->bytes);
    if (zc__run_stream_capturing(c->d, c->stream))
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_CAPTURE, c->bytes);
    return zc__run_pageable_claim_sample(c->dir, c->bytes) ? ZC__SAMPLE : ZC__CURE;
}

zc__plan zc__run_copy_eligible(zc__run_copy *c)
{
    if (c->verdict == ZC__PASS)
        c->verdict = zc__eligible(c);
    return c->verdict;
}

CUresult zc__run_copy_sample(const zc__run_copy *c)
{
    uint64_t start = zc__run_now_ns();
    CUresult r = c->call(c);
    if (r == CUDA_SUCCESS)
        zc__run_pageable_sampled(c->dir, c->bytes, zc__run_now_ns() - start);
    return r;
}

CUstream zc__run_stream(CUstream s, int per_thread)
{
    return per_thread && s == NULL ? CU_STREAM_PER_THREAD : s;
}

void zc__run_copy_init(zc__run_copy *c, CUresult (*call)(const zc__run_copy *), const void *args,
                       CUstream stream, int per_thread, int async)
{
    memset(c, 0, sizeof *c);
    c->call = call;
    c->args = args;
    c->stream = zc__run_stream(stream, per_thread);
    c->async = async;
    c->pin.slot = -1;
    c->verdict = ZC__PASS;
    c->d = zc__run_plans_copies() ? zc__run_driver_get() : NULL;
}

CUresult zc__run_copy_dispatch(zc__run_copy *c)
{
    zc__plan plan = zc__run_plan(c);
    CUresult r;
    if (c->by != NULL && c->by->calls->run_copy != NULL &&
        (plan == ZC__CURE || plan == ZC__PINNED || plan == ZC__SAMPLE))
        r = c->by->calls->run_copy(c, plan);
    else
        r = c->call(c);
    if (plan == ZC__WAIT && r == CUDA_SUCCESS && c->async) {
        CUstreamCaptureMode mode = zc__run_relax(c->d);
        r = c->d->stream_synchronize(c->stream);
        zc__run_unrelax(c->d, mode);
    }
    return r;
}

/* ---- the plain copies' shape: chunks through the staging buffers ---- */

/* The smallest chunk: below it the copy engine's fixed cost per copy outweighs the overlap. */
#define ZC__MIN_CHUNK ((size_t)256 << 10)

/* A copy is cut in about eight chunks, from ZC__MIN_CHUNK to a staging buffer's size, so that
 * only an eighth of it is filled without the copy engine moving another part, and large copies
 * pay the per-chunk costs rarely (the grid of scripts/bench.d/41-run.sh: 256 KiB chunks are
 * best for 1 MiB, 4 MiB for 64 MiB; with four chunks 16 MiB ran at 22.7 GB/s where 64 MiB in
 * sixteen ran at 36.8). Chunks are whole 64 KiB blocks. */
size_t zc__run_chunk_for(const zc__run_staging *s, size_t bytes)
{
    size_t chunk = bytes / 8 / ((size_t)64 << 10) * ((size_t)64 << 10);
    if (chunk < ZC__MIN_CHUNK)
        chunk = ZC__MIN_CHUNK;
    return chunk < s->chunk_bytes ? chunk : s->chunk_bytes;
}

/* A plain copy cut in chunks: piece k is the chunk at k * chunk. */
typedef struct zc__chunks {
    const zc__run_copy *c;
    size_t chunk;
} zc__chunks;

static size_t zc__piece(const zc__chunks *p, size_t k, size_t *at_p)
{
    *at_p = k * p->chunk;
    return p->c->bytes - *at_p < p->chunk ? p->c->bytes - *at_p : p->chunk;
}

/* Fill a staging buffer from the pageable source, or drain one into the destination, with
 * every thread. */
static void zc__host_side(const void *copy, size_t k, void *staging)
{
    const zc__chunks *p = copy;
    size_t at, n = zc__piece(p, k, &at);
    if (p->c->dir == ZC__RUN_H2D)
        zc__run_parallel_copy(staging, p->c->host + at, n);
    else
        zc__run_parallel_copy(p->c->host + at, staging, n);
}

static CUresult zc__device_side(const zc__run_driver *d, const void *copy, size_t k, void *staging,
                                CUstream stream)
{
    const zc__chunks *p = copy;
    size_t at, n = zc__piece(p, k, &at);
    return p->c->dir == ZC__RUN_H2D ? d->memcpy_htod_async(p->c->device + at, staging, n, stream)
                                    : d->memcpy_dtoh_async(staging, p->c->device + at, n, stream);
}

static CUresult zc__stage_chunks(const zc__run_copy *c, zc__run_staging *s)
{
    zc__chunks chunks = {.c = c, .chunk = zc__run_chunk_for(s, c->bytes)};
    zc__run_pipeline p = {.dir = c->dir,
                          .pieces = (c->bytes + chunks.chunk - 1) / chunks.chunk,
                          .stream = c->stream,
                          .async = c->async,
                          .host_side = zc__host_side,
                          .device_side = zc__device_side,
                          .copy = &chunks};
    return zc__run_pipeline_run(c->d, s, &p);
}

static const zc__run_shape zc__plain_shape = {zc__stage_chunks};

/* ---- the plain copies' descriptions ---- */

/* A copy with one host side (at host, pageable or page-locked) and one device side: described
 * for the rows, or nothing to ask (0: it goes as it was, a leave counted where one applies). */
static int zc__describe(zc__run_copy *c, zc__run_dir dir, void *host, CUdeviceptr device,
                        size_t bytes)
{
    if (c->d == NULL || bytes == 0 || zc__run_host_unusable(host))
        return 0;
    zc__where where = zc__run_classify(c->d, (CUdeviceptr)(uintptr_t)host);
    /* A copy too small to cure costs one pointer query more than it did, no second one. */
    if (where == ZC__PAGEABLE && zc__run_copy_small(dir, bytes)) {
        zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_SMALL, bytes);
        return 0;
    }
    /* Page-locked memory no cure changed is the program's own: nothing to do, at no more cost
     * than one atomic load per row while no cure holds memory of its own. */
    if (where != ZC__PAGEABLE &&
        (where != ZC__OTHER || !zc__run_view_changed((uintptr_t)host, bytes)))
        return 0;
    c->bytes = bytes;
    if (zc__run_classify(c->d, device) != ZC__DEVICE) {
        c->kind = ZC__COPY_GUARD;
        c->guard[0] = host;
        c->guard_extent[0] = bytes;
        return 1;
    }
    c->kind = ZC__COPY_HOST_DEVICE;
    c->dir = dir;
    c->host = host;
    c->host_extent = bytes;
    c->device = device;
    c->device_extent = bytes;
    c->host_where = where;
    c->shape = &zc__plain_shape;
    return 1;
}

/* cuMemcpy's unified form: the direction found from the two pointers; between two host
 * buffers, either may be one a cure changed. */
static int zc__describe_unified(zc__run_copy *c, CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    if (c->d == NULL || bytes == 0)
        return 0;
    zc__where to = zc__run_classify(c->d, dst), from = zc__run_classify(c->d, src);
    const int host_to = to == ZC__PAGEABLE || to == ZC__OTHER;
    const int host_from = from == ZC__PAGEABLE || from == ZC__OTHER;
    if (to == ZC__DEVICE && host_from)
        return zc__describe(c, ZC__RUN_H2D, (void *)(uintptr_t)src, dst, bytes);
    if (from == ZC__DEVICE && host_to)
        return zc__describe(c, ZC__RUN_D2H, (void *)(uintptr_t)dst, src, bytes);
    c->kind = ZC__COPY_GUARD;
    c->bytes = bytes;
    c->guard[0] = (const void *)(uintptr_t)src;
    c->guard[1] = (const void *)(uintptr_t)dst;
    c->guard_extent[0] = c->guard_extent[1] = bytes;
    return 1;
}

/* ---- the hooks: each body serves the legacy and the per-thread form (id says which) ---- */

typedef struct zc__plain_args {
    zc__run_hook_id id;
    CUdeviceptr dst, src; /* host pointers as addresses */
    size_t bytes;
    CUstream stream; /* as the program gave it */
} zc__plain_args;

typedef CUresult (*zc__htod_fn)(CUdeviceptr, const void *, size_t);
typedef CUresult (*zc__dtoh_fn)(void *, CUdeviceptr, size_t);
typedef CUresult (*zc__htod_async_fn)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*zc__dtoh_async_fn)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*zc__copy_fn)(CUdeviceptr, CUdeviceptr, size_t);
typedef CUresult (*zc__copy_async_fn)(CUdeviceptr, CUdeviceptr, size_t, CUstream);

static CUresult zc__call_htod(const zc__run_copy *c)
{
    const zc__plain_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__htod_fn, a->id, a->dst, (const void *)(uintptr_t)a->src, a->bytes);
}

static CUresult zc__call_dtoh(const zc__run_copy *c)
{
    const zc__plain_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__dtoh_fn, a->id, (void *)(uintptr_t)a->dst, a->src, a->bytes);
}

static CUresult zc__call_htod_async(const zc__run_copy *c)
{
    const zc__plain_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__htod_async_fn, a->id, a->dst, (const void *)(uintptr_t)a->src, a->bytes,
                        a->stream);
}

static CUresult zc__call_dtoh_async(const zc__run_copy *c)
{
    const zc__plain_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__dtoh_async_fn, a->id, (void *)(uintptr_t)a->dst, a->src, a->bytes,
                        a->stream);
}

static CUresult zc__call_unified(const zc__run_copy *c)
{
    const zc__plain_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__copy_fn, a->id, a->dst, a->src, a->bytes);
}

static CUresult zc__call_unified_async(const zc__run_copy *c)
{
    const zc__plain_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__copy_async_fn, a->id, a->dst, a->src, a->bytes, a->stream);
}

static CUresult zc__htod(zc__run_hook_id id, int per_thread, CUdeviceptr dst, const void *src,
                         size_t bytes, CUstream s, int async)
{
    zc__plain_args a = {id, dst, (CUdeviceptr)(uintptr_t)src, bytes, s};
    zc__run_copy c;
    zc__run_copy_init(&c, async ? zc__call_htod_async : zc__call_htod, &a, s, per_thread, async);
    if (!zc__describe(&c, ZC__RUN_H2D, (void *)src, dst, bytes))
        return c.call(&c);
    return zc__run_copy_dispatch(&c);
}

static CUresult zc__dtoh(zc__run_hook_id id, int per_thread, void *dst, CUdeviceptr src,
                         size_t bytes, CUstream s, int async)
{
    zc__plain_args a = {id, (CUdeviceptr)(uintptr_t)dst, src, bytes, s};
    zc__run_copy c;
    zc__run_copy_init(&c, async ? zc__call_dtoh_async : zc__call_dtoh, &a, s, per_thread, async);
    if (!zc__describe(&c, ZC__RUN_D2H, dst, src, bytes))
        return c.call(&c);
    return zc__run_copy_dispatch(&c);
}

static CUresult zc__unified(zc__run_hook_id id, int per_thread, CUdeviceptr dst, CUdeviceptr src,
                            size_t bytes, CUstream s, int async)
{
    zc__plain_args a = {id, dst, src, bytes, s};
    zc__run_copy c;
    zc__run_copy_init(&c, async ? zc__call_unified_async : zc__call_unified, &a, s, per_thread,
                      async);
    if (!zc__describe_unified(&c, dst, src, bytes))
        return c.call(&c);
    return zc__run_copy_dispatch(&c);
}

CUresult zc__hook_MEMCPY_HTOD(CUdeviceptr dst, const void *src, size_t bytes)
{
    return zc__htod(ZC__HOOK_MEMCPY_HTOD, 0, dst, src, bytes, NULL, 0);
}

CUresult zc__hook_MEMCPY_HTOD_PTDS(CUdeviceptr dst, const void *src, size_t bytes)
{
    return zc__htod(ZC__HOOK_MEMCPY_HTOD_PTDS, 1, dst, src, bytes, NULL, 0);
}

CUresult zc__hook_MEMCPY_DTOH(void *dst, CUdeviceptr src, size_t bytes)
{
    return zc__dtoh(ZC__HOOK_MEMCPY_DTOH, 0, dst, src, bytes, NULL, 0);
}

CUresult zc__hook_MEMCPY_DTOH_PTDS(void *dst, CUdeviceptr src, size_t bytes)
{
    return zc__dtoh(ZC__HOOK_MEMCPY_DTOH_PTDS, 1, dst, src, bytes, NULL, 0);
}

CUresult zc__hook_MEMCPY_HTOD_ASYNC(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    return zc__htod(ZC__HOOK_MEMCPY_HTOD_ASYNC, 0, dst, src, bytes, s, 1);
}

CUresult zc__hook_MEMCPY_HTOD_ASYNC_PTSZ(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    return zc__htod(ZC__HOOK_MEMCPY_HTOD_ASYNC_PTSZ, 1, dst, src, bytes, s, 1);
}

CUresult zc__hook_MEMCPY_DTOH_ASYNC(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__dtoh(ZC__HOOK_MEMCPY_DTOH_ASYNC, 0, dst, src, bytes, s, 1);
}

CUresult zc__hook_MEMCPY_DTOH_ASYNC_PTSZ(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__dtoh(ZC__HOOK_MEMCPY_DTOH_ASYNC_PTSZ, 1, dst, src, bytes, s, 1);
}

CUresult zc__hook_MEMCPY(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    return zc__unified(ZC__HOOK_MEMCPY, 0, dst, src, bytes, NULL, 0);
}

CUresult zc__hook_MEMCPY_PTDS(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    return zc__unified(ZC__HOOK_MEMCPY_PTDS, 1, dst, src, bytes, NULL, 0);
}

CUresult zc__hook_MEMCPY_ASYNC(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__unified(ZC__HOOK_MEMCPY_ASYNC, 0, dst, src, bytes, s, 1);
}

CUresult zc__hook_MEMCPY_ASYNC_PTSZ(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__unified(ZC__HOOK_MEMCPY_ASYNC_PTSZ, 1, dst, src, bytes, s, 1);
}
