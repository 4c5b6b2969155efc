/* SPDX-License-Identifier: Apache-2.0 */
/* Test kernels for the ring on a GPU: an echo that checks every frame, and a kernel that traps. */
#ifndef ZC_TESTS_RING_GPU_KERNELS_H
#define ZC_TESTS_RING_GPU_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "zerocopy/ring_protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the echo kernel counts in device memory. */
typedef struct zc_echo_counts {
    unsigned long long frames;    /* frames handled, all blocks */
    unsigned long long bad_seq;   /* frames whose sequence number was not the one awaited */
    unsigned long long torn;      /* frames whose checksum did not match */
    unsigned long long first_bad; /* the first bad frame's sequence number + 1 */
} zc_echo_counts;

/*
 * Echo (frames in the format of fake_gpu.h): every block reads each frame it handles whole,
 * checks its sequence number and checksum, writes input XOR ZC_FAKE_MASK as the result.
 * interleave 0: every block handles every frame and writes its share of the result.
 * interleave 1 (LL only): block b handles frames b, b + blocks, ... whole, so that many frames
 * are in the GPU's hands at once. delay_ns: each frame takes at least this long (slow consumer).
 */
cudaError_t zc_echo_launch(const zc_ring_dev *ring, uint32_t blocks, uint32_t threads,
                           int interleave, uint64_t delay_ns, zc_echo_counts *counts,
                           cudaStream_t stream);

/* A persistent kernel that begins, then traps: the host must see ZC_ERR_KERNEL. */
cudaError_t zc_trap_launch(const zc_ring_dev *ring, cudaStream_t stream);

/* Occupy every SM for about spin_ns each: completes quickly only on an idle GPU. */
cudaError_t zc_fill_launch(uint32_t blocks, uint64_t spin_ns, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
