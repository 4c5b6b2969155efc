/* SPDX-License-Identifier: Apache-2.0 */
/* A bench run's JSON document, schema "zerocopy.bench/1" (docs/json.md). */
#include "zerocopy/json.h"

#include <string.h>

#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/version.h"

/* Samples are written out in full up to this many per point; beyond, only their statistics. */
#define ZC__JSON_SAMPLES_MAX 1000

static cJSON *zc__point_json(const zc_bench_point *p)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "variant", p->variant);
    cJSON_AddNumberToObject(o, "bytes", (double)p->bytes);
    if (p->param_name) {
        cJSON_AddStringToObject(o, "param_name", p->param_name);
        cJSON_AddNumberToObject(o, "param", p->param);
    } else {
        cJSON_AddNullToObject(o, "param_name");
        cJSON_AddNullToObject(o, "param");
    }
    cJSON_AddStringToObject(o, "metric", zc_bench_metric_name(p->metric));
    cJSON_AddStringToObject(o, "unit", zc_bench_metric_unit(p->metric));
    cJSON_AddNumberToObject(o, "bytes_per_sample", p->bytes_per_sample);
    cJSON_AddNumberToObject(o, "ops_per_sample", p->ops_per_sample);
    cJSON_AddNumberToObject(o, "warmups", (double)p->warmups);
    cJSON_AddBoolToObject(o, "verified", p->verified);
    cJSON_AddItemToObject(o, "stats", zc__json_stats(&p->stats));
    if (p->stats.count <= ZC__JSON_SAMPLES_MAX && p->samples != NULL) {
        cJSON *arr = cJSON_AddArrayToObject(o, "samples");
        for (size_t i = 0; arr != NULL && i < p->stats.count; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(p->samples[i]));
    } else {
        cJSON_AddNullToObject(o, "samples");
    }
    return o;
}

static cJSON *zc__case_json(const zc_bench_result *r)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    const zc_bench_case_info *info = zc_bench_case_find(r->key);
    cJSON_AddStringToObject(o, "key", r->key);
    if (info) {
        cJSON_AddStringToObject(o, "group", info->group);
        cJSON_AddStringToObject(o, "technique", info->technique);
        cJSON_AddStringToObject(o, "direction", info->direction);
        cJSON_AddStringToObject(o, "title", info->title);
    } else {
        cJSON_AddNullToObject(o, "group");
        cJSON_AddNullToObject(o, "technique");
        cJSON_AddNullToObject(o, "direction");
        cJSON_AddNullToObject(o, "title");
    }
    cJSON_AddStringToObject(o, "outcome", zc_bench_outcome_name(r->outcome));
    cJSON_AddStringToObject(o, "status", zc_status_name(r->status));
    cJSON_AddStringToObject(o, "reason", r->reason);
    cJSON_AddNumberToObject(o, "seconds", r->seconds);
    cJSON *points = cJSON_AddArrayToObject(o, "points");
    for (size_t i = 0; points != NULL && i < r->point_count; i++)
        cJSON_AddItemToArray(points, zc__point_json(&r->points[i]));
    return o;
}

static cJSON *zc__method_json(zc_bench_mode mode)
{
    cJSON *o = cJSON_CreateObject();
    zc_bench_method m;
    if (o == NULL || zc_bench_method_get(mode, &m) != ZC_OK)
        return o;
    cJSON_AddStringToObject(o, "text", zc_bench_method_text());
    cJSON_AddNumberToObject(o, "gb_bytes", m.gb_bytes);
    cJSON_AddNumberToObject(o, "warmups", (double)m.warmups);
    cJSON_AddNumberToObject(o, "min_samples", (double)m.min_samples);
    cJSON_AddNumberToObject(o, "max_samples", (double)m.max_samples);
    cJSON_AddNumberToObject(o, "cov_target", m.cov_target);
    cJSON_AddNumberToObject(o, "point_cap_s", m.point_cap_s);
    cJSON_AddNumberToObject(o, "latency_samples", (double)m.latency_samples);
    cJSON_AddNumberToObject(o, "pingpong_samples", (double)m.pingpong_samples);
    cJSON_AddNumberToObject(o, "gate_timeout_s", m.gate_timeout_s);
    cJSON_AddStringToObject(o, "queued_timing", "CUDA events behind a gate kernel");
    cJSON_AddStringToObject(o, "synchronous_timing", "host clock, CLOCK_MONOTONIC");
    cJSON_AddStringToObject(o, "statistic", "median");
    return o;
}

