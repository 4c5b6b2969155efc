/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --trace's input: a zc trace document ("zerocopy.trace/1", docs/json.md) read into
 * the traced program zc_advise_traced prices: its copy classes (or, from a document written
 * before them, its paths' totals), span, managed and mapped memory and the pinning finding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/json.h"

/* The most copies a count or byte figure of the document may say: exact in a double. */
#define ZC__TRACE_COUNT_MAX 9007199254740992.0 /* 2^53 */

/* The whole-number field name of o into *v; absent gives fallback when optional. */
static zc_status zc__u64(const cJSON *o, const char *name, int required, uint64_t fallback,
                         const char *where, uint64_t *v)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, name);
    size_t value = 0;
    if (item == NULL && !required) {
        *v = fallback;
        return ZC_OK;
    }
    if (!cJSON_IsNumber(item) ||
        !zc__json_double_to_size(item->valuedouble, ZC__TRACE_COUNT_MAX, &value))
        return ZC_FAIL(ZC_ERR_PARSE, "trace document: %s: \"%s\" is not a whole number from 0",
                       where, name);
    *v = (uint64_t)value;
    return ZC_OK;
}

/* A duration the trace measured: 0 (not timed), or from the clock's nanosecond to about a year.
 * A GPU span of 1e-300 s or a saving of 1e300 s is no measurement and would be priced as one. */
#define ZC__TRACE_SECONDS_MIN 1e-9
#define ZC__TRACE_SECONDS_MAX 3.2e7

/* The duration field name of o into *v; absent gives fallback when optional. */
static zc_status zc__seconds(const cJSON *o, const char *name, int required, double fallback,
                             const char *where, double *v)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, name);
    if (item == NULL && !required) {
        *v = fallback;
        return ZC_OK;
    }
    const double t = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (!(t == 0.0 || (t >= ZC__TRACE_SECONDS_MIN && t <= ZC__TRACE_SECONDS_MAX)))
        return ZC_FAIL(ZC_ERR_PARSE,
                       "trace document: %s: \"%s\" is %s%.3g%s, not a duration the trace could "
                       "measure (0, or 1 ns to a year)",
                       where, name, cJSON_IsNumber(item) ? "" : "not a number (", t,
                       cJSON_IsNumber(item) ? " s" : ")");
    *v = t;
    return ZC_OK;
}

/* The copies of c against each other: the smallest no larger than the largest, the total
 * between count times each, and copies only with bytes (CUDA records no copy of 0 bytes).
 * ZC_ERR_INVALID_ARG, as zc_advise_traced says of figures that disagree. */
static zc_status zc__copies_agree(const zc_traced_copies *c, int sized, const char *where)
{
    if ((c->count == 0) != (c->bytes == 0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "trace document: %s: %llu copies of %llu bytes in all (copies need bytes, "
                       "and bytes copies)",
                       where, (unsigned long long)c->count, (unsigned long long)c->bytes);
    if (c->async_count > c->count)
        return ZC_FAIL(
            ZC_ERR_INVALID_ARG,
            "trace document: %s: more asynchronous copies than copies: they do not agree", where);
    if (!sized)
        return ZC_OK;
    const unsigned __int128 n = c->count;
    if (c->bytes_min > c->bytes_max || (unsigned __int128)c->bytes_min * n > c->bytes ||
        (unsigned __int128)c->bytes_max * n < c->bytes)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "trace document: %s: bytes_min %llu, bytes_max %llu and %llu bytes in %llu "
                       "copies do not agree (bytes_min <= each copy <= bytes_max)",
                       where, (unsigned long long)c->bytes_min, (unsigned long long)c->bytes_max,
                       (unsigned long long)c->bytes, (unsigned long long)c->count);
    return ZC_OK;
}

/* A string field name of o into out (size bytes). */
static zc_status zc__text(const cJSON *o, const char *name, const char *where, char *out,
                          size_t size)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsString(item) || strlen(item->valuestring) >= size)
        return ZC_FAIL(ZC_ERR_PARSE, "trace document: %s: \"%s\" is not a name of the trace", where,
                       name);
    snprintf(out, size, "%s", item->valuestring);
    return ZC_OK;
}

