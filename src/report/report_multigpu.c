/* SPDX-License-Identifier: Apache-2.0 */
/* The report's multi-GPU section: zc stream --devices results (per-GPU rows, the total and the
 * latency) and the multi-GPU group of zc bench (host to every GPU at once, GPU to GPU). */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Latency columns of a LATENCY object (docs/json.md: "median", not "p50"). */
static void zc__latency_cells(zc__buf *page, const cJSON *lat)
{
    static const char *const names[] = {"median", "p99", "max"};
    for (int i = 0; i < 3; i++) {
        double v = zc__report_num(lat, names[i]);
        if (i == 0 && !isfinite(v))
            v = zc__report_num(lat, "p50");
        char text[32];
        zc__report_time_text(v, text, sizeof text);
        zc__buf_printf(page, "<td class=\"n\">%s</td>", text);
    }
}

/* frames, frames per second and GB/s of an object (a GPU or the total). */
static void zc__rate_cells(zc__buf *page, const cJSON *o)
{
    char text[32];
    double frames = zc__report_num(o, "frames"), fps = zc__report_num(o, "frames_per_s");
    if (isfinite(frames) && frames >= 0.0)
        zc__buf_printf(page, "<td class=\"n\">%.0f</td>", frames);
    else
        zc__buf_printf(page, "<td class=\"n\">-</td>");
    zc__report_number_text(fps, text, sizeof text);
    zc__buf_printf(page, "<td class=\"n\">%s</td>", isfinite(fps) ? text : "-");
    zc__report_rate_text(zc__report_num(o, "gb_per_s"), text, sizeof text);
    zc__buf_printf(page, "<td class=\"n\">%s</td>", text);
}

static void zc__stream_multi(zc__buf *page, const zc_report_input *in, const zc_report_doc *d)
{
    const cJSON *doc = d->doc;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(doc, "mode");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(doc, "status");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(doc, "error");
    const cJSON *per_gpu = cJSON_GetObjectItemCaseSensitive(doc, "per_gpu");
    char frame[32];
    zc__report_bytes_text(zc__report_num(doc, "frame_bytes"), frame, sizeof frame);
    zc__buf_printf(page, "<h3>zc stream over %d GPUs: ", cJSON_GetArraySize(per_gpu));
    zc__buf_html(page, d->name);
    zc__buf_printf(page, "</h3>\n<p>Mode ");
    zc__buf_html(page, cJSON_IsString(mode) ? mode->valuestring : "unknown");
    zc__buf_printf(page,
                   ", frames of %s, one stream's frames spread over the GPUs and "
                   "returned in order.",
                   frame);
    if (cJSON_IsString(status) && strcmp(status->valuestring, "OK") != 0) {
        zc__buf_printf(page, " <span class=\"missing\">The run failed (");
        zc__buf_html(page, status->valuestring);
        zc__buf_printf(page, "): ");
        zc__buf_html(page, cJSON_IsString(error) ? error->valuestring : "no reason given");
        zc__buf_printf(page, ".</span>");
    }
    zc__buf_printf(page, "</p>\n<table class=\"multigpu\">\n<tr><th>GPU</th><th>name</th>"
                         "<th>frames</th><th>frames per second</th><th>throughput</th>"
                         "<th>latency, median</th><th>p99</th><th>max</th></tr>\n");
    const cJSON *g;
    int i = 0;
    cJSON_ArrayForEach(g, per_gpu)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(g, "name");
        char field[64];
        snprintf(field, sizeof field, "per_gpu[%d].device", i++);
        long long device = 0;
        double dv = zc__report_num(g, "device");
        zc__buf_printf(page, "<tr><td>");
        if (isnan(dv)) /* absent */
            zc__buf_printf(page, "?");
        else if (!zc__report_integer(dv, -1, 65535, d->path, field, in->bad, &device))
            return;
        else if (device < 0)
            zc__buf_printf(page, "host lane");
        else
            zc__buf_printf(page, "GPU %lld", device);
        zc__buf_printf(page, "</td><td>");
        zc__buf_html(page, cJSON_IsString(name) ? name->valuestring : "");
        zc__buf_printf(page, "</td>");
        zc__rate_cells(page, g);
        zc__latency_cells(page, cJSON_GetObjectItemCaseSensitive(g, "latency_us"));
        zc__buf_printf(page, "</tr>\n");
    }
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(doc, "total");
    zc__buf_printf(page, "<tr class=\"total\"><th>total</th><th>all at once</th>");
    zc__rate_cells(page, total);
    zc__latency_cells(page, cJSON_GetObjectItemCaseSensitive(total, "latency_us"));
    zc__buf_printf(page, "</tr>\n</table>\n");
}

