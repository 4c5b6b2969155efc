/* zc stream results read into a profile's stream runs, for stream advice. */
#include "advise_json.h"
#include "cli.h"
#include "cli_io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "zerocopy/filter.h"

static double zc__num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

/* "zerocopy-ll", "zerocopy-flag", or a mode's own name, into mode and protocol. */
static zc_status zc__mode_of(const char *name, zc_stream_point *s)
{
    zc_stream_mode mode;
    if (strcmp(name, "zerocopy-ll") == 0 || strcmp(name, "zerocopy-flag") == 0) {
        s->mode = ZC_STREAM_ZEROCOPY;
        s->protocol = name[9] == 'l' ? ZC_RING_PROTO_LL : ZC_RING_PROTO_FLAG;
        return ZC_OK;
    }
    if (zc_stream_mode_parse(name, &mode) != ZC_OK || mode == ZC_STREAM_ZEROCOPY) {
        zc_clear_error();
        return ZC_ERR_PARSE;
    }
    s->mode = (int)mode;
    s->protocol = 0;
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

zc_status zc_cli_stream_point_from_json(const cJSON *run, zc_stream_point *point_p)
{
    zc_stream_point s;
    memset(&s, 0, sizeof s);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(run, "name");
    if (!cJSON_IsString(name) || zc__mode_of(name->valuestring, &s) != ZC_OK)
        return ZC_ERR_PARSE;
    zc_status status = zc__figures(&s, zc__num(run, "frame_bytes"), zc__num(run, "in_flight"),
                                   zc__num(run, "gpu_blocks"), zc__num(run, "p50_us"),
                                   zc__num(run, "p99_us"), zc__num(run, "gb_per_s"));
    if (status != ZC_OK)
        return status;
    *point_p = s;
    return ZC_OK;
}

int zc_cli_profile_add_stream_file(zc_profile *profile, const char *path)
{
    int code = ZC_EXIT_OK;
    cJSON *doc = zc_cli_read_json("advise", path, &code);
    if (doc == NULL)
        return code;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(doc, "config");
    const cJSON *paced = cJSON_GetObjectItemCaseSensitive(config, "paced_rate");
    if (!cJSON_IsString(schema) || strncmp(schema->valuestring, "zerocopy.stream/", 16) != 0 ||
        !cJSON_IsObject(config)) {
        fprintf(stderr, "zc advise: %s is not a zc stream --json result\n", path);
        cJSON_Delete(doc);
        return ZC_EXIT_USAGE;
    }
    /* A paced run's rate is the pace it was given, not what the mode can take. */
    if (paced != NULL && !cJSON_IsNull(paced)) {
        fprintf(stderr, "zc advise: %s: a paced run, not used for stream advice\n", path);
        cJSON_Delete(doc);
        return ZC_EXIT_OK;
    }
    const cJSON *device =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "device"), "name");
    if (profile->device_name[0] == '\0' && cJSON_IsString(device))
        snprintf(profile->device_name, sizeof profile->device_name, "%s", device->valuestring);
    if (profile->source[0] == '\0')
        snprintf(profile->source, sizeof profile->source, "zc stream results (%s, ...)", path);
    size_t added = 0;
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(doc, "runs"))
    {
        zc_stream_point s;
        memset(&s, 0, sizeof s);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(run, "name");
        const cJSON *lat = cJSON_GetObjectItemCaseSensitive(run, "latency_us");
        const cJSON *thr = cJSON_GetObjectItemCaseSensitive(run, "throughput");
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "ok")) || !cJSON_IsString(name) ||
            zc__mode_of(name->valuestring, &s) != ZC_OK ||
            zc__figures(&s, zc__num(config, "frame_bytes"), zc__num(config, "in_flight"),
                        zc__num(run, "gpu_blocks"), zc__num(lat, "p50"), zc__num(lat, "p99"),
                        zc__num(thr, "gb_per_s")) != ZC_OK)
            continue;
        zc_status status = zc_profile_add_stream(profile, &s);
        if (status != ZC_OK) {
            cJSON_Delete(doc);
            return zc_cli_fail("advise", path, status);
        }
        added++;
    }
    cJSON_Delete(doc);
    if (added == 0)
        fprintf(stderr, "zc advise: %s: no run that ended ok\n", path);
    return ZC_EXIT_OK;
}
