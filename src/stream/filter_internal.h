/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the state of a streaming filter, and the row of operations of each transport
 * family (the ring, the per-frame launch modes, the host). */
#ifndef ZC_STREAM_FILTER_INTERNAL_H
#define ZC_STREAM_FILTER_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_stream)
#error "src/stream/ included from below stream: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "device/stream_memops.h"
#include "stream/fir_kernels.h"
#include "zerocopy/buffer.h"
#include "zerocopy/filter.h"

typedef struct zc__filter_ops zc__filter_ops;
typedef struct zc__launch_variant zc__launch_variant; /* filter_launch.c */

/* classic-overlap's streams: copy-in of one frame, the kernel of the one before and copy-out of
 * the one before that can all run at once. */
#define ZC__OVERLAP_STREAMS 3

struct zc_filter {
    zc_filter_config config;
    const zc__filter_ops *ops;        /* the mode's transport family */
    const zc__launch_variant *launch; /* the launch family's choices for the mode, else NULL */
    float taps[ZC_FIR_MAX_TAPS];
    zc__fir_shape shape;      /* per-frame kernel */
    zc__fir_shape ring_shape; /* persistent kernel */
    size_t frame_bytes;
    uint32_t slots; /* buffer sets of the launch and host modes */
    uint32_t blocks;
    /* head is written by the producer and tail by the result taker, which may be two threads:
     * each reads the other's with an acquire load (zc__filter_head / zc__filter_tail). */
    uint64_t head, tail;
    zc_filter_counters counters;
    float *d_taps;

    zc_ring *ring; /* zerocopy */
    uint32_t ring_slots;
    int acquired;
    int result_held;

    cudaStream_t stream; /* the launch modes' own stream (classic-pageable: the legacy one) */
    int own_stream;
    zc_buffer_kind host_kind; /* of h_in and h_out (launch modes, stream-wait) */
    float *h_in, *h_out;      /* slots frames each: pageable, pinned or mapped */
    float *d_in, *d_out;      /* device memory (classic modes, graph), or mapped views */
    float *d_hist;            /* two histories, used alternately */
    cudaEvent_t *events;      /* one per slot */
    cudaGraphExec_t *graphs;  /* one per slot (graph mode) */
    cudaStream_t overlap[ZC__OVERLAP_STREAMS]; /* classic-overlap: frame seq on seq % 3 */
    cudaEvent_t *kernel_done;                  /* classic-overlap: one per slot */
    float *h_work; /* cpu: the halo values before the next frame, then room for it */

    /* stream-wait: per slot, the word the CPU stores to let frame seq's queued work start
     * (go) and the one the stream stores once its results are written (done), one 64-byte
     * line each, in mapped memory; the driver's calls that wait on and write them; and the
     * frames queued so far. */
    uint64_t *h_go, *h_done;
    unsigned long long d_go, d_done;
    zc__stream_memops memops;
    uint64_t queued;
};

/*
 * What differs between the families. The caller (filter.c) has checked the state: a frame is
 * acquired before publish, a result is outstanding before wait, held before release.
 */
struct zc__filter_ops {
    /* Allocate and start; on failure leave what teardown can undo. */
    zc_status (*setup)(zc_filter *f);
    /* The buffer for frame head; may wait or drop (the ring). */
    zc_status (*acquire)(zc_filter *f, float **frame_p);
    /* Send frame head, already in its buffer. */
    zc_status (*publish)(zc_filter *f);
    /* Copy frame (frame_bytes) in and send it, when the family can do better than acquire,
     * memcpy and publish (LL encodes straight from the caller's frame); NULL otherwise. */
    zc_status (*submit)(zc_filter *f, const float *frame);
    /* Wait for result tail (timeout 0: a poll, ZC_ERR_TIMEOUT without detail). */
    zc_status (*wait)(zc_filter *f, uint64_t timeout_ns, const float **result_p);
    /* Result tail is no longer needed; NULL when nothing is to be done. */
    zc_status (*release)(zc_filter *f);
    /* Input buffers that cycle. */
    uint32_t (*buffers)(const zc_filter *f);
    /* Undo setup, also a partial one. */
    void (*teardown)(zc_filter *f);
};

extern const zc__filter_ops zc__filter_ring_ops;   /* zerocopy, hybrid (filter_ring.c) */
extern const zc__filter_ops zc__filter_launch_ops; /* the five launch modes (filter_launch.c) */
extern const zc__filter_ops zc__filter_host_ops;   /* cpu (filter_host.c) */
extern const zc__filter_ops zc__filter_wait_ops;   /* stream-wait (filter_wait.c) */

/* The launch family's rows, one per mode it carries (filter_launch.c). */
extern const zc__launch_variant zc__launch_pageable;
extern const zc__launch_variant zc__launch_pinned;
extern const zc__launch_variant zc__launch_overlap;
extern const zc__launch_variant zc__launch_graph;
extern const zc__launch_variant zc__launch_mapped;

static inline uint64_t zc__filter_head(const zc_filter *f)
{
    return __atomic_load_n(&f->head, __ATOMIC_ACQUIRE);
}

static inline uint64_t zc__filter_tail(const zc_filter *f)
{
    return __atomic_load_n(&f->tail, __ATOMIC_ACQUIRE);
}

/* The host buffer of frame seq in base (slots frames of frame_bytes). */
static inline float *zc__filter_slot(float *base, const zc_filter *f, uint64_t seq)
{
    return base + (size_t)(seq % f->slots) * (f->frame_bytes / sizeof(float));
}

/* The acquire and buffer count of the families that keep frames in host buffers of slots
 * frames (launch, host): frame head's buffer, and slots. */
zc_status zc__filter_acquire_host_slot(zc_filter *f, float **frame_p);
uint32_t zc__filter_host_slots(const zc_filter *f);

/*
 * The host FIR of one frame (filter_host.c): work holds the shape's halo values before the frame
 * and then the frame itself; out gets the frame's words outputs. Double-precision sums in the
 * reference's order, blocked so that the compiler vectorises across outputs.
 */
void zc__fir_host_frame(const zc__fir_shape *shape, const float *taps, const float *work,
                        float *out);

#endif
