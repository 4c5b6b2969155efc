/* SPDX-License-Identifier: Apache-2.0 */
/* Assembling the report page: machine, comparison table, plots, picture and advice, every image
 * embedded as a data: URI so that the file stands alone. Each plot is drawn on its own: one
 * that fails says why in its place and the others are still drawn. */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/c_locale.h"
#include "core/error.h"
#include "zerocopy/json.h"
#include "zerocopy/version.h"

/* Seconds a plotting tool may take for one picture. */
#define ZC__TOOL_TIMEOUT_S 30.0

/*
 * Appended to every gnuplot script: where gnuplot put the plot area, in the SVG's pixels, on
 * stderr. The page keeps it beside the image (data-plot-area) so that a test can check that no
 * key entry lies on the data. exists() keeps an older gnuplot without these variables drawing.
 */
static const char zc__plot_area_print[] =
    "\nif (exists('GPVAL_TERM_XMIN') && exists('GPVAL_TERM_SCALE')) "
    "print sprintf('zc-plot-area %g %g %g %g %g %g %g', GPVAL_TERM_XMIN, GPVAL_TERM_XMAX, "
    "GPVAL_TERM_YMIN, GPVAL_TERM_YMAX, GPVAL_TERM_XSIZE, GPVAL_TERM_YSIZE, GPVAL_TERM_SCALE)\n";

static void zc__base64(zc__buf *b, const char *data, size_t len)
{
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4];
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned char)data[i] << 16;
        if (i + 1 < len)
            v |= (unsigned char)data[i + 1] << 8;
        if (i + 2 < len)
            v |= (unsigned char)data[i + 2];
        out[0] = table[(v >> 18) & 63];
        out[1] = table[(v >> 12) & 63];
        out[2] = i + 1 < len ? table[(v >> 6) & 63] : '=';
        out[3] = i + 2 < len ? table[v & 63] : '=';
        zc__buf_put(b, out, 4);
    }
}

/* What happened to one plotting tool, for the note at the top of the page. */
typedef struct zc__tool_state {
    int missing;  /* not found: later pictures are not tried */
    int failures; /* pictures it could not draw */
    char why[256];
} zc__tool_state;

typedef struct zc__tools {
    zc__tool_state gnuplot, dot;
    zc_report_pictures *pictures; /* every picture asked for, told to the caller */
} zc__tools;

/* The plot area gnuplot reported on stderr as "left top right bottom" in SVG pixels (origin top
 * left), into out; "" when it reported none. */
static void zc__plot_area(const char *err, char *out, size_t size)
{
    out[0] = '\0';
    const char *line = err != NULL ? strstr(err, "zc-plot-area ") : NULL;
    double x0, x1, y0, y1, xsize, ysize, scale;
    if (line == NULL ||
        sscanf(line, "zc-plot-area %lf %lf %lf %lf %lf %lf %lf", &x0, &x1, &y0, &y1, &xsize, &ysize,
               &scale) != 7 ||
        !(scale > 0.0))
        return;
    double width = xsize / scale, height = ysize / scale;
    /* gnuplot 5.4 gives the bounds in pixels already; earlier ones in terminal units. */
    if (x1 > width + 1.0) {
        x0 /= scale, x1 /= scale, y0 /= scale, y1 /= scale;
    }
    snprintf(out, size, "%.2f %.2f %.2f %.2f", x0, height - y1, x1, height - y0);
}

/* An <img> of an SVG drawn by gnuplot or dot from script; a note in its place when it could not
 * be. id names the figure for tests (data-plot). */
