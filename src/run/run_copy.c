/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pageable-copy cure. A copy between pageable host memory and device memory goes through
 * this process's pinned staging: host threads fill (or drain) one staging buffer while the copy
 * engine moves the one before, on the caller's stream, so the order of the stream is kept.
 * What CUDA documents for each call stays true ("API synchronization behavior"):
 * - cuMemcpyHtoD: returns once the source may be reused; ours returns once the copy is done,
 *   which the documentation also allows.
 * - cuMemcpyHtoDAsync: returns once the pageable source is staged; the device copy completes
 *   later, in stream order. Ours does the same.
 * - cuMemcpyDtoH and cuMemcpyDtoHAsync to pageable memory: return once the copy is done.
 * A copy zc run cannot place exactly (a pointer it cannot classify, a range beyond its
 * allocation, a stream being captured into a graph, no current context) goes as it was, so the
 * driver gives the program its own answer, errors included.
 * The register cure's copies (a buffer pinned in place, run_register.h) go to the driver's own
 * entry point, which now sees page-locked memory and would return before an asynchronous copy
 * is done; CUDA allows a pageable copy to be synchronous, so the cure waits for the stream, and
 * takes that way for an asynchronous copy to the device only while the stream is idle (the
 * driver's own staging would not have waited for the work queued before it).
 */
#include <stdint.h>
#include <string.h>

#include "run_copy.h"

#include "run_config.h"
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

/* One copy the cure may take. */
typedef struct zc__copy {
    zc__run_dir dir;
    char *host;
    CUdeviceptr device;
    size_t bytes;
    CUstream stream;
    int async;
    CUcontext ctx;
    zc__run_pin_use pin; /* ZC__PINNED: the pin it uses */
    uint64_t pin_ns;     /* ZC__PINNED: the time it took to pin the buffer, if this copy did */
} zc__copy;

int zc__run_copy_cures_on(void)
{
    return zc__run_fix_on(ZC_RUN_FIX_PAGEABLE) || zc__run_fix_on(ZC_RUN_FIX_REGISTER);
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

int zc__run_copy_device_ok(const zc__run_driver *d, CUdeviceptr device, size_t extent,
                           CUcontext *ctx_p)
{
    CUdeviceptr base = 0;
    size_t size = 0;
    return d->ctx_get_current(ctx_p) == CUDA_SUCCESS && *ctx_p != NULL &&
           d->mem_get_address_range(&base, &size, device) == CUDA_SUCCESS &&
           device - base <= size && size - (device - base) >= extent;
}

zc__plan zc__run_copy_plan(const zc__run_driver *d, zc__run_dir dir, size_t bytes,
                           CUdeviceptr device, size_t extent, CUstream stream, CUcontext *ctx_p)
{
    if (zc__run_copy_small(dir, bytes))
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_SMALL, bytes);
    if (!zc__run_copy_device_ok(d, device, extent, ctx_p))
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, bytes);
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    if (d->stream_is_capturing(stream, &capture) != CUDA_SUCCESS ||
        capture != CU_STREAM_CAPTURE_STATUS_NONE)
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_CAPTURE, bytes);
    return zc__run_pageable_claim_sample(dir, bytes) ? ZC__SAMPLE : ZC__CURE;
}

/* Whether this copy (its host side already known to be pageable) is cured, sampled, pinned in
 * place or left. */
static zc__plan zc__plan_for(const zc__run_driver *d, zc__copy *c)
{
    if ((uintptr_t)c->host + c->bytes < (uintptr_t)c->host)
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, c->bytes);
    zc__plan plan = zc__run_copy_plan(d, c->dir, c->bytes, c->device, c->bytes, c->stream, &c->ctx);
    return zc__run_copy_pin_plan(d, plan, c->dir, c->host, c->bytes, c->stream, c->async, c->ctx,
                                 &c->pin, &c->pin_ns);
}

/* The plan of a copy between host memory (host_where: what it is) and device memory, once its
 * sides are known: buffers pinned in place first, then the pageable cures. */
