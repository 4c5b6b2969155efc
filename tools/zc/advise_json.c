/* Reading and writing zc advise's JSON: profiles, workloads and rankings. */
#include "advise_json.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"

/* The largest byte count a profile or workload may name: 1 PiB. */
#define ZC__BYTES_MAX 1125899906842624.0

int zc_cli_advise_parse_size(const char *text, size_t *bytes_p)
{
    /* The project's one size grammar; at most 1 TiB per transfer. */
    uint64_t bytes = 0;
    if (text == NULL || zc_size_parse(text, (uint64_t)1 << 40, &bytes) != ZC_OK) {
        zc_clear_error();
        return 0;
    }
    *bytes_p = (size_t)bytes;
    return 1;
}

void zc_cli_advise_size_text(double bytes, char *out, size_t size)
{
    /* In range before the cast: a double past 2^64 does not convert. */
    uint64_t b = bytes > 0.0 ? (bytes < 1.8e19 ? (uint64_t)bytes : UINT64_MAX) : 0;
    (void)zc_size_format(b, out, size);
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

static cJSON *zc__cost_json(const zc_cost_curve *c)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr != NULL && i < c->count; i++) {
        cJSON *pt = cJSON_CreateArray();
        cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)c->bytes[i]));
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(c->us[i]));
        cJSON_AddItemToArray(arr, pt);
    }
    return arr;
}

/* The object a dotted key's last part lives in ("copy_latency_us.pinned": doc's
 * "copy_latency_us"), made when create is set; *leaf_p: the last part. */
static cJSON *zc__holder(cJSON *doc, const char *key, int create, const char **leaf_p)
{
    const char *dot = strchr(key, '.');
    if (dot == NULL) {
        *leaf_p = key;
        return doc;
    }
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)(dot - key), key);
    *leaf_p = dot + 1;
    cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, head);
    if (o == NULL && create)
        o = cJSON_AddObjectToObject(doc, head);
    return cJSON_IsObject(o) ? o : NULL;
}

/* Whether a figure of this origin is written among the machine's own (saved: not assumed). */
static int zc__keep(unsigned char origin, int saved)
{
    return origin != ZC_ORIGIN_NONE && !(saved && origin == ZC_ORIGIN_ASSUMED);
}

/* The document of a profile: every figure of the given origins and, under "origin", where each
 * came from; saved: the assumed ones apart, under "assumed", never among the measured. */
