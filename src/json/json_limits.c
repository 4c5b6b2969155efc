/* SPDX-License-Identifier: Apache-2.0 */
/* The most a JSON document zc reads may hold, checked on its text before cJSON parses it: cJSON
 * builds a 64-byte node per value, so 64 MiB of small numbers would take gigabytes. */
#include "zerocopy/json.h"

#include <string.h>

#include "core/error.h"

/* A string that holds a NUL character: cJSON's strings end at the first, so the rest would be
 * lost without a word ("GPU\u0000x" read as "GPU"). key: the key, or the key of the value. */
static zc_status zc__nul(const char *what, int is_key, const char *key, size_t key_len)
{
    if (key == NULL)
        return ZC_FAIL(ZC_ERR_PARSE,
                       "%s: a string holds a NUL character (\\u0000), which zc does "
                       "not read",
                       what);
    /* The key as written, cut before its NUL (a raw one would end it anyway). */
    size_t shown = 0;
    while (shown < key_len && shown < 60 && key[shown] != '\0' &&
           !(key[shown] == '\\' && key_len - shown > 5 && key[shown + 1] == 'u' &&
             memcmp(key + shown + 2, "0000", 4) == 0))
        shown += key[shown] == '\\' && shown + 1 < key_len ? 2 : 1;
    return ZC_FAIL(
        ZC_ERR_PARSE, "%s: %s \"%.*s%s\" holds a NUL character (\\u0000), which zc does not read",
        what, is_key ? "the key" : "the string of", (int)shown, key, is_key ? "..." : "");
}

ZC_EXTERN zc_status zc_json_check_limits(const char *text, size_t len, const char *name,
                                         size_t *values_p)
{
    if (text == NULL && len > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_json_check_limits: text is NULL");
    const char *what = name != NULL ? name : "the document";
    /*
     * Of a JSON document, every object, array, string, number, true, false and null is a value
     * except the strings that are keys, one before each ':'. The scan counts them so, skipping
     * what is inside strings, without judging the syntax (cJSON does, after): on JSON it counts
     * what cJSON would build, on anything else some number that is never more than the bytes.
     * While a key waits for its ':' the count is one ahead: the limit is passed only when the
     * count is two past it.
     */
    size_t tokens = 0, colons = 0, depth = 0, key_len = 0;
    const char *key = NULL; /* the last key read, for naming the field of a string */
    int in_scalar = 0;
    for (size_t i = 0; i < len; i++) {
        const char c = text[i];
        if (c == '"') {
            tokens++;
            in_scalar = 0;
            const size_t start = i + 1;
            int nul = 0;
            for (i++; i < len && text[i] != '"'; i++) {
                nul |= text[i] == '\0' || (text[i] == '\\' && len - i > 5 && text[i + 1] == 'u' &&
                                           memcmp(text + i + 2, "0000", 4) == 0);
                i += text[i] == '\\';
            }
            const size_t end = i < len ? i : len;
            /* A key is the string before a ':'. */
            size_t after = end + 1;
            while (after < len && (text[after] == ' ' || text[after] == '\t' ||
                                   text[after] == '\n' || text[after] == '\r'))
                after++;
            const int is_key = after < len && text[after] == ':';
            if (nul)
                return zc__nul(what, is_key, is_key ? text + start : key,
                               is_key ? end - start : key_len);
            if (is_key) {
                key = text + start;
                key_len = end - start;
            }
        } else if (c == '{' || c == '[') {
            tokens++;
            in_scalar = 0;
            if (++depth > ZC_JSON_DEPTH_MAX)
                return ZC_FAIL(ZC_ERR_PARSE, "%s nests deeper than %d (the most zc reads)", what,
                               ZC_JSON_DEPTH_MAX);
        } else if (c == '}' || c == ']') {
            depth -= depth > 0;
            in_scalar = 0;
        } else if (c == ':') {
            colons++;
            in_scalar = 0;
        } else if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            in_scalar = 0;
        } else if (!in_scalar) {
            tokens++; /* a number, true, false or null starts */
            in_scalar = 1;
        }
        if (tokens > colons && tokens - colons > (size_t)ZC_JSON_VALUES_MAX + 1)
            break;
    }
    const size_t values = tokens > colons ? tokens - colons : 0;
    if (values > ZC_JSON_VALUES_MAX)
        return ZC_FAIL(ZC_ERR_PARSE, "%s has more than %d JSON values (the most zc reads)", what,
                       ZC_JSON_VALUES_MAX);
    if (values_p != NULL)
        *values_p = values;
    return ZC_OK;
}
