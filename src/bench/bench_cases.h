/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the case functions, shared shapes and constants of the benchmark cases. */
#ifndef ZC_BENCH_CASES_H
#define ZC_BENCH_CASES_H

#if defined(ZC_PART) && !defined(ZC_SEES_bench)
#error "src/bench/ included from below bench: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "bench/bench_internal.h"
#include "bench/kernels.h"
#include "bench/pattern.h"

#define ZC__COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Directions of the copy cases (zc__bench_case.arg2). */
#define ZC__DIR_H2D   0
#define ZC__DIR_D2H   1
#define ZC__DIR_BIDIR 2

/* What a managed case measures (zc__bench_case.arg). */
#define ZC__MANAGED_FIRST_TOUCH 0
#define ZC__MANAGED_PREFETCHED  1
#define ZC__MANAGED_PREFETCH    2
#define ZC__MANAGED_ADVISED     3

/* SM case flags (zc__bench_case.arg2). */
#define ZC__SM_WRITE  1
#define ZC__SM_DEVICE 2

/* The launch shapes the tune cases sweep; ZC__SHAPE_DEFAULT is the one every other SM case
 * uses (change it here when the tune cases show a better one on the target machine). */
extern const zc__kshape zc__shapes[];
extern const size_t zc__shape_count;
#define ZC__SHAPE_DEFAULT 6 /* "u4 b8 t256" */

size_t zc__copy_sizes(const zc_bench_ctx *ctx, const size_t **sizes_p);
/* Bytes one copy sample moves per direction: enough that per-copy overheads (and, across
 * several GPUs, the skew of their starts) fade. */
size_t zc__copy_target(const zc_bench_ctx *ctx);
size_t zc__sm_sizes(const zc_bench_ctx *ctx, const size_t **sizes_p);
size_t zc__sm_one_size(const zc_bench_ctx *ctx);
size_t zc__sm_launches(const zc_bench_ctx *ctx, size_t bytes, int device);
zc_status zc__verify_host_dst(zc_bench_ctx *ctx, const char *key, const char *what,
                              zc_buffer_kind kind, void *p, size_t bytes, uint32_t seed);

int zc__can_copy(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n);
int zc__can_map(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n);
int zc__can_managed(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n);
/* The managed cases' sizes: the largest of sizes that fits in a quarter of the GPU's free
 * memory (*largest_p) and that quarter (*limit_p); ZC_ERR_NO_MEMORY, naming key, when none
 * fits. */
zc_status zc__managed_fit(const char *key, const size_t *sizes, size_t n, size_t *limit_p,
                          size_t *largest_p);
/* Where a prefetch sends managed pages: the GPU device (>= 0), or the host (< 0). */
struct cudaMemLocation zc__managed_where(int device);

zc_status zc__run_copy(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_sm(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_tune(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_managed(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_managed_transfer(zc_bench_ctx *ctx, const zc__bench_case *self,
                                   zc_bench_result *res);
zc_status zc__run_small_copy(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_launch(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_roundtrip(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_chase(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_pingpong(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_crossover(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_overlap(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_alloc(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);

/* The pinning family (case_pinning.c); zc__bench_case.arg is which ways a case runs. */
#define ZC__PIN_FLOOR_ONLY 0 /* pin.floor: the first-touch floor alone, no GPU */
#define ZC__PIN_EVERY_WAY  1 /* pin.cost: every way of pinning beside the floor */
int zc__can_pin(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n);
zc_status zc__run_pin(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);

/* The block family (case_blocks.c, blocks_beside.c); zc__bench_case.arg is the direction of
 * the moves (zc_blocks_dir). */
int zc__can_blocks(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n);
zc_status zc__run_blocks(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);
zc_status zc__run_blocks_beside(zc_bench_ctx *ctx, const zc__bench_case *self,
                                zc_bench_result *res);

/* Multi-GPU cases (case_multi.c); zc__bench_case.arg is what each job does. */
#define ZC__MULTI_H2D   0
#define ZC__MULTI_D2H   1
#define ZC__MULTI_PEER  2
#define ZC__MULTI_READ  3
#define ZC__MULTI_WRITE 4
int zc__can_multi(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n);
zc_status zc__run_multi(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res);

#endif
