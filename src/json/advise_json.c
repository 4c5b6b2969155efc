/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise's documents as JSON: workloads read and written, a ranking ("zerocopy.advise/1"),
 * a validation's rounds and verdicts, a stream ranking (docs/json.md). */
#include "zerocopy/json.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/filter.h"
#include "zerocopy/size.h"
#include "zerocopy/version.h"

ZC_EXTERN zc_status zc_workload_from_json(const cJSON *doc, zc_workload *workload_p)
{
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(workload_p);
    zc_workload w = *workload_p;
    if (!cJSON_IsObject(doc))
        return ZC_FAIL(ZC_ERR_PARSE, "workload: expected a JSON object");
    ZC_CHECK(zc__json_check_keys(doc, "workload"));
    /* A misspelt name must not be ignored: the workload would silently be another one. */
    static const char *const known[] = {"bytes",        "transfers",         "rate_hz",
                                        "gpu_accesses", "latency_budget_us", "direction",
                                        "pattern",      "concurrent"};
    const cJSON *item;
    cJSON_ArrayForEach(item, doc)
    {
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(item->string, known[k]) != 0)
            k++;
        if (k == sizeof known / sizeof known[0])
            return ZC_FAIL(ZC_ERR_PARSE,
                           "workload: unknown name \"%.60s\" (known: bytes, transfers, rate_hz, "
                           "gpu_accesses, latency_budget_us, direction, pattern, concurrent)",
                           item->string);
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "bytes");
    uint64_t parsed = 0;
    if (cJSON_IsNumber(v) && v->valuedouble >= 1.0 &&
        zc__json_double_to_size(v->valuedouble, ZC__JSON_BYTES_MAX, &w.bytes))
        ;
    else if (cJSON_IsString(v) &&
             zc_size_parse(v->valuestring, ZC_WORKLOAD_BYTES_MAX, &parsed) == ZC_OK)
        w.bytes = (size_t)parsed;
    else if (v != NULL)
        return ZC_FAIL(ZC_ERR_PARSE,
                       "workload: bytes must be a whole size, 1 to 2^50 (4096 or \"4KiB\")");
    static const struct {
        const char *name;
        size_t offset;
    } numbers[] = {
        {"transfers", offsetof(zc_workload, transfers)},
        {"rate_hz", offsetof(zc_workload, rate_hz)},
        {"gpu_accesses", offsetof(zc_workload, gpu_accesses)},
        {"latency_budget_us", offsetof(zc_workload, latency_budget_us)},
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        v = cJSON_GetObjectItemCaseSensitive(doc, numbers[i].name);
        if (v == NULL)
            continue;
        if (!cJSON_IsNumber(v))
            return ZC_FAIL(ZC_ERR_PARSE, "workload: %s must be a number", numbers[i].name);
        *(double *)((char *)&w + numbers[i].offset) = v->valuedouble;
    }
    v = cJSON_GetObjectItemCaseSensitive(doc, "direction");
    if (v != NULL && (!cJSON_IsString(v) || zc_direction_from_key(v->valuestring, &w.direction)))
        return ZC_FAIL(ZC_ERR_PARSE, "workload: direction must be \"h2d\", \"d2h\" or \"both\"");
    v = cJSON_GetObjectItemCaseSensitive(doc, "pattern");
    if (v != NULL && (!cJSON_IsString(v) || zc_access_from_key(v->valuestring, &w.pattern)))
        return ZC_FAIL(ZC_ERR_PARSE,
                       "workload: pattern must be \"coalesced\", \"strided\" or \"random\"");
    v = cJSON_GetObjectItemCaseSensitive(doc, "concurrent");
    if (v != NULL) {
        if (!cJSON_IsBool(v))
            return ZC_FAIL(ZC_ERR_PARSE, "workload: concurrent must be true or false");
        w.concurrent = cJSON_IsTrue(v);
    }
    zc_clear_error();
    *workload_p = w;
    return ZC_OK;
}

