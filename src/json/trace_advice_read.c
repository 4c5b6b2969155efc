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
    double t = zc__json_number_of(o, "time_s");
    if (!(t >= 0.0))
        return ZC_FAIL(ZC_ERR_PARSE, "trace document: %s: \"time_s\" is not a duration", where);
    c->time_s = t;
    if (sized) {
        ZC_CHECK(zc__u64(o, "async_count", 0, 0, where, &c->async_count));
        ZC_CHECK(zc__u64(o, "bytes_min", 1, 0, where, &c->bytes_min));
        return zc__u64(o, "bytes_max", 1, 0, where, &c->bytes_max);
    }
    uint64_t sync = 0;
    ZC_CHECK(zc__u64(o, "sync_count", 0, 0, where, &sync));
    c->async_count = sync <= c->count ? c->count - sync : 0;
    return ZC_OK;
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
        double t = zc__json_number_of(f, "time_s"), s = zc__json_number_of(f, "saving_s");
        p->pinning_time_s = t >= 0.0 ? t : 0.0;
        p->pinning_saving_s = s >= 0.0 ? s : -1.0;
    }
    return ZC_OK;
}

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
    const cJSON *traced = cJSON_GetObjectItemCaseSensitive(doc, "traced");
    if (!cJSON_IsTrue(traced)) {
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(doc, "why_not_traced");
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "the trace recorded nothing to advise on%s%s",
                       cJSON_IsString(why) ? ": " : "",
                       cJSON_IsString(why) ? why->valuestring : "");
    }
    memset(p, 0, sizeof *p);
    p->span_s = zc__json_number_of(doc, "gpu_span_s");
    if (!(p->span_s >= 0.0))
        return ZC_FAIL(ZC_ERR_PARSE, "trace document: \"gpu_span_s\" is not a duration");
    ZC_CHECK(zc__copy_list(doc, p, copies_p));
    zc_status st = zc__in_place(doc, p);
    if (st != ZC_OK) {
        free(*copies_p);
        *copies_p = NULL;
    }
    return st;
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
    cJSON *doc = cJSON_ParseWithLength(text, size);
    if (doc == NULL)
        return ZC_FAIL(ZC_ERR_PARSE,
                       size == 0 ? "trace document: empty" : "trace document: not JSON");
    zc_status st = zc_advise_trace(profile, doc, advice_p);
    cJSON_Delete(doc);
    return st;
}
