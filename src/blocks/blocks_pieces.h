/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: how the kernel engine shares a launch's blocks among its CTAs and splits a piece
 * into 16-byte accesses, in one header usable from C and CUDA, so that the CPU tests check the
 * same arithmetic the kernel runs (every byte moved once, every wide access aligned). */
#ifndef ZC_BLOCKS_BLOCKS_PIECES_H
#define ZC_BLOCKS_BLOCKS_PIECES_H

#if defined(ZC_PART) && !defined(ZC_SEES_blocks)
#error "src/blocks/ included from below blocks: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>

#ifdef __CUDACC__
#define ZC__BLOCKS_HD __host__ __device__
#else
#define ZC__BLOCKS_HD
#endif

/* The piece of a block one CTA moves at a time: a large block is shared by every CTA, many
 * small ones are spread over them. */
#define ZC__BLOCKS_PIECE ((uint64_t)64 << 10)

/* The pieces of a block of bytes. */
static inline ZC__BLOCKS_HD uint64_t zc__blocks_pieces(uint64_t bytes)
{
    return (bytes + ZC__BLOCKS_PIECE - 1) / ZC__BLOCKS_PIECE;
}

/* Pieces are numbered across the launch's blocks in order, and CTA cta of grid takes those
 * whose number is cta modulo grid: the first of them in a block whose pieces start at number. */
static inline ZC__BLOCKS_HD uint64_t zc__blocks_first_piece(uint64_t cta, uint64_t grid,
                                                            uint64_t number)
{
    return (cta + grid - number % grid) % grid;
}

/* Bytes [from, to) of a block split for 16-byte accesses: [from, *head_p) and [*body_end_p, to)
 * a byte at a time, [*head_p, *body_end_p) in 16-byte words aligned on both sides. Where source
 * and destination differ in their alignment, everything goes a byte at a time. */
static inline ZC__BLOCKS_HD void zc__blocks_split(uintptr_t src, uintptr_t dst, uint64_t from,
                                                  uint64_t to, uint64_t *head_p,
                                                  uint64_t *body_end_p)
{
    uint64_t head = from, body_end = from;
    if (((src ^ dst) & 15u) == 0) {
        head = from + ((16u - ((src + from) & 15u)) & 15u);
        if (head > to)
            head = to;
        body_end = head + ((to - head) & ~(uint64_t)15);
    }
    *head_p = head;
    *body_end_p = body_end;
}

#endif
