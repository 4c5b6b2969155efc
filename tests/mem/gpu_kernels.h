/* SPDX-License-Identifier: Apache-2.0 */
/* Kernels the GPU buffer tests launch, and the pattern they write, shared by host and device. */
#ifndef ZC_TESTS_MEM_GPU_KERNELS_H
#define ZC_TESTS_MEM_GPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __CUDACC__
#define ZC_TEST_HD __host__ __device__
#else
#define ZC_TEST_HD
#endif

/* Word i of the pattern for seed: a mix of both, so no two runs or offsets look alike. */
static inline ZC_TEST_HD uint32_t zc_test_pattern_word(size_t i, uint32_t seed)
{
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 17 | seed);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    return (uint32_t)x;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Write words of the pattern through dst (a device-side address) on stream; returns the launch
 * error, if any. */
cudaError_t zc_test_write_pattern(uint32_t *dst, size_t words, uint32_t seed, cudaStream_t stream);

/* Add delta to every word through data (read-modify-write by the GPU alone). */
cudaError_t zc_test_add_words(uint32_t *data, size_t words, uint32_t delta, cudaStream_t stream);

/* Hold the stream for about ns nanoseconds (one thread spinning on the GPU's global timer,
 * bounded by the time itself). */
cudaError_t zc_test_spin(uint64_t ns, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

/* Index of the first word that differs from the pattern (after adding delta), or words. */
static inline size_t zc_test_check_words(const uint32_t *data, size_t words, uint32_t seed,
                                         uint32_t delta)
{
    for (size_t i = 0; i < words; i++) {
        if (data[i] != zc_test_pattern_word(i, seed) + delta)
            return i;
    }
    return words;
}

#endif
