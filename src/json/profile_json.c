/* SPDX-License-Identifier: Apache-2.0 */
/* Machine profiles as JSON ("zerocopy.profile/2", docs/json.md): written with every figure's
 * origin, read back (profile/1 too), and made from a profile or a bench document. */
#include "zerocopy/json.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"
#include "json/json_internal.h"

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

/* A curve of count points under a (dotted) key, made by make, with its origin under "origin",
 * when it is kept. */
static void zc__points_out(cJSON *doc, cJSON *origin, const char *key, size_t count,
                           cJSON *(*make)(const void *), const void *curve, unsigned char from,
                           int saved)
{
    const char *leaf = NULL;
    cJSON *holder = count > 0 && zc__keep(from, saved) ? zc__holder(doc, key, 1, &leaf) : NULL;
    if (holder == NULL)
        return;
    cJSON_AddItemToObject(holder, leaf, make(curve));
    cJSON_AddStringToObject(origin, key, zc_origin_key((zc_origin)from));
}

/* The two curve writers in the shape zc__points_out takes. */
static cJSON *zc__cost_json_of(const void *c)
{
    return zc__cost_json(c);
}

static cJSON *zc__curve_json_of(const void *c)
{
    return zc__curve_json(c);
}

/* A cost curve (us) under a (dotted) key, with its origin, when it is kept. */
static void zc__cost_out(cJSON *doc, cJSON *origin, const char *key, const zc_cost_curve *c,
                         unsigned char from, int saved)
{
    zc__points_out(doc, origin, key, c->count, zc__cost_json_of, c, from, saved);
}

/* A GB/s curve under a (dotted) key, with its origin, when it is kept. */
static void zc__gbps_out(cJSON *doc, cJSON *origin, const char *key, const zc_curve *c,
                         unsigned char from, int saved)
{
    zc__points_out(doc, origin, key, c->count, zc__curve_json_of, c, from, saved);
}

/* The profile's curves besides the copy and allocation ones, in the document's order: each a
 * (dotted) key, the curve in zc_profile (GB/s or us) and its origin. One row serves the writer
 * and the reader, so that a curve is added once. */
typedef struct zc__curve_row {
    const char *key;
    int gbps;      /* 1: a zc_curve of GB/s; 0: a zc_cost_curve of us */
    size_t curve;  /* offset of the curve in zc_profile */
    size_t origin; /* offset of its origin */
} zc__curve_row;

#define ZC__GBPS_ROW(key, curve, origin)                                                           \
    {                                                                                              \
        key, 1, offsetof(zc_profile, curve), offsetof(zc_profile, origin)                          \
    }
#define ZC__COST_ROW(key, curve, origin)                                                           \
    {                                                                                              \
        key, 0, offsetof(zc_profile, curve), offsetof(zc_profile, origin)                          \
    }

