/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the frame time budget's arithmetic, free of CUDA so that the CPU tests can check it
 * on stamps made up with a known answer. */
#ifndef ZC_RING_BUDGET_MATH_H
#define ZC_RING_BUDGET_MATH_H

#if defined(ZC_PART) && !defined(ZC_SEES_ring)
#error "src/ring/ included from below ring: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>

#include "zerocopy/ring_budget.h"

/* The host's moments of a frame, in zc__budget_input.host: [frame][ZC__BUDGET_HOST_MARKS]. */
#define ZC__BUDGET_HOST_WRITE   0u /* starts writing the frame */
#define ZC__BUDGET_HOST_PUBLISH 1u /* the frame is published */
#define ZC__BUDGET_HOST_SEEN    2u /* the first words of its result are seen */
#define ZC__BUDGET_HOST_READ    3u /* the whole result is read */
#define ZC__BUDGET_HOST_MARKS   4u

/* Frames per piecewise fit of a block's clock64 to %globaltimer: long enough to average the
 * timer's ticks away, short enough that the SM's clock rate holds within it. */
#define ZC__BUDGET_FIT_WINDOW 512u

typedef struct zc__budget_input {
    uint64_t frames;           /* the frames of host and dev */
    uint32_t blocks;           /* consumer blocks per frame */
    const uint64_t *host;      /* [frames][ZC__BUDGET_HOST_MARKS] zc_clock_ns; 0: not stamped */
    const uint64_t *dev;       /* [frames][blocks][ZC_RING_STAMPS]{clock64, %globaltimer}, as
                                  zc_ring_stamp_index lays them out; a 0 timer: not stamped */
    zc_ring_clock_sync before; /* the offset at the start */
    zc_ring_clock_sync after;  /* and at the end (round_trips 0: only before) */
} zc__budget_input;

/*
 * The steps and total of every frame with all its stamps, summarised into budget_p (frames,
 * step_us, total_us, drift_ppm, gpu_clock_mhz, fit_residual_ns; the caller fills in the rest).
 * ZC_ERR_NOT_FOUND when no frame has all its stamps; ZC_ERR_NO_MEMORY.
 */
zc_status zc__budget_compute(const zc__budget_input *in, zc_ring_budget *budget_p);

/*
 * The clock offset from n flag round trips: the host stored the ping at send[i] and saw the
 * reply at back[i] (zc_clock_ns), the GPU read its timer gpu[i] between the two; tick_ns is the
 * timer's step. Fills out's offset, uncertainty, interval_empty and round-trip figures.
 */
zc_status zc__clock_offset_solve(const uint64_t *send, const uint64_t *back, const uint64_t *gpu,
                                 uint32_t n, double tick_ns, zc_ring_clock_sync *out);

#endif
