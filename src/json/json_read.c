/* SPDX-License-Identifier: Apache-2.0 */
/* What every reader of the library's documents asks of a document before it takes a figure from
 * it: no object with a key twice, and each field it reads of the type it is written as. */
#include "json/json_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"

/* Above this many keys an object's names are sorted to find a repeat; below, compared pairwise. */
#define ZC__KEYS_PAIRWISE 16

static int zc__name_order(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The key of object o that appears twice, or NULL; *failed_p when out of memory. */
static const char *zc__repeated_key(const cJSON *o, int *failed_p)
{
    size_t n = 0;
    for (const cJSON *c = o->child; c != NULL; c = c->next)
        n++;
    if (n <= ZC__KEYS_PAIRWISE) {
        for (const cJSON *a = o->child; a != NULL; a = a->next)
            for (const cJSON *b = a->next; b != NULL; b = b->next)
                if (a->string != NULL && b->string != NULL && strcmp(a->string, b->string) == 0)
                    return a->string;
        return NULL;
    }
    const char **names = malloc(n * sizeof *names);
    if (names == NULL) {
        *failed_p = 1;
        return NULL;
    }
    size_t k = 0;
    for (const cJSON *c = o->child; c != NULL; c = c->next)
        if (c->string != NULL)
            names[k++] = c->string;
    qsort(names, k, sizeof *names, zc__name_order);
    const char *repeated = NULL;
    for (size_t i = 1; i < k && repeated == NULL; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            repeated = names[i];
    free(names);
    return repeated;
}

/* Every object under v, its place in path (used bytes of size). */
static zc_status zc__tree(const cJSON *v, const char *what, char *path, size_t used, size_t size)
{
    if (cJSON_IsObject(v)) {
        int failed = 0;
        const char *key = zc__repeated_key(v, &failed);
        if (failed)
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: out of memory checking its keys", what);
        if (key != NULL)
            return ZC_FAIL(ZC_ERR_PARSE,
                           "%s: the object %s%s has the key \"%.80s\" twice (a document may "
                           "name a field once)",
                           what, used > 0 ? "at " : "at the top", path, key);
    }
    size_t i = 0;
    for (const cJSON *c = v->child; c != NULL; c = c->next, i++) {
        int n = cJSON_IsObject(v) && c->string != NULL
                    ? snprintf(path + used, size - used, "%s%.40s", used > 0 ? "." : "", c->string)
                    : snprintf(path + used, size - used, "[%zu]", i);
        size_t next = n > 0 && (size_t)n < size - used ? used + (size_t)n : size - 1;
        ZC_CHECK(zc__tree(c, what, path, next, size));
        path[used] = '\0';
    }
    return ZC_OK;
}

zc_status zc__json_check_keys(const cJSON *doc, const char *what)
{
    char path[256] = "";
    return zc__tree(doc, what != NULL ? what : "the document", path, 0, sizeof path);
}

static const char *zc__type_name(const cJSON *v)
{
    return cJSON_IsString(v)   ? "a string"
           : cJSON_IsNumber(v) ? "a number"
           : cJSON_IsBool(v)   ? "true or false"
           : cJSON_IsNull(v)   ? "null"
           : cJSON_IsArray(v)  ? "an array"
           : cJSON_IsObject(v) ? "an object"
                               : "not a JSON value";
}

static const char *zc__wanted(zc__json_type type)
{
    switch (type) {
    case ZC__JSON_TEXT:
        return "a string";
    case ZC__JSON_WHOLE:
        return "a whole number from 0 to 2^53";
    case ZC__JSON_NUMBER:
        return "a finite number";
    case ZC__JSON_BOOL:
        return "true or false";
    case ZC__JSON_OBJECT:
        return "an object";
    case ZC__JSON_ARRAY:
        return "an array";
    }
    return "?";
}

static int zc__is(const cJSON *v, zc__json_type type)
{
    size_t unused;
    switch (type) {
    case ZC__JSON_TEXT:
        return cJSON_IsString(v);
    case ZC__JSON_WHOLE:
        return cJSON_IsNumber(v) &&
               zc__json_double_to_size(v->valuedouble, 9007199254740992.0, &unused);
    case ZC__JSON_NUMBER:
        return cJSON_IsNumber(v) && isfinite(v->valuedouble);
    case ZC__JSON_BOOL:
        return cJSON_IsBool(v);
    case ZC__JSON_OBJECT:
        return cJSON_IsObject(v);
    case ZC__JSON_ARRAY:
        return cJSON_IsArray(v);
    }
    return 0;
}

zc_status zc__json_check_fields(const cJSON *o, const zc__json_field *rows, size_t count,
                                const char *what, const char *where)
{
    if (!cJSON_IsObject(o))
        return ZC_OK;
    for (size_t i = 0; i < count; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, rows[i].key);
        if (v == NULL || (rows[i].nullable && cJSON_IsNull(v)) || zc__is(v, rows[i].type))
            continue;
        char got[64];
        if (cJSON_IsNumber(v))
            zc__snprintf_c(got, sizeof got, "%.17g", v->valuedouble);
        else
            snprintf(got, sizeof got, "%s", zc__type_name(v));
        return ZC_FAIL(ZC_ERR_PARSE, "%s: %s%s\"%s\" is %s, not %s%s", what,
                       where != NULL ? where : "", where != NULL && *where ? ": " : "", rows[i].key,
                       got, zc__wanted(rows[i].type), rows[i].nullable ? " or null" : "");
    }
    return ZC_OK;
}
