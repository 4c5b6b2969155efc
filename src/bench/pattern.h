/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the verification pattern, one definition shared by host code and kernels. */
#ifndef ZC_BENCH_PATTERN_H
#define ZC_BENCH_PATTERN_H

#if defined(ZC_PART) && !defined(ZC_SEES_bench)
#error "src/bench/ included from below bench: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ZC__HD __host__ __device__
#else
#define ZC__HD
#endif

/*
 * The 32-bit word number word of a buffer filled with seed. Each step (odd multiply, add,
 * xor-shift) is a bijection of the word number, so two different words of one buffer never
 * hold the same value and a copy that lands at the wrong offset is caught; a fresh seed per run
 * means stale data from an earlier run is caught too. Cheap enough to generate at link speed.
 */
ZC__HD static inline uint32_t zc__pattern32(uint32_t seed, uint64_t word)
{
    uint32_t x = (uint32_t)word * 0x9E3779B1u + seed;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    return x ^ (uint32_t)(word >> 32);
}

/* Byte number offset of the same buffer (little-endian words). */
ZC__HD static inline uint8_t zc__pattern_byte(uint32_t seed, uint64_t offset)
{
    return (uint8_t)(zc__pattern32(seed, offset / 4) >> (8 * (offset % 4)));
}

#endif
