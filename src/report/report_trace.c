/* SPDX-License-Identifier: Apache-2.0 */
/* The traced programs' section: for a zc trace document, its copies grouped into the workloads
 * they form and priced on this page's profile (zc advise --trace's engine); for a zc advise
 * --trace document, the advice as it was made. One table per program: each group now and with
 * its best technique, the saving, the zc run cure, the totals and what could not be priced. */
#include "report/report_page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "zerocopy/json.h"

static const char *zc__str(const cJSON *o, const char *key, const char *otherwise)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : otherwise;
}

/* A number of the document in a cell ("-" where it is absent or not finite): microseconds as
 * milliseconds, or a count. */
static void zc__ms_cell(zc__buf *page, const cJSON *o, const char *key)
{
    double us = zc__report_num(o, key);
    if (isfinite(us))
        zc__buf_printf(page, "<td class=\"n\">%.4g</td>", us / 1e3);
    else
        zc__buf_printf(page, "<td class=\"n\">-</td>");
}

static void zc__count_cell(zc__buf *page, const cJSON *o, const char *key)
{
    double n = zc__report_num(o, key);
    if (isfinite(n))
        zc__buf_printf(page, "<td class=\"n\">%.0f</td>", n);
    else
        zc__buf_printf(page, "<td class=\"n\">-</td>");
}

/* One group's row: its copies, the trace's time, the prices now and with the best technique. */
static void zc__group_row(zc__buf *page, const cJSON *g)
{
    /* Sizes stay doubles: a number from the input is never cast to an integer unchecked. */
    char lo[32], hi[32];
    zc__report_bytes_text(zc__report_num(g, "bytes_min"), lo, sizeof lo);
    zc__report_bytes_text(zc__report_num(g, "bytes_max"), hi, sizeof hi);
    zc__buf_printf(page, "<tr><td>");
    zc__buf_html(page, lo);
    if (strcmp(lo, hi) != 0) {
        zc__buf_printf(page, "..");
        zc__buf_html(page, hi);
    }
    zc__buf_printf(page, "</td><td>");
    zc__buf_html(page, zc__str(g, "direction", "?"));
    zc__buf_printf(page, "</td><td>");
    zc__buf_html(page, zc__str(g, "host_kind", "?"));
    zc__buf_printf(page, "</td>");
    zc__count_cell(page, g, "count");
    zc__ms_cell(page, g, "measured_us");
    zc__ms_cell(page, g, "copies_us");
    zc__ms_cell(page, g, "now_us");
    zc__buf_printf(page, "<td>");
    zc__buf_html(page, zc__str(g, "best", "?"));
    zc__buf_printf(page, "</td>");
    zc__ms_cell(page, g, "best_us");
    zc__ms_cell(page, g, "saving_us");
    zc__buf_printf(page, "<td>");
    zc__buf_html(page, zc__str(g, "cure", "-"));
    zc__buf_printf(page, "</td></tr>\n");
}

/* The table of one zerocopy.advise-trace document, its totals and its unpriced lines. */
static void zc__advice_table(zc__buf *page, const char *name, const cJSON *doc)
{
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(doc, "total");
    zc__buf_printf(page, "<p class=\"trace\">");
    zc__buf_html(page, name);
    zc__buf_printf(page, ": the copies it made, grouped by direction, host memory and size; "
                         "milliseconds. <em>measured</em>: their time on the GPU as traced; "
                         "<em>copies</em>: the same copies as this machine's copy curves price "
                         "them; <em>now</em> and <em>best</em>: each workload's whole time "
                         "(the CPU's fill, the copies, a kernel's pass) as it is and with the "
                         "fastest technique.</p>\n");
    zc__buf_printf(page, "<table class=\"trace\">\n<tr><th>size</th><th>dir</th><th>host</th>"
                         "<th>count</th><th>measured</th><th>copies</th><th>now</th>"
                         "<th>best</th><th>best ms</th><th>saving</th><th>zc run cure</th></tr>\n");
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(doc, "groups"))
    {
        zc__group_row(page, g);
    }
    zc__buf_printf(page, "<tr><td colspan=\"4\">total</td>");
    zc__ms_cell(page, total, "measured_us");
    zc__buf_printf(page, "<td></td>");
    zc__ms_cell(page, total, "now_us");
    zc__buf_printf(page, "<td></td>");
    zc__ms_cell(page, total, "best_us");
    zc__ms_cell(page, total, "saving_us");
    zc__buf_printf(page, "<td></td></tr>\n</table>\n");
    const cJSON *pinning = cJSON_GetObjectItemCaseSensitive(doc, "pinning");
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(pinning, "cure")))
        zc__buf_printf(page, "<p class=\"trace\">Pinned memory is allocated in a loop: zc run "
                             "--fix pinning keeps it and hands it out again.</p>\n");
    const cJSON *u;
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(doc, "unpriced"))
    {
        zc__buf_printf(page, "<p class=\"trace\">Not priced: ");
        zc__buf_html(page, zc__str(u, "what", "?"));
        double count = zc__report_num(u, "count");
        zc__buf_printf(page, " (%.0f): ", isfinite(count) ? count : 0.0);
        zc__buf_html(page, zc__str(u, "why", ""));
        zc__buf_printf(page, "</p>\n");
    }
}

/* A zc trace document priced on the page's profile, as the document zc advise --trace writes;
 * NULL with why when it cannot be. */
static cJSON *zc__priced(const zc_report_input *in, const cJSON *trace, char *why, size_t size)
{
    if (!in->have_profile) {
        snprintf(why, size, "no bench or profile result among the inputs to price it with");
        return NULL;
    }
    zc_trace_advice *advice = calloc(1, sizeof *advice);
    cJSON *doc = NULL;
    zc_status st = advice != NULL ? zc_advise_trace(&in->profile, trace, advice) : ZC_ERR_NO_MEMORY;
    if (st == ZC_OK)
        st = zc_trace_advice_to_json(&in->profile, in->notes, advice, &doc);
    if (st != ZC_OK)
        snprintf(why, size, "%s", advice != NULL ? zc_last_error() : "out of memory");
    free(advice);
    zc_clear_error();
    return doc;
}

void zc__report_trace_section(zc__buf *page, const zc_report_input *in)
{
    if (in->trace_count == 0)
        return;
    zc__buf_printf(page, "<h2>Traced programs: their transfers priced</h2>\n");
    for (size_t i = 0; i < in->trace_count; i++) {
        const zc_report_doc *d = &in->traces[i];
        const char *schema = zc__str(d->doc, "schema", "");
        if (strncmp(schema, "zerocopy.advise-trace/", 22) == 0) {
            zc__advice_table(page, d->name, d->doc);
            continue;
        }
        char why[512] = "";
        cJSON *priced = zc__priced(in, d->doc, why, sizeof why);
        if (priced == NULL) {
            zc__buf_printf(page, "<p class=\"trace\">");
            zc__buf_html(page, d->name);
            zc__buf_printf(page, ": not priced: ");
            zc__buf_html(page, why);
            zc__buf_printf(page, "</p>\n");
            continue;
        }
        zc__advice_table(page, d->name, priced);
        cJSON_Delete(priced);
    }
}
