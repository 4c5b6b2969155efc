/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reuse cure: a large malloc-family block the program frees after copying it whole to or
 * from the device is kept, still allocated, and handed out again for the program's next
 * allocation of exactly its size. The block keeps its pages, already faulted in, and whatever
 * the register cure holds of it (its pin, its count of bytes copied), because no row after this
 * one hears of the free (ZC__EVENT_KEPT). A program that allocates a fresh destination for each
 * device-to-host copy (PyTorch's .cpu(), a checkpoint taken again and again) then copies into
 * pages that are there, and pinned from the block's second copy on, rather than faulting fresh
 * pages in one by one inside the copy (docs/run.md, "The reuse cure").
 *
 * malloc's memory holds whatever it held (C11 7.22.3.4), so a kept block is a block the
 * allocator could have given; calloc, whose memory reads as zeros, is never served. The blocks
 * kept are bounded in bytes (ZC_RUN_REUSE_BYTES), the oldest given back first, and all of them
 * when an allocation fails without them. Nothing here calls CUDA: the hooks that raise these
 * events may run where CUDA calls are not allowed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "run_config.h"
#include "run_counts.h"
#include "run_cures.h"
#include "run_register.h" /* zc__run_range_end */
#include "run_track.h"

#define ZC__REUSE_SLOTS     1024u
#define ZC__EVICT_MAX       64u /* blocks given back to make room for one, at most */
/* Smaller blocks are neither kept nor looked for: their few pages cost little to fault in, and
 * every allocation of the program would search the table (the allocation hooks hear from 1 byte
 * under tight settings). */
#define ZC__REUSE_MIN_BYTES ((size_t)256 << 10)

typedef struct zc__kept_block {
    uintptr_t base;
    size_t size; /* the size the program asked for, which a new allocation must match */
} zc__kept_block;

/* The blocks kept, oldest first; bytes is the sum of their sizes. */
static struct {
    pthread_mutex_t lock;
    zc__kept_block blocks[ZC__REUSE_SLOTS];
    unsigned count; /* read without the lock only to skip it while nothing is kept */
    size_t bytes;
} zc__kept = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Set on a thread while it gives a kept block back through free: that free is not kept again.
 * Volatile: the compiler takes free for the C library's, which reads no flag of ours, and would
 * drop the stores around the call. */
static __thread volatile int zc__giving_back __attribute__((tls_model("initial-exec")));

/* Take block i out of the table (caller holds the lock); gives it. */
static zc__kept_block zc__take_out(unsigned i)
{
    zc__kept_block b = zc__kept.blocks[i];
    for (unsigned k = i + 1; k < zc__kept.count; k++)
        zc__kept.blocks[k - 1] = zc__kept.blocks[k];
    zc__kept.bytes -= b.size;
    __atomic_store_n(&zc__kept.count, zc__kept.count - 1, __ATOMIC_RELEASE);
    return b;
}

/* Give blocks back to the allocator through free, so that every other row hears of it (the
 * register cure unpins a pinned one before its release). */
static void zc__give_back(const zc__kept_block *blocks, unsigned n)
{
    zc__giving_back = 1;
    for (unsigned i = 0; i < n; i++)
        free((void *)blocks[i].base);
    zc__giving_back = 0;
    for (unsigned i = 0; i < n; i++)
        zc__run_count(ZC_RUN_COUNTER_REUSE_RELEASED, blocks[i].size, 0, 0, ZC_RUN_PRICED_NONE);
}

/* Keep the block at base of size bytes, making room under the bound by giving the oldest back;
 * gives whether it was kept. */
static int zc__keep(uintptr_t base, size_t size)
{
    size_t bound = zc__run_config_get()->reuse_bytes;
    if (size < ZC__REUSE_MIN_BYTES || size > bound)
        return 0;
    zc__kept_block evicted[ZC__EVICT_MAX];
    unsigned n = 0;
    int kept = 0;
    pthread_mutex_lock(&zc__kept.lock);
    while (n < ZC__EVICT_MAX && zc__kept.count > 0 &&
           (zc__kept.count == ZC__REUSE_SLOTS || zc__kept.bytes + size > bound))
        evicted[n++] = zc__take_out(0);
    if (zc__kept.count < ZC__REUSE_SLOTS && zc__kept.bytes + size <= bound) {
        zc__kept.blocks[zc__kept.count] = (zc__kept_block){.base = base, .size = size};
        zc__kept.bytes += size;
        __atomic_store_n(&zc__kept.count, zc__kept.count + 1, __ATOMIC_RELEASE);
        kept = 1;
    }
    pthread_mutex_unlock(&zc__kept.lock);
    zc__give_back(evicted, n);
    return kept;
}

static void *zc__host_serve(size_t bytes, size_t alignment)
{
    if (bytes < ZC__REUSE_MIN_BYTES || __atomic_load_n(&zc__kept.count, __ATOMIC_ACQUIRE) == 0)
        return NULL;
    zc__kept_block b = {0};
    unsigned misaligned = 0;
    pthread_mutex_lock(&zc__kept.lock);
    /* The newest first: its pages are the likeliest still in the caches. */
    for (unsigned i = zc__kept.count; i-- > 0;) {
        if (zc__kept.blocks[i].size != bytes)
            continue;
        if (zc__kept.blocks[i].base % alignment == 0) {
            b = zc__take_out(i);
            break;
        }
        misaligned++;
    }
    pthread_mutex_unlock(&zc__kept.lock);
    if (b.base == 0 && misaligned != 0 && zc__run_config_get()->verbose)
        fprintf(stderr,
                "zerocopy run: reuse: %zu bytes at alignment %zu not served: %u kept block(s) "
                "of the size, none so aligned\n",
                bytes, alignment, misaligned);
    if (b.base == 0)
        return NULL;
    zc__run_count(ZC_RUN_COUNTER_REUSE_SERVED, b.size, 0, 0, ZC_RUN_PRICED_NONE);
    return (void *)b.base;
}

static size_t zc__host_squeeze(void)
{
    if (__atomic_load_n(&zc__kept.count, __ATOMIC_ACQUIRE) == 0)
        return 0;
    static zc__kept_block all[ZC__REUSE_SLOTS]; /* under squeeze_lock: too big for a stack */
    static pthread_mutex_t squeeze_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&squeeze_lock);
    pthread_mutex_lock(&zc__kept.lock);
    unsigned n = zc__kept.count;
    size_t bytes = zc__kept.bytes;
    for (unsigned i = 0; i < n; i++)
        all[i] = zc__kept.blocks[i];
    zc__kept.bytes = 0;
    __atomic_store_n(&zc__kept.count, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&zc__kept.lock);
    zc__give_back(all, n);
    pthread_mutex_unlock(&squeeze_lock);
    return bytes;
}

