/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: a cost measured at a few sizes, priced at any size by its cost per byte (zc advise
 * --pinning, and zc trace's slow_pinned_alloc with the same curves). */
#ifndef ZC_CORE_SIZE_CURVE_H
#define ZC_CORE_SIZE_CURVE_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when bytes[0..n) ascend from 1 byte and every seconds[i] is finite and positive: a curve
 * zc__size_curve_seconds prices; 0 otherwise. */
int zc__size_curve_ok(const size_t *bytes, const double *seconds, size_t n);

/*
 * The seconds a cost measured at bytes[0..n) (ascending, none 0) in seconds[0..n) predicts for
 * at bytes: the cost per byte interpolated linearly between the two measured sizes around at
 * (so a measured size gives its own figure back), and outside them the cost per byte of the
 * nearest measured size, *outside_p set to 1 then (0 otherwise; may be NULL). NAN for n 0 or
 * at 0.
 */
double zc__size_curve_seconds(const size_t *bytes, const double *seconds, size_t n, size_t at,
                              int *outside_p);

#ifdef __cplusplus
}
#endif

#endif
