/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: doubles sorted ascending, with the comparator zc_stats_compute uses (stats.c), for
 * the parts that take a median or a percentile of their own samples. */
#ifndef ZC_CORE_SORTED_H
#define ZC_CORE_SORTED_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sort count values ascending in place (NaN ordered as equal to anything: give finite ones). */
void zc__sort_doubles(double *values, size_t count);

#ifdef __cplusplus
}
#endif

#endif
