/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: any JSON document as zc report reads it (bench, profile, stream, multi-GPU stream,
 * pinning, info), then every table, plot script and the picture's graphviz source built from it;
 * the tools themselves (gnuplot, dot) are not run. Last, the document made valid UTF-8 as every
 * document is before it is printed: the printed text must be UTF-8, or the target aborts. */
#include "fuzz_support.h"

#include "report/report_page.h"
#include "zerocopy/json.h"
#include "zerocopy/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static zc_report_input in;
    static zc_report_bad bad;
    (void)zc_report_input_init(&in, &bad);
    if (zc_json_check_limits((const char *)data, size, "fuzz.json", NULL) != ZC_OK)
        return 0;
    cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
    if (doc != NULL && zc_report_input_add(&in, "fuzz.json", doc) == ZC_OK) {
        (void)zc_report_input_finish(&in);
        zc__report_plot plots[9];
        memset(plots, 0, sizeof plots);
        zc__report_plot_copy(&in, ZC_DIR_H2D, &plots[0]);
        zc__report_plot_copy(&in, ZC_DIR_D2H, &plots[1]);
        zc__report_plot_zerocopy(&in, &plots[2]);
        zc__report_plot_crossover(&in, &plots[3]);
        zc__report_plot_latency(&in, &plots[4]);
        zc__report_plot_histogram(&in, &plots[5]);
        zc__report_plot_alloc(&in, &plots[6]);
        zc__report_plot_pinning(&in, &plots[7]);
        for (int i = 0; i < 8; i++)
            free(plots[i].script);
        zc__buf page = {0};
        zc__report_machine(&page, &in);
        zc__report_crossover_table(&page, &in);
        zc__report_alloc_table(&page, &in);
        zc__report_multigpu(&page, &in);
        zc__buf_free(&page);
        char link[160];
        zc__report_link_text(in.machine, "fuzz", &bad, link, sizeof link);
        if (in.have_profile)
            free(zc__report_picture_dot(&in.profile, link));
    }
    if (doc != NULL && zc_json_sanitize(doc, NULL) == ZC_OK) {
        char *text = cJSON_PrintUnformatted(doc);
        if (text != NULL && !zc_utf8_valid(text, strlen(text)))
            abort();
        cJSON_free(text);
    }
    cJSON_Delete(doc);
    return 0;
}
