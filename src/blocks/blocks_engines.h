/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the engines' table (one row per engine of zerocopy/blocks.h's list, AUTO first) and
 * the cost model that predicts each engine's time from a profile. */
#ifndef ZC_BLOCKS_BLOCKS_ENGINES_H
#define ZC_BLOCKS_BLOCKS_ENGINES_H

#if defined(ZC_PART) && !defined(ZC_SEES_blocks)
#error "src/blocks/ included from below blocks: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include "blocks/blocks_plan.h"
#include "zerocopy/blocks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an engine needs to reach the memory of a move, and how it runs. */
#define ZC__BLOCKS_NEEDS_BATCH_RUNTIME 0x1u  /* cudaMemcpyBatchAsync in runtime and driver */
#define ZC__BLOCKS_NEEDS_STREAM        0x2u  /* a stream other than the legacy default stream */
#define ZC__BLOCKS_NEEDS_MAPPED        0x4u  /* every host block mapped for the device */
#define ZC__BLOCKS_USES_SMS            0x8u  /* runs on SMs: bandwidth capped by the SM limit */
#define ZC__BLOCKS_ONE_PASS            0x10u /* both lists in the same calls */

/* How an engine groups blocks into calls. */
typedef enum zc__blocks_chunk {
    ZC__BLOCKS_CHUNK_BLOCK = 0, /* one call per block */
    ZC__BLOCKS_CHUNK_BATCH_MAX, /* the profile's batch_max blocks per call */
    ZC__BLOCKS_CHUNK_LAUNCH     /* ZC__BLOCKS_KERNEL_CHUNK blocks per launch */
} zc__blocks_chunk;

typedef struct zc__blocks_engine_row {
    zc_blocks_engine engine;
    const char *name;
    const char *help;
    unsigned needs; /* ZC__BLOCKS_NEEDS_*, _USES_SMS, _ONE_PASS */
    zc__blocks_chunk chunk;
} zc__blocks_engine_row;

/* The row of engine (AUTO's too); NULL outside the enum. */
const zc__blocks_engine_row *zc__blocks_engine_row_of(zc_blocks_engine engine);

/* How many calls (copies, batches, launches) engine makes for a move. */
size_t zc__blocks_calls(const zc_blocks_profile *profile, zc_blocks_engine engine,
                        size_t n_to_device, size_t n_to_host);

#ifdef __cplusplus
}
#endif

#endif
