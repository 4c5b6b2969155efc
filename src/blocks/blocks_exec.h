/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the block mover's executors, one per engine, each queueing planned items on a
 * stream (blocks_exec.c: the copy engine's two; blocks_kernel.cu: the SM kernel). */
#ifndef ZC_BLOCKS_BLOCKS_EXEC_H
#define ZC_BLOCKS_BLOCKS_EXEC_H

#if defined(ZC_PART) && !defined(ZC_SEES_blocks)
#error "src/blocks/ included from below blocks: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "blocks/blocks_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The batched copy's scratch: the pointer and size arrays of one call, kept between moves. */
typedef struct zc__blocks_batch_scratch {
    void **dsts;
    const void **srcs;
    size_t *sizes;
    size_t cap;
} zc__blocks_batch_scratch;

void zc__blocks_batch_scratch_fini(zc__blocks_batch_scratch *scratch);

/* 1 when this build's runtime and the driver have cudaMemcpyBatchAsync (CUDA 12.8+). */
int zc__blocks_batch_available(void);

/* One cudaMemcpyAsync per item, all of kind (to the device or to the host), on stream. */
zc_status zc__blocks_copy_run(const zc__blocks_item *items, size_t n, enum cudaMemcpyKind kind,
                              cudaStream_t stream);

/* The items in cudaMemcpyBatchAsync calls of at most batch_max, sources read in stream order
 * (cudaMemcpySrcAccessOrderStream). */
zc_status zc__blocks_batch_run(zc__blocks_batch_scratch *scratch, const zc__blocks_item *items,
                               size_t n, size_t batch_max, cudaStream_t stream);

/* Every item (the first n_to_device to the device, the rest to the host) by the gather and
 * scatter kernel on at most sms SMs, through the host ends' mapped addresses (host_dev), in
 * launches of ZC__BLOCKS_KERNEL_CHUNK items. */
zc_status zc__blocks_kernel_run(const zc__blocks_item *items, size_t n_to_device, size_t n,
                                unsigned sms, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
