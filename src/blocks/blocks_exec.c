/* SPDX-License-Identifier: Apache-2.0 */
/* The copy engine's executors: one cudaMemcpyAsync per block, or the blocks batched in
 * cudaMemcpyBatchAsync. Both queue on the caller's stream and read no source before the
 * stream's earlier work is done. */
#include "blocks/blocks_exec.h"

#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "core/error.h"
#include "device/cuda_check.h"

/* cudaMemcpyBatchAsync arrived in CUDA 12.8; CUDA 13.0 dropped its failIdx argument. */
#define ZC__BATCH_VERSION 12080

void zc__blocks_batch_scratch_fini(zc__blocks_batch_scratch *scratch)
{
    free(scratch->dsts);
    free(scratch->srcs);
    free(scratch->sizes);
    memset(scratch, 0, sizeof *scratch);
}

int zc__blocks_batch_available(void)
{
#if CUDART_VERSION >= ZC__BATCH_VERSION
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) {
        ZC_CUDA_IGNORE(cudaGetLastError());
        return 0;
    }
    return driver >= ZC__BATCH_VERSION;
#else
    return 0;
#endif
}

zc_status zc__blocks_copy_run(const zc__blocks_item *items, size_t n, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    for (size_t i = 0; i < n; i++)
        ZC_CHECK(ZC_CUDA(cudaMemcpyAsync((void *)items[i].dst, (const void *)items[i].src,
                                         items[i].bytes, kind, stream)));
    return ZC_OK;
}

static zc_status zc__scratch_reserve(zc__blocks_batch_scratch *s, size_t n)
{
    if (n <= s->cap)
        return ZC_OK;
    size_t bytes = 0, size_bytes = 0;
    if (!zc__size_mul(n, sizeof(void *), &bytes) || !zc__size_mul(n, sizeof(size_t), &size_bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_blocks_move: a batch of %zu blocks overflows", n);
    void **dsts = realloc(s->dsts, bytes);
    if (dsts != NULL)
        s->dsts = dsts;
    const void **srcs = realloc(s->srcs, bytes);
    if (srcs != NULL)
        s->srcs = srcs;
    size_t *sizes = realloc(s->sizes, size_bytes);
    if (sizes != NULL)
        s->sizes = sizes;
    if (dsts == NULL || srcs == NULL || sizes == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_blocks_move: no memory for a batch of %zu blocks", n);
    s->cap = n;
    return ZC_OK;
}

#if CUDART_VERSION >= ZC__BATCH_VERSION
/* One call for count items. Every copy has the one attribute: sources read in stream order.
 * cudaMemcpySrcAccessOrderAny would let the DMA read a source before the stream's earlier work
 * has written it (a known trap); DuringApiCall would read it during this call. */
static zc_status zc__batch_call(zc__blocks_batch_scratch *s, size_t count, cudaStream_t stream)
{
    struct cudaMemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t attr_index = 0;
#if CUDART_VERSION >= 13000
    return ZC_CUDA(
        cudaMemcpyBatchAsync(s->dsts, s->srcs, s->sizes, count, &attr, &attr_index, 1, stream));
#else
    size_t fail_index = 0;
    return ZC_CUDA(cudaMemcpyBatchAsync(s->dsts, (void **)s->srcs, s->sizes, count, &attr,
                                        &attr_index, 1, &fail_index, stream));
#endif
}
#endif

zc_status zc__blocks_batch_run(zc__blocks_batch_scratch *scratch, const zc__blocks_item *items,
                               size_t n, size_t batch_max, cudaStream_t stream)
{
#if CUDART_VERSION >= ZC__BATCH_VERSION
    size_t chunk = n < batch_max ? n : batch_max;
    ZC_CHECK(zc__scratch_reserve(scratch, chunk));
    for (size_t first = 0; first < n; first += chunk) {
        size_t count = n - first < chunk ? n - first : chunk;
        for (size_t i = 0; i < count; i++) {
            scratch->dsts[i] = (void *)items[first + i].dst;
            scratch->srcs[i] = (const void *)items[first + i].src;
            scratch->sizes[i] = items[first + i].bytes;
        }
        ZC_CHECK(zc__batch_call(scratch, count, stream));
    }
    return ZC_OK;
#else
    (void)scratch;
    (void)items;
    (void)n;
    (void)batch_max;
    (void)stream;
    return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                   "zc_blocks_move: built with a CUDA runtime without cudaMemcpyBatchAsync");
#endif
}
