/* Reading and writing zc advise's JSON: profiles, workloads and rankings. */
#include "advise_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"

/* The largest byte count a profile or workload may name: 1 PiB. */
#define ZC__BYTES_MAX 1125899906842624.0

int zc_advise_parse_size(const char *text, size_t *bytes_p)
{
    /* Decimal only, as every number of zc: no sign, space, hex, "inf" or "nan". */
    if (text == NULL || !((*text >= '0' && *text <= '9') || *text == '.') ||
        strpbrk(text, "xX") != NULL)
        return 0;
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (errno != 0 || end == text || !(value > 0.0))
        return 0;
    double scale = 1.0;
    switch (*end) {
    case 'k':
    case 'K':
        scale = 1024.0;
        end++;
        break;
    case 'm':
    case 'M':
        scale = 1024.0 * 1024.0;
        end++;
        break;
    case 'g':
    case 'G':
        scale = 1024.0 * 1024.0 * 1024.0;
        end++;
        break;
    default:
        break;
    }
    if (scale > 1.0 && strcmp(end, "iB") == 0)
        end += 2;
    else if (strcmp(end, "B") == 0)
        end++;
    double bytes = value * scale;
    if (*end != '\0' || bytes > 1099511627776.0 || bytes != (double)(unsigned long long)bytes)
        return 0;
    *bytes_p = (size_t)bytes;
    return 1;
}

void zc_advise_size_text(double bytes, char *out, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        u++;
    }
    if (bytes == (double)(unsigned long long)bytes)
        snprintf(out, size, "%.0f %s", bytes, units[u]);
    else
        snprintf(out, size, "%.1f %s", bytes, units[u]);
}

/* The scalar figures of a profile, by name, so that reading and writing cannot drift apart. */
typedef struct zc__field {
    const char *name;
    size_t offset;
} zc__field;

#define ZC__F(field)                                                                               \
    {                                                                                              \
#field, offsetof(zc_profile, field)                                                        \
    }

static const zc__field zc__scalars[] = {
    ZC__F(launch_sync_us),
    ZC__F(enqueue_us),
    ZC__F(both_directions_gbps),
    ZC__F(mapped_latency_us),
    ZC__F(device_gbps),
    ZC__F(managed_prefetch_gbps),
    ZC__F(managed_prefetch_us),
    ZC__F(managed_first_touch_gbps),
    ZC__F(managed_cpu_touch_gbps),
    ZC__F(host_write_gbps),
    ZC__F(pingpong_us),
    ZC__F(overlap_efficiency),
    ZC__F(alloc_pinned_us_per_mib),
    ZC__F(alloc_pinned_fixed_us),
    ZC__F(register_us_per_mib),
    ZC__F(register_fixed_us),
    ZC__F(alloc_managed_us_per_mib),
    ZC__F(alloc_device_us_per_mib),
};

#define ZC__SCALAR_COUNT (sizeof zc__scalars / sizeof zc__scalars[0])

static double *zc__scalar(zc_profile *p, const zc__field *f)
{
    return (double *)((char *)p + f->offset);
}

static cJSON *zc__curve_json(const zc_curve *c)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr != NULL && i < c->count; i++) {
        cJSON *pt = cJSON_CreateArray();
        cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)c->bytes[i]));
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(c->gbps[i]));
        cJSON_AddItemToArray(arr, pt);
    }
    return arr;
}

cJSON *zc_profile_to_json(const zc_profile *profile)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_PROFILE_SCHEMA);
    cJSON_AddStringToObject(doc, "device_name", profile->device_name);
    cJSON_AddStringToObject(doc, "source", profile->source);
    cJSON *copy = cJSON_AddObjectToObject(doc, "copy_gbps");
    cJSON *lat = cJSON_AddObjectToObject(doc, "copy_latency_us");
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        const char *key = zc_host_kind_key((zc_host_kind)k);
        if (profile->copy[k][0].count == 0 && profile->copy[k][1].count == 0)
            continue;
        cJSON *kind = cJSON_AddObjectToObject(copy, key);
        cJSON_AddItemToObject(kind, "h2d", zc__curve_json(&profile->copy[k][ZC_DIR_H2D]));
        cJSON_AddItemToObject(kind, "d2h", zc__curve_json(&profile->copy[k][ZC_DIR_D2H]));
        if (profile->copy_latency_us[k] > 0.0)
            cJSON_AddNumberToObject(lat, key, profile->copy_latency_us[k]);
    }
    cJSON *rd = cJSON_AddObjectToObject(doc, "mapped_read_gbps");
    cJSON *wr = cJSON_AddObjectToObject(doc, "mapped_write_gbps");
    for (int a = 0; a < ZC_ACCESS_COUNT; a++) {
        if (profile->mapped_read_gbps[a] > 0.0)
            cJSON_AddNumberToObject(rd, zc_access_key((zc_access)a), profile->mapped_read_gbps[a]);
        if (profile->mapped_write_gbps[a] > 0.0)
            cJSON_AddNumberToObject(wr, zc_access_key((zc_access)a), profile->mapped_write_gbps[a]);
    }
    zc_profile copy_of = *profile;
    for (size_t i = 0; i < ZC__SCALAR_COUNT; i++) {
        double v = *zc__scalar(&copy_of, &zc__scalars[i]);
        if (v > 0.0)
            cJSON_AddNumberToObject(doc, zc__scalars[i].name, v);
    }
    return doc;
}

