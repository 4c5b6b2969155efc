/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: one allocation of any kind (a "block") and how it is made and released. */
#ifndef ZC_MEM_BLOCK_H
#define ZC_MEM_BLOCK_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/buffer.h"

struct zc_pool;

/*
 * What zerocopy holds for one allocation. A buffer handle names a block; a pool's block
 * outlives the handles it is lent under. Fields other than those marked are fixed once the
 * block is made.
 */
typedef struct zc__block {
    zc_buffer_kind kind;
    zc_buffer_kind requested_kind;
    unsigned flags;
    unsigned notes;
    zc_buffer_method method;
    int device;
    void *host;      /* NULL for device memory */
    void *dev;       /* device-side address, NULL when none */
    size_t capacity; /* bytes held */
    void *map_base;  /* what munmap / free / cudaFreeHost receives */
    size_t map_len;  /* munmap length */
    zc_status fallback_status;
    struct zc_pool *pool; /* owning pool, NULL when none */
    /* The owning pool's list of its blocks handed out, under the pool's lock. */
    struct zc__block *pool_prev;
    struct zc__block *pool_next;
    /* Changed under the registry lock: */
    size_t size;     /* bytes asked for by the current holder */
    uint64_t handle; /* the live handle naming this block, 0 when none (cached in a pool) */
} zc__block;

/* Where a block sits in the address space: host address, or device address for device
 * memory (one address space under UVA, which every 64-bit CUDA platform has). */
static inline uintptr_t zc__block_start(const zc__block *b)
{
    return (uintptr_t)(b->host != NULL ? b->host : b->dev);
}

/*
 * Make a block of size bytes for zc_buffer_alloc's arguments, already validated. Does not
 * touch the registry. fn names the public function for error details.
 */
zc_status zc__block_make(const char *fn, size_t size, zc_buffer_kind kind, unsigned flags,
                         int device, zc__block **block_p);

/* Pin the caller's range (zc_buffer_register, arguments validated). */
zc_status zc__block_register(const char *fn, void *ptr, size_t size, unsigned flags, int device,
                             zc__block **block_p);

/* Release the memory with the function its method needs, then the record. Returns the first
 * failure, after releasing everything it can. */
zc_status zc__block_release(zc__block *block);

/* Check kind and flags together (no device needed); ZC_ERR_INVALID_ARG with a detail. */
zc_status zc__check_kind_flags(const char *fn, zc_buffer_kind kind, unsigned flags);

/* Round size up to whole pages; ZC_ERR_OVERFLOW when it cannot be. */
zc_status zc__page_round(const char *fn, size_t size, size_t *rounded_p);

#endif