static const zc__curve_row zc__curve_rows[] = {
    ZC__GBPS_ROW("device_gbps_curve.read", device_curve[0], device_origin[0]),
    ZC__GBPS_ROW("device_gbps_curve.write", device_curve[1], device_origin[1]),
    ZC__GBPS_ROW("device_gbps_curve_strided.read", device_walk[0][0], device_walk_origin[0][0]),
    ZC__GBPS_ROW("mapped_gbps_curve_strided.read", mapped_walk[0][0], mapped_walk_origin[0][0]),
    ZC__GBPS_ROW("device_gbps_curve_strided.write", device_walk[0][1], device_walk_origin[0][1]),
    ZC__GBPS_ROW("mapped_gbps_curve_strided.write", mapped_walk[0][1], mapped_walk_origin[0][1]),
    ZC__GBPS_ROW("device_gbps_curve_random.read", device_walk[1][0], device_walk_origin[1][0]),
    ZC__GBPS_ROW("mapped_gbps_curve_random.read", mapped_walk[1][0], mapped_walk_origin[1][0]),
    ZC__GBPS_ROW("device_gbps_curve_random.write", device_walk[1][1], device_walk_origin[1][1]),
    ZC__GBPS_ROW("mapped_gbps_curve_random.write", mapped_walk[1][1], mapped_walk_origin[1][1]),
    ZC__COST_ROW("mapped_walk_reread_us.strided", mapped_walk_reread[0],
                 mapped_walk_reread_origin[0]),
    ZC__COST_ROW("mapped_walk_reread_us.random", mapped_walk_reread[1],
                 mapped_walk_reread_origin[1]),
    ZC__COST_ROW("mapped_reread_us", mapped_reread, mapped_reread_origin),
    ZC__COST_ROW("managed_transfer_us.h2d", managed_transfer[ZC_DIR_H2D],
                 managed_transfer_origin[ZC_DIR_H2D]),
    ZC__COST_ROW("managed_transfer_us.d2h", managed_transfer[ZC_DIR_D2H],
                 managed_transfer_origin[ZC_DIR_D2H]),
    ZC__COST_ROW("managed_transfer_us.both", managed_transfer_both, managed_transfer_both_origin),
    ZC__COST_ROW("host_fill_us", host_fill, host_fill_origin),
    ZC__COST_ROW("alloc_pinned_beside_us", alloc_pinned_beside, alloc_pinned_beside_origin),
    ZC__COST_ROW("copy_alone_us.pageable_h2d", copy_alone[0][ZC_DIR_H2D],
                 copy_alone_origin[0][ZC_DIR_H2D]),
    ZC__COST_ROW("copy_alone_us.pageable_d2h", copy_alone[0][ZC_DIR_D2H],
                 copy_alone_origin[0][ZC_DIR_D2H]),
    ZC__COST_ROW("copy_alone_us.pinned_h2d", copy_alone[1][ZC_DIR_H2D],
                 copy_alone_origin[1][ZC_DIR_H2D]),
    ZC__COST_ROW("copy_alone_us.pinned_d2h", copy_alone[1][ZC_DIR_D2H],
                 copy_alone_origin[1][ZC_DIR_D2H]),
};

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
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        if (!(zc_buffer_kind_props((zc_buffer_kind)k) & ZC_KIND_COPY_SOURCE))
            continue;
        const char *key = zc_buffer_kind_key((zc_buffer_kind)k);
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
    /* "alloc_us" and "device_gbps_curve" are in every document, empty or not. */
    cJSON_AddObjectToObject(doc, "alloc_us");
    for (int a = ZC_BUFFER_KIND_FIRST; a < ZC_BUFFER_KIND_COUNT; a++) {
        const char *key = zc_alloc_kind_key((zc_buffer_kind)a);
        if (key == NULL)
            continue;
        char name[64];
        snprintf(name, sizeof name, "alloc_us.%s", key);
        zc__cost_out(doc, origin, name, &p.alloc[a], p.alloc_origin[a], saved);
    }
    cJSON_AddObjectToObject(doc, "device_gbps_curve");
    const char *base = (const char *)&p;
    for (size_t i = 0; i < sizeof zc__curve_rows / sizeof zc__curve_rows[0]; i++) {
        const zc__curve_row *r = &zc__curve_rows[i];
        unsigned char from = (unsigned char)base[r->origin];
        if (r->gbps)
            zc__gbps_out(doc, origin, r->key, (const zc_curve *)(base + r->curve), from, saved);
        else
            zc__cost_out(doc, origin, r->key, (const zc_cost_curve *)(base + r->curve), from,
                         saved);
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

ZC_EXTERN zc_status zc_profile_to_json(const zc_profile *profile, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__profile_doc(profile, 0), "zc_profile_to_json", doc_p);
}

ZC_EXTERN zc_status zc_profile_to_saved_json(const zc_profile *profile, const char *notes,
                                             cJSON **doc_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(doc_p);
    cJSON *doc = zc__profile_doc(profile, 1);
    if (doc != NULL)
        zc__json_add_lines(cJSON_AddArrayToObject(doc, "not_measured"), notes);
    return zc__json_give(doc, "zc_profile_to_saved_json", doc_p);
}

