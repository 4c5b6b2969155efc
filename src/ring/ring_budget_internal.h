/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: what a ring keeps for its frame time budget, and the host's marks on its data path. */
#ifndef ZC_RING_RING_BUDGET_INTERNAL_H
#define ZC_RING_RING_BUDGET_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_ring)
#error "src/ring/ included from below ring: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "ring/budget_math.h"
#include "ring/clock_sync.h"
#include "ring/ring_internal.h"
#include "zerocopy/clock.h"

/* Flag round trips per clock measurement: a few milliseconds, enough for a tight intersection. */
#define ZC__BUDGET_ROUND_TRIPS 2000u

/* How long zc_ring_budget_get waits for the kernel's stamps to be copied: a copy that waits
 * longer is queued behind the ring's kernel (kernels serialized, as under compute-sanitizer). */
#define ZC__BUDGET_COPY_NS 5000000000ull

/* The most memory a budget may take on the GPU: 64 bytes per frame and consumer block. */
#define ZC__BUDGET_MAX_DEVICE_BYTES (256ull << 20)

struct zc__ring_budget {
    uint64_t frames;           /* frames 0 .. frames - 1 are stamped */
    uint64_t *host;            /* [frames][ZC__BUDGET_HOST_MARKS], zc_clock_ns; written through
                                  at creation so that no page fault lands in a measured frame */
    uint64_t *dev;             /* device memory: zc_ring_dev.stamps */
    uint64_t *staged;          /* pinned: where zc_ring_budget_get copies dev to, allocated
                                  before the kernel runs (an allocation beside it may wait) */
    int copy_stuck;            /* a copy into staged never finished: it is never freed */
    zc__clock_sync sync;       /* the clock measurements' kernel and words */
    zc_ring_clock_sync before; /* measured at creation */
};

/* zc_ring_config_check's part: the stamps' memory stays within ZC__BUDGET_MAX_DEVICE_BYTES. */
zc_status zc__ring_budget_check(const zc_ring_config *config);

/* At zc_ring_create, before the ring's kernel runs: the stamps' memory, the first clock
 * measurement, the view's stamps. */
zc_status zc__ring_budget_open(zc_ring *ring);

/* At zc_ring_destroy; leak: the ring's kernel may still run, so its memory stays. */
void zc__ring_budget_close(zc_ring *ring, int leak);

/* The host reached mark (ZC__BUDGET_HOST_*) of frame seq. One branch when no budget is kept. */
static inline void zc__ring_budget_mark(zc_ring *ring, uint64_t seq, unsigned mark)
{
    struct zc__ring_budget *b = ring->budget;
    if (b != NULL && seq < b->frames)
        b->host[seq * ZC__BUDGET_HOST_MARKS + mark] = zc_clock_ns();
}

/* The same, keeping the first time (a result seen over several polls). */
static inline void zc__ring_budget_mark_first(zc_ring *ring, uint64_t seq, unsigned mark)
{
    struct zc__ring_budget *b = ring->budget;
    if (b != NULL && seq < b->frames && b->host[seq * ZC__BUDGET_HOST_MARKS + mark] == 0)
        b->host[seq * ZC__BUDGET_HOST_MARKS + mark] = zc_clock_ns();
}

#endif
