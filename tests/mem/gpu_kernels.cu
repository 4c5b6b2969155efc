/* SPDX-License-Identifier: Apache-2.0 */
/* Kernels for the GPU buffer tests: write a pattern, modify words, spin for a while. */
#include "gpu_kernels.h"

static __global__ void zc__write_pattern_kernel(uint32_t *dst, size_t words, uint32_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
        dst[i] = zc_test_pattern_word(i, seed);
}

static __global__ void zc__add_words_kernel(uint32_t *data, size_t words, uint32_t delta)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
        data[i] += delta;
}

static __global__ void zc__spin_kernel(uint64_t ns)
{
    uint64_t start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    /* Bounded by the time itself: the loop ends once ns have passed. */
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

static unsigned zc__blocks_for(size_t words)
{
    size_t blocks = (words + 255) / 256;
    return blocks > 1024 ? 1024u : (blocks == 0 ? 1u : (unsigned)blocks);
}

extern "C" cudaError_t zc_test_write_pattern(uint32_t *dst, size_t words, uint32_t seed,
                                             cudaStream_t stream)
{
    zc__write_pattern_kernel<<<zc__blocks_for(words), 256, 0, stream>>>(dst, words, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t zc_test_add_words(uint32_t *data, size_t words, uint32_t delta,
                                         cudaStream_t stream)
{
    zc__add_words_kernel<<<zc__blocks_for(words), 256, 0, stream>>>(data, words, delta);
    return cudaGetLastError();
}

extern "C" cudaError_t zc_test_spin(uint64_t ns, cudaStream_t stream)
{
    zc__spin_kernel<<<1, 1, 0, stream>>>(ns);
    return cudaGetLastError();
}