/* [[bytes, value], ...] into add(curve, bytes, value). */
static zc_status zc__points_from_json(const cJSON *arr, const char *what, void *curve,
                                      zc_status (*add)(void *, size_t, double))
{
    const cJSON *pt;
    if (!cJSON_IsArray(arr))
        return ZC_FAIL(ZC_ERR_PARSE, "profile: %s must be a list of [bytes, value] points", what);
    cJSON_ArrayForEach(pt, arr)
    {
        const cJSON *b = cJSON_GetArrayItem(pt, 0), *g = cJSON_GetArrayItem(pt, 1);
        size_t bytes = 0;
        if (!cJSON_IsNumber(b) || !cJSON_IsNumber(g) || b->valuedouble < 1.0 ||
            !zc__json_double_to_size(b->valuedouble, ZC__JSON_BYTES_MAX, &bytes))
            return ZC_FAIL(ZC_ERR_PARSE,
                           "profile: %s: each point must be [bytes, value], bytes whole, 1 to "
                           "2^50",
                           what);
        zc_status status = add(curve, bytes, g->valuedouble);
        if (status != ZC_OK) {
            char why[512];
            snprintf(why, sizeof why, "%s", zc_last_error());
            return ZC_FAIL(status, "profile: %s: %s", what, why);
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

/* The curve under a (dotted) key, each point added by add, when the document has one, and its
 * origin; count_p: the curve's point count. */
static zc_status zc__points_in(const cJSON *doc, const char *key, void *curve,
                               zc_status (*add)(void *, size_t, double), const size_t *count_p,
                               unsigned char *origin_p)
{
    const char *leaf = NULL;
    const cJSON *holder = zc__holder((cJSON *)doc, key, 0, &leaf);
    const cJSON *arr = holder != NULL ? cJSON_GetObjectItemCaseSensitive(holder, leaf) : NULL;
    if (arr == NULL)
        return ZC_OK;
    ZC_CHECK(zc__points_from_json(arr, key, curve, add));
    if (*count_p > 0)
        *origin_p = zc__origin_of(doc, key);
    return ZC_OK;
}

/* The cost curve (us) under a (dotted) key, when the document has one, and its origin. */
static zc_status zc__cost_in(const cJSON *doc, const char *key, zc_cost_curve *c,
                             unsigned char *origin_p)
{
    return zc__points_in(doc, key, c, zc__add_cost, &c->count, origin_p);
}

/* The GB/s curve under a (dotted) key, when the document has one, and its origin. */
static zc_status zc__gbps_in(const cJSON *doc, const char *key, zc_curve *c,
                             unsigned char *origin_p)
{
    return zc__points_in(doc, key, c, zc__add_copy, &c->count, origin_p);
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
        if (zc_stream_point_from_json(run, &s) != ZC_OK || zc_profile_add_stream(p, &s) != ZC_OK)
            return ZC_FAIL(ZC_ERR_PARSE, "profile: stream: each run needs a known name, "
                                         "frame_bytes, in_flight, p50_us, p99_us and gb_per_s");
    }
    return ZC_OK;
}

/* The fields of a profile that are not figures (docs/json.md). */
static const zc__json_field zc__profile_fields[] = {
    {"schema", ZC__JSON_TEXT, 0},    {"device_name", ZC__JSON_TEXT, 0},
    {"source", ZC__JSON_TEXT, 0},    {"origin", ZC__JSON_OBJECT, 0},
    {"assumed", ZC__JSON_OBJECT, 0}, {"not_measured", ZC__JSON_ARRAY, 0},
    {"stream", ZC__JSON_ARRAY, 0},
};

ZC_EXTERN zc_status zc_profile_from_json(const cJSON *doc, zc_profile *profile_p)
{
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(profile_p);
    zc_profile p;
    zc_profile_init(&p);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    int old = cJSON_IsString(schema) && strcmp(schema->valuestring, "zerocopy.profile/1") == 0;
    if (!old && (!cJSON_IsString(schema) || strcmp(schema->valuestring, ZC_PROFILE_SCHEMA) != 0)) {
        return ZC_FAIL(ZC_ERR_PARSE, "profile: schema is not \"%s\" (or \"zerocopy.profile/1\")",
                       ZC_PROFILE_SCHEMA);
    }
    ZC_CHECK(zc__json_check_keys(doc, "profile"));
    ZC_CHECK(ZC__JSON_FIELDS(doc, zc__profile_fields, "profile", NULL));
    /* Every origin is a word, every line of not_measured a sentence. */
    const cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(doc, "origin"))
    {
        if (!cJSON_IsString(item))
            return ZC_FAIL(ZC_ERR_PARSE, "profile: origin: \"%.60s\" is not a string",
                           item->string != NULL ? item->string : "?");
    }
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(doc, "not_measured"))
    {
        if (!cJSON_IsString(item))
            return ZC_FAIL(ZC_ERR_PARSE, "profile: not_measured holds something not a string");
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "device_name");
    if (cJSON_IsString(s))
        snprintf(p.device_name, sizeof p.device_name, "%s", s->valuestring);
    s = cJSON_GetObjectItemCaseSensitive(doc, "source");
    if (cJSON_IsString(s))
        snprintf(p.source, sizeof p.source, "%s", s->valuestring);
    const cJSON *copy = cJSON_GetObjectItemCaseSensitive(doc, "copy_gbps");
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        if (!(zc_buffer_kind_props((zc_buffer_kind)k) & ZC_KIND_COPY_SOURCE))
            continue;
        const char *key = zc_buffer_kind_key((zc_buffer_kind)k);
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(copy, key);
        for (int d = 0; kind != NULL && d < 2; d++) {
            const char *dir = zc_direction_key((zc_direction)d);
            const cJSON *arr = cJSON_GetObjectItemCaseSensitive(kind, dir);
            char what[64];
            snprintf(what, sizeof what, "copy_gbps.%s.%s", key, dir);
            if (arr == NULL)
                continue;
            ZC_CHECK(zc__points_from_json(arr, what, &p.copy[k][d], zc__add_copy));
            if (p.copy[k][d].count > 0)
                p.copy_origin[k][d] = zc__origin_of(doc, what);
        }
    }
    for (int a = ZC_BUFFER_KIND_FIRST; a < ZC_BUFFER_KIND_COUNT; a++) {
        const char *key = zc_alloc_kind_key((zc_buffer_kind)a);
        if (key == NULL)
            continue;
        char what[64];
        snprintf(what, sizeof what, "alloc_us.%s", key);
        ZC_CHECK(zc__cost_in(doc, what, &p.alloc[a], &p.alloc_origin[a]));
    }
    char *base = (char *)&p;
    for (size_t i = 0; i < sizeof zc__curve_rows / sizeof zc__curve_rows[0]; i++) {
        const zc__curve_row *r = &zc__curve_rows[i];
        unsigned char *from = (unsigned char *)(base + r->origin);
        ZC_CHECK(r->gbps ? zc__gbps_in(doc, r->key, (zc_curve *)(base + r->curve), from)
                         : zc__cost_in(doc, r->key, (zc_cost_curve *)(base + r->curve), from));
    }
    for (int f = 0; f < ZC_PF_COUNT; f++) {
        const char *key = zc_profile_field_key((zc_profile_field)f), *leaf = NULL;
        const cJSON *holder = zc__holder((cJSON *)doc, key, 0, &leaf);
        const cJSON *v = holder != NULL ? cJSON_GetObjectItemCaseSensitive(holder, leaf) : NULL;
        if (v == NULL)
            continue;
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0) || !isfinite(v->valuedouble))
            return ZC_FAIL(ZC_ERR_PARSE, "profile: %s must be a number >= 0", key);
        if (v->valuedouble > 0.0)
            (void)zc_profile_set(&p, (zc_profile_field)f, v->valuedouble, zc__origin_of(doc, key));
    }
    if (old)
        zc__old_assumptions(doc, &p);
    ZC_CHECK(zc__stream_from_json(doc, &p));
    *profile_p = p;
    return ZC_OK;
}

