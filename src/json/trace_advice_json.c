/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --trace's document, schema "zerocopy.advise-trace/1" (docs/json.md): the profile,
 * each workload the traced program forms with every technique's prediction, the totals and
 * the parts left unpriced with why. */
#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/json.h"
#include "zerocopy/version.h"

static void zc__add_cure(cJSON *o, const char *name, const char *cure)
{
    if (cure[0] != '\0')
        cJSON_AddStringToObject(o, name, cure);
    else
        cJSON_AddNullToObject(o, name);
}

static cJSON *zc__group_json(const zc_trace_group *g)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "direction", zc_direction_key(g->workload.direction));
    cJSON_AddStringToObject(o, "host_kind", zc_buffer_kind_key(g->host_kind));
    cJSON_AddNumberToObject(o, "size_class", (double)g->size_class);
    cJSON_AddNumberToObject(o, "bytes_min", (double)g->bytes_min);
    cJSON_AddNumberToObject(o, "bytes_max", (double)g->bytes_max);
    cJSON_AddNumberToObject(o, "mean_bytes", (double)g->workload.bytes);
    cJSON_AddNumberToObject(o, "count", (double)g->count);
    cJSON_AddNumberToObject(o, "bytes", (double)g->bytes);
    cJSON_AddNumberToObject(o, "async_count", (double)g->async_count);
    cJSON_AddNumberToObject(o, "rate_hz", g->rate_hz);
    if (g->reuse < 0)
        cJSON_AddNullToObject(o, "reuse");
    else
        cJSON_AddBoolToObject(o, "reuse", g->reuse);
    cJSON_AddNumberToObject(o, "measured_us", g->measured_us);
    cJSON_AddStringToObject(o, "current", zc_technique_key(g->current));
    cJSON_AddNumberToObject(o, "now_us", g->now_us);
    cJSON_AddNumberToObject(o, "copies_us", g->copies_us);
    cJSON_AddStringToObject(o, "best", zc_technique_key(g->best));
    cJSON_AddNumberToObject(o, "best_us", g->best_us);
    cJSON_AddNumberToObject(o, "saving_us", g->saving_us);
    zc__add_cure(o, "cure", g->cure);
    cJSON *techniques = cJSON_AddArrayToObject(o, "techniques");
    for (int t = 0; techniques && t < ZC_TECH_COUNT; t++) {
        cJSON *p = NULL;
        if (zc_prediction_to_json(&g->predicted[t], &p) == ZC_OK &&
            !cJSON_AddItemToArray(techniques, p))
            cJSON_Delete(p);
    }
    return o;
}

static cJSON *zc__unpriced_json(const zc_trace_unpriced *u)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "what", u->what);
    cJSON_AddNumberToObject(o, "count", (double)u->count);
    cJSON_AddNumberToObject(o, "bytes", (double)u->bytes);
    cJSON_AddNumberToObject(o, "time_s", u->time_s);
    cJSON_AddStringToObject(o, "why", u->why);
    return o;
}

static cJSON *zc__advice_doc(const zc_profile *profile, const char *notes, const zc_trace_advice *a)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_ADVISE_TRACE_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON *prof = cJSON_AddObjectToObject(doc, "profile");
    if (prof) {
        cJSON_AddStringToObject(prof, "device_name", profile->device_name);
        cJSON_AddStringToObject(prof, "source", profile->source);
        zc__json_add_lines(cJSON_AddArrayToObject(prof, "assumptions"), notes);
    }
    cJSON_AddNumberToObject(doc, "span_s", a->span_s);
    cJSON_AddBoolToObject(doc, "sized", a->sized);
    cJSON *groups = cJSON_AddArrayToObject(doc, "groups");
    for (size_t i = 0; groups && i < a->group_count; i++)
        cJSON_AddItemToArray(groups, zc__group_json(&a->groups[i]));
    cJSON *total = cJSON_AddObjectToObject(doc, "total");
    if (total) {
        cJSON_AddNumberToObject(total, "measured_us", a->measured_us);
        cJSON_AddNumberToObject(total, "now_us", a->now_us);
        cJSON_AddNumberToObject(total, "best_us", a->best_us);
        cJSON_AddNumberToObject(total, "saving_us", a->saving_us);
    }
    cJSON *pinning = cJSON_AddObjectToObject(doc, "pinning");
    if (pinning) {
        zc__add_cure(pinning, "cure", a->pinning_cure);
        if (a->pinning_saving_s >= 0.0)
            cJSON_AddNumberToObject(pinning, "saving_us", a->pinning_saving_s * 1e6);
        else
            cJSON_AddNullToObject(pinning, "saving_us");
    }
    cJSON *unpriced = cJSON_AddArrayToObject(doc, "unpriced");
    for (size_t i = 0; unpriced && i < a->unpriced_count; i++)
        cJSON_AddItemToArray(unpriced, zc__unpriced_json(&a->unpriced[i]));
    return doc;
}

ZC_EXTERN zc_status zc_trace_advice_to_json(const zc_profile *profile, const char *notes,
                                            const zc_trace_advice *advice, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(advice);
    ZC_REQUIRE_ARG(doc_p);
    if (advice->group_count > ZC_TRACE_GROUP_MAX || advice->unpriced_count > ZC_TRACE_UNPRICED_MAX)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_trace_advice_to_json: %zu groups, %zu unpriced",
                       advice->group_count, advice->unpriced_count);
    return zc__json_give(zc__advice_doc(profile, notes, advice), "zc_trace_advice_to_json", doc_p);
}