/* One entry of "copy_classes" (sized) or "paths" into c. */
static zc_status zc__copies(const cJSON *o, int sized, const char *where, zc_traced_copies *c)
{
    if (!cJSON_IsObject(o))
        return ZC_FAIL(ZC_ERR_PARSE, "trace document: %s is not an object", where);
    ZC_CHECK(zc__text(o, "direction", where, c->direction, sizeof c->direction));
    ZC_CHECK(zc__text(o, "src_kind", where, c->src_kind, sizeof c->src_kind));
    ZC_CHECK(zc__text(o, "dst_kind", where, c->dst_kind, sizeof c->dst_kind));
    ZC_CHECK(zc__u64(o, "count", 1, 0, where, &c->count));
    ZC_CHECK(zc__u64(o, "bytes", 1, 0, where, &c->bytes));
    ZC_CHECK(zc__seconds(o, "time_s", 1, 0.0, where, &c->time_s));
    if (sized) {
        ZC_CHECK(zc__u64(o, "async_count", 0, 0, where, &c->async_count));
        ZC_CHECK(zc__u64(o, "bytes_min", 1, 0, where, &c->bytes_min));
        ZC_CHECK(zc__u64(o, "bytes_max", 1, 0, where, &c->bytes_max));
        return zc__copies_agree(c, 1, where);
    }
    uint64_t sync = 0;
    ZC_CHECK(zc__u64(o, "sync_count", 0, 0, where, &sync));
    if (sync > c->count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "trace document: %s: more synchronous copies than copies: they do not agree",
                       where);
    c->async_count = c->count - sync;
    return zc__copies_agree(c, 0, where);
}

/* The copy classes of doc, or its paths when it has none: *copies_p (the caller frees it). */
static zc_status zc__copy_list(const cJSON *doc, zc_traced_program *p, zc_traced_copies **copies_p)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "copy_classes");
    p->sized = list != NULL;
    if (list == NULL)
        list = cJSON_GetObjectItemCaseSensitive(doc, "paths");
    const char *name = p->sized ? "copy_classes" : "paths";
    if (!cJSON_IsArray(list))
        return ZC_FAIL(ZC_ERR_PARSE, "trace document: \"%s\" is not an array", name);
    size_t n = (size_t)cJSON_GetArraySize(list);
    zc_traced_copies *copies = calloc(n ? n : 1, sizeof *copies);
    if (copies == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "trace document: %zu copy classes", n);
    size_t i = 0;
    for (const cJSON *o = list->child; o != NULL; o = o->next, i++) {
        char where[48];
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        zc_status st = zc__copies(o, p->sized, where, &copies[i]);
        if (st != ZC_OK) {
            free(copies);
            return st;
        }
    }
    p->copies = copies;
    p->copy_count = n;
    *copies_p = copies;
    return ZC_OK;
}

/* Managed memory migrated, mapped memory read in place, and pinning in a loop. */
static zc_status zc__in_place(const cJSON *doc, zc_traced_program *p)
{
    const cJSON *um = cJSON_GetObjectItemCaseSensitive(doc, "unified_memory");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(doc, "host_memory");
    if (cJSON_IsObject(um)) {
        ZC_CHECK(zc__u64(um, "migrated_bytes", 0, 0, "unified_memory", &p->managed_bytes));
        ZC_CHECK(zc__u64(um, "fault_records", 0, 0, "unified_memory", &p->managed_faults));
    }
    if (cJSON_IsObject(host))
        ZC_CHECK(zc__u64(host, "mapped_bytes", 0, 0, "host_memory", &p->mapped_bytes));
    p->pinning_saving_s = -1.0;
    const cJSON *findings = cJSON_GetObjectItemCaseSensitive(doc, "findings");
    for (const cJSON *f = cJSON_IsArray(findings) ? findings->child : NULL; f; f = f->next) {
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(f, "key");
        if (!cJSON_IsString(key))
            return ZC_FAIL(ZC_ERR_PARSE, "trace document: a finding without a key");
        if (strncmp(key->valuestring, "mapped_memory_", 14) == 0)
            p->mapped_reads = 1;
        if (strcmp(key->valuestring, "pinned_alloc_in_loop") != 0)
            continue;
        p->pinning_in_loop = 1;
        ZC_CHECK(zc__u64(f, "count", 0, 0, "pinned_alloc_in_loop", &p->pinning_calls));
        ZC_CHECK(zc__seconds(f, "time_s", 0, 0.0, "pinned_alloc_in_loop", &p->pinning_time_s));
        /* null: the saving is not known. */
        const cJSON *saving = cJSON_GetObjectItemCaseSensitive(f, "saving_s");
        if (saving != NULL && !cJSON_IsNull(saving))
            ZC_CHECK(
                zc__seconds(f, "saving_s", 1, -1.0, "pinned_alloc_in_loop", &p->pinning_saving_s));
    }
    return ZC_OK;
}

