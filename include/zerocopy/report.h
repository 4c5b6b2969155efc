/* SPDX-License-Identifier: Apache-2.0 */
/* The report: one self-contained HTML page (every picture embedded) from bench, stream,
 * profile, pinning and info documents: the machine, the techniques compared, plots drawn by
 * gnuplot, the picture of the techniques drawn by graphviz (dot), advice for typical workloads.
 * Not part of the umbrella header: include it, and link cJSON, to use it. */
#ifndef ZEROCOPY_REPORT_H
#define ZEROCOPY_REPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"
#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* Most documents of one kind a report takes (stream results, benches, multi-GPU streams). */
#define ZC_REPORT_MAX_DOCS 32

/*
 * The first input value found out of range, with the file and field it came from. Set while
 * the page is built; a page drawn from such input must not be shown (zc report writes
 * nothing and exits 2 with why).
 */
typedef struct zc_report_bad {
    int set;
    char why[384];
} zc_report_bad;

/* One input document and the name the page gives it. */
typedef struct zc_report_doc {
    const cJSON *doc;
    const char *path; /* as given on the command line; "-" for stdin */
    char name[160];   /* the shortest ending of path that tells the documents of a kind apart */
} zc_report_doc;

/* Everything the report is drawn from. */
typedef struct zc_report_input {
    zc_profile measured; /* figures as measured (gaps left at 0) */
    zc_profile profile;  /* the same, completed for the model */
    char notes[2048];    /* what completing it assumed */
    int have_profile;
    const cJSON *machine;     /* zc info document of the bench run; NULL when none */
    const char *machine_path; /* the file it came from, for messages */
    const cJSON *bench;       /* the bench document the profile comes from; NULL when none */
    const char *bench_path;
    const cJSON *pinning; /* measure_pinning's document ("zerocopy.pinning.v1"); NULL when none */
    zc_report_doc benches[ZC_REPORT_MAX_DOCS]; /* every bench (their multi-GPU groups) */
    size_t bench_count;
    zc_report_doc streams[ZC_REPORT_MAX_DOCS]; /* zerocopy.stream/1 */
    size_t stream_count;
    zc_report_doc multis[ZC_REPORT_MAX_DOCS]; /* zerocopy.stream-multi/1 */
    size_t multi_count;
    char sources[2048];  /* the input files, comma-separated */
    char warnings[2048]; /* what was set aside, one line each ("<file>: <why>") */
    zc_report_bad *bad;  /* where an out-of-range value is recorded; never NULL */
    zc_report_doc traces[ZC_REPORT_MAX_DOCS]; /* zerocopy.trace/1 (priced on the profile) and
                                                 zerocopy.advise-trace/1 (as advised) */
    size_t trace_count;
} zc_report_input;

/* What became of one picture the page asked a tool for. */
typedef enum zc_report_outcome {
    ZC_REPORT_DRAWN = 0,
    ZC_REPORT_NO_TOOL, /* the tool is not installed, or turned off (ZC_GNUPLOT=none, ZC_DOT=none):
                          pictures are optional, the page says so in their place */
    ZC_REPORT_FAILED   /* the tool ran and failed, wrote no SVG, or took too long */
} zc_report_outcome;

/* Most pictures a page has (its plots and the picture of the techniques). */
#define ZC_REPORT_MAX_PICTURES 16

/* One picture the inputs had data for; a plot without data is not asked for, not listed. */
typedef struct zc_report_picture {
    const char *id;   /* the page's figure-<id>: "copy-h2d", "crossover", ..., "picture" */
    const char *tool; /* "gnuplot" (the plots) or "dot" (the picture) */
    zc_report_outcome outcome;
    char why[256]; /* why it was not drawn ("gnuplot exited with 1: line 3: ..."); "" if drawn */
} zc_report_picture;

/* Every picture of a page, in the page's order. */
typedef struct zc_report_pictures {
    size_t count;
    zc_report_picture picture[ZC_REPORT_MAX_PICTURES];
} zc_report_pictures;

ZC_BEGIN_DECLS

/* An empty input whose out-of-range values are recorded in bad (cleared here). */
ZC_EXTERN zc_status zc_report_input_init(zc_report_input *in, zc_report_bad *bad);

/*
 * Add one document, told apart by its schema, its sizes checked before any figure is taken from
 * it. path names it ("-": stdin) and, like doc, must outlive in. A document the page cannot use
 * in full is kept as far as it can be, with a line in in->warnings. ZC_ERR_PARSE, naming the
 * file and why: an unknown schema, a value out of range, a profile document with no usable
 * profile; ZC_ERR_INVALID_ARG for NULL.
 */
ZC_EXTERN zc_status zc_report_input_add(zc_report_input *in, const char *path, const cJSON *doc);

/* After the last input: give each stream and bench document its name for the page. */
ZC_EXTERN zc_status zc_report_input_finish(zc_report_input *in);

/*
 * The whole page into *page_p (malloc'd, NUL-terminated; free() it), *len_p (may be NULL) its
 * length. Runs gnuplot and dot (ZC_GNUPLOT and ZC_DOT name others, "none" for neither), each
 * bounded in time; a tool that is missing or fails leaves its place on the page saying why, and
 * *pictures_p (may be NULL) gets what became of every picture, for the caller to say and judge
 * (zc report's rule: README, the zc report row). An out-of-range input value found on the
 * way is recorded in in->bad. ZC_ERR_NO_MEMORY when out of memory.
 */
ZC_EXTERN zc_status zc_report_html(const zc_report_input *in, const char *title, char **page_p,
                                   size_t *len_p, zc_report_pictures *pictures_p);

/* The picture of the techniques in graphviz's language (malloc'd), labelled with the measured
 * figures and the machine's PCIe link. */
ZC_EXTERN zc_status zc_report_picture_dot(const zc_report_input *in, char **dot_p);

ZC_END_DECLS

#endif