/* zc_profile_from_document in the C locale. */
static zc_status zc__profile_from_document(const cJSON *doc, const char *source,
                                           zc_profile *profile_p, zc_profile *measured_p,
                                           char *notes, size_t notes_size)
{
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(profile_p);
    ZC_CHECK(zc__json_check_keys(doc, source != NULL ? source : "the document"));
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    zc_profile p;
    char missing[1024] = "";
    if (cJSON_IsString(schema) && strncmp(schema->valuestring, "zerocopy.bench/", 15) == 0)
        ZC_CHECK(zc_profile_from_bench_json(doc, &p, missing, sizeof missing));
    else
        ZC_CHECK(zc_profile_from_json(doc, &p));
    if (p.source[0] == '\0' && source != NULL)
        snprintf(p.source, sizeof p.source, "%s", source);
    if (measured_p != NULL)
        *measured_p = p;
    zc_status status = zc_profile_fill_gaps(&p, notes, notes_size);
    /* A profile of zc stream runs alone serves stream advice, which needs nothing else. */
    if (status != ZC_OK && p.stream_count > 0 && p.copy[ZC_BUFFER_PINNED][ZC_DIR_H2D].count == 0) {
        zc_clear_error();
        status = ZC_OK;
    }
    ZC_CHECK(status);
    /* The bench cases the profile lacked, after what was assumed for them. */
    if (notes != NULL && notes_size > 0) {
        size_t used = strlen(notes);
        snprintf(notes + used, notes_size - used, "%s", missing);
    }
    *profile_p = p;
    return ZC_OK;
}

/* The notes (what was assumed, with its figures) are written in the C locale. */
ZC_EXTERN zc_status zc_profile_from_document(const cJSON *doc, const char *source,
                                             zc_profile *profile_p, zc_profile *measured_p,
                                             char *notes, size_t notes_size)
{
    locale_t before = zc__c_locale_begin();
    zc_status status =
        zc__profile_from_document(doc, source, profile_p, measured_p, notes, notes_size);
    zc__c_locale_end(before);
    return status;
}
