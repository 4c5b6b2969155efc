/* SPDX-License-Identifier: Apache-2.0 */
/* The SM engine: a kernel that gathers and scatters blocks between device memory and mapped
 * host memory, on a grid no larger than the SM limit, its block list carried in the launch's
 * parameters so that nothing outlives the call that queued it. */
#include "blocks/blocks_exec.h"
#include "blocks/blocks_pieces.h"

#include <stdint.h>
#include <string.h>

#include "device/cuda_check.h"

/* A launch's blocks: addresses as the kernel sees them (the mapped address of a host end). */
typedef struct zc__blocks_kargs {
    uint64_t src[ZC__BLOCKS_KERNEL_CHUNK];
    uint64_t dst[ZC__BLOCKS_KERNEL_CHUNK];
    uint64_t bytes[ZC__BLOCKS_KERNEL_CHUNK];
    uint32_t count;
} zc__blocks_kargs;
/* CUDA 12.1+ takes up to 32764 bytes of parameters on Volta and newer (the build's oldest
 * architecture is Turing). */
static_assert(sizeof(zc__blocks_kargs) <= 32764, "a launch's blocks fit in its parameters");

/* Threads per CTA. */
#define ZC__BLOCKS_THREADS 256u

/* Bytes [from, to) of one block by the CTA's threads: 16-byte accesses where source and
 * destination share their alignment, the unaligned head and tail a byte at a time
 * (zc__blocks_split). */
static __device__ void zc__piece_copy(const unsigned char *src, unsigned char *dst, uint64_t from,
                                      uint64_t to)
{
    uint64_t head = from, body_end = from;
    zc__blocks_split((uintptr_t)src, (uintptr_t)dst, from, to, &head, &body_end);
    for (uint64_t i = from + threadIdx.x; i < head; i += blockDim.x)
        dst[i] = src[i];
    const uint4 *s4 = (const uint4 *)(src + head);
    uint4 *d4 = (uint4 *)(dst + head);
    for (uint64_t i = threadIdx.x; i < (body_end - head) / 16u; i += blockDim.x)
        d4[i] = s4[i];
    for (uint64_t i = body_end + threadIdx.x; i < to; i += blockDim.x)
        dst[i] = src[i];
}

/* Every block cut into pieces, numbered across the blocks in order; CTA c takes the pieces
 * whose number is c modulo the grid. */
static __global__ void __launch_bounds__(ZC__BLOCKS_THREADS)
    zc__blocks_gather_scatter(const __grid_constant__ zc__blocks_kargs args)
{
    uint64_t number = 0;
    for (uint32_t b = 0; b < args.count; b++) {
        uint64_t bytes = args.bytes[b];
        uint64_t pieces = zc__blocks_pieces(bytes);
        uint64_t first = zc__blocks_first_piece(blockIdx.x, gridDim.x, number);
        const unsigned char *src = (const unsigned char *)(uintptr_t)args.src[b];
        unsigned char *dst = (unsigned char *)(uintptr_t)args.dst[b];
        for (uint64_t p = first; p < pieces; p += gridDim.x) {
            uint64_t from = p * ZC__BLOCKS_PIECE;
            uint64_t to = from + ZC__BLOCKS_PIECE < bytes ? from + ZC__BLOCKS_PIECE : bytes;
            zc__piece_copy(src, dst, from, to);
        }
        number += pieces;
    }
}

/* One launch of count items starting at first. */
static zc_status zc__launch(zc__blocks_kargs *args, const zc__blocks_item *items, size_t first,
                            size_t count, size_t n_to_device, unsigned sms, cudaStream_t stream)
{
    uint64_t pieces = 0;
    for (size_t i = 0; i < count; i++) {
        const zc__blocks_item *it = &items[first + i];
        int to_device = first + i < n_to_device;
        args->src[i] = to_device ? (uint64_t)it->host_dev : (uint64_t)it->src;
        args->dst[i] = to_device ? (uint64_t)it->dst : (uint64_t)it->host_dev;
        args->bytes[i] = it->bytes;
        pieces += zc__blocks_pieces(it->bytes);
    }
    args->count = (uint32_t)count;
    unsigned grid = pieces < sms ? (unsigned)pieces : sms;
    zc__blocks_gather_scatter<<<grid, ZC__BLOCKS_THREADS, 0, stream>>>(*args);
    return ZC_CUDA_LAUNCH_CHECK("zc__blocks_gather_scatter");
}

extern "C" zc_status zc__blocks_kernel_run(const zc__blocks_item *items, size_t n_to_device,
                                           size_t n, unsigned sms, cudaStream_t stream)
{
    if (sms == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_blocks_move: the kernel engine's SM limit is 0");
    static thread_local zc__blocks_kargs args;
    for (size_t first = 0; first < n; first += ZC__BLOCKS_KERNEL_CHUNK) {
        size_t count = n - first < ZC__BLOCKS_KERNEL_CHUNK ? n - first : ZC__BLOCKS_KERNEL_CHUNK;
        ZC_CHECK(zc__launch(&args, items, first, count, n_to_device, sms, stream));
    }
    return ZC_OK;
}
