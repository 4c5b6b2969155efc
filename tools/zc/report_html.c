/* Assembling the report page: machine, comparison table, plots, picture and advice, every image
 * embedded as a data: URI so that the file stands alone. */
#include "report_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "advise_json.h"
#include "zerocopy/version.h"

/* Seconds a plotting tool may take for one picture. */
#define ZC__TOOL_TIMEOUT_S 30.0

static void zc__base64(zc_buf *b, const char *data, size_t len)
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
        zc_buf_put(b, out, 4);
    }
}

/* What happened to the plotting tools, for the note at the top of the page. */
typedef struct zc__tools {
    int gnuplot_failed, dot_failed;
    char gnuplot_why[256], dot_why[256];
} zc__tools;

/* An <img> of an SVG drawn by gnuplot (or dot) from script; a note when it could not be. */
static void zc__figure(zc_buf *page, zc__tools *tools, const char *tool, const char *script,
                       const char *caption, const char *nothing_why)
{
    zc_buf_printf(page, "<figure>\n");
    if (script == NULL) {
        zc_buf_printf(page, "<p class=\"missing\">No plot: ");
        zc_buf_html(page, nothing_why);
        zc_buf_printf(page, ".</p>\n");
    } else {
        int is_dot = strcmp(tool, "dot") == 0;
        int *failed = is_dot ? &tools->dot_failed : &tools->gnuplot_failed;
        char *why = is_dot ? tools->dot_why : tools->gnuplot_why;
        char *svg = NULL;
        static const char *const dot_args[] = {"-Tsvg", NULL};
        if (!*failed &&
            !zc_report_run_tool(is_dot ? "dot" : "gnuplot", is_dot ? "ZC_DOT" : "ZC_GNUPLOT",
                                is_dot ? dot_args : NULL, script, is_dot ? ".dot" : ".gp",
                                ZC__TOOL_TIMEOUT_S, &svg, why, 256))
            *failed = 1;
        const char *start = svg != NULL ? strstr(svg, "<svg") : NULL;
        if (*failed || start == NULL) {
            if (!*failed) {
                *failed = 1;
                snprintf(why, 256, "%s wrote no SVG", tool);
            }
            zc_buf_printf(page, "<p class=\"missing\">No picture: ");
            zc_buf_html(page, why);
            zc_buf_printf(page, ".</p>\n");
        } else {
            zc_buf_printf(page, "<img alt=\"");
            zc_buf_html(page, caption);
            zc_buf_printf(page, "\" src=\"data:image/svg+xml;base64,");
            zc__base64(page, start, strlen(start));
            zc_buf_printf(page, "\">\n");
        }
        free(svg);
    }
    zc_buf_printf(page, "<figcaption>");
    zc_buf_html(page, caption);
    zc_buf_printf(page, "</figcaption>\n</figure>\n");
}

static void zc__machine(zc_buf *page, const zc_report_input *in)
{
    zc_buf_printf(page, "<h2>The machine</h2>\n<table>\n");
    const cJSON *dev =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(in->machine, "devices"), 0);
    if (dev == NULL) {
        zc_buf_printf(page, "<tr><th>GPU</th><td>");
        zc_buf_html(page, in->profile.device_name[0] ? in->profile.device_name : "unknown");
        zc_buf_printf(page, "</td></tr>\n<tr><th>figures from</th><td>");
        zc_buf_html(page, in->profile.source);
        zc_buf_printf(page, "</td></tr>\n</table>\n<p class=\"note\">No zc info section in the "
                            "inputs: give a zc bench result for the machine's details.</p>\n");
        return;
    }
    static const char *const fields[] = {"name",           "compute_capability", "sm_count",
                                         "pci_bus_id",     "numa_node",          "driver_version",
                                         "runtime_version"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(dev, fields[i]);
        if (v == NULL)
            continue;
        zc_buf_printf(page, "<tr><th>%s</th><td>", fields[i]);
        if (cJSON_IsString(v))
            zc_buf_html(page, v->valuestring);
        else if (cJSON_IsNumber(v))
            zc_buf_printf(page, "%g", v->valuedouble);
        else if (cJSON_IsNull(v))
            zc_buf_printf(page, "none reported");
        zc_buf_printf(page, "</td></tr>\n");
    }
    char link[160];
    zc_report_link_text(in->machine, link, sizeof link);
    zc_buf_printf(page, "<tr><th>PCIe link</th><td>%s</td></tr>\n",
                  link[0] ? link : "not readable");
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(dev, "capabilities");
    if (cJSON_IsObject(caps)) {
        zc_buf_printf(page, "<tr><th>capabilities</th><td>");
        const cJSON *c;
        int first = 1;
        cJSON_ArrayForEach(c, caps)
        {
            if (cJSON_IsNumber(c) || cJSON_IsBool(c)) {
                zc_buf_printf(page, "%s", first ? "" : ", ");
                zc_buf_html(page, c->string);
                zc_buf_printf(page, "=%d", cJSON_IsBool(c) ? cJSON_IsTrue(c) : c->valueint);
                first = 0;
            }
        }
        zc_buf_printf(page, "</td></tr>\n");
    }
    zc_buf_printf(page, "</table>\n");
}