static void zc__figure(zc__buf *page, zc__tools *tools, const char *id, const char *tool,
                       const char *script, const char *caption, const char *nothing_why)
{
    zc__buf_printf(page, "<figure id=\"figure-%s\">\n", id);
    if (script == NULL) {
        zc__buf_printf(page, "<p class=\"missing\">No plot: ");
        zc__buf_html(page, nothing_why);
        zc__buf_printf(page, ".</p>\n");
        goto caption;
    }
    int is_dot = strcmp(tool, "dot") == 0;
    zc__tool_state *state = is_dot ? &tools->dot : &tools->gnuplot;
    char why[256] = "";
    char *svg = NULL, *err = NULL;
    zc__buf full = {0};
    if (state->missing) {
        snprintf(why, sizeof why, "%s", state->why);
    } else {
        static const char *const dot_args[] = {"-Tsvg", NULL};
        zc__buf_printf(&full, "%s%s", script, is_dot ? "" : zc__plot_area_print);
        int missing = 0;
        if (full.failed)
            snprintf(why, sizeof why, "out of memory");
        else if (!zc__report_run_tool(is_dot ? "dot" : "gnuplot", is_dot ? "ZC_DOT" : "ZC_GNUPLOT",
                                      is_dot ? dot_args : NULL, full.data, is_dot ? ".dot" : ".gp",
                                      ZC__TOOL_TIMEOUT_S, &svg, &err, &missing, why, sizeof why))
            state->missing = missing;
        else if (strstr(svg, "<svg") == NULL)
            snprintf(why, sizeof why, "%s wrote no SVG", tool);
    }
    const char *start = svg != NULL ? strstr(svg, "<svg") : NULL;
    zc_report_pictures *told = tools->pictures;
    if (told->count < ZC_REPORT_MAX_PICTURES) {
        zc_report_picture *p = &told->picture[told->count++];
        p->id = id;
        p->tool = is_dot ? "dot" : "gnuplot";
        p->outcome = start != NULL    ? ZC_REPORT_DRAWN
                     : state->missing ? ZC_REPORT_NO_TOOL
                                      : ZC_REPORT_FAILED;
        snprintf(p->why, sizeof p->why, "%s", start != NULL ? "" : why);
    }
    if (start == NULL) {
        if (state->why[0] == '\0' || state->missing)
            snprintf(state->why, sizeof state->why, "%s", why);
        state->failures++;
        zc__buf_printf(page, "<p class=\"missing\">No picture: ");
        zc__buf_html(page, why);
        zc__buf_printf(page, ".</p>\n");
    } else {
        char area[128];
        zc__plot_area(err, area, sizeof area);
        zc__buf_printf(page, "<img alt=\"");
        zc__buf_html(page, caption);
        zc__buf_printf(page, "\" data-plot=\"%s\"", id);
        if (area[0])
            zc__buf_printf(page, " data-plot-area=\"%s\"", area);
        zc__buf_printf(page, " src=\"data:image/svg+xml;base64,");
        zc__base64(page, start, strlen(start));
        zc__buf_printf(page, "\">\n");
    }
    free(svg);
    free(err);
    zc__buf_free(&full);
caption:
    zc__buf_printf(page, "<figcaption>");
    zc__buf_html(page, caption);
    zc__buf_printf(page, "</figcaption>\n</figure>\n");
}

/* Draw one plot made by make, then give it up. */
static void zc__plot_figure(zc__buf *page, zc__tools *tools, const char *id, zc__report_plot *plot)
{
    zc__figure(page, tools, id, "gnuplot", plot->script, plot->caption, plot->why);
    free(plot->script);
    memset(plot, 0, sizeof *plot);
}

/* A table cell with a figure in its unit ("55.4 GB/s", "3.14 us"); "-" when not measured. */
static void zc__cell_rate(zc__buf *page, double gbps)
{
    char text[32];
    zc__report_rate_text(gbps, text, sizeof text);
    zc__buf_printf(page, "<td class=\"n\">%s</td>", text);
}

static void zc__cell_time(zc__buf *page, double us, const char *what)
{
    char text[32];
    if (!zc__report_time_text(us, text, sizeof text)) {
        zc__buf_printf(page, "<td class=\"n\">-</td>");
        return;
    }
    zc__buf_printf(page, "<td class=\"n\">%s ", text);
    zc__buf_html(page, what);
    zc__buf_printf(page, "</td>");
}

static double zc__peak(const zc_curve *c)
{
    double best = 0.0;
    for (size_t i = 0; i < c->count; i++)
        best = c->gbps[i] > best ? c->gbps[i] : best;
    return best;
}