/* Each line of text (the notes of what was assumed) as a string of arr, cut at 255 bytes. */
static void zc__add_lines(cJSON *arr, const char *text)
{
    for (const char *line = text; arr != NULL && line != NULL && *line != '\0';) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 255 ? len : 255), line);
        if (len > 0)
            cJSON_AddItemToArray(arr, cJSON_CreateString(buf));
        line += len + (nl != NULL);
    }
}

cJSON *zc_profile_to_saved_json(const zc_profile *measured, const char *notes)
{
    cJSON *doc = zc_profile_to_json(measured);
    if (doc != NULL)
        zc__add_lines(cJSON_AddArrayToObject(doc, "not_measured"), notes);
    return doc;
}

static zc_status zc__curve_from_json(const cJSON *arr, zc_curve *c, const char *what)
{
    const cJSON *pt;
    if (!cJSON_IsArray(arr))
        return ZC_ERR_PARSE;
    cJSON_ArrayForEach(pt, arr)
    {
        const cJSON *b = cJSON_GetArrayItem(pt, 0), *g = cJSON_GetArrayItem(pt, 1);
        size_t bytes = 0;
        if (!cJSON_IsNumber(b) || !cJSON_IsNumber(g) || b->valuedouble < 1.0 ||
            !zc_cli_double_to_size(b->valuedouble, ZC__BYTES_MAX, &bytes)) {
            fprintf(stderr,
                    "profile: %s: each point must be [bytes, GB/s], bytes whole, 1 to 2^50\n",
                    what);
            return ZC_ERR_PARSE;
        }
        zc_status status = zc_curve_add(c, bytes, g->valuedouble);
        if (status != ZC_OK)
            return status;
    }
    return ZC_OK;
}

zc_status zc_profile_from_json(const cJSON *doc, zc_profile *profile_p)
{
    zc_profile p;
    zc_profile_init(&p);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, ZC_PROFILE_SCHEMA) != 0) {
        fprintf(stderr, "profile: schema is not \"%s\"\n", ZC_PROFILE_SCHEMA);
        return ZC_ERR_PARSE;
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "device_name");
    if (cJSON_IsString(s))
        snprintf(p.device_name, sizeof p.device_name, "%s", s->valuestring);
    s = cJSON_GetObjectItemCaseSensitive(doc, "source");
    if (cJSON_IsString(s))
        snprintf(p.source, sizeof p.source, "%s", s->valuestring);
    const cJSON *copy = cJSON_GetObjectItemCaseSensitive(doc, "copy_gbps");
    const cJSON *lat = cJSON_GetObjectItemCaseSensitive(doc, "copy_latency_us");
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        const char *key = zc_host_kind_key((zc_host_kind)k);
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(copy, key);
        for (int d = 0; kind != NULL && d < 2; d++) {
            const cJSON *arr =
                cJSON_GetObjectItemCaseSensitive(kind, zc_direction_key((zc_direction)d));
            char what[64];
            snprintf(what, sizeof what, "copy_gbps.%s.%s", key, zc_direction_key((zc_direction)d));
            if (arr != NULL && zc__curve_from_json(arr, &p.copy[k][d], what) != ZC_OK)
                return ZC_ERR_PARSE;
        }
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(lat, key);
        if (cJSON_IsNumber(l))
            p.copy_latency_us[k] = l->valuedouble;
    }
    for (int a = 0; a < ZC_ACCESS_COUNT; a++) {
        const char *key = zc_access_key((zc_access)a);
        const cJSON *v =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "mapped_read_gbps"), key);
        if (cJSON_IsNumber(v))
            p.mapped_read_gbps[a] = v->valuedouble;
        v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(doc, "mapped_write_gbps"), key);
        if (cJSON_IsNumber(v))
            p.mapped_write_gbps[a] = v->valuedouble;
    }
    for (size_t i = 0; i < ZC__SCALAR_COUNT; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, zc__scalars[i].name);
        if (v == NULL)
            continue;
        if (!cJSON_IsNumber(v) || v->valuedouble < 0.0) {
            fprintf(stderr, "profile: %s must be a number >= 0\n", zc__scalars[i].name);
            return ZC_ERR_PARSE;
        }
        *zc__scalar(&p, &zc__scalars[i]) = v->valuedouble;
    }
    *profile_p = p;
    return ZC_OK;
}