static void zc__cell_num(zc_buf *page, double v, const char *unit)
{
    if (isfinite(v) && v > 0.0)
        zc_buf_printf(page, "<td class=\"n\">%.3g %s</td>", v, unit);
    else
        zc_buf_printf(page, "<td class=\"n\">-</td>");
}

static double zc__peak(const zc_curve *c)
{
    double best = 0.0;
    for (size_t i = 0; i < c->count; i++)
        best = c->gbps[i] > best ? c->gbps[i] : best;
    return best;
}

static void zc__comparison(zc_buf *page, const zc_report_input *in)
{
    zc_buf_printf(page, "<h2>The chapter's comparison, measured here</h2>\n");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(in->bench, "comparison");
    zc_buf_printf(page, "<table>\n<tr><th>technique</th><th>needs a copy</th><th>H2D</th>"
                        "<th>D2H</th><th>GPU reads data</th><th>GPU writes data</th>"
                        "<th>latency</th><th>best for</th></tr>\n");
    if (cJSON_GetArraySize(rows) > 0) {
        const cJSON *r;
        cJSON_ArrayForEach(r, rows)
        {
            static const char *const text[] = {"title", "needs_copy"};
            zc_buf_printf(page, "<tr>");
            for (int i = 0; i < 2; i++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, text[i]);
                zc_buf_printf(page, "<td>");
                zc_buf_html(page, cJSON_IsString(v) ? v->valuestring : "");
                zc_buf_printf(page, "</td>");
            }
            static const char *const nums[] = {"h2d_gbps", "d2h_gbps", "access_read_gbps",
                                               "access_write_gbps"};
            for (int i = 0; i < 4; i++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, nums[i]);
                zc__cell_num(page, cJSON_IsNumber(v) ? v->valuedouble : NAN, "GB/s");
            }
            const cJSON *lat = cJSON_GetObjectItemCaseSensitive(r, "latency_us");
            const cJSON *what = cJSON_GetObjectItemCaseSensitive(r, "latency_what");
            const cJSON *use = cJSON_GetObjectItemCaseSensitive(r, "best_use");
            if (cJSON_IsNumber(lat)) {
                zc_buf_printf(page, "<td class=\"n\">%.3g us ", lat->valuedouble);
                zc_buf_html(page, cJSON_IsString(what) ? what->valuestring : "");
                zc_buf_printf(page, "</td>");
            } else {
                zc_buf_printf(page, "<td class=\"n\">-</td>");
            }
            zc_buf_printf(page, "<td>");
            zc_buf_html(page, cJSON_IsString(use) ? use->valuestring : "");
            zc_buf_printf(page, "</td></tr>\n");
        }
        zc_buf_printf(page, "</table>\n");
        return;
    }
    /* Without a bench comparison, the same rows from the profile. */
    const zc_profile *p = &in->measured;
    const zc_curve *pin = p->copy[ZC_HOST_PINNED];
    zc_buf_printf(page, "<tr><td>pinned memory (4.1)</td><td>yes</td>");
    zc__cell_num(page, zc__peak(&pin[ZC_DIR_H2D]), "GB/s");
    zc__cell_num(page, zc__peak(&pin[ZC_DIR_D2H]), "GB/s");
    zc__cell_num(page, p->device_gbps, "GB/s");
    zc__cell_num(page, p->device_gbps, "GB/s");
    if (pin[ZC_DIR_H2D].count > 0)
        zc_buf_printf(page, "<td class=\"n\">%.3g us per %zu B copy</td>",
                      (double)pin[ZC_DIR_H2D].bytes[0] / (pin[ZC_DIR_H2D].gbps[0] * 1e3),
                      pin[ZC_DIR_H2D].bytes[0]);
    else
        zc_buf_printf(page, "<td>-</td>");
    zc_buf_printf(page, "<td>large and frequent transfers; data the GPU reads many times</td>"
                        "</tr>\n<tr><td>mapped pinned memory (4.2)</td><td>no</td><td>-</td>"
                        "<td>-</td>");
    zc__cell_num(page, p->mapped_read_gbps[ZC_ACCESS_COALESCED], "GB/s");
    zc__cell_num(page, p->mapped_write_gbps[ZC_ACCESS_COALESCED], "GB/s");
    zc__cell_num(page, p->pingpong_us, "us flag round trip");
    zc_buf_printf(page, "<td>small data read once, low latency, CPU and GPU sharing</td></tr>\n"
                        "<tr><td>unified addressing / managed (4.3)</td><td>by migration</td>");
    zc__cell_num(page, p->managed_prefetch_gbps, "GB/s prefetch");
    zc_buf_printf(page, "<td>-</td>");
    zc__cell_num(page, p->device_gbps, "GB/s after prefetch");
    zc_buf_printf(page, "<td>-</td><td>-</td><td>simpler code, one pointer everywhere, several "
                        "GPUs</td></tr>\n</table>\n");
}