/* The fields of a trace document its readers and the report take (docs/json.md). */
static const zc__json_field zc__trace_fields[] = {
    {"schema", ZC__JSON_TEXT, 0},           {"zerocopy_version", ZC__JSON_TEXT, 0},
    {"program", ZC__JSON_ARRAY, 0},         {"exit_code", ZC__JSON_NUMBER, 0},
    {"signal", ZC__JSON_NUMBER, 1},         {"traced", ZC__JSON_BOOL, 0},
    {"why_not_traced", ZC__JSON_TEXT, 0},   {"ceiling", ZC__JSON_OBJECT, 0},
    {"processes", ZC__JSON_WHOLE, 0},       {"complete", ZC__JSON_BOOL, 0},
    {"dropped_records", ZC__JSON_WHOLE, 0}, {"pcie_counters", ZC__JSON_TEXT, 1},
    {"notes", ZC__JSON_ARRAY, 0},           {"paths", ZC__JSON_ARRAY, 0},
    {"copy_classes", ZC__JSON_ARRAY, 0},    {"memsets", ZC__JSON_ARRAY, 0},
    {"kernels", ZC__JSON_OBJECT, 0},        {"gpu_span_s", ZC__JSON_NUMBER, 0},
    {"host_memory", ZC__JSON_OBJECT, 0},    {"unified_memory", ZC__JSON_OBJECT, 0},
    {"findings", ZC__JSON_ARRAY, 0},
};
static const zc__json_field zc__finding_fields[] = {
    {"key", ZC__JSON_TEXT, 0},    {"severity", ZC__JSON_TEXT, 0}, {"title", ZC__JSON_TEXT, 0},
    {"count", ZC__JSON_WHOLE, 0}, {"bytes", ZC__JSON_WHOLE, 0},   {"evidence", ZC__JSON_TEXT, 0},
    {"fix", ZC__JSON_TEXT, 0},
};

/* The traced program of doc into *p, its copies in *copies_p (the caller frees them). */
static zc_status zc__program_read(const cJSON *doc, zc_traced_program *p,
                                  zc_traced_copies **copies_p)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsObject(doc) || !cJSON_IsString(schema) ||
        strcmp(schema->valuestring, ZC_TRACE_SCHEMA) != 0)
        return ZC_FAIL(ZC_ERR_PARSE, "not a zc trace document: schema %s%s%s, \"%s\" expected",
                       cJSON_IsString(schema) ? "\"" : "",
                       cJSON_IsString(schema) ? schema->valuestring : "missing",
                       cJSON_IsString(schema) ? "\"" : "", ZC_TRACE_SCHEMA);
    ZC_CHECK(zc__json_check_keys(doc, "trace document"));
    ZC_CHECK(ZC__JSON_FIELDS(doc, zc__trace_fields, "trace document", NULL));
    const cJSON *f;
    size_t i = 0;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "findings"))
    {
        char where[32];
        snprintf(where, sizeof where, "findings[%zu]", i++);
        ZC_CHECK(ZC__JSON_FIELDS(f, zc__finding_fields, "trace document", where));
    }
    const cJSON *traced = cJSON_GetObjectItemCaseSensitive(doc, "traced");
    if (!cJSON_IsTrue(traced)) {
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(doc, "why_not_traced");
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "the trace recorded nothing to advise on%s%s",
                       cJSON_IsString(why) ? ": " : "",
                       cJSON_IsString(why) ? why->valuestring : "");
    }
    memset(p, 0, sizeof *p);
    ZC_CHECK(zc__seconds(doc, "gpu_span_s", 1, 0.0, "the run", &p->span_s));
    double kernels = 0.0;
    ZC_CHECK(zc__seconds(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), "time_s", 0, 0.0,
                         "kernels", &kernels));
    ZC_CHECK(zc__copy_list(doc, p, copies_p));
    zc_status st = zc__in_place(doc, p);
    if (st != ZC_OK) {
        free(*copies_p);
        *copies_p = NULL;
    }
    return st;
}

zc_status zc__trace_doc_check(const cJSON *doc, const char *what)
{
    zc_traced_program p;
    zc_traced_copies *copies = NULL;
    zc_status st = zc__program_read(doc, &p, &copies);
    free(copies);
    /* Nothing traced: a document the report shows as it is. */
    if (st == ZC_ERR_INVALID_ARG &&
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "traced"))) {
        zc_clear_error();
        return ZC_OK;
    }
    if (st != ZC_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", zc_last_error());
        return ZC_FAIL(ZC_ERR_PARSE, "%s: %s", what, why);
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_trace_advice_check(const cJSON *doc)
{
    ZC_REQUIRE_ARG(doc);
    zc_traced_program p;
    zc_traced_copies *copies = NULL;
    ZC_CHECK(zc__program_read(doc, &p, &copies));
    free(copies);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_advise_trace(const zc_profile *profile, const cJSON *doc,
                                    zc_trace_advice *advice_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(advice_p);
    zc_traced_program p;
    zc_traced_copies *copies = NULL;
    ZC_CHECK(zc__program_read(doc, &p, &copies));
    zc_status st = zc_advise_traced(profile, &p, advice_p);
    free(copies);
    return st;
}

ZC_EXTERN zc_status zc_advise_trace_text(const zc_profile *profile, const char *text, size_t size,
                                         zc_trace_advice *advice_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(text);
    ZC_REQUIRE_ARG(advice_p);
    ZC_CHECK(zc_json_check_limits(text, size, "trace document", NULL));
    cJSON *doc = cJSON_ParseWithLength(text, size);
    if (doc == NULL)
        return ZC_FAIL(ZC_ERR_PARSE,
                       size == 0 ? "trace document: empty" : "trace document: not JSON");
    zc_status st = zc_advise_trace(profile, doc, advice_p);
    cJSON_Delete(doc);
    return st;
}
