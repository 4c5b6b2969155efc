/* zc report: one self-contained HTML page from bench, stream and profile results. */
#ifndef ZC_REPORT_PAGE_H
#define ZC_REPORT_PAGE_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"

/* Everything the report is drawn from. */
typedef struct zc_report_input {
    zc_profile measured; /* figures as measured (gaps left at 0) */
    zc_profile profile;  /* the same, completed for the model */
    char notes[2048];    /* what completing it assumed */
    int have_profile;
    const cJSON *machine; /* zc info document of the bench run; NULL when none */
    const cJSON *bench;   /* the bench document; NULL when none */
    const cJSON *pinning; /* measure_pinning's document ("zerocopy.pinning.v1"); NULL when none */
    const cJSON *streams[16];
    size_t stream_count;
    char sources[2048]; /* the input files, comma-separated */
} zc_report_input;

/* A growing string. */
typedef struct zc_buf {
    char *data;
    size_t len, cap;
    int failed; /* 1 after an allocation failed; the text is then incomplete */
} zc_buf;

void zc_buf_printf(zc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void zc_buf_put(zc_buf *b, const char *text, size_t len);
void zc_buf_free(zc_buf *b);

/* Text with &, <, >, " escaped for HTML. */
void zc_buf_html(zc_buf *b, const char *text);

/*
 * Run program (found on PATH, or the path in environment variable env_override when set) with
 * args then the path of a temporary file holding input, stdout captured into *out_p (malloc'd).
 * At most timeout_s seconds. 1 on success (exit 0); 0 with why filled ("gnuplot not found",
 * "dot exited with 1: <its stderr>").
 */
int zc_report_run_tool(const char *program, const char *env_override, const char *const *args,
                       const char *input, const char *suffix, double timeout_s, char **out_p,
                       char *why, size_t why_size);

/* The gnuplot script of each plot; NULL when the input has nothing to plot (why says so). */
char *zc_report_plot_copy(const zc_report_input *in, zc_direction dir, char *why, size_t size);
char *zc_report_plot_zerocopy(const zc_report_input *in, char *why, size_t size);
char *zc_report_plot_crossover(const zc_report_input *in, char *why, size_t size);
char *zc_report_plot_latency(const zc_report_input *in, char *why, size_t size);
char *zc_report_plot_histogram(const zc_report_input *in, char *why, size_t size);
char *zc_report_plot_alloc(const zc_report_input *in, char *why, size_t size);

/* The picture of section 4.5 in graphviz's language, labelled with the profile's figures;
 * link_text names the PCIe link ("PCIe Gen5 x16, 63.0 GB/s per direction") or is NULL. */
char *zc_picture_dot(const zc_profile *profile, const char *link_text);

/* The PCIe link of the machine document as one phrase, into out; "" when unknown. */
void zc_report_link_text(const cJSON *machine, char *out, size_t size);

/* The whole page. 1 on success; 0 with why filled when out of memory. */
int zc_report_html(const zc_report_input *in, const char *title, zc_buf *page, char *why,
                   size_t why_size);

#endif
