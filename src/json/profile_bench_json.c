/* SPDX-License-Identifier: Apache-2.0 */
/* A `zc bench --json` document ("zerocopy.bench/1") read back into bench results, for the
 * library to build a profile from (zc_profile_from_bench): the file's keys are read here once,
 * and the profile finds each case by its typed name. */
#include "zerocopy/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"
#include "json/json_internal.h"

#define ZC__SAMPLES_MAX 100000

static double zc__number(const cJSON *o, const char *name, double fallback)
{
    double v = zc__json_number_of(o, name);
    return isfinite(v) ? v : fallback;
}

static zc_bench_metric zc__metric(const cJSON *pt)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(pt, "metric");
    for (int i = ZC_BENCH_BANDWIDTH; i <= ZC_BENCH_DURATION; i++) {
        if (cJSON_IsString(m) && strcmp(m->valuestring, zc_bench_metric_name(i)) == 0)
            return (zc_bench_metric)i;
    }
    return ZC_BENCH_BANDWIDTH;
}

/* The fields of a bench document as zc_bench_to_json writes them (docs/json.md). */
static const zc__json_field zc__bench_fields[] = {
    {"schema", ZC__JSON_TEXT, 0},      {"zerocopy_version", ZC__JSON_TEXT, 0},
    {"created_utc", ZC__JSON_TEXT, 0}, {"mode", ZC__JSON_TEXT, 0},
    {"device", ZC__JSON_NUMBER, 0},    {"machine", ZC__JSON_OBJECT, 1},
    {"sizes", ZC__JSON_ARRAY, 1},      {"wall_seconds", ZC__JSON_NUMBER, 1},
    {"cases", ZC__JSON_ARRAY, 0},      {"comparison", ZC__JSON_ARRAY, 0},
};
static const zc__json_field zc__case_fields[] = {
    {"key", ZC__JSON_TEXT, 0},       {"group", ZC__JSON_TEXT, 1},  {"technique", ZC__JSON_TEXT, 1},
    {"direction", ZC__JSON_TEXT, 1}, {"title", ZC__JSON_TEXT, 1},  {"outcome", ZC__JSON_TEXT, 0},
    {"status", ZC__JSON_TEXT, 0},    {"reason", ZC__JSON_TEXT, 0}, {"seconds", ZC__JSON_NUMBER, 1},
    {"points", ZC__JSON_ARRAY, 0},
};
static const zc__json_field zc__point_fields[] = {
    {"variant", ZC__JSON_TEXT, 0},
    {"param_name", ZC__JSON_TEXT, 1},
    {"param", ZC__JSON_NUMBER, 1},
    {"metric", ZC__JSON_TEXT, 0},
    {"unit", ZC__JSON_TEXT, 0},
    {"bytes_per_sample", ZC__JSON_NUMBER, 1},
    {"ops_per_sample", ZC__JSON_NUMBER, 1},
    {"warmups", ZC__JSON_WHOLE, 0},
    {"verified", ZC__JSON_BOOL, 0},
    {"stats", ZC__JSON_OBJECT, 0},
    {"samples", ZC__JSON_ARRAY, 1},
};
static const zc__json_field zc__device_fields[] = {
    {"name", ZC__JSON_TEXT, 0},
    {"compute_capability", ZC__JSON_TEXT, 0},
    {"pci_bus_id", ZC__JSON_TEXT, 0},
};

