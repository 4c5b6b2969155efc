/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the block family of zc bench (case_blocks.c, blocks_beside.c) and its CUDA-free
 * planning, scattering and pattern (blocks_layout.c), which the CPU tests run. */
#ifndef ZC_BENCH_BLOCKS_BENCH_H
#define ZC_BENCH_BLOCKS_BENCH_H

#if defined(ZC_PART) && !defined(ZC_SEES_bench)
#error "src/bench/ included from below bench: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "bench/bench_internal.h"
#include "zerocopy/blocks.h"

/* Blocks per move: at least this many (a move of a few blocks is not a block workload) and at
 * most this many (a paged cache swaps hundreds to a few thousand blocks at once). */
#define ZC__BLK_COUNT_MIN 16u
#define ZC__BLK_COUNT_MAX 4096u
/* The largest block the family takes; a block size is a whole number of 4-byte words, so that
 * every block starts on a word of the pattern. */
#define ZC__BLK_SIZE_MAX  ((size_t)64 << 20)

/* One point of the family: blocks of block_bytes, count of them per move and direction. */
typedef struct zc__blk_point {
    size_t block_bytes;
    size_t count;
} zc__blk_point;

/*
 * The points for sizes: count = target / size, within ZC__BLK_COUNT_MIN..ZC__BLK_COUNT_MAX, and
 * lowered so that count * size stays within cap (the memory one region of a direction may
 * take). A size that is not a multiple of 4 B, is above ZC__BLK_SIZE_MAX, or cannot have
 * ZC__BLK_COUNT_MIN blocks within cap is left out and named in left_out ("" when none is).
 * Returns how many points were written to out (at most n).
 */
size_t zc__blk_plan(const size_t *sizes, size_t n, size_t target, size_t cap, zc__blk_point *out,
                    char *left_out, size_t left_size);

/*
 * A small move beside each of the n points of out (out holds room for max): count / 16 blocks of
 * the same size, at least ZC__BLK_COUNT_MIN, where that is fewer than the point's own count;
 * appended after the n points, in their order. Returns the points now in out. Two counts of one
 * size tell a move's fixed cost from its cost per block, which one count a size cannot: the
 * block mover's fit (zc_blocks_profile_from_bench) rests on them.
 */
size_t zc__blk_add_small_moves(zc__blk_point *out, size_t n, size_t max);

/* perm[0..n-1] becomes a permutation of 0..n-1, shuffled (Fisher-Yates) by the xorshift64 state
 * *rng (never 0), as a paged cache's blocks sit in no order. */
void zc__blk_shuffle(size_t *perm, size_t n, uint64_t *rng);

/*
 * Fill the sources of count blocks of block_bytes at region: block i (at src_index[i]) gets the
 * bytes that the whole-region pattern for seed (bench/pattern.h) has where that block lands
 * (at dst_index[i]). After a right move of every block, the destination region's count *
 * block_bytes bytes are that pattern, which one check over the region proves (a block that
 * landed in the wrong slot, or not at all, is a wrong word there). block_bytes is a multiple
 * of 4.
 */
void zc__blk_fill(void *region, size_t block_bytes, size_t count, const size_t *src_index,
                  const size_t *dst_index, uint32_t seed);

/* --- the cases, on a GPU (case_blocks.c, blocks_beside.c) --- */

/* One point's move: its lists (indexed, scattered both sides), its memory and how it moves. The
 * to-device list reads host region h_src into device region d_dst; the to-host list reads
 * device region d_src into host region h_dst (mapped: the check reads it through h_dst_dev). */
typedef struct zc__blk_move {
    zc_blocks *mover;
    zc_blocks_desc desc;
    zc__blk_point point;
    size_t *index; /* 4 * count: to-device source, destination, to-host source, destination */
    void *h_src, *d_dst, *d_src, *h_dst, *h_dst_dev;
    uint32_t seed[2];        /* the patterns of the to-device and the to-host destinations */
    int naive;               /* 1: one cudaMemcpyAsync per block, not the mover */
    zc_blocks_options opts;  /* the engine forced, or ZC_BLOCKS_AUTO; the stream */
    cudaStream_t naive_side; /* the naive loop's to-host stream when both ways */
    cudaEvent_t fork, join;  /* the naive loop's fork to it and join back */
} zc__blk_move;

/* The mover the block family measures, on the context's GPU, planning with the profile the
 * caller gave (zc_bench_config.blocks_profile) or its placeholders. */
zc_status zc__blk_mover_create(const zc_bench_ctx *ctx, zc_blocks **mover_p);

/* Per mode: the bytes a move aims at per direction, and the memory a region may take. */
size_t zc__blk_target(const zc_bench_ctx *ctx);
size_t zc__blk_cap(const zc_bench_ctx *ctx);

/* Memory and lists for a point of dir (ZC_BLOCKS_*); the sources filled, the lists shuffled. */
zc_status zc__blk_prepare(zc_bench_ctx *ctx, zc__blk_move *m, zc_blocks_dir dir,
                          zc__blk_point point);
/* Free what zc__blk_prepare allocated for the lists (the regions are the context's). */
void zc__blk_release(zc__blk_move *m);
/* Queue one move on m->opts.stream. */
zc_status zc__blk_queue(zc__blk_move *m);
/* Poison the destinations, and check them after the moves; the corruption hook between. */
zc_status zc__blk_poison(zc_bench_ctx *ctx, const zc__blk_move *m);
zc_status zc__blk_verify(zc_bench_ctx *ctx, const char *key, const char *what,
                         const zc__blk_move *m);
/* Whether the mover reaches the memory with m's engine: 1, or 0 with why in why (a skip, not a
 * failure); an error other than ZC_ERR_UNSUPPORTED is returned. *engine_p: the engine planned. */
zc_status zc__blk_reach(zc__blk_move *m, int *reach_p, zc_blocks_engine *engine_p, char *why,
                        size_t why_size);

#endif