/* The copy curves as a table: the figures stay readable without any plotting tool. */
static void zc__copy_table(zc_buf *page, const zc_profile *p)
{
    zc_buf_printf(page, "<details><summary>Copy bandwidth, every measured point (GB/s)"
                        "</summary>\n<table>\n<tr><th>kind</th><th>direction</th><th>bytes"
                        "</th><th>GB/s</th></tr>\n");
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        for (int d = 0; d < 2; d++) {
            const zc_curve *c = &p->copy[k][d];
            for (size_t i = 0; i < c->count; i++)
                zc_buf_printf(page,
                              "<tr><td>%s</td><td>%s</td><td class=\"n\">%zu</td><td "
                              "class=\"n\">%.3g</td></tr>\n",
                              zc_host_kind_key((zc_host_kind)k), zc_direction_key((zc_direction)d),
                              c->bytes[i], c->gbps[i]);
        }
    }
    zc_buf_printf(page, "</table>\n</details>\n");
}

static void zc__advice(zc_buf *page, const zc_report_input *in)
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
    zc_buf_printf(page, "<h2>Advice for typical workloads</h2>\n");
    if (!in->have_profile) {
        zc_buf_printf(page, "<p class=\"missing\">No profile: the inputs lack the copy and "
                            "launch figures the model needs.</p>\n");
        return;
    }
    zc_buf_printf(page, "<p>From the cost model of <code>zc advise</code> on the figures above "
                        "(docs/advise.md). Ask about your own workload with <code>zc advise "
                        "--profile BENCH.json --bytes ... --transfers ...</code>.</p>\n"
                        "<table>\n<tr><th>workload</th><th>use</th><th>why</th></tr>\n");
    for (size_t i = 0; i < sizeof typical / sizeof typical[0]; i++) {
        zc_recommendation rec;
        if (zc_advise_rank(&in->profile, &typical[i].w, &rec) != ZC_OK)
            continue;
        zc_buf_printf(page, "<tr><td>");
        zc_buf_html(page, typical[i].name);
        zc_buf_printf(page, "</td><td><b>%s</b></td><td>",
                      zc_technique_title(rec.ranked[0].technique));
        zc_buf_html(page, rec.explanation);
        zc_buf_printf(page, "</td></tr>\n");
    }
    zc_buf_printf(page, "</table>\n");
}

