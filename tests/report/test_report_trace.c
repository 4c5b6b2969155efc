/* SPDX-License-Identifier: Apache-2.0 */
/* zc report given traced programs: a zc trace document priced on the page's profile (one row
 * per group, the totals, what could not be priced), a zc advise --trace document shown as it
 * was advised, a trace without a profile said to be unpriced, and no section without either. */
#include "test_support.h"

#include <string.h>

#include "report_test.h"

#define BENCH   ZC_REPORT_FIXTURES "/h200.bench.json"
#define TRACE   ZC_REPORT_FIXTURES "/../advise/trace-example.json"
#define PROFILE ZC_REPORT_FIXTURES "/../advise/h200.profile.json"
#define STREAM  ZC_REPORT_FIXTURES "/stream.json"

static void test_trace_priced_on_the_bench(void **state)
{
    (void)state;
    char *html = report_test_page_of((const char *[]){BENCH, TRACE, NULL}, NULL);
    report_test_expect(html, "<h2>Traced programs: their transfers priced</h2>");
    report_test_expect(html, "<p class=\"trace\">trace-example.json: the copies it made");
    /* The fixture's three groups, with their counts and the trace's own times (10, 20, 3 ms). */
    report_test_expect(html,
                       "<tr><td>4 KiB</td><td>h2d</td><td>pageable</td><td class=\"n\">2000</td>"
                       "<td class=\"n\">10</td>");
    report_test_expect(html,
                       "<tr><td>4 MiB</td><td>h2d</td><td>pageable</td><td class=\"n\">100</td>"
                       "<td class=\"n\">20</td>");
    report_test_expect(html, "<tr><td>64 KiB..97.7 KiB</td><td>d2h</td><td>pinned</td>"
                             "<td class=\"n\">500</td><td class=\"n\">3</td>");
    report_test_expect(html, "<td>pageable,register</td></tr>");
    report_test_expect(html, "<tr><td colspan=\"4\">total</td><td class=\"n\">33</td>");
    report_test_expect(html, "Not priced: d2d device-&gt;device (10)");
    report_test_expect(html, "zc run --fix pinning");
    assert_int_equal(report_test_count(html, "<table class=\"trace\">"), 1);
    free(html);
}

static void test_advice_document_as_advised(void **state)
{
    (void)state;
    /* zc advise --trace's own document, made from the same trace on the recorded profile. */
    char dir[512], advice[1024];
    report_test_tempdir(dir, sizeof dir);
    snprintf(advice, sizeof advice, "%s/advice.json", dir);
    char *err = NULL;
    int code = report_test_zc(
        (const char *[]){"advise", "--profile", PROFILE, "--trace", TRACE, "--json", advice, NULL},
        &(report_test_how){0}, NULL, &err);
    if (code != 0)
        fail_msg("zc advise --trace exit %d: %s", code, err);
    free(err);
    /* With a stream result only: no profile on the page, the advice needs none. */
    char *html = report_test_page_of((const char *[]){STREAM, advice, NULL}, NULL);
    report_test_expect(html, "<p class=\"trace\">advice.json: the copies it made");
    report_test_expect(html,
                       "<tr><td>4 KiB</td><td>h2d</td><td>pageable</td><td class=\"n\">2000</td>");
    report_test_expect(html, "Not priced: managed memory migrated on demand (20)");
    free(html);
    report_test_cleanup(dir);
}

static void test_trace_without_profile_says_so(void **state)
{
    (void)state;
    char *html = report_test_page_of((const char *[]){STREAM, TRACE, NULL}, NULL);
    report_test_expect(
        html, "<p class=\"trace\">trace-example.json: not priced: no bench or profile result "
              "among the inputs to price it with</p>");
    assert_null(strstr(html, "<table class=\"trace\">"));
    free(html);
}

/* An advice document with numbers no program makes (a size of 1e30, a count absent): the page is
 * made, the size written as a number, the count as "-", nothing cast unchecked. */
static void test_advice_with_odd_numbers(void **state)
{
    (void)state;
    char dir[512], advice[1024];
    report_test_tempdir(dir, sizeof dir);
    snprintf(advice, sizeof advice, "%s/odd.json", dir);
    report_test_write(advice,
                      "{\"schema\": \"zerocopy.advise-trace/1\", \"groups\": [{\"direction\": "
                      "\"h2d\", \"host_kind\": \"pageable\", \"bytes_min\": 1e30, "
                      "\"bytes_max\": 1e30, \"measured_us\": 5000}], \"total\": {}}");
    char *html = report_test_page_of((const char *[]){STREAM, advice, NULL}, NULL);
    report_test_expect(html,
                       "<td>h2d</td><td>pageable</td><td class=\"n\">-</td><td class=\"n\">5</td>");
    report_test_expect(html, "PiB</td>");
    free(html);
    report_test_cleanup(dir);
}

static void test_no_trace_no_section(void **state)
{
    (void)state;
    char *html = report_test_page_of((const char *[]){BENCH, NULL}, NULL);
    assert_null(strstr(html, "Traced programs"));
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_priced_on_the_bench),
        cmocka_unit_test(test_advice_document_as_advised),
        cmocka_unit_test(test_trace_without_profile_says_so),
        cmocka_unit_test(test_advice_with_odd_numbers),
        cmocka_unit_test(test_no_trace_no_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
