/* SPDX-License-Identifier: Apache-2.0 */
/* The frame time budget as JSON: the "budget" object of a zc stream run (docs/json.md). */
#include "json/json_internal.h"

#include "core/error.h"
#include "zerocopy/json.h"

static cJSON *zc__clock_sync_json(const zc_ring_clock_sync *c)
{
    if (c->round_trips == 0)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "round_trips", c->round_trips);
    cJSON_AddNumberToObject(o, "uncertainty_us", c->uncertainty_ns / 1e3);
    cJSON_AddBoolToObject(o, "interval_empty", c->interval_empty);
    cJSON_AddNumberToObject(o, "tick_ns", c->tick_ns);
    cJSON_AddNumberToObject(o, "round_trip_min_us", c->rtt_min_us);
    cJSON_AddNumberToObject(o, "round_trip_p50_us", c->rtt_p50_us);
    cJSON_AddNumberToObject(o, "round_trip_p99_us", c->rtt_p99_us);
    return o;
}

ZC_EXTERN zc_status zc_ring_budget_to_json(const zc_ring_budget *b, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(b);
    ZC_REQUIRE_ARG(doc_p);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "first_frame", (double)b->first_seq);
    cJSON_AddNumberToObject(o, "frames_asked", (double)b->frames_asked);
    cJSON_AddNumberToObject(o, "frames", (double)b->frames);
    cJSON *steps = cJSON_AddArrayToObject(o, "steps");
    for (int k = 0; k < ZC_RING_STEP_COUNT; k++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "step", zc_ring_step_name((zc_ring_step)k));
        cJSON_AddItemToObject(s, "us", zc__json_stats(&b->step_us[k]));
        cJSON_AddItemToArray(steps, s);
    }
    cJSON_AddItemToObject(o, "total_us", zc__json_stats(&b->total_us));
    cJSON *clock = cJSON_AddObjectToObject(o, "clock");
    cJSON_AddItemToObject(clock, "before", zc__clock_sync_json(&b->before));
    cJSON_AddItemToObject(clock, "after", zc__clock_sync_json(&b->after));
    cJSON_AddNumberToObject(clock, "drift_ppm", b->drift_ppm);
    cJSON_AddNumberToObject(clock, "sm_clock_mhz", b->gpu_clock_mhz);
    cJSON_AddNumberToObject(clock, "fit_residual_ns", b->fit_residual_ns);
    return zc__json_give(o, "zc_ring_budget_to_json", doc_p);
}
