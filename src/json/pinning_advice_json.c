/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --pinning in documents: the pinning ways' curves read from a bench document, and
 * the "zerocopy.advise-pinning/1" document of their pricing at one size. */
#include "zerocopy/json.h"

#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/version.h"

static zc_status zc__from_json(const cJSON *doc, zc_pinning_curves *curves_p)
{
    size_t count = 0;
    zc_bench_result *rs = NULL;
    ZC_CHECK(zc__bench_doc_results(doc, "zc_pinning_bench_from_json",
                                   "the pinning ways' curves come from zc bench --case pin --json",
                                   &rs, &count));
    zc_status st = zc_pinning_curves_from_bench(rs, count, curves_p);
    zc__bench_results_free(rs, count);
    return st;
}

ZC_EXTERN zc_status zc_pinning_bench_from_json(const cJSON *doc, zc_pinning_curves *curves_p)
{
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(curves_p);
    locale_t before = zc__c_locale_begin();
    zc_status st = zc__from_json(doc, curves_p);
    zc__c_locale_end(before);
    return st;
}

/* One way priced: its figures, the sizes it rests on, and how a program gets it. */
static cJSON *zc__option_json(const zc_pinning_curves *curves, const zc_pinning_option *o)
{
    cJSON *x = cJSON_CreateObject();
    if (x == NULL)
        return NULL;
    cJSON_AddStringToObject(x, "way", zc_pinning_way_key(o->way));
    cJSON_AddStringToObject(x, "name", zc_pinning_way_name(o->way));
    (void)zc_json_add_number(x, "seconds", o->seconds);
    (void)zc_json_add_number(x, "s_per_gib", o->s_per_gib);
    (void)zc_json_add_number(x, "x_floor_4k", o->x_floor_4k);
    (void)zc_json_add_number(x, "x_floor_thp", o->x_floor_thp);
    cJSON_AddBoolToObject(x, "extrapolated", o->extrapolated);
    cJSON *sizes = cJSON_AddArrayToObject(x, "measured_bytes");
    const zc_pinning_curve *c = &curves->way[o->way];
    for (size_t i = 0; i < c->count; i++)
        cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)c->bytes[i]));
    cJSON_AddStringToObject(x, "how", zc_pinning_way_how(o->way));
    return x;
}

static cJSON *zc__pinning_doc(const zc_pinning_curves *curves, const char *source,
                              const zc_pinning_advice *a)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_ADVISE_PINNING_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddNumberToObject(doc, "bytes", (double)a->bytes);
    cJSON_AddStringToObject(doc, "source", source != NULL ? source : "");
    cJSON_AddNumberToObject(doc, "measured_bytes_min", (double)a->bytes_min);
    cJSON_AddNumberToObject(doc, "measured_bytes_max", (double)a->bytes_max);
    cJSON_AddBoolToObject(doc, "extrapolated", a->extrapolated);
    cJSON *floors = cJSON_AddObjectToObject(doc, "floors");
    for (int f = ZC_PINNING_FLOOR_4K; f <= ZC_PINNING_FLOOR_THP; f++) {
        const zc_pinning_option *o = &a->floors[f];
        if (curves->way[f].count == 0)
            cJSON_AddNullToObject(floors, zc_pinning_way_key(o->way));
        else
            cJSON_AddItemToObject(floors, zc_pinning_way_key(o->way), zc__option_json(curves, o));
    }
    cJSON_AddStringToObject(doc, "fastest", zc_pinning_way_key(a->ranked[0].way));
    cJSON *ranked = cJSON_AddArrayToObject(doc, "ranked");
    for (size_t i = 0; i < a->count; i++)
        cJSON_AddItemToArray(ranked, zc__option_json(curves, &a->ranked[i]));
    return doc;
}

ZC_EXTERN zc_status zc_pinning_advice_to_json(const zc_pinning_curves *curves, const char *source,
                                              const zc_pinning_advice *advice, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(curves);
    ZC_REQUIRE_ARG(advice);
    ZC_REQUIRE_ARG(doc_p);
    if (advice->count == 0 || advice->count > ZC_PINNING_WAY_COUNT - 2)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_pinning_advice_to_json: the advice ranks %zu ways (1 to %d)",
                       advice->count, ZC_PINNING_WAY_COUNT - 2);
    for (size_t i = 0; i < advice->count; i++) {
        if ((int)advice->ranked[i].way < ZC_PINNING_HOST_ALLOC ||
            advice->ranked[i].way >= ZC_PINNING_WAY_COUNT)
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "zc_pinning_advice_to_json: ranked way %zu (%d) is not a way of "
                           "pinning",
                           i, (int)advice->ranked[i].way);
    }
    return zc__json_give(zc__pinning_doc(curves, source, advice), "zc_pinning_advice_to_json",
                         doc_p);
}
