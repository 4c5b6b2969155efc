/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the one definition of the zc trace log, shared by the injection library that writes
 * it and the analysis that reads it. Each record kind has one writer and one reader here. */
#ifndef ZC_TRACE_RECORD_H
#define ZC_TRACE_RECORD_H

#if defined(ZC_PART) && !defined(ZC_SEES_trace)
#error "src/trace/ included from below trace: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>
#include <stdio.h>

#include "zerocopy/trace.h"

/*
 * The log is plain text, one record a line, so that people and tests can read and write it by
 * hand (docs/pitfalls.md describes each field). Version 2 added the fields and records marked
 * (v2), version 3 the api call hostcopy (a host copy: "drv" in its last field); the reader takes
 * versions 1 to 3.
 *   zctrace <version> pid=<pid> ram=<bytes>
 *   copy <dir> <src kind> <dst kind> <bytes> <start ns> <end ns> <stream> <async 0|1> <device>
 *   memset <mem kind> <bytes> <start ns> <end ns> <stream> <async 0|1>
 *   kernel <start ns> <end ns> <stream> <name> [<correlation> (v2)]
 *   um <counter> <value> <start ns> <end ns>
 *   api <call> <bytes> <flags> <pointer hex> <start ns> <end ns> <ok 0|1> <rt|drv>
 *   launch <correlation> <time ns> <name> <allocation hex>...   (v2)
 *   launches <runtime launches> <inspected> <failed>             (v2, before end)
 *   note <key> <free text>
 *   dropped <records>
 *   end
 * A launch record names the allocations (by their host pointer) that a kernel's arguments
 * pointed into: pinned host memory and managed memory, at most ZC_TRACE_LAUNCH_RANGES.
 */
#define ZC__TRACE_LOG_VERSION 3
#define ZC__TRACE_LINE_MAX    1024

/* The longest kernel name written on a kernel record (one word: see zc__trace_word). */
#define ZC__TRACE_KERNEL_NAME_MAX 160

/* Index of word in the names of a kind, or -1. */
int zc__trace_dir_lookup(const char *word);
int zc__trace_mem_lookup(const char *word);
int zc__trace_um_lookup(const char *word);
int zc__trace_call_lookup(const char *word);
const char *zc__trace_um_name(zc_trace_um_counter counter);

/* A name made one word for the log: printable characters other than spaces, at most size - 1
 * of them ("?" when empty). */
void zc__trace_word(const char *name, char *out, size_t size);

/* Writers: each prints one whole line, newline included. */
void zc__trace_write_header(FILE *f, long pid, unsigned long long ram);
void zc__trace_write_copy(FILE *f, const zc_trace_copy *r, unsigned device);
void zc__trace_write_memset(FILE *f, const zc_trace_memset *r);
void zc__trace_write_kernel(FILE *f, const zc_trace_kernel *r, const char *name);
void zc__trace_write_um(FILE *f, const zc_trace_um *r);
void zc__trace_write_api(FILE *f, const zc_trace_api *r);
void zc__trace_write_launch(FILE *f, const zc_trace_launch *r);
void zc__trace_write_launches(FILE *f, uint64_t runtime, uint64_t inspected, uint64_t failed);
void zc__trace_write_note(FILE *f, const char *key, const char *text);
void zc__trace_write_dropped(FILE *f, uint64_t records);
void zc__trace_write_end(FILE *f);

/* What one line held. */
typedef enum zc__trace_tag {
    ZC__TRACE_BLANK,
    ZC__TRACE_COPY,
    ZC__TRACE_MEMSET,
    ZC__TRACE_KERNEL,
    ZC__TRACE_UM,
    ZC__TRACE_API,
    ZC__TRACE_LAUNCH,
    ZC__TRACE_LAUNCHES,
    ZC__TRACE_NOTE,
    ZC__TRACE_DROPPED,
    ZC__TRACE_END
} zc__trace_tag;

typedef struct zc__trace_line {
    zc__trace_tag tag;
    union {
        zc_trace_copy copy;
        zc_trace_memset memset;
        zc_trace_kernel kernel;
        zc_trace_um um;
        zc_trace_api api;
        zc_trace_launch launch;
        struct {
            uint64_t runtime, inspected, failed;
        } launches;
        struct {
            char key[64];
            char text[200];
        } note;
        uint64_t dropped;
    } u;
} zc__trace_line;

/* The reader: parse one record line (no header) into *out. ZC_ERR_PARSE with what is wrong in
 * why (a phrase) when it is not a record. */
zc_status zc__trace_parse(const char *line, zc__trace_line *out, char *why, size_t why_size);

/* The header line: its version and RAM; ZC_ERR_PARSE with why when it is not one this reads. */
zc_status zc__trace_parse_header(const char *line, long *pid_p, unsigned long long *ram_p,
                                 char *why, size_t why_size);

#endif