static const char zc__style[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1100px;margin:2em auto;"
    "padding:0 1em;color:#222;background:#fff}"
    "h1{border-bottom:3px solid #1f77b4}h2{margin-top:2em;color:#1f4e79}"
    "table{border-collapse:collapse;margin:1em 0;width:100%;font-size:88%}"
    "td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top}"
    "th{background:#eef3f8;text-align:left}td.n{text-align:right}"
    "figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #ddd}"
    "figcaption{font-size:90%;color:#555}.missing{background:#fff3cd;border:1px solid #e0c060;"
    "padding:6px 10px}.note{color:#555}";

/* Marks the page once loaded: how many images, which failed to load. Tests read it. */
static const char zc__check_script[] =
    "<script>window.addEventListener('load',function(){var b=[],im=document.images;"
    "for(var i=0;i<im.length;i++){if(!im[i].complete||im[i].naturalWidth===0)b.push(i);}"
    "document.body.setAttribute('data-image-count',String(im.length));"
    "document.body.setAttribute('data-broken-images',b.join(','));"
    "document.body.setAttribute('data-checked','1');});</script>\n";

int zc_report_html(const zc_report_input *in, const char *title, zc_buf *page, char *why,
                   size_t why_size)
{
    zc__tools tools;
    memset(&tools, 0, sizeof tools);
    zc_buf body = {0};
    char nothing[256];

    zc__machine(&body, in);
    zc__comparison(&body, in);

    zc_buf_printf(&body, "<h2>Copy bandwidth against size</h2>\n");
    char *s = zc_report_plot_copy(in, ZC_DIR_H2D, nothing, sizeof nothing);
    zc__figure(&body, &tools, "gnuplot", s,
               "Host to device: cudaMemcpy from each kind of host memory. Pinned, "
               "write-combined and registered memory go straight to the copy engines; pageable "
               "memory is staged by the CPU first.",
               nothing);
    free(s);
    s = zc_report_plot_copy(in, ZC_DIR_D2H, nothing, sizeof nothing);
    zc__figure(&body, &tools, "gnuplot", s, "Device to host, the same kinds.", nothing);
    free(s);
    zc__copy_table(&body, &in->measured);

    zc_buf_printf(&body, "<h2>Zero-copy: the GPU reading host memory in place</h2>\n");
    s = zc_report_plot_zerocopy(in, nothing, sizeof nothing);
    zc__figure(&body, &tools, "gnuplot", s,
               "Every access crosses PCIe: coalesced 16-byte loads come close to a pinned copy; "
               "scattered ones waste most of each transaction.",
               nothing);
    free(s);

    zc_buf_printf(&body, "<h2>The crossover: when a copy pays off</h2>\n");
    s = zc_report_plot_crossover(in, nothing, sizeof nothing);
    zc__figure(&body, &tools, "gnuplot", s,
               "Predicted time of one transfer from the measured profile. Small data read once: "
               "zero-copy avoids the copy's fixed costs; data read many times: copy once, then "
               "read device memory.",
               nothing);
    free(s);

    zc_buf_printf(&body, "<h2>Latency per stream mode</h2>\n");
    s = zc_report_plot_latency(in, nothing, sizeof nothing);
    zc__figure(&body, &tools, "gnuplot", s,
               "zc stream: frames through the mapped-memory ring, round trip percentiles.",
               nothing);
    free(s);
    s = zc_report_plot_histogram(in, nothing, sizeof nothing);
    if (s != NULL)
        zc__figure(&body, &tools, "gnuplot", s,
                   "The whole distribution: share of frames per latency bucket (zc stream's "
                   "histogram).",
                   nothing);
    free(s);

    zc_buf_printf(&body, "<h2>Allocation cost</h2>\n");
    s = zc_report_plot_alloc(in, nothing, sizeof nothing);
    zc__figure(&body, &tools, "gnuplot", s,
               "Pinning is expensive: allocate pinned buffers once and reuse them; registering "
               "memory you already have costs less than a fresh cudaHostAlloc.",
               nothing);
    free(s);

    zc_buf_printf(&body, "<h2>The picture (section 4.5)</h2>\n");
    char link[160];
    zc_report_link_text(in->machine, link, sizeof link);
    s = zc_picture_dot(&in->measured, link);
    zc__figure(&body, &tools, "dot", s,
               "Copy paths (solid blue: through the copy engines) and direct-access paths "
               "(dashed orange: the SMs reach host memory over PCIe), labelled with this "
               "machine's measured bandwidth and latency.",
               "out of memory");
    free(s);

    zc__advice(&body, in);
    if (in->notes[0]) {
        zc_buf_printf(&body, "<details><summary>Figures the model assumed (not measured)"
                             "</summary><pre>");
        zc_buf_html(&body, in->notes);
        zc_buf_printf(&body, "</pre></details>\n");
    }

    time_t now = time(NULL);
    struct tm utc;
    char stamp[64] = "";
    if (gmtime_r(&now, &utc) != NULL)
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", &utc);
    zc_buf_printf(page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<title>");
    zc_buf_html(page, title);
    zc_buf_printf(page, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", zc__style);
    zc_buf_html(page, title);
    zc_buf_printf(page, "</h1>\n<p class=\"note\">Made by zc report (zerocopy %s) on %s from: ",
                  zc_version_string(), stamp);
    zc_buf_html(page, in->sources);
    zc_buf_printf(page, ".</p>\n");
    if (tools.gnuplot_failed) {
        zc_buf_printf(page, "<p class=\"missing\" id=\"no-gnuplot\">Plots are missing: ");
        zc_buf_html(page, tools.gnuplot_why);
        zc_buf_printf(page, ". Install gnuplot (Debian: gnuplot-nox); the tables still hold "
                            "every figure.</p>\n");
    }
    if (tools.dot_failed) {
        zc_buf_printf(page, "<p class=\"missing\" id=\"no-graphviz\">The diagram is missing: ");
        zc_buf_html(page, tools.dot_why);
        zc_buf_printf(page, ". Install graphviz.</p>\n");
    }
    zc_buf_put(page, body.data != NULL ? body.data : "", body.len);
    zc_buf_printf(page, "%s</body>\n</html>\n", zc__check_script);
    int ok = !body.failed && !page->failed;
    zc_buf_free(&body);
    if (!ok)
        snprintf(why, why_size, "out of memory while building the page");
    return ok;
}
