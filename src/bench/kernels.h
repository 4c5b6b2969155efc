/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: launchers of the benchmark kernels (kernels.cu), callable from C. */
#ifndef ZC_BENCH_KERNELS_H
#define ZC_BENCH_KERNELS_H

#if defined(ZC_PART) && !defined(ZC_SEES_bench)
#error "src/bench/ included from below bench: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "zerocopy/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an SM kernel touches memory. */
typedef enum zc__access {
    ZC__ACCESS_16B = 0,     /* each thread 16-byte words, warp-coalesced */
    ZC__ACCESS_4B = 1,      /* each thread 4-byte words, warp-coalesced */
    ZC__ACCESS_STRIDED = 2, /* one 4-byte word every stride bytes */
    ZC__ACCESS_RANDOM = 3,  /* whole 128-byte segments in a scrambled order */
    /* Every 4-byte word, in the walks of zc advise's workload kernel (device/walk.h), with its
     * launch shape (256 threads, at most 8 blocks per SM); the buffer a multiple of 128 bytes. */
    ZC__ACCESS_WALK_STRIDED = 4, /* one word per 128-byte line in turn */
    ZC__ACCESS_WALK_RANDOM = 5   /* an affine bijection of the word indices */
} zc__access;

/* Launch shape of a streaming kernel: words in flight per thread and blocks per SM. */
typedef struct zc__kshape {
    const char *name;
    int unroll;        /* 1, 2, 4 or 8 independent accesses in flight per thread */
    int blocks_per_sm; /* grid = SMs x this, grid-stride loop; 0: one pass, enough blocks */
    int threads;       /* per block */
    int streaming;     /* stores: 1 uses st.global.cs (evict-first) */
    int contiguous;    /* 16-byte access: 1 gives each warp unroll x 512 contiguous bytes per
                          iteration; 0 spaces a thread's accesses a grid apart */
} zc__kshape;

/* The gate: spin (at most timeout_ns by %globaltimer) until *release == seq; on timeout write
 * 1 to *status. */
zc_status zc__k_gate(const volatile uint32_t *release, uint32_t seq, volatile uint32_t *status,
                     uint64_t timeout_ns, cudaStream_t stream);

/* Fill bytes of p with the pattern for seed. */
zc_status zc__k_fill(void *p, size_t bytes, uint32_t seed, int sm_count, cudaStream_t stream);

/* Check p against the pattern (each word minus delta); report[0] += mismatches,
 * report[1] = min(first bad byte offset). */
zc_status zc__k_check(const void *p, size_t bytes, uint32_t seed, uint32_t delta,
                      unsigned long long *report, int sm_count, cudaStream_t stream);

/* Read bytes of p passes times with an access pattern; add the sum of the words read to *slot. */
zc_status zc__k_read(const void *p, size_t bytes, zc__access access, size_t stride_bytes,
                     int passes, const zc__kshape *shape, int sm_count, uint32_t *slot,
                     cudaStream_t stream);

/* Write the pattern for seed into p with an access pattern (only the words the pattern
 * touches). */
zc_status zc__k_write(void *p, size_t bytes, zc__access access, size_t stride_bytes, uint32_t seed,
                      const zc__kshape *shape, int sm_count, cudaStream_t stream);

/* out[i] = in[i] + 1 for the words of bytes (a multiple of 16). */
zc_status zc__k_increment(const void *in, void *out, size_t bytes, int sm_count,
                          cudaStream_t stream);

/* One thread follows hops links of a chain from start; writes the node reached to *end. */
zc_status zc__k_chase(const uint32_t *nodes, size_t stride_words, uint32_t start, uint32_t hops,
                      uint32_t *end, cudaStream_t stream);

/* An almost empty kernel: writes value to *word. */
zc_status zc__k_touch(uint32_t *word, uint32_t value, cudaStream_t stream);

/* The ping-pong responder: for seq 1..rounds waits for *ping == seq and answers *pong = seq.
 * Gives up when *stop is non-zero or a wait passes timeout_ns; writes *status: 0 done,
 * 1 timed out, 2 stopped. acquire selects ld.acquire.sys / st.release.sys over volatile. */
zc_status zc__k_pingpong(const volatile uint32_t *ping, volatile uint32_t *pong,
                         const volatile uint32_t *stop, volatile uint32_t *status, uint32_t rounds,
                         uint64_t timeout_ns, int acquire, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
