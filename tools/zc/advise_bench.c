/* Reading a `zc bench --json` document ("zerocopy.bench/1") into a machine profile. */
#include "advise_json.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The case with this key, when it was measured (outcome "ok"); NULL otherwise. */
static const cJSON *zc__case(const cJSON *doc, const char *key)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "key");
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(c, "outcome");
        if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0)
            return cJSON_IsString(o) && strcmp(o->valuestring, "ok") == 0 ? c : NULL;
    }
    return NULL;
}

static double zc__median(const cJSON *point)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(point, "stats"), "median");
    return cJSON_IsNumber(m) ? m->valuedouble : NAN;
}

static double zc__bytes(const cJSON *point)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(point, "bytes");
    return cJSON_IsNumber(b) ? b->valuedouble : 0.0;
}

/* The median of the point of a case at its largest size (variant filter may be NULL: any). */
static double zc__at_largest(const cJSON *doc, const char *key, const char *variant)
{
    const cJSON *c = zc__case(doc, key), *pt, *best = NULL;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(pt, "variant");
        if (variant != NULL && (!cJSON_IsString(v) || strcmp(v->valuestring, variant) != 0))
            continue;
        if (!isfinite(zc__median(pt)))
            continue;
        if (best == NULL || zc__bytes(pt) >= zc__bytes(best))
            best = pt;
    }
    return best != NULL ? zc__median(best) : NAN;
}

/* The best median over every point of a case. */
static double zc__max(const cJSON *doc, const char *key)
{
    const cJSON *pt;
    double best = NAN;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(zc__case(doc, key), "points"))
    {
        double m = zc__median(pt);
        if (isfinite(m) && (!isfinite(best) || m > best))
            best = m;
    }
    return best;
}

static void zc__set(double *field, double value)
{
    if (isfinite(value) && value > 0.0)
        *field = value;
}

zc_status zc_profile_from_bench_json(const cJSON *doc, zc_profile *profile_p)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "zerocopy.bench/1") != 0) {
        fprintf(stderr, "profile: not a zerocopy.bench/1 document\n");
        return ZC_ERR_PARSE;
    }
    zc_profile p;
    zc_profile_init(&p);
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

    /* Copy curves: one point per size, the median rate. */
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        for (int d = 0; d < 2; d++) {
            char key[64];
            snprintf(key, sizeof key, "copy.%s.%s", zc_direction_key((zc_direction)d),
                     zc_host_kind_key((zc_host_kind)k));
            const cJSON *pt;
            cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(zc__case(doc, key), "points"))
            {
                double b = zc__bytes(pt), g = zc__median(pt);
                size_t bytes = 0;
                /* A point whose size is not a whole byte count in range is not a measurement
                 * (the cast alone would be undefined behaviour for 1e30). */
                if (b >= 1.0 && zc_cli_double_to_size(b, 1125899906842624.0, &bytes) &&
                    isfinite(g) && g > 0.0)
                    (void)zc_curve_add(&p.copy[k][d], bytes, g);
            }
        }
    }
    zc__set(&p.both_directions_gbps, zc__max(doc, "copy.bidir.pinned"));
    zc__set(&p.launch_sync_us, zc__at_largest(doc, "latency.launch", NULL));
    /* A round trip is launch + sync + two queued copies: what is left is two copies' cost. */
    double rt_pinned = zc__at_largest(doc, "latency.roundtrip.pinned", NULL);
    double rt_pageable = zc__at_largest(doc, "latency.roundtrip.pageable", NULL);
    if (p.launch_sync_us > 0.0) {
        zc__set(&p.copy_latency_us[ZC_HOST_PINNED], (rt_pinned - p.launch_sync_us) / 2.0);
        zc__set(&p.copy_latency_us[ZC_HOST_PAGEABLE], (rt_pageable - p.launch_sync_us) / 2.0);
    }
    static const char *const reads[ZC_ACCESS_COUNT] = {"zerocopy.read.16b", "zerocopy.read.strided",
                                                       "zerocopy.read.random128"};
    static const char *const writes[ZC_ACCESS_COUNT] = {
        "zerocopy.write.16b", "zerocopy.write.strided", "zerocopy.write.random128"};
    for (int a = 0; a < ZC_ACCESS_COUNT; a++) {
        /* Strided: one word per 128-byte line is the model's strided walk. */
        const char *variant = a == ZC_ACCESS_STRIDED ? "stride 128 B" : NULL;
        double r = zc__at_largest(doc, reads[a], variant);
        double w = zc__at_largest(doc, writes[a], variant);
        if (a == ZC_ACCESS_STRIDED && !isfinite(r))
            r = zc__at_largest(doc, reads[a], NULL);
        if (a == ZC_ACCESS_STRIDED && !isfinite(w))
            w = zc__at_largest(doc, writes[a], NULL);
        zc__set(&p.mapped_read_gbps[a], r);
        zc__set(&p.mapped_write_gbps[a], w);
    }
    zc__set(&p.mapped_latency_us, zc__at_largest(doc, "latency.gpu_read.host", NULL));
    zc__set(&p.pingpong_us, zc__at_largest(doc, "latency.pingpong", NULL));
    zc__set(&p.device_gbps, zc__at_largest(doc, "device.read.16b", NULL));
    zc__set(&p.managed_prefetch_gbps, zc__at_largest(doc, "managed.prefetch", NULL));
    zc__set(&p.managed_first_touch_gbps, zc__at_largest(doc, "managed.first_touch", NULL));
    if (p.copy[ZC_HOST_PINNED][ZC_DIR_H2D].count == 0 || !(p.launch_sync_us > 0.0)) {
        fprintf(stderr, "profile: the bench result lacks copy.h2d.pinned or latency.launch, which "
                        "the model needs\n");
        return ZC_ERR_PARSE;
    }
    *profile_p = p;
    return ZC_OK;
}
