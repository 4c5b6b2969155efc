/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: a pool's bookkeeping (best-fit cache, limits, figures), free of CUDA so that the
 * CPU tests can drive it with fake blocks. The caller holds the pool's lock around every call. */
#ifndef ZC_MEM_POOL_CORE_H
#define ZC_MEM_POOL_CORE_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/pool.h"

/* What the core asks of its owner. Blocks and events are opaque to it. */
typedef struct zc__pool_ops {
    /* 1 when the event has completed (or failed: nothing waits on it any more), 0 if not. */
    int (*event_done)(void *ctx, void *event);
    /* Destroy an event that has completed. */
    void (*event_destroy)(void *ctx, void *event);
    /* Give a cached block back to the system, waiting for its event first when it has one. */
    void (*release)(void *ctx, void *block, void *event);
    void *ctx;
} zc__pool_ops;

typedef struct zc__pool_entry {
    void *block;
    size_t capacity;
    void *event;  /* NULL, or what must complete before the block is reused */
    uint64_t age; /* order of caching: smaller is older */
} zc__pool_entry;

typedef struct zc__pool_core {
    zc__pool_entry *cache; /* sorted by capacity, ascending; equal capacities oldest first */
    size_t count;
    size_t cap;
    size_t max_cached; /* 0: no bound */
    uint64_t clock;
    zc_pool_stats stats;
    zc__pool_ops ops;
} zc__pool_core;

/* The largest capacity that may serve a request of size bytes (the waste bound). */
size_t zc__pool_fit_limit(size_t size);

void zc__pool_core_init(zc__pool_core *core, size_t max_cached, const zc__pool_ops *ops);

/* Release every cached block and free the cache. */
void zc__pool_core_fini(zc__pool_core *core);

/*
 * Take the best-fitting cached block for size bytes: 1 with *block_p and *capacity_p on a hit
 * (counted in use), 0 on a miss (counted; the caller then makes a block and calls
 * zc__pool_core_added).
 */
int zc__pool_core_take(zc__pool_core *core, size_t size, void **block_p, size_t *capacity_p);

/* A block made after a miss is now handed out. */
void zc__pool_core_added(zc__pool_core *core, size_t size, size_t capacity);

/* A block handed out will not come back (it was released directly). */
void zc__pool_core_dropped(zc__pool_core *core, size_t size, size_t capacity);

/*
 * A handed-out block of capacity bytes, lent for size bytes, comes back with an optional event.
 * It is cached (oldest blocks released first when max_cached would be passed), or released at
 * once when it alone exceeds max_cached or the cache cannot grow.
 */
void zc__pool_core_put(zc__pool_core *core, void *block, size_t size, size_t capacity, void *event);

/* Release cached blocks, oldest first, until at most keep_bytes stay cached; blocks whose
 * event has not completed stay. */
void zc__pool_core_trim(zc__pool_core *core, size_t keep_bytes);

#endif
