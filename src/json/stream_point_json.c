/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream results read into a profile's stream runs, for stream advice. */
#include "zerocopy/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/filter.h"

/* "zerocopy-ll", "hybrid-flag" (a mode on a ring and its protocol), or another mode's own name,
 * into mode and protocol (0 off the ring), as the library names runs. */
static zc_status zc__mode_of(const char *name, zc_stream_point *s)
{
    zc_stream_mode mode;
    zc_ring_protocol protocol;
    if (zc_stream_run_parse(name, &mode, &protocol) != ZC_OK) {
        zc_clear_error();
        return ZC_ERR_PARSE;
    }
    s->mode = (int)mode;
    s->protocol = (int)protocol;
    return ZC_OK;
}

/* Fill the figures common to both shapes; ZC_ERR_PARSE when one is missing or not a figure. */
static zc_status zc__figures(zc_stream_point *s, double frame_bytes, double in_flight,
                             double blocks, double p50, double p99, double gbps)
{
    if (!(frame_bytes >= 1.0) || frame_bytes > 1e15 || !(in_flight >= 1.0) || in_flight > 1e6 ||
        !(p50 > 0.0) || !(gbps > 0.0) || !(p99 >= 0.0) || !(blocks >= 0.0) || blocks > 1e9)
        return ZC_ERR_PARSE;
    s->frame_bytes = (size_t)frame_bytes;
    s->in_flight = (unsigned)in_flight;
    s->gpu_blocks = (unsigned)blocks;
    s->p50_us = p50;
    s->p99_us = p99;
    s->gbps = gbps;
    return ZC_OK;
}

/* The fields of a zc stream document its readers and the report take (docs/json.md). */
static const zc__json_field zc__stream_fields[] = {
    {"schema", ZC__JSON_TEXT, 0},  {"zerocopy_version", ZC__JSON_TEXT, 0},
    {"command", ZC__JSON_TEXT, 0}, {"device", ZC__JSON_OBJECT, 1},
    {"host", ZC__JSON_OBJECT, 0},  {"config", ZC__JSON_OBJECT, 0},
    {"runs", ZC__JSON_ARRAY, 0},   {"comparison", ZC__JSON_OBJECT, 0},
};
static const zc__json_field zc__stream_device_fields[] = {
    {"ordinal", ZC__JSON_NUMBER, 0},
    {"name", ZC__JSON_TEXT, 0},
    {"pci_bus_id", ZC__JSON_TEXT, 0},
};
static const zc__json_field zc__stream_config_fields[] = {
    {"frame_samples", ZC__JSON_WHOLE, 0}, {"channels", ZC__JSON_WHOLE, 0},
    {"frame_bytes", ZC__JSON_WHOLE, 0},   {"taps", ZC__JSON_WHOLE, 0},
    {"in_flight", ZC__JSON_WHOLE, 0},     {"warmup", ZC__JSON_WHOLE, 0},
    {"paced_rate", ZC__JSON_NUMBER, 1},   {"taps_file", ZC__JSON_TEXT, 0},
    {"source", ZC__JSON_TEXT, 0},         {"format", ZC__JSON_TEXT, 0},
    {"output_format", ZC__JSON_TEXT, 0},  {"policy", ZC__JSON_TEXT, 0},
    {"nonfinite", ZC__JSON_TEXT, 0},      {"verify", ZC__JSON_TEXT, 0},
    {"reuse", ZC__JSON_BOOL, 0},
};
static const zc__json_field zc__stream_run_fields[] = {
    {"name", ZC__JSON_TEXT, 0},          {"mode", ZC__JSON_TEXT, 0},
    {"protocol", ZC__JSON_TEXT, 1},      {"ok", ZC__JSON_BOOL, 0},
    {"skipped", ZC__JSON_BOOL, 0},       {"status", ZC__JSON_TEXT, 0},
    {"error", ZC__JSON_TEXT, 0},         {"gpu_blocks", ZC__JSON_WHOLE, 0},
    {"host_buffers", ZC__JSON_WHOLE, 0}, {"frames", ZC__JSON_WHOLE, 0},
    {"offered", ZC__JSON_WHOLE, 0},      {"dropped", ZC__JSON_WHOLE, 0},
    {"full_waits", ZC__JSON_WHOLE, 0},   {"samples", ZC__JSON_OBJECT, 0},
    {"latency_us", ZC__JSON_OBJECT, 1},  {"histogram_us", ZC__JSON_ARRAY, 0},
    {"throughput", ZC__JSON_OBJECT, 0},  {"verify", ZC__JSON_OBJECT, 0},
    {"budget", ZC__JSON_OBJECT, 0},
};

