/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the workload kernel that the runner and the calibration launch. */
#ifndef ZC_ADVISE_KERNEL_INTERNAL_H
#define ZC_ADVISE_KERNEL_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_advise)
#error "src/advise/ included from below advise: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "zerocopy/advise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one launch of the workload kernel does. */
typedef struct zc__work {
    const uint32_t *in; /* read passes times; NULL when the workload only writes */
    uint32_t *out;      /* written once (in != NULL) or passes times; NULL when only reading */
    uint32_t *sink;     /* one device word: the sum of every word read, so reads cannot vanish */
    size_t words;       /* 4-byte words in each buffer */
    int passes;         /* how many times each word is read (or written) */
    zc_access pattern;
    size_t stride_mul; /* random pattern: a multiplier coprime with words */
    uint32_t seed;     /* what a write-only workload writes: seed ^ index, plus the pass */
    int sm_count;      /* the GPU's multiprocessors; 0: ask the runtime at launch */
} zc__work;

/* Bytes a pattern needs a buffer to be a multiple of. */
size_t zc__pattern_granule(zc_access pattern);

/* Queue the kernel on stream; ZC_CUDA_LAUNCH_CHECK inside. */
zc_status zc__work_launch(const zc__work *work, cudaStream_t stream);

/* Queue an empty kernel on stream. */
zc_status zc__empty_launch(cudaStream_t stream);

/* The value word i holds after the CPU fills a buffer with seed. */
static inline uint32_t zc__fill_word(uint32_t seed, size_t i)
{
    return seed ^ (uint32_t)(i * 2654435761u);
}

/* The CPU's part of every transfer: write the input. */
void zc__fill(uint32_t *data, size_t words, uint32_t seed);

/* What one zc__fill of bytes of touched pinned memory takes (us), measured now: the median of
 * nine after a warm-up (host_fill.c). */
zc_status zc__host_fill_at(size_t bytes, double *us_p);

#ifdef __cplusplus
}
#endif

#endif
