/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the host-GPU clock measurement, a one-thread kernel answering flag pings through
 * mapped memory, for the frame time budget. */
#ifndef ZC_RING_CLOCK_SYNC_H
#define ZC_RING_CLOCK_SYNC_H

#if defined(ZC_PART) && !defined(ZC_SEES_ring)
#error "src/ring/ included from below ring: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "zerocopy/ring_budget.h"

/* The words, 64 bytes apart so that each side polls a line the other only writes. */
#define ZC__SYNC_PING  0u  /* host: the round trip's number */
#define ZC__SYNC_QUIT  8u  /* host: 1 ends the kernel */
#define ZC__SYNC_PONG  16u /* GPU: the number it answers, after ... */
#define ZC__SYNC_TIMER 17u /* ... its %globaltimer when it saw the ping */
#define ZC__SYNC_READY 24u /* GPU: 1 once it polls, after ... */
#define ZC__SYNC_TICK  25u /* ... the smallest step of %globaltimer it saw */
#define ZC__SYNC_WORDS 32u

/* The kernel ends by itself when no ping comes for this long (its host is gone: a live one
 * answers within microseconds, or milliseconds under a sanitizer, and then says quit). */
#define ZC__SYNC_SILENCE_NS 1000000000ull

/* The host gives up on a ping after this long. */
#define ZC__SYNC_PING_NS 200000000ull

typedef struct zc__clock_sync {
    int device;
    uint64_t *words;     /* mapped pinned memory, host address */
    uint64_t *words_dev; /* the same, device address */
    cudaStream_t stream; /* non-blocking: never waits for the ring's kernel */
    int abandoned;       /* a kernel may still poll words: they are never freed */
} zc__clock_sync;

ZC_BEGIN_DECLS

/* Allocate the words and the stream, on device. */
zc_status zc__clock_sync_open(int device, zc__clock_sync *sync);

/* round_trips pings; fills out (host_ns: the measurement's middle). Bounded: a kernel that does
 * not start within a second (the GPU has no room beside a persistent kernel) gives
 * ZC_ERR_TIMEOUT and abandons the words; a round trip longer than ZC__SYNC_PING_NS too. */
zc_status zc__clock_sync_measure(zc__clock_sync *sync, uint32_t round_trips,
                                 zc_ring_clock_sync *out);

/* Free what open allocated, unless a kernel may still use it. Accepts a zeroed record. */
void zc__clock_sync_close(zc__clock_sync *sync);

/* Launch the kernel on sync->stream (clock_sync_kernel.cu). */
zc_status zc__clock_sync_launch(zc__clock_sync *sync);

ZC_END_DECLS

#endif
