/* SPDX-License-Identifier: Apache-2.0 */
/* The record of live buffers: a handle table with generations, a sorted range index, totals. */
#include "mem/registry.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "core/error.h"

_Static_assert(sizeof(void *) == 8, "handles pack a slot and a generation into 64 bits");

/* Slots come in chunks that never move, so growing the table never invalidates a slot. */
#define ZC__CHUNK_SLOTS 4096u
#define ZC__MAX_CHUNKS  4096u

typedef struct zc__slot {
    zc__block *block; /* NULL when free */
    uint32_t generation;
} zc__slot;

static pthread_mutex_t zc__lock = PTHREAD_MUTEX_INITIALIZER;
static zc__slot *zc__chunks[ZC__MAX_CHUNKS];
static uint32_t zc__slot_count;  /* slots made so far */
static uint32_t *zc__free_slots; /* stack of free slot indexes */
static uint32_t zc__free_count;
static uint32_t zc__free_cap;

/* Blocks sorted by start address; few enough that insertion by memmove is cheap. */
static zc__block **zc__ranges;
static size_t zc__range_count;
static size_t zc__range_cap;

static zc_buffer_totals zc__totals;

void zc__registry_lock(void)
{
    pthread_mutex_lock(&zc__lock);
}

void zc__registry_unlock(void)
{
    pthread_mutex_unlock(&zc__lock);
}

static int zc__is_pinned_kind(zc_buffer_kind kind)
{
    return (zc_buffer_kind_props(kind) & ZC_KIND_PAGE_LOCKED) != 0;
}