static cJSON *zc__profile_doc(const zc_profile *profile, int saved)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    zc_profile p = *profile;
    cJSON_AddStringToObject(doc, "schema", ZC_PROFILE_SCHEMA);
    cJSON_AddStringToObject(doc, "device_name", p.device_name);
    cJSON_AddStringToObject(doc, "source", p.source);
    cJSON *origin = cJSON_AddObjectToObject(doc, "origin");
    cJSON *assumed = saved ? cJSON_AddObjectToObject(doc, "assumed") : NULL;
    cJSON *copy = cJSON_AddObjectToObject(doc, "copy_gbps");
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        const char *key = zc_host_kind_key((zc_host_kind)k);
        cJSON *kind = NULL;
        for (int d = 0; d < 2; d++) {
            if (p.copy[k][d].count == 0 || !zc__keep(p.copy_origin[k][d], saved))
                continue;
            if (kind == NULL)
                kind = cJSON_AddObjectToObject(copy, key);
            const char *dir = zc_direction_key((zc_direction)d);
            cJSON_AddItemToObject(kind, dir, zc__curve_json(&p.copy[k][d]));
            char name[64];
            snprintf(name, sizeof name, "copy_gbps.%s.%s", key, dir);
            cJSON_AddStringToObject(origin, name, zc_origin_key((zc_origin)p.copy_origin[k][d]));
        }
    }
    cJSON *alloc = cJSON_AddObjectToObject(doc, "alloc_us");
    for (int a = 0; a < ZC_ALLOC_KIND_COUNT; a++) {
        if (p.alloc[a].count == 0 || !zc__keep(p.alloc_origin[a], saved))
            continue;
        const char *key = zc_alloc_kind_key((zc_alloc_kind)a);
        cJSON_AddItemToObject(alloc, key, zc__cost_json(&p.alloc[a]));
        char name[64];
        snprintf(name, sizeof name, "alloc_us.%s", key);
        cJSON_AddStringToObject(origin, name, zc_origin_key((zc_origin)p.alloc_origin[a]));
    }
    static const char *const rw[2] = {"read", "write"};
    cJSON *dev = cJSON_AddObjectToObject(doc, "device_gbps_curve");
    for (int d = 0; d < 2; d++) {
        if (p.device_curve[d].count == 0 || !zc__keep(p.device_origin[d], saved))
            continue;
        cJSON_AddItemToObject(dev, rw[d], zc__curve_json(&p.device_curve[d]));
        char name[64];
        snprintf(name, sizeof name, "device_gbps_curve.%s", rw[d]);
        cJSON_AddStringToObject(origin, name, zc_origin_key((zc_origin)p.device_origin[d]));
    }
    if (p.mapped_reread.count > 0 && zc__keep(p.mapped_reread_origin, saved)) {
        cJSON_AddItemToObject(doc, "mapped_reread_us", zc__cost_json(&p.mapped_reread));
        cJSON_AddStringToObject(origin, "mapped_reread_us",
                                zc_origin_key((zc_origin)p.mapped_reread_origin));
    }
    for (int f = 0; f < ZC_PF_COUNT; f++) {
        double v = *zc_profile_field_value(&p, (zc_profile_field)f);
        const char *key = zc_profile_field_key((zc_profile_field)f);
        if (!(v > 0.0) || p.origin[f] == ZC_ORIGIN_NONE)
            continue;
        if (saved && p.origin[f] == ZC_ORIGIN_ASSUMED) {
            cJSON_AddNumberToObject(assumed, key, v);
            continue;
        }
        const char *leaf = NULL;
        cJSON *holder = zc__holder(doc, key, 1, &leaf);
        if (holder != NULL)
            cJSON_AddNumberToObject(holder, leaf, v);
        cJSON_AddStringToObject(origin, key, zc_origin_key((zc_origin)p.origin[f]));
    }
    cJSON *runs = cJSON_AddArrayToObject(doc, "stream");
    for (size_t i = 0; i < p.stream_count; i++) {
        const zc_stream_point *s = &p.stream[i];
        char name[48];
        if (zc_stream_option_name(s->mode, s->protocol, name, sizeof name) != ZC_OK)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddNumberToObject(o, "frame_bytes", (double)s->frame_bytes);
        cJSON_AddNumberToObject(o, "in_flight", s->in_flight);
        cJSON_AddNumberToObject(o, "gpu_blocks", s->gpu_blocks);
        cJSON_AddNumberToObject(o, "p50_us", s->p50_us);
        cJSON_AddNumberToObject(o, "p99_us", s->p99_us);
        cJSON_AddNumberToObject(o, "gb_per_s", s->gbps);
        cJSON_AddItemToArray(runs, o);
    }
    return doc;
}

cJSON *zc_cli_profile_to_json(const zc_profile *profile)
{
    return zc__profile_doc(profile, 0);
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

cJSON *zc_cli_profile_to_saved_json(const zc_profile *profile, const char *notes)
{
    cJSON *doc = zc__profile_doc(profile, 1);
    if (doc != NULL)
        zc__add_lines(cJSON_AddArrayToObject(doc, "not_measured"), notes);
    return doc;
}

/* [[bytes, value], ...] into add(curve, bytes, value). */
static zc_status zc__points_from_json(const cJSON *arr, const char *what, void *curve,
                                      zc_status (*add)(void *, size_t, double))
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
                    "profile: %s: each point must be [bytes, value], bytes whole, 1 to "
                    "2^50\n",
                    what);
            return ZC_ERR_PARSE;
        }
        zc_status status = add(curve, bytes, g->valuedouble);
        if (status != ZC_OK) {
            fprintf(stderr, "profile: %s: %s\n", what, zc_last_error());
            return status;
        }
    }
    return ZC_OK;
}

static zc_status zc__add_copy(void *c, size_t bytes, double v)
{
    return zc_curve_add(c, bytes, v);
}

static zc_status zc__add_cost(void *c, size_t bytes, double v)
{
    return zc_cost_curve_add(c, bytes, v);
}

/* The origin named at doc's "origin" object under key; MEASURED when not said (profile/1). */
static unsigned char zc__origin_of(const cJSON *doc, const char *key)
{
    const cJSON *o =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "origin"), key);
    zc_origin origin = ZC_ORIGIN_MEASURED;
    if (cJSON_IsString(o) && zc_origin_from_key(o->valuestring, &origin) != ZC_OK)
        origin = ZC_ORIGIN_MEASURED;
    return (unsigned char)(origin == ZC_ORIGIN_NONE ? ZC_ORIGIN_MEASURED : origin);
}