zc_status zc__bench_doc_check(const cJSON *doc, const char *what)
{
    ZC_CHECK(zc__json_check_keys(doc, what));
    ZC_CHECK(ZC__JSON_FIELDS(doc, zc__bench_fields, what, NULL));
    const cJSON *dev;
    size_t i = 0;
    cJSON_ArrayForEach(dev, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(doc, "machine"), "devices"))
    {
        char where[48];
        snprintf(where, sizeof where, "machine.devices[%zu]", i++);
        ZC_CHECK(ZC__JSON_FIELDS(dev, zc__device_fields, what, where));
    }
    const cJSON *c, *pt;
    i = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        char where[160];
        snprintf(where, sizeof where, "cases[%zu]", i++);
        ZC_CHECK(ZC__JSON_FIELDS(c, zc__case_fields, what, where));
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(c, "key");
        size_t j = 0;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points"))
        {
            snprintf(where, sizeof where, "case %.60s, point %zu",
                     cJSON_IsString(key) ? key->valuestring : "?", j++);
            ZC_CHECK(ZC__JSON_FIELDS(pt, zc__point_fields, what, where));
            /* A size is a whole number of bytes, from 0 (a point of no size) to 2^50: -4096,
             * 4096.5 or 1e300 would be cast to a size_t unchecked. */
            const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(pt, "bytes");
            size_t unused;
            if (bytes != NULL &&
                (!cJSON_IsNumber(bytes) ||
                 !zc__json_double_to_size(bytes->valuedouble, ZC__JSON_BYTES_MAX, &unused))) {
                char got[40];
                if (cJSON_IsNumber(bytes))
                    zc__snprintf_c(got, sizeof got, "%.17g", bytes->valuedouble);
                return ZC_FAIL(ZC_ERR_PARSE,
                               "%s: %s: \"bytes\" is %s, not a whole number of bytes from 0 "
                               "to 2^50",
                               what, where, cJSON_IsNumber(bytes) ? got : "not a number");
            }
        }
    }
    return ZC_OK;
}

/* One point: its samples when the file has them, else its median as the one sample. A point
 * that is not a measurement (no finite positive figure, no size) is left out; its size was
 * checked with the document (zc__bench_doc_check). */
static void zc__point(const cJSON *pt, zc_bench_result *r)
{
    double b = zc__number(pt, "bytes", -1.0);
    size_t bytes = 0;
    if (!(b >= 0.0) || !zc__json_double_to_size(b, ZC__JSON_BYTES_MAX, &bytes))
        return;
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(pt, "samples");
    int n = cJSON_IsArray(samples) ? cJSON_GetArraySize(samples) : 0;
    double one = zc__number(cJSON_GetObjectItemCaseSensitive(pt, "stats"), "median", NAN);
    double *v = n > 0 && n <= ZC__SAMPLES_MAX ? malloc((size_t)n * sizeof *v) : NULL;
    size_t count = 0;
    const cJSON *s, *from = v != NULL ? samples : NULL;
    cJSON_ArrayForEach(s, from)
    {
        if (cJSON_IsNumber(s) && isfinite(s->valuedouble))
            v[count++] = s->valuedouble;
    }
    if (count == 0 && isfinite(one)) {
        free(v);
        v = NULL;
        count = 1;
    }
    const cJSON *variant = cJSON_GetObjectItemCaseSensitive(pt, "variant");
    const cJSON *verified = cJSON_GetObjectItemCaseSensitive(pt, "verified");
    /* The parameter's value matters (crossover's k); its name is not kept past the document,
     * so a name that outlives it stands in. */
    double param = zc__number(pt, "param", NAN);
    if (count > 0)
        (void)zc_bench_result_add(r, cJSON_IsString(variant) ? variant->valuestring : NULL, bytes,
                                  isfinite(param) ? "param" : NULL, isfinite(param) ? param : 0.0,
                                  zc__metric(pt), zc__number(pt, "bytes_per_sample", 0),
                                  zc__number(pt, "ops_per_sample", 1), v != NULL ? v : &one, count,
                                  0, cJSON_IsTrue(verified));
    free(v);
}

