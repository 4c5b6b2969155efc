/* SPDX-License-Identifier: Apache-2.0 */
/* The numbers, statistics, sizes and lines of every JSON document of the library. */
#include "json/json_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "zerocopy/json.h"

int zc__json_double_to_size(double v, double max, size_t *value_p)
{
    /* 2^53: every whole double below it is exact, and it fits a 64-bit size_t. */
    const double limit = max < 9007199254740992.0 ? max : 9007199254740992.0;
    if (!(v >= 0.0 && v <= limit) || v != (double)(uint64_t)v)
        return 0;
    *value_p = (size_t)v;
    return 1;
}

void zc__json_add_lines(cJSON *arr, const char *text)
{
    for (const char *line = text; arr != NULL && line != NULL && *line != '\0';) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[256];
        /* Cut before a whole character: a UTF-8 continuation byte (10xxxxxx) is never first. */
        size_t cut = len < 255 ? len : 255;
        while (cut < len && cut > 0 && ((unsigned char)line[cut] & 0xc0) == 0x80)
            cut--;
        snprintf(buf, sizeof buf, "%.*s", (int)cut, line);
        if (len > 0)
            cJSON_AddItemToArray(arr, cJSON_CreateString(buf));
        line += len + (nl != NULL);
    }
}

double zc__json_number_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

zc_status zc__json_give(cJSON *doc, const char *what, cJSON **doc_p)
{
    if (doc == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: out of memory building the JSON document", what);
    *doc_p = doc;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_json_add_number(cJSON *o, const char *name, double v)
{
    ZC_REQUIRE_ARG(o);
    ZC_REQUIRE_ARG(name);
    cJSON *added =
        isfinite(v) ? cJSON_AddNumberToObject(o, name, v) : cJSON_AddNullToObject(o, name);
    return added != NULL ? ZC_OK : ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_json_add_number: %s", name);
}

cJSON *zc__json_stats(const zc_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddNumberToObject(o, "count", (double)s->count);
    (void)zc_json_add_number(o, "min", s->min);
    (void)zc_json_add_number(o, "max", s->max);
    (void)zc_json_add_number(o, "mean", s->mean);
    (void)zc_json_add_number(o, "stddev", s->stddev);
    (void)zc_json_add_number(o, "cov", s->cov);
    /* The same figure under both names: bench documents said median, stream documents p50. */
    (void)zc_json_add_number(o, "median", s->median);
    (void)zc_json_add_number(o, "p50", s->median);
    (void)zc_json_add_number(o, "p90", s->p90);
    (void)zc_json_add_number(o, "p99", s->p99);
    (void)zc_json_add_number(o, "p999", s->p999);
    return o;
}

ZC_EXTERN zc_status zc_stats_to_json(const zc_stats *s, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(s);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__json_stats(s), "zc_stats_to_json", doc_p);
}
