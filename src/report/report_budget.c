/* SPDX-License-Identifier: Apache-2.0 */
/* The stream section's time budgets: for every run of a stream result that kept one (zc stream
 * --budget), a table of its steps and its total, so that the page says where a frame's time
 * went, as zc stream's own table does (docs/stream.md, "The time budget"). */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>

/* A figure of a budget's statistics in microseconds, or "-" where it is missing or not finite
 * (a step no frame reached). */
static void zc__us_cell(zc__buf *page, const cJSON *stats, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(stats, key);
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
        zc__buf_printf(page, "<td class=\"n\">%.2f</td>", v->valuedouble);
    else
        zc__buf_printf(page, "<td class=\"n\">-</td>");
}

static void zc__budget_row(zc__buf *page, const char *step, const cJSON *stats)
{
    zc__buf_printf(page, "<tr><td>");
    zc__buf_html(page, step);
    zc__buf_printf(page, "</td>");
    static const char *const keys[] = {"p50", "p99", "p999", "mean"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        zc__us_cell(page, stats, keys[k]);
    zc__buf_printf(page, "</tr>\n");
}

/* One run's budget: its table, or the line that says why it has none. */
static void zc__budget_of_run(zc__buf *page, const char *file, const char *run, const cJSON *budget)
{
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(budget, "steps");
    zc__buf_printf(page, "<p class=\"budget\">Time budget of ");
    zc__buf_html(page, run);
    zc__buf_printf(page, " (");
    zc__buf_html(page, file);
    if (!cJSON_IsArray(steps)) {
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(budget, "status");
        const cJSON *error = cJSON_GetObjectItemCaseSensitive(budget, "error");
        zc__buf_printf(page, "): none, ");
        zc__buf_html(page, cJSON_IsString(status) ? status->valuestring : "not kept");
        if (cJSON_IsString(error) && error->valuestring[0] != '\0') {
            zc__buf_printf(page, ": ");
            zc__buf_html(page, error->valuestring);
        }
        zc__buf_printf(page, "</p>\n");
        return;
    }
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(budget, "frames");
    zc__buf_printf(page, "), %.0f frames, microseconds:</p>\n",
                   cJSON_IsNumber(frames) ? frames->valuedouble : 0.0);
    zc__buf_printf(page, "<table class=\"budget\">\n<tr><th>step</th><th>p50</th><th>p99</th>"
                         "<th>p99.9</th><th>mean</th></tr>\n");
    const cJSON *step;
    cJSON_ArrayForEach(step, steps)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(step, "step");
        zc__budget_row(page, cJSON_IsString(name) ? name->valuestring : "?",
                       cJSON_GetObjectItemCaseSensitive(step, "us"));
    }
    zc__budget_row(page, "total", cJSON_GetObjectItemCaseSensitive(budget, "total_us"));
    zc__buf_printf(page, "</table>\n");
}

void zc__report_budget_tables(zc__buf *page, const zc_report_input *in)
{
    for (size_t s = 0; s < in->stream_count; s++) {
        const cJSON *run;
        cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(in->streams[s].doc, "runs"))
        {
            const cJSON *budget = cJSON_GetObjectItemCaseSensitive(run, "budget");
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(run, "name");
            if (cJSON_IsObject(budget))
                zc__budget_of_run(page, in->streams[s].name,
                                  cJSON_IsString(name) ? name->valuestring : "stream", budget);
        }
    }
}
