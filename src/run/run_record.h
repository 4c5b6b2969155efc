/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the one definition of the zc run log, shared by the interposition library that
 * writes it (one "<pid>.run" per process, at exit) and the library that reads it. */
#ifndef ZC_RUN_RECORD_H
#define ZC_RUN_RECORD_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>
#include <stdio.h>

#include "zerocopy/run.h"

/*
 * Plain text, one record a line, so that people and tests can read and write it by hand:
 *   zcrun <version> pid=<pid> fixes=<bits> threads=<n> chunk=<bytes> buffers=<n>
 *         min=<bytes> min_d2h=<bytes>
 *   count <counter name> <calls> <bytes> <ns> <uncured ns> <pricing name>
 *   end
 * A counter with no calls is not written.
 */
#define ZC__RUN_LOG_VERSION 1
#define ZC__RUN_LINE_MAX    512

/* The names, from the tables of zerocopy/run.h; "unknown" out of range. */
const char *zc__run_fix_name(zc_run_fix fix);
const char *zc__run_counter_name(zc_run_counter counter);
const char *zc__run_counter_meaning(zc_run_counter counter);
int zc__run_counter_cured(zc_run_counter counter);
zc_run_fix zc__run_counter_fix(zc_run_counter counter);
const char *zc__run_pricing_name(zc_run_pricing pricing);

/* A comma-separated list of cure names, "all" or "none": 0 and *fixes_p, or -1 with the first
 * name not known in *bad_p (not terminated) and its length in *bad_length_p. */
int zc__run_fixes_from_list(const char *list, unsigned *fixes_p, const char **bad_p,
                            size_t *bad_length_p);

/* What a process ran with (the header's fields). */
typedef struct zc__run_header {
    long pid;
    unsigned fixes;
    unsigned threads;
    uint64_t chunk_bytes;
    unsigned staging_buffers;
    uint64_t min_bytes;     /* host to device */
    uint64_t min_d2h_bytes; /* device to host */
} zc__run_header;

/* Writers: each prints one whole line, newline included. */
void zc__run_write_header(FILE *f, const zc__run_header *h);
void zc__run_write_count(FILE *f, zc_run_counter counter, const zc_run_count *c);
void zc__run_write_end(FILE *f);

/* What one line held. */
typedef enum zc__run_tag { ZC__RUN_BLANK, ZC__RUN_HEADER, ZC__RUN_COUNT, ZC__RUN_END } zc__run_tag;

typedef struct zc__run_line {
    zc__run_tag tag;
    zc__run_header header;
    zc_run_counter counter;
    zc_run_count count;
} zc__run_line;

/* Parse one line (newline optional): 0 and *line_p, or -1 when it is not a record. */
int zc__run_parse_line(const char *text, zc__run_line *line_p);

#endif