zc_status zc_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                          char *notes, size_t notes_size)
{
    int code = 0;
    cJSON *doc = zc_cli_read_json("advise", path, &code); /* says why on stderr */
    if (doc == NULL)
        return code == ZC_EXIT_USAGE ? ZC_ERR_INVALID_ARG : ZC_ERR_IO;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    zc_profile p;
    zc_status status;
    if (cJSON_IsString(schema) && strncmp(schema->valuestring, "zerocopy.bench/", 15) == 0)
        status = zc_profile_from_bench_json(doc, &p);
    else
        status = zc_profile_from_json(doc, &p);
    cJSON_Delete(doc);
    if (status != ZC_OK)
        return status;
    if (p.source[0] == '\0')
        snprintf(p.source, sizeof p.source, "%s", strcmp(path, "-") == 0 ? "stdin" : path);
    if (measured_p != NULL)
        *measured_p = p;
    status = zc_profile_fill_gaps(&p, notes, notes_size);
    if (status != ZC_OK)
        return status;
    *profile_p = p;
    return ZC_OK;
}

zc_status zc_workload_from_json(const cJSON *doc, zc_workload *workload_p)
{
    zc_workload w = *workload_p;
    if (!cJSON_IsObject(doc)) {
        fprintf(stderr, "workload: expected a JSON object\n");
        return ZC_ERR_PARSE;
    }
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
        if (k == sizeof known / sizeof known[0]) {
            fprintf(stderr,
                    "workload: unknown name \"%.60s\" (known: bytes, transfers, rate_hz, "
                    "gpu_accesses, latency_budget_us, direction, pattern, concurrent)\n",
                    item->string);
            return ZC_ERR_PARSE;
        }
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "bytes");
    if (cJSON_IsNumber(v) && v->valuedouble >= 1.0 &&
        zc_cli_double_to_size(v->valuedouble, ZC__BYTES_MAX, &w.bytes))
        ;
    else if (cJSON_IsString(v) && zc_advise_parse_size(v->valuestring, &w.bytes))
        ;
    else if (v != NULL) {
        fprintf(stderr, "workload: bytes must be a whole size, 1 to 2^50 (4096 or \"4KiB\")\n");
        return ZC_ERR_PARSE;
    }
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
        if (!cJSON_IsNumber(v)) {
            fprintf(stderr, "workload: %s must be a number\n", numbers[i].name);
            return ZC_ERR_PARSE;
        }
        *(double *)((char *)&w + numbers[i].offset) = v->valuedouble;
    }
    v = cJSON_GetObjectItemCaseSensitive(doc, "direction");
    if (v != NULL && (!cJSON_IsString(v) || zc_direction_from_key(v->valuestring, &w.direction))) {
        fprintf(stderr, "workload: direction must be \"h2d\", \"d2h\" or \"both\"\n");
        return ZC_ERR_PARSE;
    }
    v = cJSON_GetObjectItemCaseSensitive(doc, "pattern");
    if (v != NULL && (!cJSON_IsString(v) || zc_access_from_key(v->valuestring, &w.pattern))) {
        fprintf(stderr, "workload: pattern must be \"coalesced\", \"strided\" or \"random\"\n");
        return ZC_ERR_PARSE;
    }
    v = cJSON_GetObjectItemCaseSensitive(doc, "concurrent");
    if (v != NULL) {
        if (!cJSON_IsBool(v)) {
            fprintf(stderr, "workload: concurrent must be true or false\n");
            return ZC_ERR_PARSE;
        }
        w.concurrent = cJSON_IsTrue(v);
    }
    zc_clear_error();
    *workload_p = w;
    return ZC_OK;
}

cJSON *zc_workload_to_json(const zc_workload *w)
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

cJSON *zc_prediction_to_json(const zc_prediction *r)
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

cJSON *zc_advise_json(const zc_profile *profile, const char *notes, const zc_workload *workload,
                      const zc_recommendation *rec)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_ADVISE_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON *prof = cJSON_AddObjectToObject(doc, "profile");
    cJSON_AddStringToObject(prof, "device_name", profile->device_name);
    cJSON_AddStringToObject(prof, "source", profile->source);
    zc__add_lines(cJSON_AddArrayToObject(prof, "assumptions"), notes);
    cJSON_AddItemToObject(doc, "workload", zc_workload_to_json(workload));
    cJSON_AddStringToObject(doc, "recommendation", zc_technique_key(rec->ranked[0].technique));
    cJSON_AddStringToObject(doc, "explanation", rec->explanation);
    cJSON *ranked = cJSON_AddArrayToObject(doc, "ranked");
    for (size_t i = 0; i < rec->count; i++)
        cJSON_AddItemToArray(ranked, zc_prediction_to_json(&rec->ranked[i]));
    return doc;
}
