/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the block mover's validation and engine choice, free of CUDA so that the CPU tests
 * drive it with fake memory behind the kind ops. */
#ifndef ZC_BLOCKS_BLOCKS_PLAN_H
#define ZC_BLOCKS_BLOCKS_PLAN_H

#if defined(ZC_PART) && !defined(ZC_SEES_blocks)
#error "src/blocks/ included from below blocks: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/blocks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What memory is, as far as moving blocks cares. */
typedef enum zc__blocks_mem {
    ZC__BLOCKS_MEM_OTHER = 0, /* unknown to CUDA and zerocopy */
    ZC__BLOCKS_MEM_PAGEABLE,  /* host memory that is not page-locked */
    ZC__BLOCKS_MEM_PINNED,    /* page-locked host memory (allocated or registered), not mapped */
    ZC__BLOCKS_MEM_MAPPED,    /* page-locked host memory mapped for the device: dev_base */
    ZC__BLOCKS_MEM_DEVICE,    /* a GPU's own memory */
    ZC__BLOCKS_MEM_MANAGED    /* managed memory (pages migrate) */
} zc__blocks_mem;

/* The allocation that holds an address. */
typedef struct zc__blocks_region {
    zc__blocks_mem mem;
    int device;         /* DEVICE: its GPU; -1 where it does not matter */
    uintptr_t base;     /* the allocation's first byte */
    size_t size;        /* its bytes; 0 when unknown: the planner then asks about the last byte
                           of each range in it */
    uintptr_t dev_base; /* MAPPED: where kernels reach base */
} zc__blocks_region;

/* What the planner asks of its owner: what the memory at an address is. The real one asks
 * zc_pointer_query (cudaPointerGetAttributes and zerocopy's record); the tests', a table. */
typedef struct zc__blocks_kind_ops {
    /* Fill *region_p for the allocation holding addr; a failure is a status with its detail. */
    zc_status (*query)(void *ctx, uintptr_t addr, zc__blocks_region *region_p);
    void *ctx;
} zc__blocks_kind_ops;

/* What the planner knows of the mover and the machine. */
typedef struct zc__blocks_env {
    zc__blocks_kind_ops ops;
    const char *who;                  /* the public call, for details */
    int device;                       /* the mover's GPU */
    unsigned sm_count;                /* its SMs */
    unsigned max_sms;                 /* the mover's SM limit for the kernel engine */
    int batch_runtime;                /* runtime and driver have cudaMemcpyBatchAsync */
    const zc_blocks_profile *profile; /* checked with zc__blocks_profile_check */
} zc__blocks_env;

/* One block as the executors move it. host_dev is where a kernel reaches the host end (0 when
 * that memory is not mapped). */
typedef struct zc__blocks_item {
    uintptr_t src;
    uintptr_t dst;
    size_t bytes;
    uintptr_t host_dev;
} zc__blocks_item;

/* One range for the sorted checks: [start, last], both inclusive, and the item it is of. */
typedef struct zc__blocks_range {
    uintptr_t start;
    uintptr_t last;
    size_t item;
} zc__blocks_range;

/* A planned move: the items, to the device first (n_to_device), then to the host, and the
 * choice. The arrays are the plan's scratch, grown as needed and kept between moves. */
typedef struct zc__blocks_plan {
    zc__blocks_item *items;
    size_t n_to_device;
    size_t n_to_host;
    zc_blocks_choice choice;
    size_t cap;
    zc__blocks_range *dsts; /* sorted by start */
    zc__blocks_range *srcs; /* sorted by start */
} zc__blocks_plan;

/* Blocks per launch of the kernel engine: their descriptors travel as the launch's parameters
 * (within the 32 KiB that CUDA 12.1+ allows on Volta and newer), so no buffer outlives a call. */
#define ZC__BLOCKS_KERNEL_CHUNK 1024u

void zc__blocks_plan_init(zc__blocks_plan *plan);
void zc__blocks_plan_fini(zc__blocks_plan *plan);

/*
 * Validate the move and choose its engine (zc_blocks_plan's refusals, each with its detail
 * naming env->who). On success plan->items holds every block and plan->choice the choice; on
 * failure nothing is to move.
 */
zc_status zc__blocks_plan_make(zc__blocks_plan *plan, const zc__blocks_env *env,
                               const zc_blocks_desc *desc, const zc_blocks_options *options);

/* ZC_OK when every cost is finite and not negative, every bandwidth above 0, batch_max >= 1. */
zc_status zc__blocks_profile_check(const char *who, const zc_blocks_profile *profile);

/* The placeholder profile (zc_blocks_profile_default). */
void zc__blocks_profile_placeholder(zc_blocks_profile *profile);

/* The predicted time in microseconds of engine for a move of these blocks and bytes, the kernel
 * engine on sms SMs. */
double zc__blocks_predict_us(const zc_blocks_profile *profile, zc_blocks_engine engine,
                             size_t n_to_device, size_t bytes_to_device, size_t n_to_host,
                             size_t bytes_to_host, unsigned sms);

#ifdef __cplusplus
}
#endif

#endif
