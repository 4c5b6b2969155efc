/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine's time budget: its one lane's, over the measured frames. */
#include "stream/engine_internal.h"

#include "core/error.h"

ZC_EXTERN zc_status zc_stream_budget_get(zc_stream *s, zc_ring_budget *budget_p)
{
    ZC_REQUIRE_ARG(s);
    ZC_REQUIRE_ARG(budget_p);
    if (s->config.budget_frames == 0)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "zc_stream_budget_get: the stream keeps no budget "
                                           "(zc_stream_config.budget_frames is 0)");
    return zc_filter_budget(s->lane[0].f, s->config.warmup_frames, s->config.budget_frames,
                            budget_p);
}
