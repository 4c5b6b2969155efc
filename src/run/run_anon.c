/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's large anonymous allocations (run_anon.h): one array sorted by address behind
 * one lock, for the fresh cure's question (which allocation holds this address?), with a
 * counting filter of the bases in front of it, because every free of the program asks here
 * whether its block was one: almost always it was not, and the filter says so with one load,
 * no lock. Allocations do not overlap, so in the array their ends are in order too.
 * Nothing here allocates or calls the driver: it runs inside the allocation hooks.
 */
#include "run_anon.h"

#include <pthread.h>
#include <string.h>

/* Allocations held at most: past it a new one is left out (its copies fault their own pages in,
 * as they would have). Each is at least ZC_RUN_FRESH_MIN_BYTES, so 4096 of them are gigabytes
 * at the least; inserting and removing move at most 64 KiB. */
#define ZC__ANON_MAX 4096u

/* The filter: how many allocations held have their base hashed to each slot (15 bits). */
#define ZC__FILTER_BITS 15u

typedef struct zc__anon {
    uintptr_t base, end;
} zc__anon;

static pthread_mutex_t zc__lock = PTHREAD_MUTEX_INITIALIZER;
/* Bases in descending order: mmap hands out lower addresses as it goes, so a new mapping is
 * usually appended. */
static zc__anon zc__table[ZC__ANON_MAX];
static unsigned zc__count; /* written under the lock, read without it */
static uint16_t zc__filter[1u << ZC__FILTER_BITS];

/* Pointers from malloc are 16-byte aligned and mmaps page-aligned: the bits above those mix. */
static unsigned zc__slot(uintptr_t base)
{
    return (unsigned)(((uint64_t)(base >> 4) * 0x9E3779B97F4A7C15ull) >> (64u - ZC__FILTER_BITS));
}

static uintptr_t zc__end(uintptr_t start, size_t length)
{
    return start + length < start ? UINTPTR_MAX : start + length;
}

/* The first index whose base is at or below address (caller holds the lock); zc__count when
 * every base is above it. */
static unsigned zc__first_at_or_below(uintptr_t address)
{
    unsigned lo = 0, hi = zc__count;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (zc__table[mid].base > address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The filter's count of slot moved by delta: one writer (the lock's holder), read by anyone. */
static void zc__filter_move(uintptr_t base, int delta)
{
    uint16_t *slot = &zc__filter[zc__slot(base)];
    __atomic_store_n(slot, (uint16_t)(*slot + delta), __ATOMIC_RELAXED);
}

static void zc__remove_at(unsigned i)
{
    zc__filter_move(zc__table[i].base, -1);
    memmove(&zc__table[i], &zc__table[i + 1], (zc__count - i - 1) * sizeof zc__table[0]);
    __atomic_store_n(&zc__count, zc__count - 1, __ATOMIC_RELAXED);
}

/* Forget every allocation that overlaps [start, end), start < end (caller holds the lock): they
 * follow the last one whose base is at or above end, and end where the ends fall to start. */
static void zc__forget_overlapping(uintptr_t start, uintptr_t end)
{
    unsigned i = zc__first_at_or_below(end - 1);
    while (i < zc__count && zc__table[i].end > start)
        zc__remove_at(i);
}

void zc__run_anon_add(uintptr_t base, size_t size)
{
    if (size == 0)
        return;
    uintptr_t end = zc__end(base, size);
    pthread_mutex_lock(&zc__lock);
    zc__forget_overlapping(base, end);
    if (zc__count < ZC__ANON_MAX) {
        unsigned i = zc__first_at_or_below(base);
        memmove(&zc__table[i + 1], &zc__table[i], (zc__count - i) * sizeof zc__table[0]);
        zc__table[i] = (zc__anon){base, end};
        zc__filter_move(base, 1);
        __atomic_store_n(&zc__count, zc__count + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&zc__lock);
}

void zc__run_anon_release(uintptr_t base)
{
    /* The block was added before the program could free it, and only its own release takes
     * its count out of the slot: a slot at 0 is no block of the table's. */
    if (__atomic_load_n(&zc__count, __ATOMIC_RELAXED) == 0 ||
        __atomic_load_n(&zc__filter[zc__slot(base)], __ATOMIC_RELAXED) == 0)
        return;
    pthread_mutex_lock(&zc__lock);
    unsigned i = zc__first_at_or_below(base);
    if (i < zc__count && zc__table[i].base == base)
        zc__remove_at(i);
    pthread_mutex_unlock(&zc__lock);
}

void zc__run_anon_release_range(uintptr_t start, size_t length)
{
    if (length == 0 || __atomic_load_n(&zc__count, __ATOMIC_RELAXED) == 0)
        return;
    pthread_mutex_lock(&zc__lock);
    zc__forget_overlapping(start, zc__end(start, length));
    pthread_mutex_unlock(&zc__lock);
}

int zc__run_anon_covers(uintptr_t start, size_t length)
{
    if (length == 0 || __atomic_load_n(&zc__count, __ATOMIC_RELAXED) == 0)
        return 0;
    pthread_mutex_lock(&zc__lock);
    unsigned i = zc__first_at_or_below(start);
    int inside = i < zc__count && zc__end(start, length) <= zc__table[i].end;
    pthread_mutex_unlock(&zc__lock);
    return inside;
}

/* The lock is not held across fork (FORK_PREPARE): the other rows' fork handlers may map or
 * unmap memory, whose events come back here on the forking thread. */
void zc__run_anon_after_fork(void)
{
    if (pthread_mutex_trylock(&zc__lock) == 0) {
        pthread_mutex_unlock(&zc__lock);
        return;
    }
    pthread_mutex_init(&zc__lock, NULL);
    memset(zc__filter, 0, sizeof zc__filter);
    zc__count = 0;
}
