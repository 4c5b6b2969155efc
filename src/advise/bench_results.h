/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: a bench result set read by case, for the fits that rest on one case's points (the
 * block mover's profile, the pinning ways' curves). */
#ifndef ZC_ADVISE_BENCH_RESULTS_H
#define ZC_ADVISE_BENCH_RESULTS_H

#if defined(ZC_PART) && !defined(ZC_SEES_advise)
#error "src/advise/ included from below advise: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include "zerocopy/bench.h"

/* The result of case want among the count results that ran ok, or NULL (none, or it failed);
 * keys this build does not know are passed over and leave no error detail. */
const zc_bench_result *zc__advise_ok_result(const zc_bench_result *results, size_t count,
                                            zc_bench_case_id want);

#endif