static void zc__comparison(zc__buf *page, const zc_report_input *in)
{
    zc__buf_printf(page, "<h2>The techniques compared, measured on this machine</h2>\n");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(in->bench, "comparison");
    zc__buf_printf(page, "<table class=\"comparison\">\n<tr><th>technique</th><th>needs a copy"
                         "</th><th>host to device</th><th>device to host</th><th>GPU reads data"
                         "</th><th>GPU writes data</th><th>latency</th><th>best for</th></tr>\n");
    if (cJSON_GetArraySize(rows) > 0) {
        const cJSON *r;
        cJSON_ArrayForEach(r, rows)
        {
            static const char *const text[] = {"title", "needs_copy"};
            zc__buf_printf(page, "<tr>");
            for (int i = 0; i < 2; i++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, text[i]);
                zc__buf_printf(page, "<td>");
                zc__buf_html(page, cJSON_IsString(v) ? v->valuestring : "");
                zc__buf_printf(page, "</td>");
            }
            static const char *const nums[] = {"h2d_gbps", "d2h_gbps", "access_read_gbps",
                                               "access_write_gbps"};
            for (int i = 0; i < 4; i++)
                zc__cell_rate(page, zc__report_num(r, nums[i]));
            const cJSON *what = cJSON_GetObjectItemCaseSensitive(r, "latency_what");
            const cJSON *use = cJSON_GetObjectItemCaseSensitive(r, "best_use");
            zc__cell_time(page, zc__report_num(r, "latency_us"),
                          cJSON_IsString(what) ? what->valuestring : "");
            zc__buf_printf(page, "<td>");
            zc__buf_html(page, cJSON_IsString(use) ? use->valuestring : "");
            zc__buf_printf(page, "</td></tr>\n");
        }
        zc__buf_printf(page, "</table>\n");
        return;
    }
    /* Without a bench comparison, the same rows from the profile. */
    const zc_profile *p = &in->measured;
    const zc_curve *pin = p->copy[ZC_BUFFER_PINNED];
    zc__buf_printf(page, "<tr><td>pinned memory (cudaHostAlloc)</td><td>yes</td>");
    zc__cell_rate(page, zc__peak(&pin[ZC_DIR_H2D]));
    zc__cell_rate(page, zc__peak(&pin[ZC_DIR_D2H]));
    zc__cell_rate(page, p->device_gbps);
    zc__cell_rate(page, p->device_gbps);
    if (pin[ZC_DIR_H2D].count > 0) {
        char what[64];
        zc__report_bytes_text((double)pin[ZC_DIR_H2D].bytes[0], what, sizeof what);
        strncat(what, " copy", sizeof what - strlen(what) - 1);
        zc__cell_time(page, (double)pin[ZC_DIR_H2D].bytes[0] / (pin[ZC_DIR_H2D].gbps[0] * 1e3),
                      what);
    } else {
        zc__buf_printf(page, "<td>-</td>");
    }
    zc__buf_printf(page, "<td>large and frequent transfers; data the GPU reads many times</td>"
                         "</tr>\n<tr><td>mapped pinned memory (zero-copy)</td><td>no</td>"
                         "<td class=\"n\">-</td><td class=\"n\">-</td>");
    zc__cell_rate(page, p->mapped_read_gbps[ZC_ACCESS_COALESCED]);
    zc__cell_rate(page, p->mapped_write_gbps[ZC_ACCESS_COALESCED]);
    zc__cell_time(page, p->pingpong_us, "flag round trip");
    zc__buf_printf(page, "<td>small data read once, low latency, CPU and GPU sharing</td></tr>\n"
                         "<tr><td>unified addressing / managed memory</td><td>by migration</td>");
    zc__cell_rate(page, p->managed_prefetch_gbps);
    zc__buf_printf(page, "<td class=\"n\">-</td>");
    zc__cell_rate(page, p->device_gbps);
    zc__buf_printf(page, "<td class=\"n\">-</td><td class=\"n\">-</td><td>simpler code, one "
                         "pointer everywhere, several GPUs</td></tr>\n</table>\n");
}

