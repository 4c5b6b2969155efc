/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover: many blocks between device memory and pinned host memory in one
 * stream-ordered call, through the engine predicted fastest (docs/blocks.md). */
#ifndef ZEROCOPY_BLOCKS_H
#define ZEROCOPY_BLOCKS_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* The CUDA runtime's stream type (zerocopy/buffer.h says the same): a cudaStream_t passes as
 * is. NULL is the legacy default stream. */
struct CUstream_st;

/*
 * The one list of engines. Each entry is X(NAME, "name", "what it does"); the enum, the names
 * and the planner's table of engines (src/blocks/blocks_plan.c) are made from it. A new engine
 * goes at the end, with its row of costs and reach in the planner and its executor.
 */
#define ZC_BLOCKS_ENGINE_MAP(X)                                                                    \
    X(COPY, "copy", "the copy engine, one cudaMemcpyAsync per block")                              \
    X(BATCH, "batch",                                                                              \
      "the copy engine, blocks batched in cudaMemcpyBatchAsync (CUDA 12.8+, never on the legacy "  \
      "default stream)")                                                                           \
    X(KERNEL, "kernel",                                                                            \
      "an SM kernel gathering and scattering through mapped host memory, on at most max_sms "      \
      "SMs")                                                                                       \
    ZC__BLOCKS_ENGINE_PLANT(X)

/* tests/blocks plants an engine at the end of the list: the planner's table and the mover's
 * dispatch must fail to build without its row and its executor. */
#ifdef ZC_PLANT_BLOCKS_ENGINE
#define ZC__BLOCKS_ENGINE_PLANT(X) X(PLANTED, "planted", "planted (tests/blocks)")
#else
#define ZC__BLOCKS_ENGINE_PLANT(X)
#endif

#define ZC__BLOCKS_ENGINE_ENUM(NAME, name, help) ZC_BLOCKS_##NAME,
#define ZC__BLOCKS_ENGINE_ONE(NAME, name, help)  +1

/* AUTO (0): the planner chooses; then the list's engines from 1 in its order: COPY 1,
 * BATCH 2, KERNEL 3. */
typedef enum zc_blocks_engine {
    ZC_BLOCKS_AUTO = 0,
    ZC_BLOCKS_ENGINE_MAP(ZC__BLOCKS_ENGINE_ENUM)
} zc_blocks_engine;

/* AUTO and every engine of the list: the length of every table indexed by engine. */
#define ZC_BLOCKS_ENGINE_COUNT (1 ZC_BLOCKS_ENGINE_MAP(ZC__BLOCKS_ENGINE_ONE))

/* Which lists of a move are used: to the device, to the host, or both at once. */
typedef enum zc_blocks_dir {
    ZC_BLOCKS_TO_DEVICE = 1,
    ZC_BLOCKS_TO_HOST = 2,
    ZC_BLOCKS_BOTH = 3 /* ZC_BLOCKS_TO_DEVICE | ZC_BLOCKS_TO_HOST */
} zc_blocks_dir;

/* One block: bytes from src to dst. */
typedef struct zc_block {
    const void *src;
    void *dst;
    size_t bytes;
} zc_block;

/*
 * The blocks of one direction, in one of two forms.
 *   Explicit: blocks points at count triples; the other fields are 0.
 *   Indexed (blocks NULL): block i moves block_bytes from
 *   src_base + src_index[i] * block_bytes to dst_base + dst_index[i] * block_bytes.
 * The arrays are host memory, read during the call only.
 */
typedef struct zc_blocks_list {
    size_t count;
    const zc_block *blocks;
    const void *src_base;
    void *dst_base;
    size_t block_bytes;
    const size_t *src_index;
    const size_t *dst_index;
} zc_blocks_list;

/* A move: dir says which lists are read; a list dir does not name must be all 0. To the
 * device, sources are pinned or registered host memory and destinations device memory of the
 * mover's GPU; to the host, the other way round. */
typedef struct zc_blocks_desc {
    zc_blocks_dir dir;
    zc_blocks_list to_device;
    zc_blocks_list to_host;
} zc_blocks_desc;

/* How to move. All 0 is the default: the engine chosen, the mover's SM limit, the legacy
 * default stream. */
typedef struct zc_blocks_options {
    zc_blocks_engine engine;    /* ZC_BLOCKS_AUTO: the least predicted time */
    unsigned max_sms;           /* the kernel engine uses at most this many SMs; 0: the
                                   mover's (ZC_BLOCKS_DEFAULT_MAX_SMS unless set) */
    struct CUstream_st *stream; /* the move starts after the stream's earlier work */
} zc_blocks_options;

/* The kernel engine's SM limit when neither the options nor zc_blocks_set_max_sms say. */
#define ZC_BLOCKS_DEFAULT_MAX_SMS 8u

/* What one engine costs in one direction: time = calls * call_us + blocks * block_us +
 * bytes / (gbps * 1e3) microseconds. */
typedef struct zc_blocks_cost {
    double call_us;  /* per call: a launch, a batch submitted; 0 where every block is a call */
    double block_us; /* per block */
    double gbps;     /* bandwidth, GB/s (1e9 bytes per second) */
} zc_blocks_cost;

