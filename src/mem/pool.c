/* SPDX-License-Identifier: Apache-2.0 */
/* The public caching pool: pool_core's bookkeeping over real blocks, CUDA events and locks. */
#include "zerocopy/pool.h"

#include <pthread.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/block.h"
#include "mem/caps.h"
#include "mem/pool_core.h"
#include "mem/pool_internal.h"
#include "mem/registry.h"

struct zc_pool {
    pthread_mutex_t lock; /* taken before the registry's lock, never after */
    zc_buffer_kind kind;
    unsigned flags;
    int device;
    zc__pool_core core;
    zc__block *lent; /* blocks handed out now, linked through pool_prev / pool_next */
};

static int zc__event_done(void *ctx, void *event)
{
    (void)ctx;
    /* Anything but "not ready" means nothing will still write the block: a failed context has
     * no copies in flight. */
    return cudaEventQuery((cudaEvent_t)event) != cudaErrorNotReady;
}

static void zc__event_destroy(void *ctx, void *event)
{
    (void)ctx;
    ZC_CUDA_IGNORE(cudaEventDestroy((cudaEvent_t)event));
}

/* Release a block the pool holds: wait for its last use, forget it, free its memory. */
static void zc__release(void *ctx, void *block, void *event)
{
    (void)ctx;
    if (event != NULL) {
        ZC_CUDA_IGNORE(cudaEventSynchronize((cudaEvent_t)event));
        ZC_CUDA_IGNORE(cudaEventDestroy((cudaEvent_t)event));
    }
    zc__registry_lock();
    zc__registry_remove(block);
    zc__registry_unlock();
    ZC_CHECK_IGNORE(zc__block_release(block));
}

static void zc__lent_link(zc_pool *pool, zc__block *b)
{
    b->pool_prev = NULL;
    b->pool_next = pool->lent;
    if (pool->lent != NULL)
        pool->lent->pool_prev = b;
    pool->lent = b;
}

static void zc__lent_unlink(zc_pool *pool, zc__block *b)
{
    if (b->pool_prev != NULL)
        b->pool_prev->pool_next = b->pool_next;
    else
        pool->lent = b->pool_next;
    if (b->pool_next != NULL)
        b->pool_next->pool_prev = b->pool_prev;
    b->pool_prev = b->pool_next = NULL;
}

ZC_EXTERN zc_status zc_pool_create(zc_buffer_kind kind, unsigned flags, int device,
                                   size_t max_cached_bytes, zc_pool **pool_p)
{
    static const char fn[] = "zc_pool_create";
    ZC_REQUIRE_ARG(pool_p);
    if (kind != ZC_BUFFER_PAGEABLE && kind != ZC_BUFFER_PINNED && kind != ZC_BUFFER_MAPPED &&
        kind != ZC_BUFFER_WRITE_COMBINED)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "%s: pools hold pageable, pinned, mapped or write-combined buffers, not %s",
                       fn, zc_buffer_kind_name(kind));
    ZC_CHECK(zc__check_kind_flags(fn, kind, flags));
    if (device < -1 || (device == -1 && kind != ZC_BUFFER_PAGEABLE))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: device %d is not a device number", fn, device);
    if (device >= 0 && !(flags & ZC_BUFFER_FLAG_FALLBACK_PAGEABLE)) {
        zc__caps caps;
        ZC_CHECK(zc__caps_get(fn, device, &caps));
    }
    zc_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no memory for the pool", fn);
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool);
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: pthread_mutex_init failed", fn);
    }
    pool->kind = kind;
    pool->flags = flags;
    pool->device = device;
    zc__pool_ops ops = {zc__event_done, zc__event_destroy, zc__release, pool};
    zc__pool_core_init(&pool->core, max_cached_bytes, &ops);
    *pool_p = pool;
    return ZC_OK;
}

ZC_EXTERN void zc_pool_destroy(zc_pool *pool)
{
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->lock);
    /* Blocks still lent: their handles end here, so a later free says "already freed". */
    while (pool->lent != NULL) {
        zc__block *b = pool->lent;
        zc__lent_unlink(pool, b);
        zc__registry_lock();
        zc__handle_detach(b);
        zc__registry_remove(b);
        zc__registry_unlock();
        ZC_CHECK_IGNORE(zc__block_release(b));
    }
    zc__pool_core_fini(&pool->core);
    pthread_mutex_unlock(&pool->lock);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

