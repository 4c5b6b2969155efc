/* SPDX-License-Identifier: Apache-2.0 */
/* The report's inputs: each document told apart by its schema, its sizes checked before any
 * figure is taken from it, and named for the page. */
#include "report/report_page.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/json.h"

/* One line of in->warnings: what was set aside and why. */
static void zc__warn(zc_report_input *in, const char *fmt, ...) ZC__PRINTF(2, 3);
static void zc__warn(zc_report_input *in, const char *fmt, ...)
{
    size_t used = strlen(in->warnings);
    if (used + 1 >= sizeof in->warnings)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(in->warnings + used, sizeof in->warnings - used, fmt, args);
    va_end(args);
    used = strlen(in->warnings);
    if (used + 1 < sizeof in->warnings)
        snprintf(in->warnings + used, sizeof in->warnings - used, "\n");
}

/* Every point's size in a bench document is a whole number of bytes in range. The profile
 * reader converts them to size_t, so they are checked here, before it runs. */
static int zc__check_bench_sizes(const cJSON *doc, const char *where, zc_report_bad *bad)
{
    const cJSON *c, *pt;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(c, "key");
        int i = 0;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points"))
        {
            const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(pt, "bytes");
            char field[160];
            size_t unused;
            snprintf(field, sizeof field, "case %s, point %d, bytes",
                     cJSON_IsString(key) ? key->valuestring : "?", i++);
            if (cJSON_IsNumber(bytes) &&
                !zc__report_size(bytes->valuedouble, where, field, bad, &unused))
                return 0;
        }
    }
    return 1;
}

/* The same for a profile document's copy curves: [bytes, GB/s] points. */
static int zc__check_profile_sizes(const cJSON *doc, const char *where, zc_report_bad *bad)
{
    const cJSON *kind, *dir, *pt;
    cJSON_ArrayForEach(kind, cJSON_GetObjectItemCaseSensitive(doc, "copy_gbps"))
    {
        cJSON_ArrayForEach(dir, kind)
        {
            int i = 0;
            cJSON_ArrayForEach(pt, dir)
            {
                const cJSON *bytes = cJSON_GetArrayItem(pt, 0);
                char field[160];
                size_t unused;
                snprintf(field, sizeof field, "copy_gbps.%s.%s[%d][0]",
                         kind->string != NULL ? kind->string : "?",
                         dir->string != NULL ? dir->string : "?", i++);
                if (cJSON_IsNumber(bytes) &&
                    !zc__report_size(bytes->valuedouble, where, field, bad, &unused))
                    return 0;
            }
        }
    }
    return 1;
}

/* A bench that can give a profile: the model needs its pinned H2D copies and launch time. A
 * bench of the multi-GPU cases alone has neither; it is shown, but not asked for a profile. */
static int zc__bench_has_profile(const cJSON *doc)
{
    return zc__report_bench_case(doc, "copy.h2d.pinned") != NULL &&
           zc__report_bench_case(doc, "latency.launch") != NULL;
}

static int zc__add_doc(zc_report_input *in, zc_report_doc *list, size_t *count, const cJSON *doc,
                       const char *path, const char *what)
{
    if (*count >= ZC_REPORT_MAX_DOCS) {
        zc__warn(in, "%s: more than %d %s results, ignored", path, ZC_REPORT_MAX_DOCS, what);
        return 0;
    }
    list[*count].doc = doc;
    list[*count].path = path;
    list[*count].name[0] = '\0';
    (*count)++;
    return 1;
}