zc_bench_result *zc__bench_results_from_json(const cJSON *doc, size_t *count_p)
{
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases"), *c;
    int n = cJSON_IsArray(cases) ? cJSON_GetArraySize(cases) : 0;
    zc_bench_result *rs = calloc(n > 0 ? (size_t)n : 1, sizeof *rs);
    size_t count = 0;
    const cJSON *from = rs != NULL ? cases : NULL;
    cJSON_ArrayForEach(c, from)
    {
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(c, "key");
        const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(c, "outcome");
        zc_bench_case_id id;
        if (!cJSON_IsString(key) || !cJSON_IsString(outcome) ||
            strcmp(outcome->valuestring, "ok") != 0 ||
            zc_bench_case_id_of(key->valuestring, &id) != ZC_OK ||
            zc_bench_result_init(&rs[count], key->valuestring) != ZC_OK)
            continue;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points"))
            zc__point(pt, &rs[count]);
        count++;
    }
    zc_clear_error();
    *count_p = count;
    return rs;
}

zc_status zc__bench_doc_results(const cJSON *doc, const char *caller, const char *comes_from,
                                zc_bench_result **rs_p, size_t *count_p)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, ZC_BENCH_SCHEMA) != 0)
        return ZC_FAIL(ZC_ERR_PARSE, "%s: not a %s document (schema %s%.60s%s): %s", caller,
                       ZC_BENCH_SCHEMA, cJSON_IsString(schema) ? "\"" : "",
                       cJSON_IsString(schema) ? schema->valuestring : "missing",
                       cJSON_IsString(schema) ? "\"" : "", comes_from);
    ZC_CHECK(zc__bench_doc_check(doc, "bench document"));
    *rs_p = zc__bench_results_from_json(doc, count_p);
    if (*rs_p == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: the bench's cases", caller);
    return ZC_OK;
}

void zc__bench_results_free(zc_bench_result *rs, size_t count)
{
    for (size_t i = 0; rs != NULL && i < count; i++)
        zc_bench_result_clear(&rs[i]);
    free(rs);
}

/* zc_profile_from_bench_json in the C locale. */
static zc_status zc__profile_from_bench_json(const cJSON *doc, zc_profile *profile_p, char *notes,
                                             size_t notes_size)
{
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(profile_p);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, ZC_BENCH_SCHEMA) != 0)
        return ZC_FAIL(ZC_ERR_PARSE,
                       "profile: not a %s document (schema %s%.60s%s; this build reads %s)",
                       ZC_BENCH_SCHEMA, cJSON_IsString(schema) ? "\"" : "",
                       cJSON_IsString(schema) ? schema->valuestring : "missing",
                       cJSON_IsString(schema) ? "\"" : "", ZC_BENCH_SCHEMA);
    ZC_CHECK(zc__bench_doc_check(doc, "bench document"));
    size_t count = 0;
    zc_bench_result *rs = zc__bench_results_from_json(doc, &count);
    if (rs == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_profile_from_bench_json: the bench's cases");
    zc_profile p;
    zc_status status = zc_profile_from_bench(rs, count, &p, notes, notes_size);
    zc__bench_results_free(rs, count);
    if (status != ZC_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", zc_last_error());
        return ZC_FAIL(ZC_ERR_PARSE, "profile: %s", why);
    }
    const cJSON *dev =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(doc, "machine"), "devices"),
                           0);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(dev, "name");
    if (cJSON_IsString(name))
        snprintf(p.device_name, sizeof p.device_name, "%s", name->valuestring);
    const cJSON *created = cJSON_GetObjectItemCaseSensitive(doc, "created_utc");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(doc, "mode");
    snprintf(p.source, sizeof p.source, "zc bench%s%s, %s", cJSON_IsString(mode) ? " --" : "",
             cJSON_IsString(mode) ? mode->valuestring : "",
             cJSON_IsString(created) ? created->valuestring : "undated");
    *profile_p = p;
    return ZC_OK;
}

/* The notes (the cases it lacked, with their figures) are written in the C locale. */
ZC_EXTERN zc_status zc_profile_from_bench_json(const cJSON *doc, zc_profile *profile_p, char *notes,
                                               size_t notes_size)
{
    locale_t before = zc__c_locale_begin();
    zc_status status = zc__profile_from_bench_json(doc, profile_p, notes, notes_size);
    zc__c_locale_end(before);
    return status;
}
