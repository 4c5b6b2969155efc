/* SPDX-License-Identifier: Apache-2.0 */
/* The ceiling zc trace holds copies against, read from a zc bench --json document. */
#include "zerocopy/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"
#include "json/json_internal.h"

/* Case-insensitive strstr for short ASCII keys, in ASCII whatever the locale. */
static int zc__contains(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (; *text != '\0'; text++) {
        size_t i = 0;
        while (i < n && text[i] != '\0' &&
               zc__ascii_lower((unsigned char)text[i]) == zc__ascii_lower((unsigned char)word[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* True when one of the object's string values names a pinned host<->device copy. */
static int zc__names_pinned_copy(const cJSON *object)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, object)
    {
        if (cJSON_IsString(item) && zc__contains(item->valuestring, "pinned") &&
            (zc__contains(item->valuestring, "h2d") || zc__contains(item->valuestring, "d2h")))
            return 1;
    }
    return 0;
}

/* Largest "*gbps*" number directly in object, or inside one level of plain objects ("stats"). */
static double zc__gbps_in(const cJSON *object, int depth)
{
    double best = 0.0;
    const cJSON *item;
    cJSON_ArrayForEach(item, object)
    {
        if (cJSON_IsNumber(item) && item->string != NULL && zc__contains(item->string, "gbps") &&
            item->valuedouble > best)
            best = item->valuedouble;
        else if (cJSON_IsObject(item) && depth < 1) {
            double inner = zc__gbps_in(item, depth + 1);
            best = inner > best ? inner : best;
        }
    }
    return best;
}

/* zerocopy.bench/1 (docs/json.md): the best median of the bandwidth points of the pinned
 * H2D and D2H copy cases that ran and verified their data. */
static double zc__bench_cases(const cJSON *doc)
{
    double best = 0.0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        const char *technique = cJSON_GetStringValue(cJSON_GetObjectItem(c, "technique"));
        const char *direction = cJSON_GetStringValue(cJSON_GetObjectItem(c, "direction"));
        const char *group = cJSON_GetStringValue(cJSON_GetObjectItem(c, "group"));
        const char *outcome = cJSON_GetStringValue(cJSON_GetObjectItem(c, "outcome"));
        if (technique == NULL || direction == NULL || strcmp(technique, "pinned") != 0 ||
            (strcmp(direction, "h2d") != 0 && strcmp(direction, "d2h") != 0) ||
            (group != NULL && strcmp(group, "copy") != 0) ||
            (outcome != NULL && strcmp(outcome, "ok") != 0))
            continue;
        const cJSON *point;
        cJSON_ArrayForEach(point, cJSON_GetObjectItem(c, "points"))
        {
            const char *metric = cJSON_GetStringValue(cJSON_GetObjectItem(point, "metric"));
            const cJSON *median =
                cJSON_GetObjectItem(cJSON_GetObjectItem(point, "stats"), "median");
            if (metric != NULL && strcmp(metric, "bandwidth") == 0 && cJSON_IsNumber(median) &&
                median->valuedouble > best)
                best = median->valuedouble;
        }
    }
    return best;
}

static double zc__ceiling(const cJSON *doc)
{
    double cases = zc__bench_cases(doc);
    if (cases > 0.0)
        return cases;
    double best = 0.0;
    if (cJSON_IsObject(doc) && zc__names_pinned_copy(doc)) {
        double here = zc__gbps_in(doc, 0);
        best = here > best ? here : best;
    }
    const cJSON *item;
    cJSON_ArrayForEach(item, doc)
    {
        if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
            double inner = zc__ceiling(item);
            best = inner > best ? inner : best;
        }
    }
    return best;
}

ZC_EXTERN zc_status zc_bench_copy_ceiling_from_json(const cJSON *doc, double *gbps_p)
{
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(gbps_p);
    ZC_CHECK(zc__json_check_keys(doc, "bench document"));
    *gbps_p = zc__ceiling(doc);
    return ZC_OK;
}
