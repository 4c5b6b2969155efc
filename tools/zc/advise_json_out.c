/* zc advise's result documents: a validation's rounds and verdicts, a stream ranking. */
#include "advise_json.h"

#include <stdio.h>

#include "cli.h"
#include "cli_json.h"

static void zc__tech(cJSON *o, const char *name, int t)
{
    if (t >= 0)
        cJSON_AddStringToObject(o, name, zc_technique_key((zc_technique)t));
    else
        cJSON_AddNullToObject(o, name);
}

static cJSON *zc__technique_json(int t, const zc_validation_technique *v)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "technique", zc_technique_key((zc_technique)t));
    cJSON_AddStringToObject(x, "result",
                            v->ran == 1 ? "measured" : (v->ran == 0 ? "not_in_profile" : "failed"));
    if (v->ran == 0)
        return x;
    zc_cli_json_number(x, "predicted_total_us", v->predicted.total_us);
    zc_cli_json_number(x, "predicted_per_transfer_us", v->predicted.per_transfer_us);
    if (v->ran < 0) {
        cJSON_AddStringToObject(x, "why", v->why);
        return x;
    }
    cJSON *rounds = cJSON_AddArrayToObject(x, "measured_total_us_rounds");
    for (size_t i = 0; i < v->rounds; i++)
        cJSON_AddItemToArray(rounds, cJSON_CreateNumber(v->total_us[i]));
    zc_cli_json_number(x, "measured_total_us", v->median_us);
    zc_cli_json_number(x, "noise", v->noise);
    zc_cli_json_number(x, "measured_setup_us", v->setup_us);
    zc_cli_json_number(x, "measured_per_transfer_us", v->per_transfer_us);
    zc_cli_json_number(x, "error", v->error);
    return x;
}

static cJSON *zc__result_json(const zc_validation_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->workload.name);
    cJSON_AddItemToObject(o, "workload", zc_cli_workload_to_json(&r->workload.workload));
    zc__tech(o, "recommended", (int)r->rec.ranked[0].technique);
    cJSON_AddStringToObject(o, "explanation", r->rec.explanation);
    zc__tech(o, "winner", r->winner);
    zc__tech(o, "runner_up", r->runner_up);
    zc_cli_json_number(o, "margin", r->margin);
    zc_cli_json_number(o, "noise", r->noise);
    cJSON_AddBoolToObject(o, "hit", r->pick_wins);
    cJSON_AddBoolToObject(o, "hit_or_tied", r->pick_tied);
    cJSON_AddBoolToObject(o, "runner_up_tied", r->runner_up_tied);
    cJSON *ts = cJSON_AddArrayToObject(o, "techniques");
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        cJSON_AddItemToArray(ts, zc__technique_json(t, &r->tech[t]));
    return o;
}

cJSON *zc_cli_validation_json(const zc_profile *profile, const char *notes,
                              const zc_validation_config *config,
                              const zc_validation_result *results, size_t count,
                              const zc_validation_summary *s)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_VALIDATION_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddItemToObject(doc, "profile", zc_cli_profile_to_json(profile));
    cJSON_AddStringToObject(doc, "profile_assumptions", notes != NULL ? notes : "");
    cJSON_AddNumberToObject(doc, "rounds", (double)config->rounds);
    cJSON_AddNumberToObject(doc, "seconds_per_run", config->seconds_per_run);
    cJSON *cases = cJSON_AddArrayToObject(doc, "workloads");
    for (size_t i = 0; i < count; i++)
        cJSON_AddItemToArray(cases, zc__result_json(&results[i]));
    cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
    cJSON_AddNumberToObject(sum, "workloads", (double)s->workloads);
    cJSON_AddNumberToObject(sum, "hits", (double)s->pick_wins);
    cJSON_AddNumberToObject(sum, "hits_or_tied", (double)s->pick_wins_or_tied);
    cJSON_AddNumberToObject(sum, "recommended_within_20pct", (double)s->pick_within_20pct);
    cJSON_AddNumberToObject(sum, "techniques_measured", (double)s->techniques_measured);
    zc_cli_json_number(sum, "median_abs_error", s->median_abs_error);
    zc_cli_json_number(sum, "max_abs_error", s->max_abs_error);
    zc_cli_json_number(sum, "host_write_gbps", s->host_write_gbps);
    zc_cli_json_number(sum, "managed_cpu_touch_gbps", s->managed_cpu_touch_gbps);
    return doc;
}

cJSON *zc_cli_stream_advice_json(const zc_profile *profile, const zc_stream_workload *w,
                                 const zc_stream_advice *a)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_STREAM_ADVICE_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddStringToObject(doc, "device_name", profile->device_name);
    cJSON_AddNumberToObject(doc, "frame_bytes", (double)w->frame_bytes);
    cJSON_AddNumberToObject(doc, "rate_hz", w->rate_hz);
    char name[48];
    (void)zc_stream_option_name(a->ranked[0].mode, a->ranked[0].protocol, name, sizeof name);
    cJSON_AddStringToObject(doc, "recommendation", name);
    cJSON_AddStringToObject(doc, "explanation", a->explanation);
    cJSON *ranked = cJSON_AddArrayToObject(doc, "ranked");
    for (size_t i = 0; i < a->count; i++) {
        const zc_stream_option *o = &a->ranked[i];
        cJSON *x = cJSON_CreateObject();
        (void)zc_stream_option_name(o->mode, o->protocol, name, sizeof name);
        cJSON_AddStringToObject(x, "mode", name);
        cJSON_AddBoolToObject(x, "usable", o->usable);
        if (o->usable) {
            zc_cli_json_number(x, "p50_us", o->p50_us);
            zc_cli_json_number(x, "p99_us", o->p99_us);
            zc_cli_json_number(x, "gb_per_s", o->gbps);
            zc_cli_json_number(x, "max_frames_per_s", o->max_hz);
            cJSON_AddNumberToObject(x, "in_flight", o->in_flight);
            cJSON_AddNumberToObject(x, "gpu_blocks", o->gpu_blocks);
            cJSON_AddNumberToObject(x, "nearest_measured_bytes", (double)o->nearest_bytes);
            cJSON_AddBoolToObject(x, "meets_rate", o->meets_rate);
        }
        cJSON_AddItemToArray(ranked, x);
    }
    return doc;
}
