/* SPDX-License-Identifier: Apache-2.0 */
/* Every string of a document made valid UTF-8 before it is printed: names from outside (programs,
 * kernels, files, devices, trace logs) are bytes, and one stray byte makes the whole printed
 * document unreadable to a JSON reader. */
#include "zerocopy/json.h"

#include <string.h>

#include "core/error.h"
#include "core/text.h"

/* *text_p valid UTF-8: a new copy (cJSON's allocator, as cJSON frees it) when it was not. 1 when
 * replaced, 0 when it was valid, -1 out of memory (left as it was). */
static int zc__fix(char **text_p)
{
    const size_t len = strlen(*text_p);
    if (zc_utf8_valid(*text_p, len))
        return 0;
    size_t need = 0;
    (void)zc_text_clean(*text_p, len, ZC_TEXT_UTF8, NULL, 0, &need);
    char *fixed = cJSON_malloc(need + 1);
    if (fixed == NULL)
        return -1;
    (void)zc_text_clean(*text_p, len, ZC_TEXT_UTF8, fixed, need + 1, NULL);
    *text_p = fixed;
    return 1;
}

/* item, its key and everything under it; *fixed_p counts. 0 when out of memory. */
static int zc__sanitize(cJSON *item, size_t *fixed_p)
{
    for (; item != NULL; item = item->next) {
        if (item->string != NULL) {
            char *old = item->string;
            int r = zc__fix(&item->string);
            if (r < 0)
                return 0;
            if (r > 0) {
                /* A constant key was not the item's to free; the new one is. */
                if (!(item->type & cJSON_StringIsConst))
                    cJSON_free(old);
                item->type &= ~cJSON_StringIsConst;
                (*fixed_p)++;
            }
        }
        if ((cJSON_IsString(item) || cJSON_IsRaw(item)) && item->valuestring != NULL) {
            char *old = item->valuestring;
            int r = zc__fix(&item->valuestring);
            if (r < 0)
                return 0;
            if (r > 0) {
                /* A string reference pointed at the caller's bytes, left alone; the copy is
                 * the item's own. */
                if (!(item->type & cJSON_IsReference))
                    cJSON_free(old);
                item->type &= ~cJSON_IsReference;
                (*fixed_p)++;
            }
        }
        if (item->child != NULL && !zc__sanitize(item->child, fixed_p))
            return 0;
    }
    return 1;
}

ZC_EXTERN zc_status zc_json_sanitize(cJSON *doc, size_t *fixed_p)
{
    ZC_REQUIRE_ARG(doc);
    size_t fixed = 0;
    /* The document itself is one item: its siblings, if it has any, are not its to change. */
    cJSON *next = doc->next;
    doc->next = NULL;
    int ok = zc__sanitize(doc, &fixed);
    doc->next = next;
    if (fixed_p != NULL)
        *fixed_p = fixed;
    if (!ok)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_json_sanitize: out of memory after %zu strings",
                       fixed);
    return ZC_OK;
}