const zc__run_calls zc__cure_reuse_calls = {.host_serve = zc__host_serve,
                                            .host_squeeze = zc__host_squeeze};

/* ---- the lifecycle ---- */

/* With ZC_RUN_VERBOSE=1, why a large block freed was not kept (what a reader of a run with
 * fewer blocks served than freed needs). */
static void zc__say_not_kept(uintptr_t base, size_t size, const char *why)
{
    if (zc__run_config_get()->verbose && size >= ZC__REUSE_MIN_BYTES)
        fprintf(stderr, "zerocopy run: reuse: block %p of %zu bytes freed, not kept: %s\n",
                (void *)base, size, why);
}

/* A free the hook could make later (not realloc's), of a block the program copied whole: kept.
 * While the process exits, or for a block being given back, the free goes on. */
zc__run_answer ZC__RUN_ON(reuse, HOST_FREE)(const zc__run_event *e)
{
    size_t size = 0;
    if (e->release == NULL || zc__giving_back || zc__run_exiting())
        return ZC__EVENT_SEEN;
    zc__run_copied copied = zc__run_track_copied((void *)e->start, &size);
    if (copied != ZC__COPIED_WHOLE) {
        if (copied == ZC__COPIED_PART)
            zc__say_not_kept(e->start, size, "not copied whole from its start");
        return ZC__EVENT_SEEN;
    }
    if (!zc__keep(e->start, size)) {
        zc__say_not_kept(e->start, size, "over the bound, or the table full");
        return ZC__EVENT_SEEN;
    }
    zc__run_count(ZC_RUN_COUNTER_REUSE_KEPT, size, 0, 0, ZC_RUN_PRICED_NONE);
    return ZC__EVENT_KEPT;
}