/* The copy curves as a table: the figures stay readable without any plotting tool. */
static void zc__copy_table(zc__buf *page, const zc_profile *p)
{
    zc__buf_printf(page, "<details><summary>Copy bandwidth, every measured point</summary>\n"
                         "<table>\n<tr><th>host memory</th><th>direction</th><th>size</th>"
                         "<th>bandwidth</th></tr>\n");
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        for (int d = 0; d < 2; d++) {
            const zc_curve *c = &p->copy[k][d];
            for (size_t i = 0; i < c->count; i++) {
                char size[32], rate[32];
                zc__report_bytes_text((double)c->bytes[i], size, sizeof size);
                zc__report_rate_text(c->gbps[i], rate, sizeof rate);
                zc__buf_printf(page,
                               "<tr><td>%s</td><td>%s</td><td class=\"n\">%s</td><td "
                               "class=\"n\">%s</td></tr>\n",
                               zc_buffer_kind_key((zc_buffer_kind)k),
                               d == ZC_DIR_H2D ? "host to device" : "device to host", size, rate);
            }
        }
    }
    zc__buf_printf(page, "</table>\n</details>\n");
}

static void zc__advice(zc__buf *page, const zc_report_input *in)
{
    static const struct {
        const char *name;
        zc_workload w;
    } typical[] = {
        {"sensor frames: 4 KiB at 10 kHz, CPU and GPU share the buffer, 20 us budget",
         {4096, 0, 10000, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 1, 20}},
        {"ML input batches: 64 MiB, 100 of them, read once",
         {(size_t)64 << 20, 100, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0}},
        {"video frames: 8 MiB in and out at 60 Hz",
         {(size_t)8 << 20, 0, 60, ZC_DIR_BOTH, 1, ZC_ACCESS_COALESCED, 0, 0}},
        {"lookup table: 256 MiB read 100 times by one kernel",
         {(size_t)256 << 20, 1, 0, ZC_DIR_H2D, 100, ZC_ACCESS_RANDOM, 0, 0}},
        {"results back: 1 MiB written once, 1000 times",
         {(size_t)1 << 20, 1000, 0, ZC_DIR_D2H, 1, ZC_ACCESS_COALESCED, 0, 0}},
    };
    zc__buf_printf(page, "<h2>Advice for typical workloads</h2>\n");
    if (!in->have_profile) {
        zc__buf_printf(page, "<p class=\"missing\">No profile: the inputs lack the copy and "
                             "launch figures the model needs.</p>\n");
        return;
    }
    zc__buf_printf(page, "<p>The cost model of <code>zc advise</code> applied to the figures "
                         "above: it prices each technique's copies, launches and accesses for "
                         "the workload and picks the cheapest that meets its deadline. Ask about "
                         "your own workload with <code>zc advise --profile BENCH.json --bytes ... "
                         "--transfers ...</code>.</p>\n"
                         "<table>\n<tr><th>workload</th><th>use</th><th>why</th></tr>\n");
    for (size_t i = 0; i < sizeof typical / sizeof typical[0]; i++) {
        zc_recommendation rec;
        if (zc_advise_rank(&in->profile, &typical[i].w, &rec) != ZC_OK)
            continue;
        zc__buf_printf(page, "<tr><td>");
        zc__buf_html(page, typical[i].name);
        zc__buf_printf(page, "</td><td><b>%s</b></td><td>",
                       zc_technique_title(rec.ranked[0].technique));
        zc__buf_html(page, rec.explanation);
        zc__buf_printf(page, "</td></tr>\n");
    }
    zc__buf_printf(page, "</table>\n");
}

