/* SPDX-License-Identifier: Apache-2.0 */
/* A pool's bookkeeping: best fit with bounded waste, a size bound on the cache, figures. */
#include "mem/pool_core.h"

#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "core/host.h"
#include "mem/pages.h"

size_t zc__pool_fit_limit(size_t size)
{
    size_t slack = size / ZC_POOL_WASTE_DIVISOR + zc__page_size();
    return size > SIZE_MAX - slack ? SIZE_MAX : size + slack;
}

void zc__pool_core_init(zc__pool_core *core, size_t max_cached, const zc__pool_ops *ops)
{
    memset(core, 0, sizeof *core);
    core->max_cached = max_cached;
    core->ops = *ops;
}

static void zc__note_pinned(zc__pool_core *core)
{
    core->stats.bytes_pinned = core->stats.bytes_in_use + core->stats.bytes_cached;
    if (core->stats.bytes_pinned > core->stats.peak_bytes_pinned)
        core->stats.peak_bytes_pinned = core->stats.bytes_pinned;
}

/* Remove entry i from the cache and release its block. */
static void zc__evict(zc__pool_core *core, size_t i)
{
    zc__pool_entry entry = core->cache[i];
    memmove(&core->cache[i], &core->cache[i + 1], (core->count - i - 1) * sizeof *core->cache);
    core->count--;
    core->stats.bytes_cached -= entry.capacity;
    core->stats.blocks_cached--;
    core->stats.releases++;
    zc__note_pinned(core);
    core->ops.release(core->ops.ctx, entry.block, entry.event);
}

void zc__pool_core_fini(zc__pool_core *core)
{
    while (core->count > 0)
        zc__evict(core, core->count - 1);
    free(core->cache);
    core->cache = NULL;
    core->cap = 0;
}

int zc__pool_core_take(zc__pool_core *core, size_t size, void **block_p, size_t *capacity_p)
{
    size_t lo = 0, hi = core->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (core->cache[mid].capacity < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t limit = zc__pool_fit_limit(size);
    /* The smallest block that fits and whose last use is over; larger ones only if not. */
    for (size_t i = lo; i < core->count && core->cache[i].capacity <= limit; i++) {
        zc__pool_entry *entry = &core->cache[i];
        if (entry->event != NULL) {
            if (!core->ops.event_done(core->ops.ctx, entry->event)) {
                core->stats.waits_skipped++;
                continue;
            }
            core->ops.event_destroy(core->ops.ctx, entry->event);
            entry->event = NULL;
        }
        *block_p = entry->block;
        *capacity_p = entry->capacity;
        memmove(entry, entry + 1, (core->count - i - 1) * sizeof *core->cache);
        core->count--;
        core->stats.bytes_cached -= *capacity_p;
        core->stats.blocks_cached--;
        core->stats.hits++;
        zc__pool_core_added(core, size, *capacity_p);
        return 1;
    }
    core->stats.misses++;
    return 0;
}

void zc__pool_core_added(zc__pool_core *core, size_t size, size_t capacity)
{
    core->stats.bytes_requested += size;
    core->stats.bytes_in_use += capacity;
    core->stats.blocks_in_use++;
    zc__note_pinned(core);
}

void zc__pool_core_dropped(zc__pool_core *core, size_t size, size_t capacity)
{
    core->stats.bytes_requested -= size;
    core->stats.bytes_in_use -= capacity;
    core->stats.blocks_in_use--;
    zc__note_pinned(core);
}

/* Index of the oldest cached entry (the cache is small; a scan is cheap next to a release). */
static size_t zc__oldest(const zc__pool_core *core)
{
    size_t oldest = 0;
    for (size_t i = 1; i < core->count; i++) {
        if (core->cache[i].age < core->cache[oldest].age)
            oldest = i;
    }
    return oldest;
}

void zc__pool_core_put(zc__pool_core *core, void *block, size_t size, size_t capacity, void *event)
{
    zc__pool_core_dropped(core, size, capacity);
    int too_big = core->max_cached != 0 && capacity > core->max_cached;
    if (!too_big && core->count == core->cap) {
        size_t cap = core->cap ? core->cap * 2 : 16;
        size_t bytes;
        zc__pool_entry *grown = NULL;
        if (cap > core->cap && zc__size_mul(cap, sizeof *grown, &bytes))
            grown = realloc(core->cache, bytes);
        if (grown != NULL) {
            core->cache = grown;
            core->cap = cap;
        }
    }
    if (too_big || core->count == core->cap) {
        core->stats.releases++;
        core->ops.release(core->ops.ctx, block, event);
        return;
    }
    while (core->max_cached != 0 && core->count > 0 &&
           core->stats.bytes_cached + capacity > core->max_cached)
        zc__evict(core, zc__oldest(core));

    size_t lo = 0, hi = core->count;
    while (lo < hi) { /* after the last entry of equal capacity: oldest first among equals */
        size_t mid = lo + (hi - lo) / 2;
        if (core->cache[mid].capacity <= capacity)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&core->cache[lo + 1], &core->cache[lo], (core->count - lo) * sizeof *core->cache);
    core->cache[lo] = (zc__pool_entry){block, capacity, event, ++core->clock};
    core->count++;
    core->stats.bytes_cached += capacity;
    core->stats.blocks_cached++;
    zc__note_pinned(core);
}

void zc__pool_core_trim(zc__pool_core *core, size_t keep_bytes)
{
    while (core->stats.bytes_cached > keep_bytes) {
        /* The oldest entry whose event is over (or has none). */
        size_t pick = core->count;
        for (size_t i = 0; i < core->count; i++) {
            zc__pool_entry *entry = &core->cache[i];
            if (entry->event != NULL && !core->ops.event_done(core->ops.ctx, entry->event))
                continue;
            if (pick == core->count || entry->age < core->cache[pick].age)
                pick = i;
        }
        if (pick == core->count)
            return;
        zc__evict(core, pick);
    }
}