/*
 * A kept block is allocated in the allocator's eyes and no longer the program's: only a program
 * that uses memory it freed (or releases it behind the hooks) unmaps, changes or hands out its
 * pages. Such a block is forgotten, never handed out again (nor given back: its pages may be
 * gone).
 */
static zc__run_answer zc__forget_touching(const zc__run_event *e)
{
    if (__atomic_load_n(&zc__kept.count, __ATOMIC_ACQUIRE) == 0 || e->length == 0)
        return ZC__EVENT_SEEN;
    uintptr_t end = zc__run_range_end(e->start, e->length);
    unsigned forgotten = 0;
    pthread_mutex_lock(&zc__kept.lock);
    for (unsigned i = zc__kept.count; i-- > 0;) {
        const zc__kept_block *b = &zc__kept.blocks[i];
        if (b->base < end && zc__run_range_end(b->base, b->size) > e->start) {
            (void)zc__take_out(i);
            forgotten++;
        }
    }
    pthread_mutex_unlock(&zc__kept.lock);
    if (forgotten != 0 && zc__run_config_get()->verbose)
        fprintf(stderr, "zerocopy run: reuse: %u kept block(s) forgotten: event %d over %p+%zu\n",
                forgotten, (int)e->id, (void *)e->start, e->length);
    return ZC__EVENT_SEEN;
}

/* Every event about a range forgets the kept blocks it touches; a new allocation over one too
 * (the block was released behind the hooks). */
#define ZC__REUSE_FORGETS(event)                                                                   \
    zc__run_answer ZC__RUN_ON(reuse, event)(const zc__run_event *e)                                \
    {                                                                                              \
        return zc__forget_touching(e);                                                             \
    }
ZC__REUSE_FORGETS(HOST_ALLOC)
ZC__REUSE_FORGETS(RANGE_UNMAPPED)
ZC__REUSE_FORGETS(RANGE_REPLACED)
ZC__REUSE_FORGETS(PAGES_DISCARDED)
ZC__REUSE_FORGETS(RANGE_REPROTECTED)
ZC__REUSE_FORGETS(RANGE_IN_GRAPH)
ZC__REUSE_FORGETS(RANGE_REGISTERED)
#undef ZC__REUSE_FORGETS

/* realloc of a kept block is realloc of memory the program freed: nothing to hold. */
ZC__RUN_IGNORES(reuse, HOST_RESIZE)
/* A kept block's pin is the register cure's, which unpins it with its context and at exit. */
ZC__RUN_IGNORES(reuse, CONTEXT_GONE)
ZC__RUN_IGNORES(reuse, EXIT)
ZC__RUN_IGNORES(reuse, FORK_CALLED)

/* The table is the child's, whose memory is a copy: its blocks are the child's to hand out
 * (their pins were the parent's, and the register cure forgets them there). No lock is taken
 * around the fork, where another row's handler may free: a table another thread was changing
 * then (its lock held, by a thread the child does not have) is emptied, its blocks left to the
 * child's end. */
ZC__RUN_IGNORES(reuse, FORK_PREPARE)
ZC__RUN_IGNORES(reuse, FORK_PARENT)

zc__run_answer ZC__RUN_ON(reuse, FORK_CHILD)(const zc__run_event *e)
{
    (void)e;
    if (pthread_mutex_trylock(&zc__kept.lock) == 0) {
        pthread_mutex_unlock(&zc__kept.lock);
        return ZC__EVENT_SEEN;
    }
    zc__kept.bytes = 0;
    __atomic_store_n(&zc__kept.count, 0, __ATOMIC_RELEASE);
    pthread_mutex_init(&zc__kept.lock, NULL);
    return ZC__EVENT_SEEN;
}
