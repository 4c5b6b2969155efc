/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 18, item 6: zc stream --devices results (zerocopy.stream-multi/1) are accepted and
 * shown in a multi-GPU section (a row per GPU, the total, the latency), and a bench's
 * multigpu.* group appears there too, beside or without a single-GPU bench. */
#include "test_support.h"

#include <string.h>

#include "report_test.h"

#define MULTI_STREAM ZC_REPORT_FIXTURES "/multigpu.stream.json"
#define MULTI_BENCH  ZC_REPORT_FIXTURES "/multigpu.bench.json"
#define BENCH        ZC_REPORT_FIXTURES "/h200.bench.json"

static void test_stream_over_two_gpus(void **state)
{
    (void)state;
    char *err = NULL;
    char *html = report_test_page_of((const char *[]){MULTI_STREAM, NULL}, &err);
    free(err);
    report_test_expect(html, "<h2 id=\"multigpu\">Several GPUs</h2>");
    report_test_expect(html, "zc stream over 2 GPUs: multigpu.stream.json");
    report_test_expect(html, "Mode zerocopy-flag, frames of 1 MiB");
    /* Each GPU: frames, rate, throughput, median, p99 and max latency. */
    report_test_expect(html,
                       "<tr><td>GPU 0</td><td>NVIDIA H200</td><td class=\"n\">1500</td><td "
                       "class=\"n\">10389</td><td class=\"n\">10.9 GB/s</td><td class=\"n\">1.42 "
                       "ms</td><td class=\"n\">1.9 ms</td><td class=\"n\">12.8 ms</td></tr>");
    report_test_expect(html, "<tr><td>GPU 1</td>");
    report_test_expect(html, "<tr class=\"total\"><th>total</th><th>all at once</th><td "
                             "class=\"n\">3000</td><td class=\"n\">20777</td><td class=\"n\">21.8 "
                             "GB/s</td><td class=\"n\">1.42 ms</td>");
    free(html);
}

static void test_bench_group(void **state)
{
    (void)state;
    char *err = NULL;
    /* The multi-GPU bench alone: no single-GPU figures, still a page. */
    char *html = report_test_page_of((const char *[]){MULTI_BENCH, NULL}, &err);
    free(err);
    report_test_expect(html, "zc bench over several GPUs: multigpu.bench.json");
    report_test_expect(html,
                       "<td>GPU 0 -&gt; GPU 1</td><td class=\"n\">256 MiB</td><td class=\"n\">393 "
                       "GB/s</td>");
    report_test_expect(html,
                       "<tr class=\"total\"><td>all 2 GPUs at once, total</td><td class=\"n\">256 "
                       "MiB</td><td class=\"n\">106 GB/s</td>");
    free(html);
    /* Given first, beside a single-GPU bench and a stream over two GPUs: the page's figures
     * still come from the single-GPU bench, and the section holds both. */
    html = report_test_page_of((const char *[]){MULTI_BENCH, BENCH, MULTI_STREAM, NULL}, &err);
    free(err);
    report_test_expect(html, "<title>Moving data to and from NVIDIA H200</title>");
    report_test_expect(html, "large and frequent transfers");
    report_test_expect(html, "zc bench over several GPUs: multigpu.bench.json");
    report_test_expect(html, "zc stream over 2 GPUs: multigpu.stream.json");
    assert_null(strstr(html, "No profile"));
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_over_two_gpus),
        cmocka_unit_test(test_bench_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
