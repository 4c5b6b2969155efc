/* Fuzz target: any JSON document as zc report reads it (bench, profile, stream, multi-GPU stream,
 * pinning, info), then every table, plot script and the picture's graphviz source built from it;
 * the tools themselves (gnuplot, dot) are not run. */
#include "fuzz_support.h"

#include "report_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = zc_fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    static zc_report_input in;
    static zc_report_bad bad;
    memset(&in, 0, sizeof in);
    memset(&bad, 0, sizeof bad);
    in.bad = &bad;
    cJSON *doc = NULL;
    if (zc_cli_report_input_add(&in, path, &doc) == 0) {
        zc_cli_report_input_finish(&in);
        zc_report_plot plots[9];
        memset(plots, 0, sizeof plots);
        zc_cli_report_plot_copy(&in, ZC_DIR_H2D, &plots[0]);
        zc_cli_report_plot_copy(&in, ZC_DIR_D2H, &plots[1]);
        zc_cli_report_plot_zerocopy(&in, &plots[2]);
        zc_cli_report_plot_crossover(&in, &plots[3]);
        zc_cli_report_plot_latency(&in, &plots[4]);
        zc_cli_report_plot_histogram(&in, &plots[5]);
        zc_cli_report_plot_alloc(&in, &plots[6]);
        zc_cli_report_plot_pinning(&in, &plots[7]);
        for (int i = 0; i < 8; i++)
            free(plots[i].script);
        zc_buf page = {0};
        zc_cli_report_machine(&page, &in);
        zc_cli_report_crossover_table(&page, &in);
        zc_cli_report_alloc_table(&page, &in);
        zc_cli_report_multigpu(&page, &in);
        zc_cli_buf_free(&page);
        char link[160];
        zc_cli_report_link_text(in.machine, "fuzz", &bad, link, sizeof link);
        if (in.have_profile)
            free(zc_cli_picture_dot(&in.profile, link));
    }
    cJSON_Delete(doc);
    close(fd);
    return 0;
}
