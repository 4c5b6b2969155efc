/* SPDX-License-Identifier: Apache-2.0 */
/* A thread-safe caching pool of host buffers, so that repeated pinned allocations cost
 * microseconds instead of milliseconds. */
#ifndef ZEROCOPY_POOL_H
#define ZEROCOPY_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/buffer.h"
#include "zerocopy/export.h"
#include "zerocopy/status.h"

/*
 * Reuse policy: a freed block is kept; a request of n bytes takes the smallest cached block of
 * at least n bytes whose waste (capacity - n) is at most n / ZC_POOL_WASTE_DIVISOR plus one
 * page. So bytes pinned stay within 25% (plus a page) of bytes requested for every block handed
 * out, and nothing is rounded up to a power of two. A miss allocates exactly n bytes (rounded
 * to a page).
 */
#define ZC_POOL_WASTE_DIVISOR 4

/* A pool. */
typedef struct zc_pool zc_pool;

/* What a pool holds and has done. */
typedef struct zc_pool_stats {
    size_t bytes_requested; /* sum of the sizes asked for by blocks handed out now */
    size_t bytes_in_use;    /* capacity of the blocks handed out now */
    size_t bytes_cached;    /* capacity of the blocks waiting in the cache */
    size_t bytes_pinned;    /* bytes_in_use + bytes_cached: what the pool holds in all */
    size_t peak_bytes_pinned;
    size_t blocks_in_use;
    size_t blocks_cached;
    uint64_t hits;          /* requests served from the cache */
    uint64_t misses;        /* requests that allocated a new block */
    uint64_t releases;      /* blocks given back to the system (trim, limit, destroy) */
    uint64_t waits_skipped; /* cached blocks passed over because their stream event had not
                               completed */
} zc_pool_stats;

ZC_BEGIN_DECLS

/*
 * Create a pool of buffers of one kind (PINNED, MAPPED, WRITE_COMBINED or PAGEABLE) with the
 * given flags (as for zc_buffer_alloc) on device. max_cached_bytes bounds the cache: a freed
 * block that would exceed it releases the oldest cached blocks first (0: no bound).
 */
ZC_EXTERN zc_status zc_pool_create(zc_buffer_kind kind, unsigned flags, int device,
                                   size_t max_cached_bytes, zc_pool **pool_p);

/*
 * Release every cached block and the pool. Blocks still handed out are released too and their
 * handles become stale (freeing one later gives ZC_ERR_DOUBLE_FREE). NULL is accepted.
 */
ZC_EXTERN void zc_pool_destroy(zc_pool *pool);

/* A buffer of at least size bytes (zc_buffer_size says size) from the cache or newly made. */
ZC_EXTERN zc_status zc_pool_alloc(zc_pool *pool, size_t size, zc_buffer **buf_p);

/* Give a buffer back to the cache; it can be handed out again at once. */
ZC_EXTERN zc_status zc_pool_free(zc_pool *pool, zc_buffer *buf);

/*
 * Give a buffer back once the work queued on stream so far is done (an event is recorded on
 * stream now; the block is not reused before it completes). Use it after an async copy.
 */
ZC_EXTERN zc_status zc_pool_free_after(zc_pool *pool, zc_buffer *buf, struct CUstream_st *stream);

/* Release cached blocks until at most keep_bytes stay cached (0: release them all). Blocks
 * whose event has not completed are kept. */
ZC_EXTERN zc_status zc_pool_trim(zc_pool *pool, size_t keep_bytes);

/* A consistent snapshot of the pool's figures. */
ZC_EXTERN zc_status zc_pool_stats_get(zc_pool *pool, zc_pool_stats *stats_p);

ZC_END_DECLS

#endif
