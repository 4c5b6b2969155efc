/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pinning cure's row. Pinned memory the program frees is kept, still pinned, and handed out
 * again when the program asks for the same size with the same flags in the same context: a
 * program that pins and frees in a loop pins once. The memory handed out is the driver's own
 * allocation, so every query on it (cuMemHostGetFlags, cuMemHostGetDevicePointer,
 * cuPointerGetAttribute) answers as before. What CUDA documents stays true:
 * - cuMemFreeHost waits for the context's work before it frees; keeping a block waits the same
 *   (cuCtxSynchronize), so no copy still reading it sees it handed out again.
 * - cuMemFreeHost of memory that is not (or no longer) a live pinned allocation is an error:
 *   a block freed twice gets the driver's answer for it (CUDA_ERROR_INVALID_VALUE), and stays
 *   kept, never freed under the cache nor handed out twice.
 * - the memory of a context goes with it (CONTEXT_GONE): the blocks kept for it are freed, and
 *   the blocks the program holds are forgotten, so that their later free goes to the driver as
 *   it was.
 * Memory handed out again holds what its last user left in it; CUDA never promised zeroed
 * pinned memory.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "run_config.h"
#include "run_counts.h"
#include "run_cures.h"
#include "run_driver.h"
#include "run_grow.h"
#include "run_hooks.h"

/* How the program asked: the two entry points give different memory (flags), kept apart. */
typedef zc__run_pinned_via zc__via;

typedef struct zc__block {
    void *ptr;
    size_t bytes;
    unsigned flags;
    zc__via via;
    CUcontext ctx;
    CUdevice device;
    uint64_t pin_ns; /* what the driver took to pin it: the price of each reuse */
    int in_use;
} zc__block;

/* A read-write lock: page_locked, asked from inside memcpy (the hostcopy cure), only reads,
 * and two threads copying at once must not take each other for busy. */
static pthread_rwlock_t zc__lock = PTHREAD_RWLOCK_INITIALIZER;
static zc__block *zc__blocks;
static size_t zc__count, zc__capacity;
static size_t zc__cached_bytes;
static long zc__pid;

/* The table is the process's own: a forked child forgets its parent's (caller holds the lock;
 * FORK_CHILD does it too, this catches a child that forked without the handlers). */
static void zc__own(void)
{
    long pid = (long)getpid();
    if (zc__pid != pid) {
        zc__count = 0;
        zc__cached_bytes = 0;
        zc__pid = pid;
    }
}

static void zc__remove(size_t i)
{
    zc__blocks[i] = zc__blocks[--zc__count];
}

static int zc__append(const zc__block *b)
{
    if (!zc__run_grow((void **)&zc__blocks, &zc__capacity, zc__count, sizeof *b, 64))
        return 0;
    zc__blocks[zc__count++] = *b;
    return 1;
}

typedef CUresult (*zc__host_alloc_fn)(void **, size_t, unsigned int);
typedef CUresult (*zc__alloc_host_fn)(void **, size_t);
typedef CUresult (*zc__free_host_fn)(void *);