static const char zc__style[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1100px;margin:2em auto;"
    "padding:0 1em;color:#222;background:#fff}"
    "h1{border-bottom:3px solid #1f77b4}h2{margin-top:2em;color:#1f4e79}"
    "table{border-collapse:collapse;margin:1em 0;width:100%;font-size:88%}"
    "td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top}"
    "th{background:#eef3f8;text-align:left}td.n{text-align:right;white-space:nowrap}"
    "tr.total td,tr.total th{font-weight:bold}"
    "figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #ddd}"
    "figcaption{font-size:90%;color:#555}.missing{background:#fff3cd;border:1px solid #e0c060;"
    "padding:6px 10px}.note{color:#555}";

/* Marks the page once loaded: how many images, which failed to load, how tall the page is.
 * Tests read it; the height sizes a screenshot of the whole page. */
static const char zc__check_script[] =
    "<script>window.addEventListener('load',function(){var b=[],im=document.images;"
    "for(var i=0;i<im.length;i++){if(!im[i].complete||im[i].naturalWidth===0)b.push(i);}"
    "document.body.setAttribute('data-image-count',String(im.length));"
    "document.body.setAttribute('data-broken-images',b.join(','));"
    "document.body.setAttribute('data-page-height',"
    "String(document.documentElement.scrollHeight));"
    "document.body.setAttribute('data-checked','1');});</script>\n";

/* The note at the top of the page: a tool that is missing, or pictures that failed. */
static void zc__tool_note(zc__buf *page, const zc__tool_state *s, const char *id, const char *what,
                          const char *install)
{
    if (s->failures == 0)
        return;
    if (s->missing) {
        zc__buf_printf(page, "<p class=\"missing\" id=\"no-%s\">%s missing: ", id, what);
        zc__buf_html(page, s->why);
        zc__buf_printf(page, ". %s</p>\n", install);
    } else {
        zc__buf_printf(page,
                       "<p class=\"missing\" id=\"%s-failed\">%d %s could not be drawn; each "
                       "says why in its place (the first: ",
                       id, s->failures, s->failures == 1 ? "picture" : "pictures");
        zc__buf_html(page, s->why);
        zc__buf_printf(page, ").</p>\n");
    }
}

int zc__report_html_page(const zc_report_input *in, const char *title, zc__buf *page,
                         zc_report_pictures *pictures, char *why, size_t why_size)
{
    zc__tools tools;
    memset(&tools, 0, sizeof tools);
    memset(pictures, 0, sizeof *pictures);
    tools.pictures = pictures;
    zc__buf body = {0};
    zc__report_plot plot;
    memset(&plot, 0, sizeof plot);

    zc__report_machine(&body, in);
    zc__comparison(&body, in);

    zc__buf_printf(&body, "<h2>Copy bandwidth against size</h2>\n");
    zc__report_plot_copy(in, ZC_DIR_H2D, &plot);
    zc__plot_figure(&body, &tools, "copy-h2d", &plot);
    zc__report_plot_copy(in, ZC_DIR_D2H, &plot);
    zc__plot_figure(&body, &tools, "copy-d2h", &plot);
    zc__copy_table(&body, &in->measured);

    zc__buf_printf(&body, "<h2>Zero-copy: the GPU reading host memory in place</h2>\n");
    zc__report_plot_zerocopy(in, &plot);
    zc__plot_figure(&body, &tools, "zerocopy", &plot);

    zc__buf_printf(&body, "<h2>The crossover: when a copy pays off</h2>\n");
    zc__report_plot_crossover(in, &plot);
    zc__plot_figure(&body, &tools, "crossover", &plot);
    zc__report_crossover_table(&body, in);

    zc__buf_printf(&body, "<h2>Latency per stream mode</h2>\n");
    zc__report_plot_latency(in, &plot);
    zc__plot_figure(&body, &tools, "latency", &plot);
    zc__report_plot_histogram(in, &plot);
    if (plot.script != NULL)
        zc__plot_figure(&body, &tools, "histogram", &plot);
    free(plot.script);
    memset(&plot, 0, sizeof plot);
    zc__report_budget_tables(&body, in);

    zc__report_multigpu(&body, in);

    zc__buf_printf(&body, "<h2>Allocation cost</h2>\n");
    zc__report_plot_alloc(in, &plot);
    zc__plot_figure(&body, &tools, "alloc", &plot);
    zc__report_alloc_table(&body, in);
    zc__report_plot_pinning(in, &plot);
    if (plot.script != NULL)
        zc__plot_figure(&body, &tools, "pinning", &plot);
    free(plot.script);
    memset(&plot, 0, sizeof plot);

    zc__buf_printf(&body, "<h2>How data moves between host and GPU</h2>\n");
    char link[160];
    zc__report_link_text(in->machine, in->machine_path, in->bad, link, sizeof link);
    char *dot = zc__report_picture_dot(&in->measured, link);
    zc__figure(&body, &tools, "picture", "dot", dot,
               "Copy paths (solid blue: through the copy engines) and direct-access paths "
               "(dashed orange: the SMs reach host memory over PCIe), labelled with this "
               "machine's measured bandwidth and latency.",
               "out of memory");
    free(dot);

    zc__advice(&body, in);
    zc__report_trace_section(&body, in);
    if (in->notes[0]) {
        zc__buf_printf(&body, "<details><summary>Figures the model assumed (not measured)"
                              "</summary><pre>");
        zc__buf_html(&body, in->notes);
        zc__buf_printf(&body, "</pre></details>\n");
    }

    time_t now = time(NULL);
    struct tm utc;
    char stamp[64] = "";
    if (gmtime_r(&now, &utc) != NULL)
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", &utc);
    zc__buf_printf(page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<title>");
    zc__buf_html(page, title);
    zc__buf_printf(page, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", zc__style);
    zc__buf_html(page, title);
    zc__buf_printf(page, "</h1>\n<p class=\"note\">Made by zc report (zerocopy %s) on %s from: ",
                   zc_version_string(), stamp);
    zc__buf_html(page, in->sources);
    zc__buf_printf(page, ".</p>\n");
    zc__tool_note(page, &tools.gnuplot, "gnuplot", "Plots are",
                  "Install gnuplot (Debian: gnuplot-nox); the tables still hold every figure.");
    zc__tool_note(page, &tools.dot, "graphviz", "The diagram is", "Install graphviz.");
    zc__buf_put(page, body.data != NULL ? body.data : "", body.len);
    zc__buf_printf(page, "%s</body>\n</html>\n", zc__check_script);
    int ok = !body.failed && !page->failed;
    zc__buf_free(&body);
    if (!ok)
        snprintf(why, why_size, "out of memory while building the page");
    return ok;
}

/* zc_report_html in the C locale (its public form puts it in force). */
static zc_status zc__report_html_c(const zc_report_input *in, const char *title, char **page_p,
                                   size_t *len_p, zc_report_pictures *pictures_p)
{
    ZC_REQUIRE_ARG(in);
    ZC_REQUIRE_ARG(title);
    ZC_REQUIRE_ARG(page_p);
    if (in->bad == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_report_html: in was not initialised");
    zc__buf page = {0};
    char why[256] = "out of memory";
    zc_report_pictures pictures;
    if (!zc__report_html_page(in, title, &page, &pictures, why, sizeof why) || page.data == NULL) {
        zc__buf_free(&page);
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_report_html: %s", why);
    }
    *page_p = page.data;
    if (len_p != NULL)
        *len_p = page.len;
    if (pictures_p != NULL)
        *pictures_p = pictures;
    return ZC_OK;
}

/* The page's numbers, the data and scripts gnuplot reads, and the plot area it prints back are
 * written and read in the C locale, whatever the program's: "12.5", never "12,5". */
ZC_EXTERN zc_status zc_report_html(const zc_report_input *in, const char *title, char **page_p,
                                   size_t *len_p, zc_report_pictures *pictures_p)
{
    locale_t before = zc__c_locale_begin();
    zc_status status = zc__report_html_c(in, title, page_p, len_p, pictures_p);
    zc__c_locale_end(before);
    return status;
}

static zc_status zc__picture_dot_c(const zc_report_input *in, char **dot_p)
{
    ZC_REQUIRE_ARG(in);
    ZC_REQUIRE_ARG(dot_p);
    if (in->bad == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_report_picture_dot: in was not initialised");
    char link[160];
    zc__report_link_text(in->machine, in->machine_path, in->bad, link, sizeof link);
    char *dot = zc__report_picture_dot(&in->measured, link);
    if (dot == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_report_picture_dot: drawing the picture");
    *dot_p = dot;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_report_picture_dot(const zc_report_input *in, char **dot_p)
{
    locale_t before = zc__c_locale_begin();
    zc_status status = zc__picture_dot_c(in, dot_p);
    zc__c_locale_end(before);
    return status;
}