ZC_EXTERN zc_status zc_pool_alloc(zc_pool *pool, size_t size, zc_buffer **buf_p)
{
    static const char fn[] = "zc_pool_alloc";
    ZC_REQUIRE_ARG(pool);
    ZC_REQUIRE_ARG(buf_p);
    if (size == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: size is 0", fn);
    size_t rounded = 0;
    ZC_CHECK(zc__page_round(fn, size, &rounded));

    pthread_mutex_lock(&pool->lock);
    void *cached = NULL;
    size_t capacity = 0;
    if (zc__pool_core_take(&pool->core, size, &cached, &capacity)) {
        zc__block *b = cached;
        zc__registry_lock();
        zc_status status = zc__handle_attach(fn, b, size, buf_p);
        zc__registry_unlock();
        if (status == ZC_OK)
            zc__lent_link(pool, b);
        else
            zc__pool_core_put(&pool->core, b, size, capacity, NULL);
        pthread_mutex_unlock(&pool->lock);
        return status;
    }
    pthread_mutex_unlock(&pool->lock);

    /* A miss: make the block without holding the pool, as pinning can take milliseconds. */
    zc__block *b = NULL;
    ZC_CHECK(zc__block_make(fn, size, pool->kind, pool->flags, pool->device, &b));
    b->pool = pool;
    b->notes |= ZC_BUFFER_NOTE_POOLED;
    pthread_mutex_lock(&pool->lock);
    zc__registry_lock();
    zc_status status = zc__registry_insert(fn, b);
    if (status == ZC_OK) {
        status = zc__handle_attach(fn, b, size, buf_p);
        if (status != ZC_OK)
            zc__registry_remove(b);
    }
    zc__registry_unlock();
    if (status == ZC_OK) {
        zc__pool_core_added(&pool->core, size, b->capacity);
        zc__lent_link(pool, b);
    }
    pthread_mutex_unlock(&pool->lock);
    if (status != ZC_OK)
        ZC_CHECK_IGNORE(zc__block_release(b));
    return status;
}

zc_status zc__pool_return(zc_pool *pool, zc_buffer *buf, struct CUstream_st *stream,
                          int record_event, const char *fn)
{
    /* Check the handle before making an event, so that a bad handle costs nothing. */
    zc__registry_lock();
    zc__block *b = NULL;
    zc_status status = zc__handle_resolve(fn, buf, &b);
    if (status == ZC_OK && b->pool != pool)
        status = ZC_FAIL(ZC_ERR_WRONG_KIND, "%s: buffer %p does not belong to pool %p", fn,
                         (void *)buf, (void *)pool);
    zc__registry_unlock();
    ZC_CHECK(status);

    cudaEvent_t event = NULL;
    if (record_event) {
        int previous = 0;
        int entered = pool->device >= 0;
        if (entered) {
            ZC_CHECK(zc__device_enter(pool->device, &previous));
        }
        status = ZC_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
        if (status == ZC_OK) {
            status = ZC_CUDA(cudaEventRecord(event, (cudaStream_t)stream));
            if (status != ZC_OK) {
                ZC_CUDA_IGNORE(cudaEventDestroy(event));
                event = NULL;
            }
        }
        if (entered)
            status = zc__device_leave(previous, status);
        if (status != ZC_OK) {
            if (event != NULL)
                ZC_CUDA_IGNORE(cudaEventDestroy(event));
            return status;
        }
    }

    pthread_mutex_lock(&pool->lock);
    zc__registry_lock();
    /* Another thread may have freed it meanwhile; then exactly one of us succeeds. */
    status = zc__handle_resolve(fn, buf, &b);
    size_t size = 0;
    if (status == ZC_OK) {
        size = b->size;
        zc__handle_detach(b);
    }
    zc__registry_unlock();
    if (status == ZC_OK) {
        zc__lent_unlink(pool, b);
        zc__pool_core_put(&pool->core, b, size, b->capacity, event);
    }
    pthread_mutex_unlock(&pool->lock);
    if (status != ZC_OK && event != NULL)
        ZC_CUDA_IGNORE(cudaEventDestroy(event));
    return status;
}

ZC_EXTERN zc_status zc_pool_free(zc_pool *pool, zc_buffer *buf)
{
    ZC_REQUIRE_ARG(pool);
    if (buf == NULL)
        return ZC_OK;
    return zc__pool_return(pool, buf, NULL, 0, "zc_pool_free");
}

ZC_EXTERN zc_status zc_pool_free_after(zc_pool *pool, zc_buffer *buf, struct CUstream_st *stream)
{
    ZC_REQUIRE_ARG(pool);
    ZC_REQUIRE_ARG(buf);
    return zc__pool_return(pool, buf, stream, 1, "zc_pool_free_after");
}

ZC_EXTERN zc_status zc_pool_trim(zc_pool *pool, size_t keep_bytes)
{
    ZC_REQUIRE_ARG(pool);
    pthread_mutex_lock(&pool->lock);
    zc__pool_core_trim(&pool->core, keep_bytes);
    pthread_mutex_unlock(&pool->lock);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_pool_stats_get(zc_pool *pool, zc_pool_stats *stats_p)
{
    ZC_REQUIRE_ARG(pool);
    ZC_REQUIRE_ARG(stats_p);
    pthread_mutex_lock(&pool->lock);
    *stats_p = pool->core.stats;
    pthread_mutex_unlock(&pool->lock);
    return ZC_OK;
}
