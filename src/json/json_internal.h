/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: pieces every JSON document of the library shares. */
#ifndef ZC_JSON_INTERNAL_H
#define ZC_JSON_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_json)
#error "src/json/ included from below json: DESIGN.md's layers (src/CMakeLists.txt)"
/* zc trace's copies in power-of-two size classes as doc's "copy_classes" (trace_classes_json.c);
 * 0 when out of memory. */
struct zc_trace_log;
int zc__trace_copy_classes_json(cJSON *doc, const struct zc_trace_log *log);

#endif

#include <stddef.h>

#include <cjson/cJSON.h>

#include "zerocopy/status.h"

/* The largest byte count a profile or workload may name: 1 PiB (2^50). */
#define ZC__JSON_BYTES_MAX 1125899906842624.0

/* A JSON number as a byte count or count: whole, 0 <= v <= max; 0 otherwise (1.5, -1, 1e300
 * are refused instead of being cast, which is undefined behaviour out of range). */
int zc__json_double_to_size(double v, double max, size_t *value_p);

/* Each line of text as a string of arr, cut at 255 bytes (before a whole UTF-8 character);
 * nothing for NULL. */
void zc__json_add_lines(cJSON *arr, const char *text);

/* The number field name of o; NAN when absent or not a finite number. */
double zc__json_number_of(const cJSON *o, const char *name);

/* *doc_p = doc, or ZC_ERR_NO_MEMORY naming what when doc is NULL (cJSON ran out of memory). */
zc_status zc__json_give(cJSON *doc, const char *what, cJSON **doc_p);

/* The stats object of s, NULL when out of memory (zc_stats_to_json without the status). */
struct zc_stats;
cJSON *zc__json_stats(const struct zc_stats *s);

/* The "zerocopy.info/1" document (zc_info_to_json without the checks), for a bench document's
 * "machine". */
struct zc_device_info;
struct zc_peer_link;
cJSON *zc__info_doc(const struct zc_device_info *infos, int count, const struct zc_peer_link *peers,
                    int peer_count);

/* zc trace's copies in power-of-two size classes as doc's "copy_classes" (trace_classes_json.c);
 * 0 when out of memory. */
struct zc_trace_log;
int zc__trace_copy_classes_json(cJSON *doc, const struct zc_trace_log *log);

#endif