/* The cases of the bench's multigpu group, one table each: every point's bandwidth. */
static void zc__bench_multigpu(zc__buf *page, const zc_report_doc *d)
{
    const cJSON *c;
    int shown = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d->doc, "cases"))
    {
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(c, "key");
        const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(c, "outcome");
        if (!cJSON_IsString(key) || strncmp(key->valuestring, "multigpu.", 9) != 0 ||
            !cJSON_IsString(outcome) || strcmp(outcome->valuestring, "ok") != 0)
            continue;
        if (!shown) {
            zc__buf_printf(page, "<h3>zc bench over several GPUs: ");
            zc__buf_html(page, d->name);
            zc__buf_printf(page, "</h3>\n");
        }
        shown = 1;
        const cJSON *title = cJSON_GetObjectItemCaseSensitive(c, "title");
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(c, "reason");
        zc__buf_printf(page, "<table class=\"multigpu\">\n<tr><th colspan=\"3\">");
        zc__buf_html(page, cJSON_IsString(title) ? title->valuestring : key->valuestring);
        zc__buf_printf(page, "</th></tr>\n<tr><th>what</th><th>size</th><th>bandwidth</th>"
                             "</tr>\n");
        const cJSON *pt;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points"))
        {
            const cJSON *variant = cJSON_GetObjectItemCaseSensitive(pt, "variant");
            char size[32], rate[32];
            zc__report_bytes_text(zc__report_num(pt, "bytes"), size, sizeof size);
            zc__report_rate_text(
                zc__report_num(cJSON_GetObjectItemCaseSensitive(pt, "stats"), "median"), rate,
                sizeof rate);
            int total = cJSON_IsString(variant) && strstr(variant->valuestring, "total") != NULL;
            zc__buf_printf(page, "<tr%s><td>", total ? " class=\"total\"" : "");
            zc__buf_html(page, cJSON_IsString(variant) ? variant->valuestring : "");
            zc__buf_printf(page, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n", size,
                           rate);
        }
        zc__buf_printf(page, "</table>\n");
        if (cJSON_IsString(reason) && reason->valuestring[0]) {
            zc__buf_printf(page, "<p class=\"note\">");
            zc__buf_html(page, reason->valuestring);
            zc__buf_printf(page, "</p>\n");
        }
    }
}

void zc__report_multigpu(zc__buf *page, const zc_report_input *in)
{
    int any = in->multi_count > 0;
    for (size_t i = 0; i < in->bench_count && !any; i++)
        any = zc__report_bench_case(in->benches[i].doc, "multigpu.h2d.all") != NULL ||
              zc__report_bench_case(in->benches[i].doc, "multigpu.d2h.all") != NULL ||
              zc__report_bench_case(in->benches[i].doc, "multigpu.peer.copy") != NULL ||
              zc__report_bench_case(in->benches[i].doc, "multigpu.peer.read") != NULL ||
              zc__report_bench_case(in->benches[i].doc, "multigpu.peer.write") != NULL;
    if (!any)
        return;
    zc__buf_printf(page, "<h2 id=\"multigpu\">Several GPUs</h2>\n");
    for (size_t i = 0; i < in->bench_count; i++)
        zc__bench_multigpu(page, &in->benches[i]);
    for (size_t i = 0; i < in->multi_count; i++)
        zc__stream_multi(page, in, &in->multis[i]);
}
