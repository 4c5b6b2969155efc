/* SPDX-License-Identifier: Apache-2.0 */
/* The most a JSON document zc reads may hold, checked on its text before cJSON parses it: cJSON
 * builds a 64-byte node per value, so 64 MiB of small numbers would take gigabytes. */
#include "zerocopy/json.h"

#include "core/error.h"

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
    size_t tokens = 0, colons = 0, depth = 0;
    int in_scalar = 0;
    for (size_t i = 0; i < len; i++) {
        const char c = text[i];
        if (c == '"') {
            tokens++;
            in_scalar = 0;
            for (i++; i < len && text[i] != '"'; i++)
                i += text[i] == '\\';
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