/* A profile/1 document saved its assumptions among its figures and listed them under
 * "not_measured" ("assumed NAME = VALUE (not measured)"): those figures are assumed. */
static void zc__old_assumptions(const cJSON *doc, zc_profile *p)
{
    const cJSON *line;
    cJSON_ArrayForEach(line, cJSON_GetObjectItemCaseSensitive(doc, "not_measured"))
    {
        char name[64];
        zc_profile_field f;
        if (cJSON_IsString(line) && sscanf(line->valuestring, "assumed %63s =", name) == 1 &&
            zc_profile_field_from_key(name, &f) == ZC_OK)
            p->origin[f] = ZC_ORIGIN_ASSUMED;
        /* The old keys of array figures were "copy_latency_us[pinned]". */
        char *open = strchr(name, '[');
        if (cJSON_IsString(line) && open != NULL && strchr(open, ']') != NULL) {
            *strchr(open, ']') = '\0';
            *open = '.';
            if (zc_profile_field_from_key(name, &f) == ZC_OK)
                p->origin[f] = ZC_ORIGIN_ASSUMED;
        }
    }
    zc_clear_error();
}

static zc_status zc__stream_from_json(const cJSON *doc, zc_profile *p)
{
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(doc, "stream"))
    {
        zc_stream_point s;
        if (zc_cli_stream_point_from_json(run, &s) != ZC_OK ||
            zc_profile_add_stream(p, &s) != ZC_OK) {
            fprintf(stderr, "profile: stream: each run needs a known name, frame_bytes, "
                            "in_flight, p50_us, p99_us and gb_per_s\n");
            return ZC_ERR_PARSE;
        }
    }
    return ZC_OK;
}

zc_status zc_cli_profile_from_json(const cJSON *doc, zc_profile *profile_p)
{
    zc_profile p;
    zc_profile_init(&p);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    int old = cJSON_IsString(schema) && strcmp(schema->valuestring, "zerocopy.profile/1") == 0;
    if (!old && (!cJSON_IsString(schema) || strcmp(schema->valuestring, ZC_PROFILE_SCHEMA) != 0)) {
        fprintf(stderr, "profile: schema is not \"%s\" (or \"zerocopy.profile/1\")\n",
                ZC_PROFILE_SCHEMA);
        return ZC_ERR_PARSE;
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "device_name");
    if (cJSON_IsString(s))
        snprintf(p.device_name, sizeof p.device_name, "%s", s->valuestring);
    s = cJSON_GetObjectItemCaseSensitive(doc, "source");
    if (cJSON_IsString(s))
        snprintf(p.source, sizeof p.source, "%s", s->valuestring);
    const cJSON *copy = cJSON_GetObjectItemCaseSensitive(doc, "copy_gbps");
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        const char *key = zc_host_kind_key((zc_host_kind)k);
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(copy, key);
        for (int d = 0; kind != NULL && d < 2; d++) {
            const char *dir = zc_direction_key((zc_direction)d);
            const cJSON *arr = cJSON_GetObjectItemCaseSensitive(kind, dir);
            char what[64];
            snprintf(what, sizeof what, "copy_gbps.%s.%s", key, dir);
            if (arr == NULL)
                continue;
            if (zc__points_from_json(arr, what, &p.copy[k][d], zc__add_copy) != ZC_OK)
                return ZC_ERR_PARSE;
            if (p.copy[k][d].count > 0)
                p.copy_origin[k][d] = zc__origin_of(doc, what);
        }
    }
    const cJSON *alloc = cJSON_GetObjectItemCaseSensitive(doc, "alloc_us");
    for (int a = 0; a < ZC_ALLOC_KIND_COUNT; a++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(alloc, zc_alloc_kind_key(a));
        char what[64];
        snprintf(what, sizeof what, "alloc_us.%s", zc_alloc_kind_key(a));
        if (arr == NULL)
            continue;
        if (zc__points_from_json(arr, what, &p.alloc[a], zc__add_cost) != ZC_OK)
            return ZC_ERR_PARSE;
        if (p.alloc[a].count > 0)
            p.alloc_origin[a] = zc__origin_of(doc, what);
    }
    static const char *const rw[2] = {"read", "write"};
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(doc, "device_gbps_curve");
    for (int d = 0; d < 2; d++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(dev, rw[d]);
        char what[64];
        snprintf(what, sizeof what, "device_gbps_curve.%s", rw[d]);
        if (arr == NULL)
            continue;
        if (zc__points_from_json(arr, what, &p.device_curve[d], zc__add_copy) != ZC_OK)
            return ZC_ERR_PARSE;
        if (p.device_curve[d].count > 0)
            p.device_origin[d] = zc__origin_of(doc, what);
    }
    const cJSON *reread = cJSON_GetObjectItemCaseSensitive(doc, "mapped_reread_us");
    if (reread != NULL) {
        if (zc__points_from_json(reread, "mapped_reread_us", &p.mapped_reread, zc__add_cost) !=
            ZC_OK)
            return ZC_ERR_PARSE;
        if (p.mapped_reread.count > 0)
            p.mapped_reread_origin = zc__origin_of(doc, "mapped_reread_us");
    }
    for (int f = 0; f < ZC_PF_COUNT; f++) {
        const char *key = zc_profile_field_key((zc_profile_field)f), *leaf = NULL;
        const cJSON *holder = zc__holder((cJSON *)doc, key, 0, &leaf);
        const cJSON *v = holder != NULL ? cJSON_GetObjectItemCaseSensitive(holder, leaf) : NULL;
        if (v == NULL)
            continue;
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0) || !isfinite(v->valuedouble)) {
            fprintf(stderr, "profile: %s must be a number >= 0\n", key);
            return ZC_ERR_PARSE;
        }
        if (v->valuedouble > 0.0)
            (void)zc_profile_set(&p, (zc_profile_field)f, v->valuedouble, zc__origin_of(doc, key));
    }
    if (old)
        zc__old_assumptions(doc, &p);
    if (zc__stream_from_json(doc, &p) != ZC_OK)
        return ZC_ERR_PARSE;
    *profile_p = p;
    return ZC_OK;
}