static cJSON *zc__workload_json(const zc_workload *w)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddNumberToObject(o, "bytes", (double)w->bytes);
    cJSON_AddNumberToObject(o, "transfers", zc_workload_transfer_count(w));
    cJSON_AddNumberToObject(o, "rate_hz", w->rate_hz);
    cJSON_AddStringToObject(o, "direction", zc_direction_key(w->direction));
    cJSON_AddNumberToObject(o, "gpu_accesses", w->gpu_accesses);
    cJSON_AddStringToObject(o, "pattern", zc_access_key(w->pattern));
    cJSON_AddBoolToObject(o, "concurrent", w->concurrent);
    cJSON_AddNumberToObject(o, "latency_budget_us", w->latency_budget_us);
    return o;
}

static cJSON *zc__prediction_json(const zc_prediction *r)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "technique", zc_technique_key(r->technique));
    cJSON_AddStringToObject(o, "title", zc_technique_title(r->technique));
    cJSON_AddBoolToObject(o, "usable", r->usable);
    if (!r->usable)
        return o;
    cJSON_AddNumberToObject(o, "per_transfer_us", r->per_transfer_us);
    cJSON_AddNumberToObject(o, "steady_us", r->steady_us);
    cJSON_AddNumberToObject(o, "setup_us", r->setup_us);
    cJSON_AddNumberToObject(o, "total_us", r->total_us);
    cJSON_AddNumberToObject(o, "fixed_us", r->fixed_us);
    cJSON_AddNumberToObject(o, "link_us", r->link_us);
    cJSON_AddNumberToObject(o, "compute_us", r->compute_us);
    cJSON_AddNumberToObject(o, "cpu_us", r->cpu_us);
    cJSON_AddBoolToObject(o, "meets_budget", r->meets_budget);
    cJSON_AddBoolToObject(o, "meets_rate", r->meets_rate);
    return o;
}

static cJSON *zc__advise_doc(const zc_profile *profile, const char *notes,
                             const zc_workload *workload, const zc_recommendation *rec)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_ADVISE_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON *prof = cJSON_AddObjectToObject(doc, "profile");
    cJSON_AddStringToObject(prof, "device_name", profile->device_name);
    cJSON_AddStringToObject(prof, "source", profile->source);
    zc__json_add_lines(cJSON_AddArrayToObject(prof, "assumptions"), notes);
    cJSON_AddItemToObject(doc, "workload", zc__workload_json(workload));
    cJSON_AddStringToObject(doc, "recommendation", zc_technique_key(rec->ranked[0].technique));
    cJSON_AddStringToObject(doc, "explanation", rec->explanation);
    cJSON *ranked = cJSON_AddArrayToObject(doc, "ranked");
    for (size_t i = 0; i < rec->count; i++)
        cJSON_AddItemToArray(ranked, zc__prediction_json(&rec->ranked[i]));
    return doc;
}

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
    (void)zc_json_add_number(x, "predicted_total_us", v->predicted.total_us);
    (void)zc_json_add_number(x, "predicted_per_transfer_us", v->predicted.per_transfer_us);
    if (v->ran < 0) {
        cJSON_AddStringToObject(x, "why", v->why);
        return x;
    }
    cJSON *rounds = cJSON_AddArrayToObject(x, "measured_total_us_rounds");
    for (size_t i = 0; i < v->rounds; i++)
        cJSON_AddItemToArray(rounds, cJSON_CreateNumber(v->total_us[i]));
    (void)zc_json_add_number(x, "measured_total_us", v->median_us);
    (void)zc_json_add_number(x, "noise", v->noise);
    (void)zc_json_add_number(x, "measured_setup_us", v->setup_us);
    (void)zc_json_add_number(x, "measured_per_transfer_us", v->per_transfer_us);
    (void)zc_json_add_number(x, "error", v->error);
    return x;
}

