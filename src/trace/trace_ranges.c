/* SPDX-License-Identifier: Apache-2.0 */
/* The pinned host and managed allocations of the traced program, as address ranges the device
 * sees, so that a kernel launch's arguments can be matched to the allocations they point into.
 * A mapped allocation's device pointer (cudaHostGetDevicePointer) is a second range with the
 * same host pointer. */
#include "trace_inject.h"

#include <pthread.h>
#include <string.h>

/* Enough for programs that pin thousands of buffers; past it, new ones are not matched and the
 * log says so once. */
#define ZC__RANGES_MAX 8192

typedef struct zc__range {
    uint64_t base, end; /* device-visible [base, end) */
    uint64_t host;      /* the pointer the allocation call returned */
} zc__range;

/* Sorted by base; written by the threads that allocate, read by the threads that launch. */
static pthread_mutex_t zc__ranges_lock = PTHREAD_MUTEX_INITIALIZER;
static zc__range zc__ranges[ZC__RANGES_MAX];
static size_t zc__range_count;
static int zc__ranges_full_said;

void zc__trace_ranges_add(uint64_t base, uint64_t bytes, uint64_t host)
{
    if (base == 0 || bytes == 0 || bytes > UINT64_MAX - base)
        return;
    int full = 0;
    pthread_mutex_lock(&zc__ranges_lock);
    if (zc__range_count == ZC__RANGES_MAX) {
        full = !zc__ranges_full_said;
        zc__ranges_full_said = 1;
    } else {
        size_t at = zc__range_count;
        while (at > 0 && zc__ranges[at - 1].base > base)
            at--;
        memmove(&zc__ranges[at + 1], &zc__ranges[at], (zc__range_count - at) * sizeof *zc__ranges);
        zc__ranges[at] = (zc__range){base, base + bytes, host};
        zc__range_count++;
    }
    pthread_mutex_unlock(&zc__ranges_lock);
    if (full)
        zc__trace_note("ranges_full", "more than 8192 pinned or managed allocations live at "
                                      "once: kernel arguments into later ones are not matched");
}

void zc__trace_ranges_remove(uint64_t host)
{
    pthread_mutex_lock(&zc__ranges_lock);
    size_t kept = 0;
    for (size_t i = 0; i < zc__range_count; i++) {
        if (zc__ranges[i].host != host)
            zc__ranges[kept++] = zc__ranges[i];
    }
    zc__range_count = kept;
    pthread_mutex_unlock(&zc__ranges_lock);
}

/* The range holding address, by binary search over the sorted bases; the newest of overlapping
 * ones is not needed: allocations do not overlap while they live. Call under the lock. */
static const zc__range *zc__find(uint64_t address)
{
    size_t lo = 0, hi = zc__range_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (zc__ranges[mid].base <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* lo is the first range with base > address; walk back over ranges that start before it
     * (a few: a mapped range and its alias may share a base). */
    for (size_t i = lo; i-- > 0;) {
        if (address < zc__ranges[i].end)
            return &zc__ranges[i];
        if (lo - i > 4)
            break;
    }
    return NULL;
}

int zc__trace_ranges_host_of(uint64_t host, uint64_t *base_p, uint64_t *bytes_p)
{
    pthread_mutex_lock(&zc__ranges_lock);
    const zc__range *r = zc__find(host);
    if (r != NULL) {
        *base_p = r->base;
        *bytes_p = r->end - r->base;
    }
    pthread_mutex_unlock(&zc__ranges_lock);
    return r != NULL;
}

int zc__trace_ranges_try_holder(uint64_t address, uint64_t *host_p)
{
    if (pthread_mutex_trylock(&zc__ranges_lock) != 0)
        return -1;
    const zc__range *r = zc__find(address);
    if (r != NULL)
        *host_p = r->host;
    pthread_mutex_unlock(&zc__ranges_lock);
    return r != NULL;
}

size_t zc__trace_ranges_match(const uint64_t *words, size_t count, uint64_t *hosts, size_t max)
{
    size_t found = 0;
    pthread_mutex_lock(&zc__ranges_lock);
    if (zc__range_count > 0) {
        uint64_t low = zc__ranges[0].base;
        for (size_t i = 0; i < count && found < max; i++) {
            if (words[i] < low)
                continue;
            const zc__range *r = zc__find(words[i]);
            if (r == NULL)
                continue;
            int known = 0;
            for (size_t j = 0; j < found && !known; j++)
                known = hosts[j] == r->host;
            if (!known)
                hosts[found++] = r->host;
        }
    }
    pthread_mutex_unlock(&zc__ranges_lock);
    return found;
}
