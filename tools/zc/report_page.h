/* zc report: one self-contained HTML page from bench, stream and profile results. */
#ifndef ZC_REPORT_PAGE_H
#define ZC_REPORT_PAGE_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"

/* Most documents of one kind a report takes (stream results, benches, multi-GPU streams). */
#define ZC_REPORT_MAX_DOCS 32

/*
 * The first input value found out of range, with the file and field it came from. Set while
 * the page is built; the command then writes nothing and exits 2 with why.
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
    char sources[2048]; /* the input files, comma-separated */
    zc_report_bad *bad; /* where an out-of-range value is recorded; never NULL */
} zc_report_input;

/* A growing string. */
typedef struct zc_buf {
    char *data;
    size_t len, cap;
    int failed; /* 1 after an allocation failed; the text is then incomplete */
} zc_buf;

void zc_cli_buf_printf(zc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void zc_cli_buf_put(zc_buf *b, const char *text, size_t len);
void zc_cli_buf_free(zc_buf *b);

/* Text with &, <, >, " escaped for HTML. */
void zc_cli_buf_html(zc_buf *b, const char *text);

/* Text as one single-quoted gnuplot string, quotes included: ' doubled, line breaks and other
 * control characters as spaces, bytes that are not UTF-8 as '?'. Give the title noenhanced. */
void zc_cli_buf_gnuplot_string(zc_buf *b, const char *text);

/* Text inside a double-quoted graphviz string (quotes not included): " and \ escaped, control
 * characters as spaces, bytes that are not UTF-8 as '?'. */
void zc_cli_buf_dot(zc_buf *b, const char *text);

/* Reading inputs (report_input.c). */

/* Read the JSON at path ("-": stdin) into *doc_p and add it to in. ZC_EXIT_OK or the exit code
 * (said on stderr); *doc_p is set whenever a document was parsed, for the caller to free. */
int zc_cli_report_input_add(zc_report_input *in, const char *path, cJSON **doc_p);

/* After the last input: give each stream and bench document its name for the page. */
void zc_cli_report_input_finish(zc_report_input *in);

/* Checked conversions (report_json.c): a double from an input becomes an integer only here. */

/* v as an integer in [min, max] (|min|, |max| below 2^53) into *out_p; 0 when it is not one,
 * with "<where>: <field> = <v> is ..." recorded in bad (the first such value only). */
int zc_cli_report_integer(double v, double min, double max, const char *where, const char *field,
                          zc_report_bad *bad, long long *out_p);

/* The same for a size in bytes, [0, 2^50]; fractions are not accepted either. */
int zc_cli_report_size(double v, const char *where, const char *field, zc_report_bad *bad,
                       size_t *out_p);

/* The number field name of object o, NAN when absent or not a number. */
double zc_cli_report_num(const cJSON *o, const char *name);

/* Human units (report_units.c). Three significant digits, never an exponent. */

/* "490 MB/s", "55.4 GB/s", "3.83 TB/s"; "-" for a rate that is not positive. 0 then. */
int zc_cli_report_rate_text(double gbps, char *out, size_t size);

/* "81 ns", "3.14 us", "5.63 ms", "1.2 s" from microseconds; "-" (0) when not positive. */
int zc_cli_report_time_text(double us, char *out, size_t size);

/* "4 KiB", "1.5 MiB", "256 MiB"; "-" (0) when negative or not finite. */
int zc_cli_report_bytes_text(double bytes, char *out, size_t size);

/* v with three significant digits and no exponent ("3830", "55.4", "0.0812"). */
void zc_cli_report_number_text(double v, char *out, size_t size);

/* Running the plotting tools (report_run.c). */

/*
 * Run program (found on PATH, or the path in environment variable env_override when set) with
 * args then the path of a temporary file holding input, stdout captured into *out_p (malloc'd)
 * and, when err_p is not NULL, stderr into *err_p. At most timeout_s seconds. 1 on success
 * (exit 0); 0 with why filled ("gnuplot not found", "gnuplot exited with 1: line 12: <its
 * message>") and *missing_p (may be NULL) set to 1 when the program could not be started.
 */
int zc_cli_report_run_tool(const char *program, const char *env_override, const char *const *args,
                           const char *input, const char *suffix, double timeout_s, char **out_p,
                           char **err_p, int *missing_p, char *why, size_t why_size);

/* The plots (report_plot*.c): gnuplot scripts with their data inline, SVG terminal. */

/* A plot: its script, and the caption under it (may depend on the data). */
typedef struct zc_report_plot {
    char *script; /* NULL when the input has nothing to plot; why says so */
    char caption[768];
    char why[256];
} zc_report_plot;

/* The start of every plot's script: terminal of width x height pixels, grid, key outside right
 * of the plot area (below when key_below), missing data. */
void zc_cli_report_plot_header(zc_buf *b, int width, int height, int key_below);

/* Log-scale tics on axis ("x" or "y") labelled in time units, for values in microseconds. */
void zc_cli_report_plot_time_tics(zc_buf *b, const char *axis, double lo_us, double hi_us);

/* The colours of the plots, in order. */
extern const char *const zc_cli_report_colours[];
extern const size_t zc_cli_report_colour_count;

/* Fill plot->script (malloc'd) from b, or plot->why when b failed; b is given up either way. */
void zc_cli_report_plot_finish(zc_report_plot *plot, zc_buf *b);

void zc_cli_report_plot_copy(const zc_report_input *in, zc_direction dir, zc_report_plot *plot);
void zc_cli_report_plot_zerocopy(const zc_report_input *in, zc_report_plot *plot);
void zc_cli_report_plot_crossover(const zc_report_input *in, zc_report_plot *plot);
void zc_cli_report_plot_latency(const zc_report_input *in, zc_report_plot *plot);
void zc_cli_report_plot_histogram(const zc_report_input *in, zc_report_plot *plot);
/* From the bench's alloc.* points; else measure_pinning's result; else the profile's costs. */
void zc_cli_report_plot_alloc(const zc_report_input *in, zc_report_plot *plot);
/* measure_pinning's result, when given beside a bench that measured allocation itself. */
void zc_cli_report_plot_pinning(const zc_report_input *in, zc_report_plot *plot);

/* Sections and tables of the page: the machine (report_machine.c), the measured crossover
 * (report_plot_crossover.c), allocation (report_plot_alloc.c), several GPUs (report_multigpu.c). */
void zc_cli_report_machine(zc_buf *page, const zc_report_input *in);
void zc_cli_report_crossover_table(zc_buf *page, const zc_report_input *in);
void zc_cli_report_alloc_table(zc_buf *page, const zc_report_input *in);
/* The multi-GPU section; nothing when no input has multi-GPU figures. */
void zc_cli_report_multigpu(zc_buf *page, const zc_report_input *in);

/* The bench case of that key with outcome ok, or NULL (report_json.c). */
const cJSON *zc_cli_report_bench_case(const cJSON *bench, const char *key);

/* The picture of the techniques in graphviz's language, labelled with the profile's figures;
 * link_text names the PCIe link ("PCIe Gen5 x16, 63.0 GB/s per direction") or is NULL. */
char *zc_cli_picture_dot(const zc_profile *profile, const char *link_text);

/* The PCIe link of the machine document (from the file where) as one phrase, into out; "" when
 * unknown. A generation or width out of range is recorded in bad. */
void zc_cli_report_link_text(const cJSON *machine, const char *where, zc_report_bad *bad, char *out,
                             size_t size);

/* The whole page. 1 on success; 0 with why filled when out of memory. */
int zc_cli_report_html(const zc_report_input *in, const char *title, zc_buf *page, char *why,
                       size_t why_size);

#endif
