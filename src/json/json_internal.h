/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: pieces every JSON document of the library shares. */
#ifndef ZC_JSON_INTERNAL_H
#define ZC_JSON_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_json)
#error "src/json/ included from below json: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include <cjson/cJSON.h>

#include "zerocopy/bench.h"
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

/* The checks every reader makes of a document it is given (json_read.c). */

/* ZC_ERR_PARSE when an object anywhere in doc has a key twice (cJSON keeps both and a reader
 * would take the first): the detail names what (the document), the object's place and the key. */
zc_status zc__json_check_keys(const cJSON *doc, const char *what);

/* The type a field of a document is written as. */
typedef enum zc__json_type {
    ZC__JSON_TEXT,   /* a string */
    ZC__JSON_WHOLE,  /* a whole number from 0 to 2^53 (a count, a byte count) */
    ZC__JSON_NUMBER, /* a finite number */
    ZC__JSON_BOOL,
    ZC__JSON_OBJECT,
    ZC__JSON_ARRAY,
} zc__json_type;

/* One field of an object a reader takes: its key, its type, and whether null stands for it. */
typedef struct zc__json_field {
    const char *key;
    zc__json_type type;
    int nullable;
} zc__json_field;

/* ZC_ERR_PARSE when a field of rows that object o has is not of its type ("device_name": 5 where
 * a string is written): the detail names what (the document), where (the object in it; may be
 * NULL or "") and the field, what it is and what it should be. An absent field, and o not an
 * object, are the reader's to judge. */
zc_status zc__json_check_fields(const cJSON *o, const zc__json_field *rows, size_t count,
                                const char *what, const char *where);

/* A bench, stream or trace document checked as a whole before a figure is taken from it: its
 * keys, the type of every field its reader or the report takes, and (a trace document) its
 * figures against each other and against what a clock can measure. ZC_ERR_PARSE naming what,
 * the field and the fault. */
zc_status zc__bench_doc_check(const cJSON *doc, const char *what);
zc_status zc__stream_doc_check(const cJSON *doc, const char *what);
zc_status zc__trace_doc_check(const cJSON *doc, const char *what);

/* A checked bench document's measured cases ("ok", a known key) as results, *count_p of them
 * (each freed with zc_bench_result_clear, the array with free); NULL when out of memory. */
zc_bench_result *zc__bench_results_from_json(const cJSON *doc, size_t *count_p);

/* The same for a reader of one family, caller (its public name): ZC_ERR_PARSE when doc is not a
 * ZC_BENCH_SCHEMA document (the detail ends with comes_from, where such a document comes from),
 * the document's own check, then its measured cases into *rs_p and *count_p. */
zc_status zc__bench_doc_results(const cJSON *doc, const char *caller, const char *comes_from,
                                zc_bench_result **rs_p, size_t *count_p);

/* Free count results read by zc__bench_results_from_json, and the array. */
void zc__bench_results_free(zc_bench_result *rs, size_t count);

#define ZC__JSON_FIELDS(o, rows, what, where)                                                      \
    zc__json_check_fields((o), (rows), sizeof(rows) / sizeof((rows)[0]), (what), (where))

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
