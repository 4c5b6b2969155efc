/* SPDX-License-Identifier: Apache-2.0 */
/* Running one case: the can-run check, the outcome, and cleanup after a failure. */
#include <stdio.h>
#include <string.h>

#include "bench/bench_internal.h"
#include "core/error.h"
#include "zerocopy/clock.h"

ZC_EXTERN zc_status zc_bench_can_run(zc_bench_ctx *ctx, size_t index, char *reason,
                                     size_t reason_size, int *can_p)
{
    ZC_REQUIRE_ARG(ctx);
    ZC_REQUIRE_ARG(reason);
    ZC_REQUIRE_ARG(can_p);
    if (index >= zc__bench_case_total)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_can_run: case %zu of %zu", index,
                       zc__bench_case_total);
    if (reason_size == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_can_run: reason_size is 0");
    const zc__bench_case *c = &zc__bench_cases[index];
    reason[0] = '\0';
    int can = c->can_run ? c->can_run(ctx, c, reason, reason_size) : 1;
    if (!can && reason[0] == '\0')
        snprintf(reason, reason_size, "not supported here");
    *can_p = can;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_bench_run(zc_bench_ctx *ctx, size_t index, zc_bench_result *result_p)
{
    ZC_REQUIRE_ARG(ctx);
    ZC_REQUIRE_ARG(result_p);
    if (index >= zc__bench_case_total)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_run: case %zu of %zu", index,
                       zc__bench_case_total);
    const zc__bench_case *c = &zc__bench_cases[index];
    zc_bench_result res;
    ZC_CHECK(zc_bench_result_init(&res, c->info.key));
    ctx->current_key = c->info.key;
    zc__bench_tick(ctx, 0, 1);
    uint64_t t0 = zc_clock_ns();
    int can = 1;
    ZC_CHECK(zc_bench_can_run(ctx, index, res.reason, sizeof res.reason, &can));
    if (!can) {
        res.outcome = ZC_BENCH_SKIPPED;
        res.status = ZC_ERR_UNSUPPORTED;
    } else {
        zc_clear_error();
        zc_status st = c->run(ctx, c, &res);
        if (st != ZC_OK) {
            /* A case that failed half way may have left a gate closed or work queued. */
            char detail[ZC_BENCH_REASON_MAX];
            snprintf(detail, sizeof detail, "%s", zc_last_error());
            zc__gate_abandon(ctx);
            zc_bench_result_clear(&res); /* a wrong or unfinished case shows no number */
            res.status = st;
            res.outcome = st == ZC_ERR_VERIFY ? ZC_BENCH_FAIL : ZC_BENCH_ERROR;
            snprintf(res.reason, sizeof res.reason, "%s", detail[0] ? detail : zc_status_str(st));
        }
    }
    res.seconds = (double)(zc_clock_ns() - t0) / 1e9;
    ctx->case_done++;
    zc__bench_tick(ctx, 0, 1);
    ctx->current_key = NULL;
    *result_p = res;
    return ZC_OK;
}
