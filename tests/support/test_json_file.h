/* SPDX-License-Identifier: Apache-2.0 */
/* Tests that read a committed JSON document: the file read and parsed, or the test failed. */
#ifndef ZC_TEST_JSON_FILE_H
#define ZC_TEST_JSON_FILE_H

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "test_support.h"

/* The document at path, parsed (the caller deletes it); a file that cannot be read or parsed
 * fails the test. */
static inline cJSON *zc_test_json_file(const char *path)
{
    size_t len = 0;
    char *text = zc_test_read_file(path, &len);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    return doc;
}

#endif