/* A bench or profile document: its figures, when it is the first that has them. */
static zc_status zc__add_bench(zc_report_input *in, const char *path, const cJSON *doc, int bench)
{
    const char *where = strcmp(path, "-") == 0 ? "stdin" : path;
    if (bench ? !zc__check_bench_sizes(doc, where, in->bad)
              : !zc__check_profile_sizes(doc, where, in->bad))
        return ZC_FAIL(ZC_ERR_PARSE, "%s", in->bad->why);
    ZC_CHECK(bench ? zc__bench_doc_check(doc, where) : ZC_OK);
    if (bench)
        zc__add_doc(in, in->benches, &in->bench_count, doc, path, "bench");
    if (bench && !zc__bench_has_profile(doc)) {
        if (zc__report_bench_case(doc, "multigpu.h2d.all") == NULL &&
            zc__report_bench_case(doc, "multigpu.peer.copy") == NULL)
            zc__warn(in, "%s: no copy and launch figures in it, nothing to show", where);
        return ZC_OK;
    }
    if (in->have_profile) {
        zc__warn(in, "%s: using the figures of the first result only", where);
        return ZC_OK;
    }
    zc_profile p;
    zc_status status =
        bench ? zc_profile_from_bench_json(doc, &p, NULL, 0) : zc_profile_from_json(doc, &p);
    if (status != ZC_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", zc_last_error());
        /* A bench result still gives the machine and the comparison. */
        if (!bench)
            return ZC_FAIL(ZC_ERR_PARSE, "%s: no usable profile in it (%s)", where, why);
        zc__warn(in, "%s: no usable profile in it (%s)", where, why);
        zc_clear_error();
        return ZC_OK;
    }
    if (bench) {
        in->bench = doc;
        in->bench_path = path;
        const cJSON *machine = cJSON_GetObjectItemCaseSensitive(doc, "machine");
        if (cJSON_IsObject(machine)) {
            in->machine = machine;
            in->machine_path = where;
        }
    }
    if (p.source[0] == '\0')
        snprintf(p.source, sizeof p.source, "%s", where);
    in->measured = p;
    if (zc_profile_fill_gaps(&p, in->notes, sizeof in->notes) == ZC_OK) {
        in->profile = p;
        in->have_profile = 1;
    }
    zc_clear_error();
    return ZC_OK;
}

/* Each kind of document the report reads, and the versions of it this build knows: a later
 * version may have changed what a field means, so it is refused rather than drawn. */
static const struct {
    const char *family;   /* the schema up to its version */
    const char *versions; /* the whole schemas read, comma-separated */
} zc__report_versions[] = {
    {"zerocopy.bench/", ZC_BENCH_SCHEMA},
    {"zerocopy.profile/", ZC_PROFILE_SCHEMA ", zerocopy.profile/1"},
    {"zerocopy.stream/", ZC_STREAM_SCHEMA},
    {"zerocopy.stream-multi/", ZC_STREAM_MULTI_SCHEMA},
    {"zerocopy.trace/", ZC_TRACE_SCHEMA},
    {"zerocopy.advise-trace/", ZC_ADVISE_TRACE_SCHEMA},
    {"zerocopy.info/", ZC_INFO_SCHEMA},
    {"zerocopy.pinning", "zerocopy.pinning.v1"},
};

