/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the inputs' JSON: numbers made integers only after a range check (a cast of a double
 * out of the target's range is undefined behaviour, and 1e30 in a result is bad input, not a
 * size), and the cases of a bench document. */
#include "report/report_page.h"

#include <math.h>
#include <string.h>

/* The largest size the report accepts, 1 PiB: more than any host or GPU holds. */
#define ZC__SIZE_MAX_ACCEPTED 1125899906842624.0

static void zc__record(zc_report_bad *bad, const char *where, const char *field, double v,
                       const char *what)
{
    if (bad == NULL || bad->set)
        return;
    bad->set = 1;
    snprintf(bad->why, sizeof bad->why, "%s: %s = %.17g %s", where != NULL ? where : "input", field,
             v, what);
}

int zc__report_integer(double v, double min, double max, const char *where, const char *field,
                       zc_report_bad *bad, long long *out_p)
{
    if (!isfinite(v) || v < min || v > max) {
        char what[96];
        snprintf(what, sizeof what, "is out of range (%.0f to %.0f)", min, max);
        zc__record(bad, where, field, v, what);
        return 0;
    }
    /* In range, and the range within +-2^53: the conversion is defined, and exact for a whole
     * number. */
    long long n = (long long)v;
    if ((double)n != v) {
        zc__record(bad, where, field, v, "is not a whole number");
        return 0;
    }
    *out_p = n;
    return 1;
}

int zc__report_size(double v, const char *where, const char *field, zc_report_bad *bad,
                    size_t *out_p)
{
    long long n = 0;
    if (!zc__report_integer(v, 0.0, ZC__SIZE_MAX_ACCEPTED, where, field, bad, &n))
        return 0;
    *out_p = (size_t)n;
    return 1;
}

double zc__report_num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const cJSON *zc__report_bench_case(const cJSON *bench, const char *key)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(bench, "cases"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "key");
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(c, "outcome");
        if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0)
            return cJSON_IsString(o) && strcmp(o->valuestring, "ok") == 0 ? c : NULL;
    }
    return NULL;
}
