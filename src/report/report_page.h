/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the pieces of the report page (zerocopy/report.h): growing text, checked
 * conversions, human units, the plotting tools, the plots, tables and sections. */
#ifndef ZC_REPORT_PAGE_H
#define ZC_REPORT_PAGE_H

#if defined(ZC_PART) && !defined(ZC_SEES_report)
#error "src/report/ included from below report: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"
#include "zerocopy/report.h"

/* A growing string. */
typedef struct zc__buf {
    char *data;
    size_t len, cap;
    int failed; /* 1 after an allocation failed; the text is then incomplete */
} zc__buf;

void zc__buf_printf(zc__buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void zc__buf_put(zc__buf *b, const char *text, size_t len);
void zc__buf_free(zc__buf *b);

/* Text with &, <, >, " escaped for HTML; what is not UTF-8, and control characters but tab and
 * line feed, as U+FFFD. */
void zc__buf_html(zc__buf *b, const char *text);

/* Text as one single-quoted gnuplot string, quotes included: ' doubled, line breaks and other
 * control characters as spaces, what is not UTF-8 as U+FFFD. Give the title noenhanced. */
void zc__buf_gnuplot_string(zc__buf *b, const char *text);

/* Text inside a double-quoted graphviz string (quotes not included): " and \ escaped, control
 * characters as spaces, what is not UTF-8 as U+FFFD. */
void zc__buf_dot(zc__buf *b, const char *text);

/* Checked conversions (report_json.c): a double from an input becomes an integer only here. */

/* v as an integer in [min, max] (|min|, |max| below 2^53) into *out_p; 0 when it is not one,
 * with "<where>: <field> = <v> is ..." recorded in bad (the first such value only). */
int zc__report_integer(double v, double min, double max, const char *where, const char *field,
                       zc_report_bad *bad, long long *out_p);

/* The same for a size in bytes, [0, 2^50]; fractions are not accepted either. */
int zc__report_size(double v, const char *where, const char *field, zc_report_bad *bad,
                    size_t *out_p);

/* The number field name of object o, NAN when absent or not a number. */
double zc__report_num(const cJSON *o, const char *name);

/* Human units (report_units.c). Three significant digits, never an exponent. */

/* "490 MB/s", "55.4 GB/s", "3.83 TB/s"; "-" for a rate that is not positive. 0 then. */
int zc__report_rate_text(double gbps, char *out, size_t size);

/* "81 ns", "3.14 us", "5.63 ms", "1.2 s" from microseconds; "-" (0) when not positive. */
int zc__report_time_text(double us, char *out, size_t size);

/* "4 KiB", "1.5 MiB", "256 MiB"; "-" (0) when negative or not finite. */
int zc__report_bytes_text(double bytes, char *out, size_t size);

/* v with three significant digits and no exponent ("3830", "55.4", "0.0812"). */
void zc__report_number_text(double v, char *out, size_t size);

/* Running the plotting tools (report_run.c). */

/*
 * Run program (found on PATH, or the path in environment variable env_override when set; not at
 * all, as if missing, when that is "none") with
 * args then the path of a temporary file holding input, stdout captured into *out_p (malloc'd)
 * and, when err_p is not NULL, stderr into *err_p. At most timeout_s seconds. 1 on success
 * (exit 0); 0 with why filled ("gnuplot not found", "gnuplot exited with 1: line 12: <its
 * message>") and *missing_p (may be NULL) set to 1 when the program could not be started.
 */
int zc__report_run_tool(const char *program, const char *env_override, const char *const *args,
                        const char *input, const char *suffix, double timeout_s, char **out_p,
                        char **err_p, int *missing_p, char *why, size_t why_size);

/* The plots (report_plot*.c): gnuplot scripts with their data inline, SVG terminal. */

/* A plot: its script, and the caption under it (may depend on the data). */
typedef struct zc__report_plot {
    char *script; /* NULL when the input has nothing to plot; why says so */
    char caption[768];
    char why[256];
} zc__report_plot;

/* The start of every plot's script: terminal of width x height pixels, grid, key outside right
 * of the plot area (below when key_below), missing data. */
void zc__report_plot_header(zc__buf *b, int width, int height, int key_below);

/* Log-scale tics on axis ("x" or "y") labelled in time units, for values in microseconds. */
void zc__report_plot_time_tics(zc__buf *b, const char *axis, double lo_us, double hi_us);

/* The colours of the plots, in order. */
extern const char *const zc__report_colours[];
extern const size_t zc__report_colour_count;

/* Fill plot->script (malloc'd) from b, or plot->why when b failed; b is given up either way. */
void zc__report_plot_finish(zc__report_plot *plot, zc__buf *b);

void zc__report_plot_copy(const zc_report_input *in, zc_direction dir, zc__report_plot *plot);
void zc__report_plot_zerocopy(const zc_report_input *in, zc__report_plot *plot);
void zc__report_plot_crossover(const zc_report_input *in, zc__report_plot *plot);
void zc__report_plot_latency(const zc_report_input *in, zc__report_plot *plot);
void zc__report_plot_histogram(const zc_report_input *in, zc__report_plot *plot);
/* From the bench's alloc.* points; else measure_pinning's result; else the profile's costs. */
void zc__report_plot_alloc(const zc_report_input *in, zc__report_plot *plot);
/* measure_pinning's result, when given beside a bench that measured allocation itself. */
void zc__report_plot_pinning(const zc_report_input *in, zc__report_plot *plot);

/* Sections and tables of the page: the machine (report_machine.c), the measured crossover
 * (report_plot_crossover.c), allocation (report_plot_alloc.c), several GPUs (report_multigpu.c). */
void zc__report_machine(zc__buf *page, const zc_report_input *in);
void zc__report_crossover_table(zc__buf *page, const zc_report_input *in);
void zc__report_alloc_table(zc__buf *page, const zc_report_input *in);
/* The multi-GPU section; nothing when no input has multi-GPU figures. */
void zc__report_multigpu(zc__buf *page, const zc_report_input *in);

/* The time budget of every stream run that kept one (report_budget.c). */
void zc__report_budget_tables(zc__buf *page, const zc_report_input *in);

/* The traced programs' section: each zc trace document priced on the page's profile, each zc
 * advise --trace document as advised (report_trace.c); nothing without either. */
void zc__report_trace_section(zc__buf *page, const zc_report_input *in);

/* The bench case of that key with outcome ok, or NULL (report_json.c). */
const cJSON *zc__report_bench_case(const cJSON *bench, const char *key);

/* The picture of the techniques in graphviz's language, labelled with the profile's figures;
 * link_text names the PCIe link ("PCIe Gen5 x16, 63.0 GB/s per direction") or is NULL. */
char *zc__report_picture_dot(const zc_profile *profile, const char *link_text);

/* The PCIe link of the machine document (from the file where) as one phrase, into out; "" when
 * unknown. A generation or width out of range is recorded in bad. */
void zc__report_link_text(const cJSON *machine, const char *where, zc_report_bad *bad, char *out,
                          size_t size);

/* The whole page; what became of its pictures into *pictures (cleared first). 1 on success; 0
 * with why filled when out of memory. */
int zc__report_html_page(const zc_report_input *in, const char *title, zc__buf *page,
                         zc_report_pictures *pictures, char *why, size_t why_size);

#endif
