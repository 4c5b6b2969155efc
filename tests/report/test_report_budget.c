/* SPDX-License-Identifier: Apache-2.0 */
/* The stream section shows each run's time budget (zc stream --budget): a table of its steps
 * with p50, p99, p99.9 and mean and its total, and for a run whose budget failed the reason,
 * from the same document zc stream writes (tests/json/golden/stream_gpu.json's shape). */
#include "test_support.h"

#include <string.h>

#include "report_test.h"

#define BUDGET_STREAM ZC_REPORT_FIXTURES "/budget.stream.json"
#define PLAIN_STREAM  ZC_REPORT_FIXTURES "/stream.json"

static void test_budget_table_per_run(void **state)
{
    (void)state;
    char *html = report_test_page_of((const char *[]){BUDGET_STREAM, NULL}, NULL);
    report_test_expect(html,
                       "<p class=\"budget\">Time budget of zerocopy-ll (budget.stream.json), 1000 "
                       "frames, microseconds:</p>");
    report_test_expect(html,
                       "<tr><th>step</th><th>p50</th><th>p99</th><th>p99.9</th><th>mean</th></tr>");
    /* The fixture's host-write step: p50 0.625, p99 1.5, p99.9 1.75, mean 0.75. */
    report_test_expect(
        html, "<tr><td>host-write</td><td class=\"n\">0.62</td><td class=\"n\">1.50</td><td "
              "class=\"n\">1.75</td><td class=\"n\">0.75</td></tr>");
    report_test_expect(html, "<tr><td>to-gpu</td><td class=\"n\">1.88</td>");
    report_test_expect(html, "<tr><td>total</td><td class=\"n\">");
    /* The run whose budget could not be kept says why, and no table is made for it. */
    report_test_expect(html,
                       "Time budget of zerocopy-flag (budget.stream.json): none, ERR_UNSUPPORTED");
    const char *first = strstr(html, "<table class=\"budget\">");
    assert_non_null(first);
    assert_null(strstr(first + 1, "<table class=\"budget\">"));
    free(html);
}

static void test_no_budget_no_table(void **state)
{
    (void)state;
    char *html = report_test_page_of((const char *[]){PLAIN_STREAM, NULL}, NULL);
    assert_null(strstr(html, "class=\"budget\""));
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_table_per_run),
        cmocka_unit_test(test_no_budget_no_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