static cJSON *zc__result_json(const zc_validation_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->workload.name);
    cJSON_AddItemToObject(o, "workload", zc__workload_json(&r->workload.workload));
    zc__tech(o, "recommended", (int)r->rec.ranked[0].technique);
    cJSON_AddStringToObject(o, "explanation", r->rec.explanation);
    zc__tech(o, "winner", r->winner);
    zc__tech(o, "runner_up", r->runner_up);
    (void)zc_json_add_number(o, "margin", r->margin);
    (void)zc_json_add_number(o, "noise", r->noise);
    cJSON_AddBoolToObject(o, "hit", r->pick_wins);
    cJSON_AddBoolToObject(o, "hit_or_tied", r->pick_tied);
    cJSON_AddBoolToObject(o, "runner_up_tied", r->runner_up_tied);
    cJSON *ts = cJSON_AddArrayToObject(o, "techniques");
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        cJSON_AddItemToArray(ts, zc__technique_json(t, &r->tech[t]));
    return o;
}

static cJSON *zc__validation_doc(const zc_profile *profile, const char *notes,
                                 const zc_validation_config *config,
                                 const zc_validation_result *results, size_t count,
                                 const zc_validation_summary *s)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_VALIDATION_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON *prof = NULL;
    if (zc_profile_to_json(profile, &prof) == ZC_OK)
        cJSON_AddItemToObject(doc, "profile", prof);
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
    (void)zc_json_add_number(sum, "median_abs_error", s->median_abs_error);
    (void)zc_json_add_number(sum, "max_abs_error", s->max_abs_error);
    (void)zc_json_add_number(sum, "host_write_gbps", s->host_write_gbps);
    (void)zc_json_add_number(sum, "managed_cpu_touch_gbps", s->managed_cpu_touch_gbps);
    return doc;
}

static cJSON *zc__stream_advice_doc(const zc_profile *profile, const zc_stream_workload *w,
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
            (void)zc_json_add_number(x, "p50_us", o->p50_us);
            (void)zc_json_add_number(x, "p99_us", o->p99_us);
            (void)zc_json_add_number(x, "gb_per_s", o->gbps);
            (void)zc_json_add_number(x, "max_frames_per_s", o->max_hz);
            cJSON_AddNumberToObject(x, "in_flight", o->in_flight);
            cJSON_AddNumberToObject(x, "gpu_blocks", o->gpu_blocks);
            cJSON_AddNumberToObject(x, "nearest_measured_bytes", (double)o->nearest_bytes);
            cJSON_AddBoolToObject(x, "meets_rate", o->meets_rate);
        }
        cJSON_AddItemToArray(ranked, x);
    }
    return doc;
}

ZC_EXTERN zc_status zc_workload_to_json(const zc_workload *workload, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(workload);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__workload_json(workload), "zc_workload_to_json", doc_p);
}

ZC_EXTERN zc_status zc_prediction_to_json(const zc_prediction *prediction, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(prediction);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__prediction_json(prediction), "zc_prediction_to_json", doc_p);
}

ZC_EXTERN zc_status zc_advise_to_json(const zc_profile *profile, const char *notes,
                                      const zc_workload *workload,
                                      const zc_recommendation *recommendation, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(workload);
    ZC_REQUIRE_ARG(recommendation);
    ZC_REQUIRE_ARG(doc_p);
    if (recommendation->count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_to_json: the recommendation ranks nothing");
    return zc__json_give(zc__advise_doc(profile, notes, workload, recommendation),
                         "zc_advise_to_json", doc_p);
}

ZC_EXTERN zc_status zc_validation_to_json(const zc_profile *profile, const char *notes,
                                          const zc_validation_config *config,
                                          const zc_validation_result *results, size_t count,
                                          const zc_validation_summary *summary, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(config);
    ZC_REQUIRE_ARG(summary);
    ZC_REQUIRE_ARG(doc_p);
    if (results == NULL && count > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_validation_to_json: %zu results at NULL", count);
    return zc__json_give(zc__validation_doc(profile, notes, config, results, count, summary),
                         "zc_validation_to_json", doc_p);
}

ZC_EXTERN zc_status zc_stream_advice_to_json(const zc_profile *profile,
                                             const zc_stream_workload *workload,
                                             const zc_stream_advice *advice, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(workload);
    ZC_REQUIRE_ARG(advice);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__stream_advice_doc(profile, workload, advice),
                         "zc_stream_advice_to_json", doc_p);
}