zc_status zc_cli_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                              char *notes, size_t notes_size)
{
    int code = 0;
    cJSON *doc = zc_cli_read_json("advise", path, &code); /* says why on stderr */
    if (doc == NULL)
        return code == ZC_EXIT_USAGE ? ZC_ERR_INVALID_ARG : ZC_ERR_IO;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    zc_profile p;
    zc_status status;
    char missing[1024] = "";
    if (cJSON_IsString(schema) && strncmp(schema->valuestring, "zerocopy.bench/", 15) == 0)
        status = zc_cli_profile_from_bench_json(doc, &p, missing, sizeof missing);
    else
        status = zc_cli_profile_from_json(doc, &p);
    cJSON_Delete(doc);
    if (status != ZC_OK)
        return status;
    if (p.source[0] == '\0')
        snprintf(p.source, sizeof p.source, "%s", strcmp(path, "-") == 0 ? "stdin" : path);
    if (measured_p != NULL)
        *measured_p = p;
    status = zc_profile_fill_gaps(&p, notes, notes_size);
    /* A profile of zc stream runs alone serves stream advice, which needs nothing else. */
    if (status != ZC_OK && p.stream_count > 0 && p.copy[ZC_HOST_PINNED][ZC_DIR_H2D].count == 0) {
        zc_clear_error();
        status = ZC_OK;
    }
    if (status != ZC_OK)
        return status;
    /* The bench cases the profile lacked, after what was assumed for them. */
    if (notes != NULL && notes_size > 0) {
        size_t used = strlen(notes);
        snprintf(notes + used, notes_size - used, "%s", missing);
    }
    *profile_p = p;
    return ZC_OK;
}

zc_status zc_cli_workload_from_json(const cJSON *doc, zc_workload *workload_p)
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
    else if (cJSON_IsString(v) && zc_cli_advise_parse_size(v->valuestring, &w.bytes))
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

cJSON *zc_cli_workload_to_json(const zc_workload *w)
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

cJSON *zc_cli_prediction_to_json(const zc_prediction *r)
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

cJSON *zc_cli_advise_json(const zc_profile *profile, const char *notes, const zc_workload *workload,
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
    cJSON_AddItemToObject(doc, "workload", zc_cli_workload_to_json(workload));
    cJSON_AddStringToObject(doc, "recommendation", zc_technique_key(rec->ranked[0].technique));
    cJSON_AddStringToObject(doc, "explanation", rec->explanation);
    cJSON *ranked = cJSON_AddArrayToObject(doc, "ranked");
    for (size_t i = 0; i < rec->count; i++)
        cJSON_AddItemToArray(ranked, zc_cli_prediction_to_json(&rec->ranked[i]));
    return doc;
}
