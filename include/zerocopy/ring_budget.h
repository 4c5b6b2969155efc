/* SPDX-License-Identifier: Apache-2.0 */
/* The frame time budget of a ring: each frame's round trip split into its steps, from stamps
 * taken on both sides, on one time line. */
#ifndef ZEROCOPY_RING_BUDGET_H
#define ZEROCOPY_RING_BUDGET_H

#include <stdint.h>

#include "zerocopy/export.h"
#include "zerocopy/ring.h"
#include "zerocopy/stats.h"
#include "zerocopy/status.h"

/*
 * How it is measured. With zc_ring_config.budget_frames set, the host stamps four moments of
 * each frame with zc_clock_ns: it starts writing the frame (acquire or push), the frame is
 * published, the first words of its result are seen, the whole result is read. The kernel stamps
 * four more with zc_ring_dev_stamp, per block (ZC_RING_STAMP_*): seen, read, computed, written.
 * A frame's GPU moment is the earliest block's "seen" and the latest block's other three.
 *
 * The two clocks are put on one line in two steps. On the GPU, each block's clock64 is fitted
 * to %globaltimer (read with it at every stamp) over windows of frames, so the steps keep
 * clock64's resolution while their origin is %globaltimer's. Between host and GPU, a ping-pong
 * kernel (zc_ring_create, and again at zc_ring_budget_get) measures the offset: every round trip
 * bounds it between the GPU's stamp minus the reply's arrival and the GPU's stamp minus the
 * send, and the intersection of those bounds is the offset's interval; its middle is used, and
 * the offset is interpolated between the two measurements (the clocks drift). Only the two
 * crossing steps (to-gpu, to-host) depend on the offset; their sum does not, nor does the total,
 * which is the host's own clock.
 *
 * A step can be negative: the next moment can come before the previous one ends (under LL the
 * GPU sees the first words while the host still writes the last).
 */

typedef enum zc_ring_step {
    ZC_RING_STEP_HOST_WRITE = 0, /* the host writes the frame (LL: encodes it into the slot) */
    ZC_RING_STEP_TO_GPU,         /* published -> the GPU sees its first words */
    ZC_RING_STEP_GPU_READ,       /* seen -> every block has read its part */
    ZC_RING_STEP_GPU_COMPUTE,    /* read -> every block has computed its results */
    ZC_RING_STEP_GPU_WRITE,      /* computed -> every block has written and published them */
    ZC_RING_STEP_TO_HOST,        /* written -> the host sees the result's first words */
    ZC_RING_STEP_HOST_READ,      /* seen -> the host has the whole result (LL: decoded) */
    ZC_RING_STEP_COUNT
} zc_ring_step;

/* One host-GPU clock measurement: flag round trips through mapped memory. */
typedef struct zc_ring_clock_sync {
    uint32_t round_trips;  /* 0: not measured */
    int64_t offset_ns;     /* %globaltimer minus zc_clock_ns, the middle of the interval (an
                              integer: the clocks' origins are far apart, beyond a double's
                              nanosecond precision) */
    double uncertainty_ns; /* half the interval's width (the tick included) */
    double rtt_min_us, rtt_p50_us, rtt_p99_us; /* the flag round trips themselves */
    double tick_ns;                            /* the smallest step of %globaltimer seen */
    uint64_t host_ns;                          /* when it was measured (zc_clock_ns) */
    int interval_empty; /* the round trips' bounds did not intersect (the clocks moved
                           apart during it): the offset is the median of the fastest tenth */
} zc_ring_clock_sync;

typedef struct zc_ring_budget {
    uint64_t first_seq; /* frames first_seq .. first_seq + frames_asked - 1 */
    uint64_t frames_asked;
    uint64_t frames; /* with every stamp: the steps' samples */
    zc_stats step_us[ZC_RING_STEP_COUNT];
    zc_stats total_us;         /* host clock: starts writing -> has the whole result */
    zc_ring_clock_sync before; /* at zc_ring_create */
    zc_ring_clock_sync after;  /* at zc_ring_budget_get (round_trips 0: could not run) */
    double drift_ppm;          /* the offset's change between the two, per elapsed time */
    double gpu_clock_mhz;      /* clock64's rate fitted against %globaltimer (block 0) */
    double fit_residual_ns;    /* RMS of %globaltimer about the fit (the tick's noise) */
} zc_ring_budget;

ZC_BEGIN_DECLS

/*
 * The budget of frames first_seq .. first_seq + count - 1 (clipped to the frames kept and to the
 * results taken). Runs the second clock measurement (a one-block kernel beside the ring's;
 * bounded: when the GPU has no room for it, the first measurement alone is used) and copies the
 * kernel's stamps. ZC_ERR_UNSUPPORTED when the ring keeps no budget; ZC_ERR_NOT_FOUND when no
 * frame in the range has every stamp (the kernel does not call zc_ring_dev_stamp).
 */
ZC_EXTERN zc_status zc_ring_budget_get(zc_ring *ring, uint64_t first_seq, uint64_t count,
                                       zc_ring_budget *budget_p);

/* "host-write", "to-gpu", "gpu-read", "gpu-compute", "gpu-write", "to-host", "host-read". */
ZC_EXTERN const char *zc_ring_step_name(zc_ring_step step);

ZC_END_DECLS

#endif
