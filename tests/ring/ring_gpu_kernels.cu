/* SPDX-License-Identifier: Apache-2.0 */
/* Test kernels for the ring on a GPU, written against ring_device.cuh as a user would. */
#include "ring_gpu_kernels.h"

#include "zerocopy/ring_device.cuh"

#define ZC_FAKE_MASK  0xa5a5a5a5u
#define ZC_ECHO_WORDS 1024u /* largest frame the echo handles, in 32-bit words */

__device__ static void zc__echo_note(zc_echo_counts *c, unsigned long long *which, uint64_t seq)
{
    atomicAdd(which, 1ull);
    atomicCAS(&c->first_bad, 0ull, (unsigned long long)seq + 1ull);
}

__global__ void zc__echo_kernel(zc_ring_dev ring, int interleave, uint64_t delay_ns,
                                zc_echo_counts *counts)
{
    __shared__ __align__(16) uint32_t in[ZC_ECHO_WORDS];
    const uint32_t words = (uint32_t)(ring.in_bytes / 4u);
    zc_ring_dev_watch watch;
    uint32_t why = zc_ring_dev_begin(&ring, &watch);
    uint64_t first, count;
    zc_ring_split(ring.out_bytes / 4u, interleave ? 1u : gridDim.x, interleave ? 0u : blockIdx.x,
                  &first, &count);
    const uint64_t step = interleave ? gridDim.x : 1u;
    for (uint64_t seq = interleave ? blockIdx.x : 0u; why == ZC_RING_EXIT_NONE; seq += step) {
        why = zc_ring_dev_wait(&ring, seq, &watch);
        if (why == ZC_RING_EXIT_NONE)
            why = zc_ring_dev_read(&ring, seq, 0, words, in, &watch);
        if (why != ZC_RING_EXIT_NONE)
            break;
        zc_ring_dev_release(&ring, seq + 1u);
        if (threadIdx.x == 0) {
            uint64_t got = (uint64_t)in[0] | ((uint64_t)in[1] << 32);
            if (got != seq)
                zc__echo_note(counts, &counts->bad_seq, seq);
            uint32_t h = ZC_RING_CHECKSUM_INIT;
            for (uint32_t i = 0; i + 1 < words; i++)
                h = zc_ring_checksum_step(h, in[i]);
            if (h != in[words - 1])
                zc__echo_note(counts, &counts->torn, seq);
            if (blockIdx.x == 0 || interleave)
                atomicAdd(&counts->frames, 1ull);
            if (delay_ns) {
                uint64_t until = zc_ring_dev_now_ns() + delay_ns;
                while (zc_ring_dev_now_ns() < until) {
                }
            }
        }
        __syncthreads();
        for (uint32_t i = threadIdx.x; i < words; i += blockDim.x)
            in[i] ^= ZC_FAKE_MASK;
        __syncthreads();
        zc_ring_dev_write(&ring, seq, first, (uint32_t)count, in + first);
        zc_ring_dev_publish(&ring, seq);
        __syncthreads();
    }
    zc_ring_dev_end(&ring, why);
}

__global__ void zc__trap_kernel(zc_ring_dev ring)
{
    zc_ring_dev_watch watch;
    if (zc_ring_dev_begin(&ring, &watch) != ZC_RING_EXIT_NONE)
        return;
    if (threadIdx.x == 0) {
        uint64_t until = zc_ring_dev_now_ns() + 20000000ull; /* 20 ms, then die */
        while (zc_ring_dev_now_ns() < until) {
        }
        __trap();
    }
}

__global__ void zc__fill_kernel(uint64_t spin_ns)
{
    uint64_t until = zc_ring_dev_now_ns() + spin_ns;
    while (zc_ring_dev_now_ns() < until) {
    }
}

extern "C" cudaError_t zc_echo_launch(const zc_ring_dev *ring, uint32_t blocks, uint32_t threads,
                                      int interleave, uint64_t delay_ns, zc_echo_counts *counts,
                                      cudaStream_t stream)
{
    /* Each block is one consumer: it owns its release word and counts itself into results. */
    if (ring->in_bytes / 4u > ZC_ECHO_WORDS || ring->out_bytes != ring->in_bytes ||
        blocks != ring->consumers)
        return cudaErrorInvalidValue;
    zc__echo_kernel<<<blocks, threads, 0, stream>>>(*ring, interleave, delay_ns, counts);
    return cudaGetLastError();
}

extern "C" cudaError_t zc_trap_launch(const zc_ring_dev *ring, cudaStream_t stream)
{
    zc__trap_kernel<<<1, 32, 0, stream>>>(*ring);
    return cudaGetLastError();
}

extern "C" cudaError_t zc_fill_launch(uint32_t blocks, uint64_t spin_ns, cudaStream_t stream)
{
    zc__fill_kernel<<<blocks, 1024, 0, stream>>>(spin_ns);
    return cudaGetLastError();
}