static cJSON *zc__compare_json(const zc_bench_document *report)
{
    zc_bench_compare_row rows[ZC_BENCH_COMPARE_ROWS];
    (void)zc_bench_compare(report->results, report->count, rows);
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr != NULL && i < ZC_BENCH_COMPARE_ROWS; i++) {
        cJSON *o = cJSON_CreateObject();
        if (o == NULL)
            break;
        cJSON_AddStringToObject(o, "technique", rows[i].technique);
        cJSON_AddStringToObject(o, "title", rows[i].title);
        cJSON_AddStringToObject(o, "needs_copy", rows[i].needs_copy);
        (void)zc_json_add_number(o, "h2d_gbps", rows[i].h2d_gbps);
        (void)zc_json_add_number(o, "d2h_gbps", rows[i].d2h_gbps);
        (void)zc_json_add_number(o, "access_read_gbps", rows[i].access_read_gbps);
        (void)zc_json_add_number(o, "access_write_gbps", rows[i].access_write_gbps);
        cJSON_AddStringToObject(o, "access_where", rows[i].access_where);
        (void)zc_json_add_number(o, "latency_us", rows[i].latency_us);
        cJSON_AddStringToObject(o, "latency_what", rows[i].latency_what);
        cJSON_AddStringToObject(o, "best_use", rows[i].best_use);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *zc__bench_doc(const zc_bench_document *report)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_BENCH_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddStringToObject(doc, "created_utc", report->created_utc);
    cJSON_AddStringToObject(doc, "mode", zc_bench_mode_name(report->mode));
    cJSON_AddNumberToObject(doc, "device", report->device);
    if (report->devices != NULL) /* only with --devices: one-GPU documents are unchanged */
        cJSON_AddItemToObject(doc, "devices",
                              cJSON_CreateIntArray(report->devices, (int)report->device_count));
    if (report->info)
        cJSON_AddItemToObject(doc, "machine", zc__info_doc(report->info, 1, NULL, 0));
    else
        cJSON_AddNullToObject(doc, "machine");
    cJSON_AddItemToObject(doc, "method", zc__method_json(report->mode));
    if (report->sizes && report->size_count) {
        cJSON *sizes = cJSON_AddArrayToObject(doc, "sizes");
        for (size_t i = 0; sizes != NULL && i < report->size_count; i++)
            cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)report->sizes[i]));
    } else {
        cJSON_AddNullToObject(doc, "sizes");
    }
    cJSON_AddNumberToObject(doc, "wall_seconds", report->wall_seconds);
    size_t counts[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < report->count; i++)
        if ((unsigned)report->results[i].outcome < 4)
            counts[report->results[i].outcome]++;
    cJSON *summary = cJSON_AddObjectToObject(doc, "summary");
    if (summary) {
        cJSON_AddNumberToObject(summary, "cases", (double)report->count);
        cJSON_AddNumberToObject(summary, "ok", (double)counts[ZC_BENCH_OK]);
        cJSON_AddNumberToObject(summary, "skipped", (double)counts[ZC_BENCH_SKIPPED]);
        cJSON_AddNumberToObject(summary, "fail", (double)counts[ZC_BENCH_FAIL]);
        cJSON_AddNumberToObject(summary, "error", (double)counts[ZC_BENCH_ERROR]);
    }
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    for (size_t i = 0; cases != NULL && i < report->count; i++)
        cJSON_AddItemToArray(cases, zc__case_json(&report->results[i]));
    cJSON_AddItemToObject(doc, "comparison", zc__compare_json(report));
    return doc;
}

ZC_EXTERN zc_status zc_bench_to_json(const zc_bench_document *bench, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(bench);
    ZC_REQUIRE_ARG(doc_p);
    if ((bench->results == NULL && bench->count > 0) ||
        (bench->sizes == NULL && bench->size_count > 0) ||
        (bench->devices == NULL && bench->device_count > 0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_to_json: a count without its list");
    return zc__json_give(zc__bench_doc(bench), "zc_bench_to_json", doc_p);
}