static CUresult zc__driver_alloc(zc__via via, void **p, size_t bytes, unsigned flags)
{
    if (via == ZC__VIA_HOST_ALLOC) {
        zc__host_alloc_fn fn = (zc__host_alloc_fn)zc__run_real(ZC__HOOK_MEM_HOST_ALLOC);
        return fn != NULL ? fn(p, bytes, flags) : CUDA_ERROR_NOT_INITIALIZED;
    }
    zc__alloc_host_fn fn = (zc__alloc_host_fn)zc__run_real(ZC__HOOK_MEM_ALLOC_HOST);
    return fn != NULL ? fn(p, bytes) : CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult zc__driver_free(void *p)
{
    zc__free_host_fn fn = (zc__free_host_fn)zc__run_real(ZC__HOOK_MEM_FREE_HOST);
    return fn != NULL ? fn(p) : CUDA_ERROR_NOT_INITIALIZED;
}

/*
 * Before the driver makes a block: the blocks kept of another kind (flags or entry point) in
 * this context are freed first, as the program freed them. The driver carves small pinned
 * blocks out of larger pieces of one kind, and answers cuMemHostGetFlags with the piece's
 * flags: a kept block of another kind would keep its piece alive, and the new block, carved
 * from it, would report flags the program did not ask for (seen on the H100: a portable block
 * answering 0x2 beside a kept default one, where the program alone gets 0x3).
 */
static void zc__free_other_kinds(const zc__run_pinned_ask *ask, CUcontext ctx)
{
    for (;;) {
        void *victim = NULL;
        pthread_rwlock_wrlock(&zc__lock);
        zc__own();
        for (size_t i = 0; i < zc__count && victim == NULL; i++) {
            zc__block *b = &zc__blocks[i];
            if (!b->in_use && b->ctx == ctx && (b->flags != ask->flags || b->via != ask->via)) {
                victim = b->ptr;
                zc__cached_bytes -= b->bytes;
                zc__remove(i);
            }
        }
        pthread_rwlock_unlock(&zc__lock);
        if (victim == NULL)
            return;
        (void)zc__driver_free(victim);
    }
}

/* With ZC_RUN_VERBOSE: each pinned allocation asked for, how it was served, and the flags the
 * driver says the block has (what the program's cuMemHostGetFlags will see). */
static void zc__say(const zc__run_pinned_ask *ask, const char *how, void *p)
{
    if (!zc__run_config_get()->verbose)
        return;
    unsigned flags = 0;
    typedef CUresult (*flags_fn)(unsigned *, void *);
    flags_fn real = (flags_fn)zc__run_real(ZC__HOOK_MEM_HOST_GET_FLAGS);
    CUresult r = p != NULL && real != NULL ? real(&flags, p) : CUDA_ERROR_INVALID_VALUE;
    fprintf(stderr,
            "zerocopy run: pinned allocation of %zu bytes by %s, flags 0x%x: %s at %p (the driver "
            "says flags 0x%x, %d)\n",
            ask->bytes, ask->via == ZC__VIA_HOST_ALLOC ? "cuMemHostAlloc" : "cuMemAllocHost",
            ask->flags, how, p, flags, (int)r);
}

/* Serve an allocation: a block kept of the same size, flags, way and context, else the driver's
 * own, kept in the table. 0 (not served) without a driver or a current context. */
static int zc__alloc_ask(const zc__run_pinned_ask *ask, CUresult *result_p)
{
    const zc__run_driver *d = zc__run_driver_get();
    CUcontext ctx = NULL;
    const zc__via via = ask->via;
    void **p = ask->p;
    const size_t bytes = ask->bytes;
    const unsigned flags = ask->flags;
    if (d == NULL || p == NULL || bytes == 0 || d->ctx_get_current(&ctx) != CUDA_SUCCESS ||
        ctx == NULL)
        return 0;
    uint64_t start = zc__run_now_ns();
    pthread_rwlock_wrlock(&zc__lock);
    zc__own();
    for (size_t i = 0; i < zc__count; i++) {
        zc__block *b = &zc__blocks[i];
        if (!b->in_use && b->bytes == bytes && b->flags == flags && b->via == via &&
            b->ctx == ctx) {
            b->in_use = 1;
            zc__cached_bytes -= bytes;
            *p = b->ptr;
            uint64_t price = b->pin_ns;
            pthread_rwlock_unlock(&zc__lock);
            zc__run_count(ZC_RUN_COUNTER_PINNING_HIT, bytes, zc__run_now_ns() - start, price,
                          ZC_RUN_PRICED_MEASURED);
            zc__say(ask, "served from a block kept", *p);
            *result_p = CUDA_SUCCESS;
            return 1;
        }
    }
    pthread_rwlock_unlock(&zc__lock);
    zc__free_other_kinds(ask, ctx);
    CUresult r = zc__driver_alloc(via, p, bytes, flags);
    uint64_t ns = zc__run_now_ns() - start;
    zc__block b = {.ptr = r == CUDA_SUCCESS ? *p : NULL,
                   .bytes = bytes,
                   .flags = flags,
                   .via = via,
                   .ctx = ctx,
                   .pin_ns = ns,
                   .in_use = 1};
    int kept = 0;
    if (r == CUDA_SUCCESS && d->ctx_get_device(&b.device) == CUDA_SUCCESS) {
        pthread_rwlock_wrlock(&zc__lock);
        zc__own();
        kept = zc__append(&b);
        pthread_rwlock_unlock(&zc__lock);
    }
    zc__run_count(kept ? ZC_RUN_COUNTER_PINNING_MISS : ZC_RUN_COUNTER_PINNING_LEFT, bytes, ns, ns,
                  ZC_RUN_PRICED_MEASURED);
    zc__say(ask, r == CUDA_SUCCESS ? "made by the driver" : "refused by the driver",
            r == CUDA_SUCCESS ? *p : NULL);
    *result_p = r;
    return 1;
}

/* Run fn with ctx current, as the driver's own free would find it. */
static CUresult zc__in_context(const zc__run_driver *d, CUcontext ctx, CUresult (*fn)(void))
{
    CUcontext current = NULL, popped;
    (void)d->ctx_get_current(&current);
    if (current == ctx)
        return fn();
    CUresult r = d->ctx_push(ctx);
    if (r != CUDA_SUCCESS)
        return r;
    r = fn();
    (void)d->ctx_pop(&popped);
    return r;
}

/* A release of a block in the table: kept (the context's work waited for first), or freed by
 * the driver past the cache's bound; a block already kept is the program freeing it twice, and
 * gets the driver's answer for memory it no longer holds. 0 (not served) for anything else. */
static int zc__free_ask(void *p, CUresult *result_p)
{
    const zc__run_driver *d = zc__run_driver_get();
    if (d == NULL || p == NULL)
        return 0;
    pthread_rwlock_wrlock(&zc__lock);
    zc__own();
    for (size_t i = 0; i < zc__count; i++) {
        zc__block *b = &zc__blocks[i];
        if (b->ptr != p)
            continue;
        if (!b->in_use) {
            pthread_rwlock_unlock(&zc__lock);
            *result_p = CUDA_ERROR_INVALID_VALUE;
            return 1;
        }
        CUcontext ctx = b->ctx;
        if (zc__run_exiting() || zc__cached_bytes + b->bytes > zc__run_config_get()->cache_bytes) {
            zc__remove(i);
            pthread_rwlock_unlock(&zc__lock);
            *result_p = zc__driver_free(p);
            return 1;
        }
        pthread_rwlock_unlock(&zc__lock);
        /* The driver's free waits for the context's work first; so does keeping the block. */
        CUresult r = zc__in_context(d, ctx, d->ctx_synchronize);
        if (r != CUDA_SUCCESS) {
            *result_p = r;
            return 1;
        }
        pthread_rwlock_wrlock(&zc__lock);
        for (size_t j = 0; j < zc__count; j++) {
            if (zc__blocks[j].ptr == p && zc__blocks[j].in_use) {
                zc__blocks[j].in_use = 0;
                zc__cached_bytes += zc__blocks[j].bytes;
            }
        }
        pthread_rwlock_unlock(&zc__lock);
        zc__run_exit_arm();
        *result_p = CUDA_SUCCESS;
        return 1;
    }
    pthread_rwlock_unlock(&zc__lock);
    return 0;
}

/* A kept block given back, for zc__run_in_context (the driver's answer is ignored: its context
 * is going). */
static void zc__free_block(void *p)
{
    (void)zc__driver_free(p);
}

/* The blocks of ctx (every context of device when ctx is NULL; every block when all is set):
 * those kept are freed, those the program holds forgotten, so that their later free goes to the
 * driver as it was. */
static void zc__drop(CUcontext ctx, CUdevice device, int all)
{
    const zc__run_driver *d = zc__run_driver_get();
    if (d == NULL)
        return;
    pthread_rwlock_wrlock(&zc__lock);
    zc__own();
    for (size_t i = 0; i < zc__count;) {
        zc__block *b = &zc__blocks[i];
        if (!all && (ctx != NULL ? b->ctx != ctx : b->device != device)) {
            i++;
            continue;
        }
        if (!b->in_use) {
            zc__run_in_context(d, b->ctx, zc__free_block, b->ptr);
            zc__cached_bytes -= b->bytes;
        }
        zc__remove(i);
    }
    pthread_rwlock_unlock(&zc__lock);
}

/* A range inside a block the program holds (the driver's pinned memory, made or served
 * through this row). Asked from inside memcpy: while a thread (this one too)
 * changes the table, 0. */
static int zc__page_locked(uintptr_t start, size_t length)
{
    if (pthread_rwlock_tryrdlock(&zc__lock) != 0)
        return 0;
    int inside = 0;
    if (zc__pid == (long)getpid()) {
        for (size_t i = 0; i < zc__count && !inside; i++) {
            inside = zc__blocks[i].in_use &&
                     zc__run_range_within(start, length, (uintptr_t)zc__blocks[i].ptr,
                                          zc__blocks[i].bytes);
        }
    }
    pthread_rwlock_unlock(&zc__lock);
    return inside;
}

const zc__run_calls zc__cure_pinning_calls = {
    .pinned_alloc = zc__alloc_ask, .pinned_free = zc__free_ask, .page_locked = zc__page_locked};

/* ---- the lifecycle: only its blocks, which are the driver's pinned memory ---- */

ZC__RUN_IGNORES(pinning, HOST_ALLOC)
ZC__RUN_IGNORES(pinning, HOST_FREE)
ZC__RUN_IGNORES(pinning, HOST_RESIZE)
ZC__RUN_IGNORES(pinning, RANGE_UNMAPPED)
ZC__RUN_IGNORES(pinning, RANGE_REPLACED)
ZC__RUN_IGNORES(pinning, PAGES_DISCARDED)
ZC__RUN_IGNORES(pinning, RANGE_REPROTECTED)
ZC__RUN_IGNORES(pinning, RANGE_IN_GRAPH)
ZC__RUN_IGNORES(pinning, RANGE_REGISTERED)

zc__run_answer ZC__RUN_ON(pinning, CONTEXT_GONE)(const zc__run_event *e)
{
    zc__drop(e->ctx, e->device, 0);
    return ZC__EVENT_SEEN;
}

ZC__RUN_IGNORES(pinning, FORK_CALLED)
ZC__RUN_IGNORES(pinning, FORK_PREPARE)
ZC__RUN_IGNORES(pinning, FORK_PARENT)

zc__run_answer ZC__RUN_ON(pinning, FORK_CHILD)(const zc__run_event *e)
{
    (void)e;
    pthread_rwlock_init(&zc__lock, NULL);
    zc__count = 0;
    zc__cached_bytes = 0;
    zc__pid = (long)getpid();
    return ZC__EVENT_SEEN;
}

zc__run_answer ZC__RUN_ON(pinning, EXIT)(const zc__run_event *e)
{
    (void)e;
    zc__drop(NULL, 0, 1);
    return ZC__EVENT_SEEN;
}
