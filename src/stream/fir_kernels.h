/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the FIR kernels, per-frame and persistent, and their launchers. */
#ifndef ZC_STREAM_FIR_KERNELS_H
#define ZC_STREAM_FIR_KERNELS_H

#if defined(ZC_PART) && !defined(ZC_SEES_stream)
#error "src/stream/ included from below stream: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "zerocopy/ring_protocol.h"
#include "zerocopy/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A filter's shape: values per frame (samples x channels), channels, taps, the history it
 * needs ((ntaps - 1) x channels) and the same rounded up to 4 values (16 bytes), and the tile:
 * how many outputs a block makes at once. */
typedef struct zc__fir_shape {
    uint32_t words;
    uint32_t channels;
    uint32_t ntaps;
    uint32_t halo;
    uint32_t halo4;
    uint32_t tile;
} zc__fir_shape;

#define ZC__FIR_THREADS 256u
#define ZC__FIR_TILE    2048u

/* The per-frame kernel's grid: one block per tile of the frame. */
static inline uint32_t zc__fir_frame_blocks(const zc__fir_shape *shape)
{
    return (shape->words + shape->tile - 1u) / shape->tile;
}

/* One frame: out = FIR(in) with history from hist_in; the frame's tail goes to hist_out. All
 * device pointers (in and out may be mapped host memory). Checked launch on stream. */
zc_status zc__fir_launch_frame(const zc__fir_shape *shape, const float *in, float *out,
                               const float *hist_in, float *hist_out, const float *taps,
                               cudaStream_t stream, uint32_t *blocks_p);

/*
 * Load every FIR kernel on the current GPU now. Under lazy loading (CUDA_MODULE_LOADING=LAZY,
 * the default since CUDA 12) a kernel is loaded at its first launch, and loading may wait for
 * the device to be idle: a first launch queued behind work that cannot finish yet (a stream
 * waiting on a word the CPU has not written, a persistent kernel) then never returns. Call it
 * before anything that holds the GPU is queued.
 */
zc_status zc__fir_kernels_load(void);

/* The persistent kernel on a ring: blocks consumers, each filtering its share of every frame. */
zc_status zc__fir_launch_persistent(const zc__fir_shape *shape, const zc_ring_dev *ring,
                                    const float *taps, uint32_t blocks, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