/* ZC_ERR_PARSE when schema is of a kind the report reads but of a version it does not. */
static zc_status zc__known_version(const char *schema, const char *where)
{
    for (size_t i = 0; i < sizeof zc__report_versions / sizeof zc__report_versions[0]; i++) {
        const char *family = zc__report_versions[i].family;
        const char *versions = zc__report_versions[i].versions;
        if (strncmp(schema, family, strlen(family)) != 0)
            continue;
        /* One of the comma-separated versions, whole. */
        const size_t n = strlen(schema);
        for (const char *v = versions; v != NULL; v = strchr(v, ',')) {
            v += *v == ',' ? 2 : 0;
            if (strncmp(v, schema, n) == 0 && (v[n] == '\0' || v[n] == ','))
                return ZC_OK;
        }
        return ZC_FAIL(ZC_ERR_PARSE,
                       "%s: schema \"%.60s\" is a version this build does not read (it reads %s)",
                       where, schema, versions);
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_report_input_init(zc_report_input *in, zc_report_bad *bad)
{
    ZC_REQUIRE_ARG(in);
    ZC_REQUIRE_ARG(bad);
    memset(in, 0, sizeof *in);
    memset(bad, 0, sizeof *bad);
    in->bad = bad;
    return ZC_OK;
}

/* zc_report_input_add in the C locale. */
static zc_status zc__report_input_add(zc_report_input *in, const char *path, const cJSON *doc)
{
    ZC_REQUIRE_ARG(in);
    ZC_REQUIRE_ARG(path);
    ZC_REQUIRE_ARG(doc);
    if (in->bad == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_report_input_add: in was not initialised");
    zc_status status = ZC_OK;
    const char *where = strcmp(path, "-") == 0 ? "stdin" : path;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    const char *s = cJSON_IsString(schema) ? schema->valuestring : "";
    ZC_CHECK(zc__json_check_keys(doc, where));
    ZC_CHECK(zc__known_version(s, where));
    if (strncmp(s, "zerocopy.stream/", 16) == 0)
        ZC_CHECK(zc__stream_doc_check(doc, where));
    else if (strncmp(s, "zerocopy.trace/", 15) == 0)
        ZC_CHECK(zc__trace_doc_check(doc, where));
    if (strncmp(s, "zerocopy.bench/", 15) == 0)
        status = zc__add_bench(in, path, doc, 1);
    else if (strncmp(s, "zerocopy.profile/", 17) == 0)
        status = zc__add_bench(in, path, doc, 0);
    else if (strncmp(s, "zerocopy.stream/", 16) == 0)
        zc__add_doc(in, in->streams, &in->stream_count, doc, path, "stream");
    else if (strncmp(s, "zerocopy.stream-multi/", 22) == 0)
        zc__add_doc(in, in->multis, &in->multi_count, doc, path, "multi-GPU stream");
    else if (strncmp(s, "zerocopy.trace/", 15) == 0 ||
             strncmp(s, "zerocopy.advise-trace/", 22) == 0)
        zc__add_doc(in, in->traces, &in->trace_count, doc, path, "trace");
    else if (strncmp(s, "zerocopy.pinning", 16) == 0 && in->pinning == NULL)
        in->pinning = doc;
    else if (strncmp(s, "zerocopy.info/", 14) == 0 && in->machine == NULL) {
        in->machine = doc;
        in->machine_path = where;
    } else if (strncmp(s, "zerocopy.pinning", 16) != 0 && strncmp(s, "zerocopy.info/", 14) != 0) {
        return ZC_FAIL(ZC_ERR_PARSE,
                       "%s: schema \"%.100s\" is not a bench, stream, multi-GPU stream, pinning, "
                       "profile, info, trace or advise-trace result",
                       where, s);
    }
    if (status == ZC_OK) {
        size_t used = strlen(in->sources);
        snprintf(in->sources + used, sizeof in->sources - used, "%s%s", used ? ", " : "", where);
    }
    return status;
}

/* The warnings and the profile's notes, numbers in them, are written in the C locale. */
ZC_EXTERN zc_status zc_report_input_add(zc_report_input *in, const char *path, const cJSON *doc)
{
    locale_t before = zc__c_locale_begin();
    zc_status status = zc__report_input_add(in, path, doc);
    zc__c_locale_end(before);
    return status;
}

static const char *zc__shown_path(const zc_report_doc *d)
{
    return strcmp(d->path, "-") == 0 ? "stdin" : d->path;
}

static const char *zc__base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/*
 * Name each document for the page: its file name when that tells it apart from the others of
 * its kind; otherwise its path without the folders all of them share, so that two runs'
 * stream_latency_4k.json become "h200-a/stream_latency_4k.json" and
 * "h200-b/stream/stream_latency_4k.json".
 */
static void zc__name_docs(zc_report_doc *docs, size_t count)
{
    int clash = 0;
    for (size_t i = 0; i < count && !clash; i++) {
        for (size_t j = i + 1; j < count && !clash; j++)
            clash = strcmp(zc__base_name(zc__shown_path(&docs[i])),
                           zc__base_name(zc__shown_path(&docs[j]))) == 0;
    }
    size_t common = 0; /* length of the folders every path starts with, up to a '/' */
    if (clash) {
        const char *first = zc__shown_path(&docs[0]);
        common = strlen(first);
        for (size_t i = 1; i < count; i++) {
            const char *other = zc__shown_path(&docs[i]);
            size_t n = 0;
            while (n < common && first[n] == other[n])
                n++;
            common = n;
        }
        while (common > 0 && first[common - 1] != '/')
            common--;
    }
    for (size_t i = 0; i < count; i++) {
        const char *path = zc__shown_path(&docs[i]);
        snprintf(docs[i].name, sizeof docs[i].name, "%s",
                 clash ? path + common : zc__base_name(path));
    }
}

ZC_EXTERN zc_status zc_report_input_finish(zc_report_input *in)
{
    ZC_REQUIRE_ARG(in);
    zc__name_docs(in->streams, in->stream_count);
    zc__name_docs(in->benches, in->bench_count);
    zc__name_docs(in->multis, in->multi_count);
    zc__name_docs(in->traces, in->trace_count);
    return ZC_OK;
}
