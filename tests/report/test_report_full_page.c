/* SPDX-License-Identifier: Apache-2.0 */
/* zc report's page with every picture, from a recorded bench result: self-contained (images as
 * data: URIs only), every section there. Needs gnuplot and graphviz: without either it is
 * skipped (exit 77), never passed; test_report_page.c covers the page without them. */
#include "test_support.h"

#include <string.h>

#include "report_test.h"

#define BENCH ZC_REPORT_FIXTURES "/h200.bench.json"

static void test_full_page(void **state)
{
    (void)state;
    char dir[512];
    report_test_tempdir(dir, sizeof dir);
    char *html = report_test_make_page(dir, NULL, BENCH, ZC_REPORT_FIXTURES "/pinning.json");
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    assert_non_null(strstr(html, "NVIDIA H200"));
    /* Self-contained: pictures only as data: URIs, nothing fetched. */
    assert_int_equal(report_test_count(html, "src=\"data:image/svg+xml;base64,"),
                     report_test_count(html, "<img"));
    /* Copies both ways, zero-copy, crossover, stream percentiles and histogram, allocation (from
     * the bench's own points), the pinning result and the picture. */
    assert_int_equal(report_test_count(html, "<img"), 9);
    assert_null(strstr(html, "no zc stream result"));
    assert_null(strstr(html, "no allocation cost was measured"));
    assert_null(strstr(html, "src=\"http"));
    assert_null(strstr(html, "no-gnuplot"));
    assert_null(strstr(html, "no-graphviz"));
    /* The comparison table from the bench result, and advice. */
    assert_non_null(strstr(html, "large and frequent transfers"));
    assert_non_null(strstr(html, "Advice for typical workloads"));
    assert_non_null(strstr(html, "mapped zero-copy"));
    free(html);
    report_test_cleanup(dir);
}

int main(void)
{
    const char *missing = !report_test_have("gnuplot") ? "gnuplot"
                          : !report_test_have("dot")   ? "dot"
                                                       : NULL;
    if (missing != NULL) {
        fprintf(stderr, "SKIP cpu_report_full_page: %s not found (scripts/deps installs it)\n",
                missing);
        return ZC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
