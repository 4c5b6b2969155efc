/* SPDX-License-Identifier: Apache-2.0 */
/* The most a JSON document zc reads may hold, checked on its text before it is parsed: a scan
 * that needs no cJSON (zerocopy/json.h has the documents themselves). */
#ifndef ZEROCOPY_JSON_LIMITS_H
#define ZEROCOPY_JSON_LIMITS_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/*
 * The most values (objects, arrays, strings, numbers, true, false, null; keys are not values)
 * and the deepest nesting of a JSON document zc reads. The largest legitimate document, a full
 * zc bench run with --sizes of 64 sizes and 1000 samples kept per latency point, holds some
 * 350 000 values (the largest measured, bench/results, 33 000) and nests 7 deep; a cJSON tree
 * of the limit takes some 320 MB (measured), one of 64 MiB of small numbers took 2.6 GB.
 */
#define ZC_JSON_VALUES_MAX 4000000
#define ZC_JSON_DEPTH_MAX  100

ZC_BEGIN_DECLS

/*
 * Check the text of a JSON document (len bytes) against those limits before it is parsed: a
 * scan of the text, with no allocation, that counts what cJSON would build. *values_p (may be
 * NULL): how many values. ZC_ERR_PARSE "<name> has more than 4000000 JSON values (the most zc
 * reads)" or "<name> nests deeper than 100 ..." (name NULL: "the document"); ZC_ERR_PARSE too
 * for a string or key that holds a NUL character (\u0000 or a raw NUL byte), which cJSON's C
 * strings would cut, naming the key or the key of the string; the syntax itself is cJSON's to
 * judge, after. ZC_ERR_INVALID_ARG for NULL text with len > 0.
 */
ZC_EXTERN zc_status zc_json_check_limits(const char *text, size_t len, const char *name,
                                         size_t *values_p);

ZC_END_DECLS

#endif