zc_status zc__stream_doc_check(const cJSON *doc, const char *what)
{
    ZC_CHECK(zc__json_check_keys(doc, what));
    ZC_CHECK(ZC__JSON_FIELDS(doc, zc__stream_fields, what, NULL));
    ZC_CHECK(ZC__JSON_FIELDS(cJSON_GetObjectItemCaseSensitive(doc, "device"),
                             zc__stream_device_fields, what, "device"));
    ZC_CHECK(ZC__JSON_FIELDS(cJSON_GetObjectItemCaseSensitive(doc, "config"),
                             zc__stream_config_fields, what, "config"));
    const cJSON *run;
    size_t i = 0;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(doc, "runs"))
    {
        char where[32];
        snprintf(where, sizeof where, "runs[%zu]", i++);
        if (!cJSON_IsObject(run))
            return ZC_FAIL(ZC_ERR_PARSE, "%s: %s is not an object", what, where);
        ZC_CHECK(ZC__JSON_FIELDS(run, zc__stream_run_fields, what, where));
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_stream_point_from_json(const cJSON *run, zc_stream_point *point_p)
{
    ZC_REQUIRE_ARG(run);
    ZC_REQUIRE_ARG(point_p);
    zc_stream_point s;
    memset(&s, 0, sizeof s);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(run, "name");
    if (!cJSON_IsString(name) || zc__mode_of(name->valuestring, &s) != ZC_OK)
        return ZC_FAIL(ZC_ERR_PARSE, "stream run: no known mode under \"name\"");
    if (zc__figures(&s, zc__json_number_of(run, "frame_bytes"),
                    zc__json_number_of(run, "in_flight"), zc__json_number_of(run, "gpu_blocks"),
                    zc__json_number_of(run, "p50_us"), zc__json_number_of(run, "p99_us"),
                    zc__json_number_of(run, "gb_per_s")) != ZC_OK)
        return ZC_FAIL(ZC_ERR_PARSE,
                       "stream run %s: frame_bytes, in_flight, gpu_blocks, p50_us, "
                       "p99_us or gb_per_s missing or out of range",
                       name->valuestring);
    *point_p = s;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_profile_add_stream_json(zc_profile *profile, const cJSON *doc,
                                               const char *source, size_t *added_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(doc);
    if (added_p != NULL)
        *added_p = 0;
    const char *name = source != NULL ? source : "the document";
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(doc, "config");
    const cJSON *paced = cJSON_GetObjectItemCaseSensitive(config, "paced_rate");
    if (!cJSON_IsString(schema) || strncmp(schema->valuestring, "zerocopy.stream/", 16) != 0 ||
        !cJSON_IsObject(config))
        return ZC_FAIL(ZC_ERR_PARSE, "%s is not a zc stream --json result", name);
    if (strcmp(schema->valuestring, ZC_STREAM_SCHEMA) != 0)
        return ZC_FAIL(ZC_ERR_PARSE,
                       "%s: schema \"%.60s\" is a version this build does not read (it reads "
                       "%s)",
                       name, schema->valuestring, ZC_STREAM_SCHEMA);
    ZC_CHECK(zc__stream_doc_check(doc, name));
    /* A paced run's rate is the pace it was given, not what the mode can take. */
    if (paced != NULL && !cJSON_IsNull(paced))
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "%s: a paced run, not used for stream advice", name);
    const cJSON *device =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "device"), "name");
    if (profile->device_name[0] == '\0' && cJSON_IsString(device))
        snprintf(profile->device_name, sizeof profile->device_name, "%s", device->valuestring);
    if (profile->source[0] == '\0')
        snprintf(profile->source, sizeof profile->source, "zc stream results (%s, ...)", name);
    size_t added = 0;
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(doc, "runs"))
    {
        zc_stream_point s;
        memset(&s, 0, sizeof s);
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(run, "name");
        const cJSON *lat = cJSON_GetObjectItemCaseSensitive(run, "latency_us");
        const cJSON *thr = cJSON_GetObjectItemCaseSensitive(run, "throughput");
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "ok")) || !cJSON_IsString(mode) ||
            zc__mode_of(mode->valuestring, &s) != ZC_OK ||
            zc__figures(&s, zc__json_number_of(config, "frame_bytes"),
                        zc__json_number_of(config, "in_flight"),
                        zc__json_number_of(run, "gpu_blocks"), zc__json_number_of(lat, "p50"),
                        zc__json_number_of(lat, "p99"),
                        zc__json_number_of(thr, "gb_per_s")) != ZC_OK)
            continue;
        ZC_CHECK(zc_profile_add_stream(profile, &s));
        added++;
    }
    if (added_p != NULL)
        *added_p = added;
    return ZC_OK;
}
