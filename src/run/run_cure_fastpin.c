/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fastpin cure's row. A large pinned allocation (cuMemHostAlloc, cuMemAllocHost, and the
 * runtime's cudaHostAlloc and cudaMallocHost through them) is served from fresh private pages,
 * huge-page aligned, faulted in by every core the process may run on and then registered with
 * the driver in one piece: the first allocation costs about what the memory itself costs, where
 * the driver faults and pins its pages one thread at a time (on the H100 machine, 16 GiB:
 * 0.045 s/GiB against cudaHostAlloc's 0.42; bench/results/h100-20261206b).
 *
 * What the program sees stays the driver's:
 * - one registration of exactly the block (the driver refuses a copy that spans two
 *   registrations, so the block is never registered in pieces), with the flags asked for
 *   (portable, device-mapped), which cuMemHostGetFlags answers as for the driver's block;
 * - cuMemFreeHost waits for the context's work, then gives the memory back to the system at
 *   once (no cache: a freed block is never kept); a second free gets the driver's answer for
 *   memory it does not know;
 * - the driver's pinned memory is shared with a forked child; private pages are not. When the
 *   program calls fork (FORK_CALLED, before fork and its handlers run) each live block is made
 *   shared first: the context's work waited for, the block unregistered, its bytes copied into
 *   shared pages mapped at the same address, and registered again. That costs a copy of the
 *   block, once, and only in a program that forks.
 * Write-combined requests, sizes below ZC_RUN_FASTPIN_BYTES and anything the driver refuses to
 * register go to the driver as they were, counted.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/host.h"
#include "core/page_touch.h"
#include "run_config.h"
#include "run_counts.h"
#include "run_cures.h"
#include "run_driver.h"
#include "run_grow.h"
#include "run_fast_pages.h"

typedef struct zc__fast_block {
    void *ptr;
    size_t length; /* what is mapped and registered: the size asked, rounded up */
    unsigned register_flags;
    CUcontext ctx;
    int shared; /* made shared at a fork already */
} zc__fast_block;

/* A read-write lock: page_locked, asked from inside memcpy (the hostcopy cure), only reads,
 * and two threads copying at once must not take each other for busy. */
static pthread_rwlock_t zc__lock = PTHREAD_RWLOCK_INITIALIZER;
static zc__fast_block *zc__blocks;
static size_t zc__count, zc__capacity;

/* The threads that fault a block's pages in: the setting, else every CPU. */
static unsigned zc__threads(void)
{
    unsigned threads = zc__run_config_get()->fastpin_threads;
    return threads != 0 ? threads : zc__usable_cpus();
}

/* The registration flags that give the memory cuMemHostAlloc would have given for flags: the
 * driver's pinned memory is always mapped for the device (with unified addressing it answers
 * cuMemHostGetFlags with CU_MEMHOSTALLOC_DEVICEMAP even when not asked: 0x2 for a default block,
 * as a block registered device-mapped does), and portable when asked. */
static unsigned zc__register_flags(unsigned alloc_flags)
{
    unsigned flags = CU_MEMHOSTREGISTER_DEVICEMAP;
    if (alloc_flags & CU_MEMHOSTALLOC_PORTABLE)
        flags |= CU_MEMHOSTREGISTER_PORTABLE;
    return flags;
}

static int zc__append(const zc__fast_block *b)
{
    if (!zc__run_grow((void **)&zc__blocks, &zc__capacity, zc__count, sizeof *b, 16))
        return 0;
    zc__blocks[zc__count++] = *b;
    return 1;
}

/* Take the block that starts at p out of the table; 0 when there is none. */
static int zc__take(void *p, zc__fast_block *b_p)
{
    int found = 0;
    pthread_rwlock_wrlock(&zc__lock);
    for (size_t i = 0; i < zc__count && !found; i++) {
        if (zc__blocks[i].ptr == p) {
            *b_p = zc__blocks[i];
            zc__blocks[i] = zc__blocks[--zc__count];
            found = 1;
        }
    }
    pthread_rwlock_unlock(&zc__lock);
    return found;
}

/* The driver's registration of a block being faulted in (zc__touch_beside's beside). */
typedef struct zc__fast_registration {
    const zc__run_driver *d;
    const zc__fast_block *b;
    CUresult result;
} zc__fast_registration;

static int zc__register_fresh(void *arg)
{
    zc__fast_registration *reg = arg;
    reg->result = reg->d->mem_host_register(reg->b->ptr, reg->b->length, reg->b->register_flags);
    return 0;
}

/* Map, fault in and register a block for ask in the current context ctx; CUDA_SUCCESS with the
 * block in *b_p, else the driver's refusal (nothing left mapped). */
static CUresult zc__make(const zc__run_driver *d, const zc__run_pinned_ask *ask, CUcontext ctx,
                         zc__fast_block *b_p)
{
    zc__fast_block b = {.length = zc__fast_length(ask->bytes),
                        .register_flags = zc__register_flags(ask->flags),
                        .ctx = ctx};
    if (b.length == 0)
        return CUDA_ERROR_INVALID_VALUE;
    b.ptr = zc__fast_map(b.length);
    if (b.ptr == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    zc__fast_registration reg = {.d = d, .b = &b};
    /* The threads fault the pages in ahead of the driver's walk (core/page_touch.h); the
     * caller's thread is the one that registers. */
    unsigned threads = zc__threads();
    (void)zc__touch_beside(b.ptr, b.length, threads > 1 ? threads - 1 : 0, zc__register_fresh,
                           &reg);
    CUresult r = reg.result;
    if (r != CUDA_SUCCESS) {
        zc__fast_unmap(b.ptr, b.length);
        return r;
    }
    *b_p = b;
    return CUDA_SUCCESS;
}

/* Serve a large pinned allocation from fresh pages; 0 (not served: the next row or the driver
 * takes it) for a small or write-combined one, without a current context, or when the system
 * or the driver refuses (counted: the driver then gets the request as it was). */
static int zc__alloc_ask(const zc__run_pinned_ask *ask, CUresult *result_p)
{
    const zc__run_driver *d = zc__run_driver_get();
    CUcontext ctx = NULL;
    if (d == NULL || ask->p == NULL || ask->bytes < zc__run_config_get()->fastpin_bytes ||
        d->ctx_get_current(&ctx) != CUDA_SUCCESS || ctx == NULL)
        return 0;
    if (ask->flags & CU_MEMHOSTALLOC_WRITECOMBINED) {
        zc__run_count(ZC_RUN_COUNTER_FASTPIN_LEFT, ask->bytes, 0, 0, ZC_RUN_PRICED_NONE);
        return 0;
    }
    uint64_t start = zc__run_now_ns();
    zc__fast_block b;
    int kept = 0;
    if (zc__make(d, ask, ctx, &b) == CUDA_SUCCESS) {
        pthread_rwlock_wrlock(&zc__lock);
        kept = zc__append(&b);
        pthread_rwlock_unlock(&zc__lock);
        if (!kept) {
            (void)d->mem_host_unregister(b.ptr);
            zc__fast_unmap(b.ptr, b.length);
        }
    }
    uint64_t ns = zc__run_now_ns() - start;
    zc__run_count(kept ? ZC_RUN_COUNTER_FASTPIN_SERVED : ZC_RUN_COUNTER_FASTPIN_LEFT, ask->bytes,
                  ns, ns, ZC_RUN_PRICED_NONE);
    if (!kept)
        return 0;
    *ask->p = b.ptr;
    *result_p = CUDA_SUCCESS;
    return 1;
}

/* What the driver's free does before it frees, in the block's context: its work waited for. */
typedef struct zc__release_job {
    const zc__run_driver *d;
    zc__fast_block b;
    CUresult result;
} zc__release_job;

static void zc__release_in_context(void *arg)
{
    zc__release_job *job = arg;
    job->result = job->d->ctx_synchronize();
    if (job->result == CUDA_SUCCESS)
        job->result = job->d->mem_host_unregister(job->b.ptr);
}

/* The release of a block this row served: its context's work waited for, unregistered, and
 * given back to the system. 0 for any other pointer (a second free of a block included: the
 * driver answers it, as for memory it does not know). */
static int zc__free_ask(void *p, CUresult *result_p)
{
    const zc__run_driver *d = zc__run_driver_get();
    zc__fast_block b;
    if (d == NULL || p == NULL || !zc__take(p, &b))
        return 0;
    uint64_t start = zc__run_now_ns();
    zc__release_job job = {.d = d, .b = b, .result = CUDA_SUCCESS};
    zc__run_in_context(d, b.ctx, zc__release_in_context, &job);
    zc__fast_unmap(b.ptr, b.length);
    zc__run_count(ZC_RUN_COUNTER_FASTPIN_FREED, b.length, zc__run_now_ns() - start, 0,
                  ZC_RUN_PRICED_NONE);
    *result_p = job.result;
    return 1;
}

/* Whether [start, start + length) touches a block this row served: the program's
 * cuMemHostUnregister of it, or cuMemHostRegister of a range over it, gets the answer for the
 * driver's pinned memory (pins_view.c), not for the registration the row made. */
static int zc__owns(uintptr_t start, size_t length)
{
    int owned = 0;
    uintptr_t end = start + length < start ? UINTPTR_MAX : start + length;
    pthread_rwlock_rdlock(&zc__lock); /* only reads: page_locked's readers go on beside it */
    for (size_t i = 0; i < zc__count && !owned; i++) {
        uintptr_t base = (uintptr_t)zc__blocks[i].ptr;
        owned = start < base + zc__blocks[i].length && base < end;
    }
    pthread_rwlock_unlock(&zc__lock);
    return owned;
}

/* A range inside one of its blocks. Asked from inside memcpy: while a thread (this one too)
 * changes the table, 0. */
static int zc__page_locked(uintptr_t start, size_t length)
{
    if (pthread_rwlock_tryrdlock(&zc__lock) != 0)
        return 0;
    int inside = 0;
    for (size_t i = 0; i < zc__count && !inside; i++) {
        inside =
            zc__run_range_within(start, length, (uintptr_t)zc__blocks[i].ptr, zc__blocks[i].length);
    }
    pthread_rwlock_unlock(&zc__lock);
    return inside;
}

const zc__run_calls zc__cure_fastpin_calls = {.pinned_alloc = zc__alloc_ask,
                                              .pinned_free = zc__free_ask,
                                              .owns_pinned = zc__owns,
                                              .page_locked = zc__page_locked};

/* ---- the lifecycle: only its blocks ---- */

ZC__RUN_IGNORES(fastpin, HOST_ALLOC)
ZC__RUN_IGNORES(fastpin, HOST_FREE)
ZC__RUN_IGNORES(fastpin, HOST_RESIZE)
ZC__RUN_IGNORES(fastpin, RANGE_UNMAPPED)
ZC__RUN_IGNORES(fastpin, RANGE_REPLACED)
ZC__RUN_IGNORES(fastpin, PAGES_DISCARDED)
ZC__RUN_IGNORES(fastpin, RANGE_REPROTECTED)
ZC__RUN_IGNORES(fastpin, RANGE_IN_GRAPH)
/* The program registers a range of its own from the threshold on: the driver would fault its
 * missing pages in one at a time as it pins them (0.28 s/GiB for fresh malloc'd memory on the
 * H100 machine, against 0.065 for 16 threads touching 4 KiB pages); so they are faulted in from
 * every CPU first, without changing a byte, and the driver pins pages that are there. Only
 * private anonymous memory the program may write: a file's pages would be written back, and a
 * page it may not write would fault. The registration stays one call, the program's own: the
 * driver refuses a copy across two registrations, so it is never split. */
zc__run_answer ZC__RUN_ON(fastpin, RANGE_REGISTERED)(const zc__run_event *e)
{
    if (e->length < zc__run_config_get()->fastpin_bytes)
        return ZC__EVENT_SEEN;
    uint64_t start = zc__run_now_ns();
    if (!zc__fast_anon_writable((const void *)e->start, e->length)) {
        zc__run_count(ZC_RUN_COUNTER_FASTPIN_UNTOUCHED, e->length, 0, 0, ZC_RUN_PRICED_NONE);
        return ZC__EVENT_SEEN;
    }
    zc__fast_touch((void *)e->start, e->length, zc__threads());
    zc__run_count(ZC_RUN_COUNTER_FASTPIN_TOUCHED, e->length, zc__run_now_ns() - start, 0,
                  ZC_RUN_PRICED_NONE);
    return ZC__EVENT_SEEN;
}

/* The driver frees the pinned memory of a context with it; so does this row, for the blocks of a
 * context destroyed (cuCtxDestroy), unregistered while the context still is. A device-wide event
 * leaves the blocks as they are: it is raised before every cuDevicePrimaryCtxRelease, and the
 * context may well live on (another retain holds it), so freeing the blocks would take memory
 * the program still uses; where the context did go, their registrations went with it, and the
 * pages stay mapped until the program frees them or exits. Once the process exits (the
 * runtime's own teardown), the blocks are left to go with it: a thread still running may be
 * using one. */
zc__run_answer ZC__RUN_ON(fastpin, CONTEXT_GONE)(const zc__run_event *e)
{
    const zc__run_driver *d = zc__run_driver_get();
    if (zc__run_exiting() || e->ctx == NULL)
        return ZC__EVENT_SEEN;
    for (;;) {
        zc__fast_block b;
        int found = 0;
        pthread_rwlock_wrlock(&zc__lock);
        for (size_t i = 0; i < zc__count && !found; i++) {
            zc__fast_block *c = &zc__blocks[i];
            if (c->ctx == e->ctx) {
                b = *c;
                *c = zc__blocks[--zc__count];
                found = 1;
            }
        }
        pthread_rwlock_unlock(&zc__lock);
        if (!found)
            return ZC__EVENT_SEEN;
        if (d != NULL) {
            zc__release_job job = {.d = d, .b = b, .result = CUDA_SUCCESS};
            zc__run_in_context(d, b.ctx, zc__release_in_context, &job);
        }
        zc__fast_unmap(b.ptr, b.length);
    }
}

/* Make one block shared, in its context: work waited for, unregistered, copied into shared
 * pages at its address, registered again. Counted; a block that could not be made shared is
 * registered again as it was (its child then gets a copy, not a share). */
static void zc__share_in_context(void *arg)
{
    zc__release_job *job = arg;
    const zc__run_driver *d = job->d;
    job->result = d->ctx_synchronize();
    if (job->result == CUDA_SUCCESS)
        job->result = d->mem_host_unregister(job->b.ptr);
    if (job->result != CUDA_SUCCESS)
        return;
    int shared = zc__fast_share(job->b.ptr, job->b.length);
    job->result = d->mem_host_register(job->b.ptr, job->b.length, job->b.register_flags);
    if (shared != 0 && job->result == CUDA_SUCCESS)
        job->result = CUDA_ERROR_OUT_OF_MEMORY;
}

/* The program called fork: every live block made shared first, as the driver's pinned memory
 * is, before fork and its handlers run (a handler of fork's own may not call CUDA: the driver's
 * handlers, which run before it, may hold its locks). A block served or freed meanwhile by
 * another thread waits for the lock; one served after it, before the fork, stays private. */
zc__run_answer ZC__RUN_ON(fastpin, FORK_CALLED)(const zc__run_event *e)
{
    (void)e;
    const zc__run_driver *d = zc__run_driver_get();
    pthread_rwlock_wrlock(&zc__lock);
    for (size_t i = 0; d != NULL && i < zc__count; i++) {
        if (zc__blocks[i].shared)
            continue;
        uint64_t start = zc__run_now_ns();
        zc__release_job job = {.d = d, .b = zc__blocks[i], .result = CUDA_SUCCESS};
        zc__run_in_context(d, job.b.ctx, zc__share_in_context, &job);
        zc__blocks[i].shared = job.result == CUDA_SUCCESS;
        zc__run_count(job.result == CUDA_SUCCESS ? ZC_RUN_COUNTER_FASTPIN_SHARED
                                                 : ZC_RUN_COUNTER_FASTPIN_PRIVATE,
                      job.b.length, zc__run_now_ns() - start, 0, ZC_RUN_PRICED_NONE);
    }
    pthread_rwlock_unlock(&zc__lock);
    return ZC__EVENT_SEEN;
}

ZC__RUN_IGNORES(fastpin, FORK_PREPARE)
ZC__RUN_IGNORES(fastpin, FORK_PARENT)

/* In the child CUDA is unusable; the blocks stay mapped (shared with the parent) and are no
 * longer the row's. */
zc__run_answer ZC__RUN_ON(fastpin, FORK_CHILD)(const zc__run_event *e)
{
    (void)e;
    pthread_rwlock_init(&zc__lock, NULL);
    zc__count = 0;
    return ZC__EVENT_SEEN;
}

/* At exit the blocks go with the process, as the driver's do. */
ZC__RUN_IGNORES(fastpin, EXIT)