static zc__plan zc__plan_sides(const zc__run_driver *d, zc__copy *c, zc__where host_where)
{
    switch (
        zc__run_copy_touch(d, c->host, c->bytes, c->dir, c->stream, c->async, &c->ctx, &c->pin)) {
    case ZC__TOUCH_USE:
        return ZC__PINNED;
    case ZC__TOUCH_STAGE:
        return zc__run_copy_plan_forced(d, c->device, c->bytes, &c->ctx);
    case ZC__TOUCH_WAIT:
        return ZC__WAIT;
    case ZC__TOUCH_NONE:
        break;
    }
    if (host_where != ZC__PAGEABLE)
        return ZC__AS_IT_WAS; /* not a pageable copy: nothing to cure */
    return zc__plan_for(d, c);
}

/* The plan for a copy with one host and one device side (HtoD, DtoH). */
static zc__plan zc__plan_directed(zc__copy *c)
{
    const zc__run_driver *d = zc__run_driver_get();
    c->pin.slot = -1;
    if (d == NULL || c->bytes == 0)
        return ZC__AS_IT_WAS;
    if (!zc__run_copy_cures_on())
        return zc__run_copy_guard(d, c->host, c->bytes, c->stream, c->async);
    zc__where host = zc__run_classify(d, (CUdeviceptr)(uintptr_t)c->host);
    /* A copy too small to cure costs one pointer query more than it did, no second one. */
    if (host == ZC__PAGEABLE && zc__run_copy_small(c->dir, c->bytes))
        return zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_SMALL, c->bytes);
    /* Page-locked memory not pinned by us is the program's own: nothing to do, at no more cost
     * than before the register cure (one atomic load while nothing is pinned). */
    if ((host != ZC__PAGEABLE && host != ZC__OTHER) ||
        (host == ZC__OTHER && !zc__run_pins_touching((uintptr_t)c->host, c->bytes)))
        return ZC__AS_IT_WAS;
    if (zc__run_classify(d, c->device) != ZC__DEVICE)
        return zc__run_copy_guard(d, c->host, c->bytes, c->stream, c->async);
    return zc__plan_sides(d, c, host);
}

/* The plan for cuMemcpy's unified form: the direction is found from the two pointers. */
static zc__plan zc__plan_unified(CUdeviceptr dst, CUdeviceptr src, zc__copy *c)
{
    const zc__run_driver *d = zc__run_driver_get();
    c->pin.slot = -1;
    if (d == NULL || c->bytes == 0)
        return ZC__AS_IT_WAS;
    zc__where to = zc__run_classify(d, dst), from = zc__run_classify(d, src);
    zc__where host_where;
    if (to == ZC__DEVICE && (from == ZC__PAGEABLE || from == ZC__OTHER)) {
        c->dir = ZC__RUN_H2D;
        c->host = (char *)(uintptr_t)src;
        c->device = dst;
        host_where = from;
    } else if (from == ZC__DEVICE && (to == ZC__PAGEABLE || to == ZC__OTHER)) {
        c->dir = ZC__RUN_D2H;
        c->host = (char *)(uintptr_t)dst;
        c->device = src;
        host_where = to;
    } else {
        /* Host to host: either side may be a buffer of ours pinned in place. */
        zc__plan plan =
            zc__run_copy_guard(d, (void *)(uintptr_t)src, c->bytes, c->stream, c->async);
        return plan != ZC__AS_IT_WAS
                   ? plan
                   : zc__run_copy_guard(d, (void *)(uintptr_t)dst, c->bytes, c->stream, c->async);
    }
    if (!zc__run_copy_cures_on())
        return zc__run_copy_guard(d, c->host, c->bytes, c->stream, c->async);
    return zc__plan_sides(d, c, host_where);
}

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
    const zc__copy *c;
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

