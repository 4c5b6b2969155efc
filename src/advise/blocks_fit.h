/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the block mover's costs fitted to measured times, least squares in relative error
 * with no cost negative (blocks_lsq.c), for zc_blocks_profile_from_bench (blocks_fit.c). */
#ifndef ZC_ADVISE_BLOCKS_FIT_H
#define ZC_ADVISE_BLOCKS_FIT_H

#if defined(ZC_PART) && !defined(ZC_SEES_advise)
#error "src/advise/ included from below advise: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The columns of the form: calls, blocks, kilobytes (1e3 bytes, whose cost is 1 / gbps). */
#define ZC__BLK_COLS 3

/* One measured move: its columns and its median time in microseconds. */
typedef struct zc__blk_obs {
    double x[ZC__BLK_COLS];
    double us;
} zc__blk_obs;

/*
 * The costs c (c[2] > 0 and at least c2_min, the others >= 0) that minimise the sum over the n
 * moves of ((x . c - us) / us)^2; a column fitted[k] == 0 is held at 0. Every subset of the free
 * columns is solved, with the last column free or held at c2_min (when above 0), and the best
 * whose costs keep every bound is kept: with three columns that is the exact bounded answer. 0
 * when none is (*c_p untouched).
 */
int zc__blk_lsq(const zc__blk_obs *obs, size_t n, const int fitted[ZC__BLK_COLS], double c2_min,
                double c_p[ZC__BLK_COLS]);

#ifdef __cplusplus
}
#endif

#endif
