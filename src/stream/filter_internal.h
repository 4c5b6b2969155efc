/* Internal: the state of a streaming filter and the per-mode operations. */
#ifndef ZC_STREAM_FILTER_INTERNAL_H
#define ZC_STREAM_FILTER_INTERNAL_H

#include "stream/fir_kernels.h"
#include "zerocopy/stream.h"

struct zc_filter {
    zc_filter_config config;
    float taps[ZC_FIR_MAX_TAPS];
    zc__fir_shape shape;      /* per-frame kernel */
    zc__fir_shape ring_shape; /* persistent kernel */
    size_t frame_bytes;
    uint32_t slots; /* buffer sets of the launch modes */
    uint32_t blocks;
    uint64_t head, tail;
    zc_filter_counters counters;
    float *d_taps;

    zc_ring *ring; /* zerocopy */
    uint32_t ring_slots;
    int acquired;
    int result_held;

    cudaStream_t stream; /* the launch modes' own stream (classic-pageable: the legacy one) */
    int own_stream;
    float *h_in, *h_out;     /* slots frames each: malloc'd, pinned or mapped */
    float *d_in, *d_out;     /* device memory (classic modes, graph), or mapped views */
    float *d_hist;           /* two histories, used alternately */
    cudaEvent_t *events;     /* one per slot */
    cudaGraphExec_t *graphs; /* one per slot (graph mode) */
};

/* Set up, publish frame head (already in its host buffer), wait for result tail, and tear
 * down, for the launch modes (everything but zerocopy). */
zc_status zc__filter_launch_setup(zc_filter *f);
float *zc__filter_launch_buffer(zc_filter *f, uint64_t seq);
zc_status zc__filter_launch_publish(zc_filter *f);
zc_status zc__filter_launch_wait(zc_filter *f, uint64_t timeout_ns, const float **result_p);
void zc__filter_launch_teardown(zc_filter *f);

#endif