/* Run a cured copy; 0 when no staging could be had (the caller then leaves it as it was). */
static int zc__cure(const zc__copy *c, CUresult *result_p)
{
    const zc__run_driver *d = zc__run_driver_get();
    /* The clock starts before the staging is had: the first copy of a context pays for making
     * it, and the report says so. */
    uint64_t start = zc__run_now_ns();
    zc__run_staging *s = zc__run_staging_acquire(c->ctx);
    if (s == NULL) {
        zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, c->bytes);
        return 0;
    }
    zc__chunks chunks = {.c = c, .chunk = zc__run_chunk_for(s, c->bytes)};
    zc__run_pipeline p = {.dir = c->dir,
                          .pieces = (c->bytes + chunks.chunk - 1) / chunks.chunk,
                          .stream = c->stream,
                          .async = c->async,
                          .host_side = zc__host_side,
                          .device_side = zc__device_side,
                          .copy = &chunks};
    CUresult r = zc__run_pipeline_run(d, s, &p);
    zc__run_staging_release(s);
    if (r == CUDA_SUCCESS)
        zc__run_pageable_cured(ZC__RUN_STAGED, c->dir, c->bytes, zc__run_now_ns() - start);
    *result_p = r;
    return 1;
}

/* Each replacement: plan, then cure, or time the driver's own call as the sample, or give it to
 * the driver on a buffer pinned in place, or pass it on untouched. */
#define ZC__DISPATCH(copy, plan, hook_id, fn_type, ...)                                            \
    do {                                                                                           \
        CUresult zc__r;                                                                            \
        if ((plan) == ZC__CURE && zc__cure(&(copy), &zc__r))                                       \
            return zc__r;                                                                          \
        fn_type zc__real_fn = (fn_type)zc__run_real(hook_id);                                      \
        if (zc__real_fn == NULL) {                                                                 \
            zc__run_pin_done(&(copy).pin);                                                         \
            return CUDA_ERROR_NOT_INITIALIZED;                                                     \
        }                                                                                          \
        zc__run_copy_end zc__end = {(plan),        (copy).dir,      (copy).bytes, (copy).host,     \
                                    (copy).bytes,  (copy).stream,   (copy).async, &(copy).pin,     \
                                    (copy).pin_ns, zc__run_now_ns()};                              \
        return zc__run_copy_finish(&zc__end, zc__real_fn(__VA_ARGS__));                            \
    } while (0)

typedef CUresult (*zc__htod_fn)(CUdeviceptr, const void *, size_t);
typedef CUresult (*zc__dtoh_fn)(void *, CUdeviceptr, size_t);
typedef CUresult (*zc__htod_async_fn)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*zc__dtoh_async_fn)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*zc__copy_fn)(CUdeviceptr, CUdeviceptr, size_t);
typedef CUresult (*zc__copy_async_fn)(CUdeviceptr, CUdeviceptr, size_t, CUstream);

CUstream zc__run_stream(CUstream s, int per_thread)
{
    return per_thread && s == NULL ? CU_STREAM_PER_THREAD : s;
}

/* Each body serves the legacy and the per-thread form of its entry point (id says which). */
static CUresult zc__htod(zc__run_hook_id id, int per_thread, CUdeviceptr dst, const void *src,
                         size_t bytes)
{
    zc__copy c = {.dir = ZC__RUN_H2D,
                  .host = (char *)src,
                  .device = dst,
                  .bytes = bytes,
                  .stream = zc__run_stream(NULL, per_thread)};
    zc__plan plan = zc__plan_directed(&c);
    ZC__DISPATCH(c, plan, id, zc__htod_fn, dst, src, bytes);
}

static CUresult zc__dtoh(zc__run_hook_id id, int per_thread, void *dst, CUdeviceptr src,
                         size_t bytes)
{
    zc__copy c = {.dir = ZC__RUN_D2H,
                  .host = dst,
                  .device = src,
                  .bytes = bytes,
                  .stream = zc__run_stream(NULL, per_thread)};
    zc__plan plan = zc__plan_directed(&c);
    ZC__DISPATCH(c, plan, id, zc__dtoh_fn, dst, src, bytes);
}

static CUresult zc__htod_async(zc__run_hook_id id, int per_thread, CUdeviceptr dst, const void *src,
                               size_t bytes, CUstream s)
{
    zc__copy c = {.dir = ZC__RUN_H2D,
                  .host = (char *)src,
                  .device = dst,
                  .bytes = bytes,
                  .stream = zc__run_stream(s, per_thread),
                  .async = 1};
    zc__plan plan = zc__plan_directed(&c);
    ZC__DISPATCH(c, plan, id, zc__htod_async_fn, dst, src, bytes, s);
}

