/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the orders in which a kernel walks every 4-byte word of a buffer when it does not
 * go straight through, one definition for zc advise's workload kernel and for the bench cases
 * that measure those walks on device memory, so that what is priced is what runs. */
#ifndef ZC_DEVICE_WALK_H
#define ZC_DEVICE_WALK_H

#if defined(ZC_PART) && !defined(ZC_SEES_device)
#error "src/device/ included from below device: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#ifdef __CUDACC__
#define ZC__WALK_HD __host__ __device__
#else
#define ZC__WALK_HD
#endif

/* How the words are visited; every word once per pass either way. */
typedef enum zc__walk {
    ZC__WALK_STRIDED = 1, /* one word per 128-byte line in turn: a warp touches 32 lines */
    ZC__WALK_RANDOM = 2   /* an affine bijection of the indices: neighbours land far apart */
} zc__walk;

/* The word a thread's i-th step visits, of words words (words a multiple of 32 when strided);
 * mul: zc__walk_multiplier(words) for the random walk. */
ZC__WALK_HD static inline size_t zc__walk_index(size_t i, size_t words, zc__walk walk, size_t mul)
{
    if (walk == ZC__WALK_STRIDED) {
        size_t lines = words / 32;
        return (i % lines) * 32 + i / lines;
    }
    return (size_t)(((unsigned long long)i * mul + 12345ull) % words);
}

static inline size_t zc__walk_gcd(size_t a, size_t b)
{
    while (b != 0) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The random walk's multiplier for words words: coprime with it, so that the walk is a
 * bijection, and near its golden ratio, so that neighbours land far apart. The search ends:
 * some odd number below 2 * words + 3 is a prime that does not divide words. */
static inline size_t zc__walk_multiplier(size_t words)
{
    if (words < 2)
        return 1;
    size_t mul = (size_t)((double)words * 0.6180339887) | 1u;
    if (mul < 3)
        mul = 3;
    while (zc__walk_gcd(mul, words) != 1)
        mul += 2;
    return mul % words == 0 ? 1 : mul % words;
}

/* The workload kernel's launch, which the bench's walk cases copy so that they measure what
 * advise prices: ZC__WALK_THREADS threads a block, a thread per unit of work, at most 8 blocks
 * per SM (enough loads in flight over PCIe; no more than the data needs), at least one. */
#define ZC__WALK_THREADS 256

static inline unsigned zc__walk_blocks(size_t units, int sm_count)
{
    size_t blocks = (units + ZC__WALK_THREADS - 1) / ZC__WALK_THREADS;
    size_t most = (size_t)(sm_count > 0 ? sm_count : 1) * 8;
    return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

#endif