/*
 * The machine's costs per engine (indexed by zc_blocks_engine; [ZC_BLOCKS_AUTO] unused).
 * zc_blocks_profile_default gives placeholders, to be replaced by a profile measured on the
 * machine (docs/blocks.md).
 */
typedef struct zc_blocks_profile {
    zc_blocks_cost to_device[ZC_BLOCKS_ENGINE_COUNT];
    zc_blocks_cost to_host[ZC_BLOCKS_ENGINE_COUNT];
    double kernel_sm_gbps; /* the kernel engine's bandwidth per SM: it gets
                              min(gbps, sms * kernel_sm_gbps) */
    size_t batch_max;      /* blocks per cudaMemcpyBatchAsync call (at least 1) */
    int measured;          /* 0 for the placeholders, 1 for a measured profile */
    double both_gbps;      /* the copy engines both ways at once, the two directions' bytes
                              together (GB/s): the link's ceiling on a move both ways; 0 when
                              not measured, each direction then at its own bandwidth */
} zc_blocks_profile;

/* What the planner found and chose for a move. */
typedef struct zc_blocks_choice {
    zc_blocks_engine engine; /* the engine that moves (or would move) the blocks */
    unsigned reachable;      /* bit e set when engine e can reach the memory of this move */
    double predicted_us[ZC_BLOCKS_ENGINE_COUNT]; /* each reachable engine's predicted time;
                                                     -1 where it cannot reach */
    size_t blocks;                               /* both lists together */
    size_t bytes_to_device;
    size_t bytes_to_host;
    unsigned sms; /* SMs the kernel engine would use (0 where it cannot reach) */
    size_t calls; /* copy calls, batches or launches of the chosen engine */
} zc_blocks_choice;

/* A mover for one GPU: its settings, its profile and its scratch. One thread at a time. */
typedef struct zc_blocks zc_blocks;

ZC_BEGIN_DECLS

/* Fill *profile_p with the placeholder costs (measured = 0). */
ZC_EXTERN zc_status zc_blocks_profile_default(zc_blocks_profile *profile_p);

/*
 * A mover for GPU device, with the placeholder profile and ZC_BLOCKS_DEFAULT_MAX_SMS (no more
 * than the GPU has). Failures: ZC_ERR_INVALID_ARG (bad device), ZC_ERR_NO_DEVICE, ZC_ERR_CUDA,
 * ZC_ERR_NO_MEMORY.
 */
ZC_EXTERN zc_status zc_blocks_create(int device, zc_blocks **mover_p);

/* Release a mover; NULL is accepted. Moves already queued go on. */
ZC_EXTERN void zc_blocks_destroy(zc_blocks *mover);

/* Plan with this profile from now on (a measured one). ZC_ERR_INVALID_ARG for a cost that is
 * negative or not finite, a bandwidth of 0 or batch_max 0. */
ZC_EXTERN zc_status zc_blocks_set_profile(zc_blocks *mover, const zc_blocks_profile *profile);

/* The kernel engine's SM limit when the options give none: 1 to the GPU's SM count. */
ZC_EXTERN zc_status zc_blocks_set_max_sms(zc_blocks *mover, unsigned max_sms);

/*
 * Validate a move and choose its engine, moving nothing. Refused, with the reason in
 * zc_last_error(): a NULL pointer, a count or size of 0, an address that overflows (base +
 * index * block_bytes, or the end of a block), a list dir does not name that is not all 0
 * (ZC_ERR_INVALID_ARG, ZC_ERR_OVERFLOW); overlapping destinations, or a source overlapping a
 * destination (ZC_ERR_OVERLAP); a host side that is not pinned or registered memory, a device
 * side that is not device memory of the mover's GPU, a block that runs past its allocation
 * (ZC_ERR_WRONG_KIND); an engine asked for that cannot reach the memory or lacks its runtime
 * (ZC_ERR_UNSUPPORTED). *choice_p is written on success.
 */
ZC_EXTERN zc_status zc_blocks_plan(zc_blocks *mover, const zc_blocks_desc *desc,
                                   const zc_blocks_options *options, zc_blocks_choice *choice_p);

/*
 * Validate, plan and queue the move on options->stream: it starts after the stream's earlier
 * work, and the stream's later work starts after it has completed (record an event after it to
 * know when). Nothing is queued when validation fails (zc_blocks_plan's refusals). choice_p
 * may be NULL. A failure of CUDA while queueing gives ZC_ERR_CUDA; blocks queued before it may
 * still move.
 */
ZC_EXTERN zc_status zc_blocks_move(zc_blocks *mover, const zc_blocks_desc *desc,
                                   const zc_blocks_options *options, zc_blocks_choice *choice_p);

/* "copy", "batch", "kernel"; "auto" for ZC_BLOCKS_AUTO; "unknown" outside the enum. */
ZC_EXTERN const char *zc_blocks_engine_name(zc_blocks_engine engine);

/* What the engine does, in a sentence; "" outside the list. */
ZC_EXTERN const char *zc_blocks_engine_help(zc_blocks_engine engine);

/* The engine named name ("auto" too); ZC_ERR_NOT_FOUND for anything else. */
ZC_EXTERN zc_status zc_blocks_engine_from_name(const char *name, zc_blocks_engine *engine_p);

ZC_END_DECLS

#endif