static CUresult zc__dtoh_async(zc__run_hook_id id, int per_thread, void *dst, CUdeviceptr src,
                               size_t bytes, CUstream s)
{
    zc__copy c = {.dir = ZC__RUN_D2H,
                  .host = dst,
                  .device = src,
                  .bytes = bytes,
                  .stream = zc__run_stream(s, per_thread),
                  .async = 1};
    zc__plan plan = zc__plan_directed(&c);
    ZC__DISPATCH(c, plan, id, zc__dtoh_async_fn, dst, src, bytes, s);
}

static CUresult zc__unified(zc__run_hook_id id, int per_thread, CUdeviceptr dst, CUdeviceptr src,
                            size_t bytes)
{
    zc__copy c = {.bytes = bytes, .stream = zc__run_stream(NULL, per_thread)};
    zc__plan plan = zc__plan_unified(dst, src, &c);
    ZC__DISPATCH(c, plan, id, zc__copy_fn, dst, src, bytes);
}

static CUresult zc__unified_async(zc__run_hook_id id, int per_thread, CUdeviceptr dst,
                                  CUdeviceptr src, size_t bytes, CUstream s)
{
    zc__copy c = {.bytes = bytes, .stream = zc__run_stream(s, per_thread), .async = 1};
    zc__plan plan = zc__plan_unified(dst, src, &c);
    ZC__DISPATCH(c, plan, id, zc__copy_async_fn, dst, src, bytes, s);
}

CUresult zc__hook_MEMCPY_HTOD(CUdeviceptr dst, const void *src, size_t bytes)
{
    return zc__htod(ZC__HOOK_MEMCPY_HTOD, 0, dst, src, bytes);
}

CUresult zc__hook_MEMCPY_HTOD_PTDS(CUdeviceptr dst, const void *src, size_t bytes)
{
    return zc__htod(ZC__HOOK_MEMCPY_HTOD_PTDS, 1, dst, src, bytes);
}

CUresult zc__hook_MEMCPY_DTOH(void *dst, CUdeviceptr src, size_t bytes)
{
    return zc__dtoh(ZC__HOOK_MEMCPY_DTOH, 0, dst, src, bytes);
}

CUresult zc__hook_MEMCPY_DTOH_PTDS(void *dst, CUdeviceptr src, size_t bytes)
{
    return zc__dtoh(ZC__HOOK_MEMCPY_DTOH_PTDS, 1, dst, src, bytes);
}

CUresult zc__hook_MEMCPY_HTOD_ASYNC(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    return zc__htod_async(ZC__HOOK_MEMCPY_HTOD_ASYNC, 0, dst, src, bytes, s);
}

CUresult zc__hook_MEMCPY_HTOD_ASYNC_PTSZ(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    return zc__htod_async(ZC__HOOK_MEMCPY_HTOD_ASYNC_PTSZ, 1, dst, src, bytes, s);
}

CUresult zc__hook_MEMCPY_DTOH_ASYNC(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__dtoh_async(ZC__HOOK_MEMCPY_DTOH_ASYNC, 0, dst, src, bytes, s);
}

CUresult zc__hook_MEMCPY_DTOH_ASYNC_PTSZ(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__dtoh_async(ZC__HOOK_MEMCPY_DTOH_ASYNC_PTSZ, 1, dst, src, bytes, s);
}

CUresult zc__hook_MEMCPY(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    return zc__unified(ZC__HOOK_MEMCPY, 0, dst, src, bytes);
}

CUresult zc__hook_MEMCPY_PTDS(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    return zc__unified(ZC__HOOK_MEMCPY_PTDS, 1, dst, src, bytes);
}

CUresult zc__hook_MEMCPY_ASYNC(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__unified_async(ZC__HOOK_MEMCPY_ASYNC, 0, dst, src, bytes, s);
}

CUresult zc__hook_MEMCPY_ASYNC_PTSZ(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return zc__unified_async(ZC__HOOK_MEMCPY_ASYNC_PTSZ, 1, dst, src, bytes, s);
}