/* Index of the first block starting at or after addr. */
static size_t zc__lower_bound(uintptr_t addr)
{
    size_t lo = 0, hi = zc__range_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (zc__block_start(zc__ranges[mid]) < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uintptr_t zc__block_end(const zc__block *b)
{
    return zc__block_start(b) + b->capacity;
}

zc__block *zc__registry_find_overlap(uintptr_t start, size_t len)
{
    size_t i = zc__lower_bound(start);
    /* The block before start may reach into the range; the one at i may start inside it. */
    if (i > 0 && zc__block_end(zc__ranges[i - 1]) > start)
        return zc__ranges[i - 1];
    if (i < zc__range_count && zc__block_start(zc__ranges[i]) - start < len)
        return zc__ranges[i];
    return NULL;
}

zc__block *zc__registry_find(uintptr_t addr)
{
    return zc__registry_find_overlap(addr, 1);
}

zc_status zc__registry_insert(const char *fn, zc__block *block)
{
    uintptr_t start = zc__block_start(block);
    zc__block *other = zc__registry_find_overlap(start, block->capacity);
    if (other != NULL)
        return ZC_FAIL(ZC_ERR_OVERLAP,
                       "%s: range %p + %zu overlaps the %s buffer at %p + %zu already recorded", fn,
                       (void *)start, block->capacity, zc_buffer_kind_name(other->kind),
                       (void *)zc__block_start(other), other->capacity);
    if (zc__range_count == zc__range_cap) {
        size_t cap = zc__range_cap ? zc__range_cap * 2 : 64;
        size_t bytes;
        if (!zc__size_mul(cap, sizeof *zc__ranges, &bytes))
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: range index cannot grow", fn);
        zc__block **grown = realloc(zc__ranges, bytes);
        if (grown == NULL)
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: range index cannot grow to %zu entries", fn, cap);
        zc__ranges = grown;
        zc__range_cap = cap;
    }
    size_t i = zc__lower_bound(start);
    memmove(&zc__ranges[i + 1], &zc__ranges[i], (zc__range_count - i) * sizeof *zc__ranges);
    zc__ranges[i] = block;
    zc__range_count++;

    zc__totals.live_blocks++;
    zc__totals.bytes[block->kind] += block->capacity;
    if (zc__is_pinned_kind(block->kind))
        zc__totals.pinned_bytes += block->capacity;
    zc__totals.allocs++;
    return ZC_OK;
}

void zc__registry_remove(zc__block *block)
{
    size_t i = zc__lower_bound(zc__block_start(block));
    while (i < zc__range_count && zc__ranges[i] != block)
        i++;
    if (i == zc__range_count)
        return; /* never inserted: a block that failed half-way */
    memmove(&zc__ranges[i], &zc__ranges[i + 1], (zc__range_count - i - 1) * sizeof *zc__ranges);
    zc__range_count--;
    zc__totals.live_blocks--;
    zc__totals.bytes[block->kind] -= block->capacity;
    if (zc__is_pinned_kind(block->kind))
        zc__totals.pinned_bytes -= block->capacity;
    zc__totals.frees++;
}

static zc__slot *zc__slot_at(uint32_t index)
{
    return &zc__chunks[index / ZC__CHUNK_SLOTS][index % ZC__CHUNK_SLOTS];
}

zc_status zc__handle_attach(const char *fn, zc__block *block, size_t size, zc_buffer **buf_p)
{
    uint32_t index;
    if (zc__free_count > 0) {
        index = zc__free_slots[--zc__free_count];
    } else {
        if (zc__slot_count == ZC__CHUNK_SLOTS * ZC__MAX_CHUNKS)
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: %u buffers are live, the most there can be", fn,
                           zc__slot_count);
        uint32_t chunk = zc__slot_count / ZC__CHUNK_SLOTS;
        if (zc__chunks[chunk] == NULL) {
            zc__chunks[chunk] = calloc(ZC__CHUNK_SLOTS, sizeof(zc__slot));
            if (zc__chunks[chunk] == NULL)
                return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: handle table cannot grow", fn);
        }
        /* The free stack must be able to hold every slot, so that detach never fails. */
        if (zc__free_cap < zc__slot_count + 1) {
            uint32_t cap = zc__free_cap ? zc__free_cap * 2 : ZC__CHUNK_SLOTS;
            uint32_t *grown = realloc(zc__free_slots, (size_t)cap * sizeof *grown);
            if (grown == NULL)
                return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: handle table cannot grow", fn);
            zc__free_slots = grown;
            zc__free_cap = cap;
        }
        index = zc__slot_count++;
        zc__slot_at(index)->generation = 1;
    }
    zc__slot *slot = zc__slot_at(index);
    slot->block = block;
    block->size = size;
    block->handle = ((uint64_t)slot->generation << 32) | ((uint64_t)index + 1);
    zc__totals.live_buffers++;
    *buf_p = (zc_buffer *)(uintptr_t)block->handle;
    return ZC_OK;
}

zc_status zc__handle_resolve(const char *fn, const zc_buffer *buf, zc__block **block_p)
{
    if (buf == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: buffer handle is NULL", fn);
    uint64_t handle = (uint64_t)(uintptr_t)buf;
    uint64_t low = handle & 0xffffffffu;
    uint32_t generation = (uint32_t)(handle >> 32);
    if (low == 0 || low > zc__slot_count || generation == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %p is not a zerocopy buffer handle", fn,
                       (const void *)buf);
    zc__slot *slot = zc__slot_at((uint32_t)(low - 1));
    if (slot->generation != generation || slot->block == NULL) {
        /* Generations only grow, so an older one is a freed handle; a newer one was forged. */
        if (generation < slot->generation)
            return ZC_FAIL(ZC_ERR_DOUBLE_FREE, "%s: buffer %p was already freed", fn,
                           (const void *)buf);
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %p is not a zerocopy buffer handle", fn,
                       (const void *)buf);
    }
    *block_p = slot->block;
    return ZC_OK;
}

void zc__handle_detach(zc__block *block)
{
    if (block->handle == 0)
        return;
    uint32_t index = (uint32_t)((block->handle & 0xffffffffu) - 1);
    zc__slot *slot = zc__slot_at(index);
    slot->block = NULL;
    /* Skip 0 on wrap-around so that a valid handle is never mistaken for a forged one. */
    slot->generation = slot->generation == UINT32_MAX ? 1 : slot->generation + 1;
    zc__free_slots[zc__free_count++] = index;
    block->handle = 0;
    block->size = 0;
    zc__totals.live_buffers--;
}

void zc__registry_totals(zc_buffer_totals *totals_p)
{
    *totals_p = zc__totals;
}

void zc__block_info(const zc__block *block, zc_buffer_info *info_p)
{
    zc_buffer_info info;
    memset(&info, 0, sizeof info);
    info.kind = block->kind;
    info.requested_kind = block->requested_kind;
    info.flags = block->flags;
    info.notes = block->notes;
    info.method = block->method;
    info.device = block->device;
    info.host_ptr = block->host;
    info.device_ptr = block->dev;
    info.size = block->size;
    info.capacity = block->capacity;
    info.fallback_status = block->fallback_status;
    *info_p = info;
}
