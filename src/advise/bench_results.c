/* SPDX-License-Identifier: Apache-2.0 */
/* A bench result set read by case. */
#include "advise/bench_results.h"

const zc_bench_result *zc__advise_ok_result(const zc_bench_result *results, size_t count,
                                            zc_bench_case_id want)
{
    for (size_t i = 0; i < count; i++) {
        zc_bench_case_id id;
        if (zc_bench_case_id_of(results[i].key, &id) == ZC_OK && id == want &&
            results[i].outcome == ZC_BENCH_OK)
            return &results[i];
    }
    return NULL;
}
