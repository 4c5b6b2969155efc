/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: helpers shared by the profile and the cost model. */
#ifndef ZC_ADVISE_MODEL_INTERNAL_H
#define ZC_ADVISE_MODEL_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_advise)
#error "src/advise/ included from below advise: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include "zerocopy/advise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Microseconds to move bytes at gbps (1e9 bytes per second); infinity when gbps <= 0. */
double zc__us_at(double bytes, double gbps);

/* The best rate a curve reached. */
double zc__curve_peak_gbps(const zc_curve *curve);

/* The size-dependent part of one copy along a curve, without the synchronous fixed cost. */
double zc__curve_increment_us(const zc_curve *curve, size_t bytes);

/* "4 KiB", "1.5 MiB": sizes as people say them (the explanations and the validation table). */
void zc__size_text(double bytes, char *out, size_t size);

/* Microseconds along a cost curve with points (see zc_profile_alloc_us for the rules). */
double zc__cost_curve_at(const zc_cost_curve *curve, size_t bytes);

/* How many chunks the overlapped technique splits one transfer into. */
size_t zc__overlap_chunks(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
