/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 18, item 2: the allocation plot from zc bench's own alloc.* points (per size, per
 * kind, allocating and freeing), and the points as a table, without a pinning result. */
#include "test_support.h"

#include <string.h>

#include "report_test.h"

#define BENCH ZC_REPORT_FIXTURES "/h200.bench.json"

static void test_alloc_from_bench_points(void **state)
{
    (void)state;
    char dir[512], out[4096], path[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    report_test_zc_fake_plots(dir, (const char *[]){"report", "-o", out, BENCH, NULL});
    char *html = zc_test_read_file(out, NULL);
    /* A picture, not "No plot: no allocation cost was measured". */
    const char *end = NULL;
    const char *figure = report_test_figure_after(html, "<h2>Allocation cost</h2>", &end);
    if (strstr(figure, "<img") == NULL || strstr(figure, "<img") > end)
        fail_msg("the allocation figure holds no picture: %.300s", figure);
    assert_null(strstr(html, "no allocation cost was measured"));
    /* The table of measured points: cudaHostAlloc of 256 MiB took 93471 us, the pool 81 ns. */
    assert_non_null(strstr(html, "Allocation cost, every measured point"));
    assert_non_null(strstr(html, "<td class=\"n\">256 MiB</td><td class=\"n\">93.5 ms</td>"));
    assert_non_null(strstr(html, "<td class=\"n\">81 ns</td>"));
    free(html);

    /* The script plots the measured points themselves, per kind and per size. */
    snprintf(path, sizeof path, "%s/scripts.gp", dir);
    char *log = zc_test_read_file(path, NULL);
    const char *script = strstr(log, "Allocating and freeing memory, per kind");
    assert_non_null(script);
    assert_non_null(strstr(log, "268435456 93471.3\n"));
    assert_non_null(strstr(log, "4096 3.1415\n"));
    static const char *const kinds[] = {"'cudaHostAlloc'",
                                        "'zc_buffer_register'",
                                        "'zc_buffer_alloc device'",
                                        "'zc_pool_alloc pinned (hit)'",
                                        "'allocate'",
                                        "'free'"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strstr(script, kinds[i]) == NULL)
            fail_msg("the allocation plot lacks %s", kinds[i]);
    }
    free(log);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_from_bench_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
