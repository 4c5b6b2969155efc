/* SPDX-License-Identifier: Apache-2.0 */
/* zc report's page from a recorded bench result, still useful when gnuplot or graphviz is
 * missing (the page with every picture: test_report_full_page.c); names kept inside gnuplot's
 * titles; bad inputs refused. */
#include "test_support.h"

#include <string.h>
#include <sys/stat.h>

#include "report_test.h"

#define BENCH ZC_REPORT_FIXTURES "/h200.bench.json"

static void test_without_tools(void **state)
{
    (void)state;
    char dir[512];
    report_test_tempdir(dir, sizeof dir);
    const char *env[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", "ZC_DOT=/nonexistent/dot", NULL};
    char *html = report_test_make_page(dir, env, BENCH, NULL);
    assert_non_null(strstr(html, "id=\"no-gnuplot\""));
    assert_non_null(strstr(html, "id=\"no-graphviz\""));
    assert_non_null(strstr(html, "gnuplot not found"));
    assert_int_equal(report_test_count(html, "<img"), 0);
    /* The tables stay: every measured copy point, the comparison, the advice. */
    assert_non_null(strstr(html, "<td class=\"n\">256 MiB</td>"));
    assert_non_null(strstr(html, "large and frequent transfers"));
    assert_non_null(strstr(html, "Advice for typical workloads"));
    free(html);
    report_test_cleanup(dir);
}

static void test_from_profile_and_bad_input(void **state)
{
    (void)state;
    char dir[512];
    report_test_tempdir(dir, sizeof dir);
    const char *env[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", "ZC_DOT=/nonexistent/dot", NULL};
    char *html = report_test_make_page(dir, env, ZC_ADVISE_FIXTURES "/h200.profile.json", NULL);
    assert_non_null(strstr(html, "No zc info section"));
    free(html);
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"schema\": \"something.else/1\"}", f);
    fclose(f);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"report", "-o", "/dev/null", bad, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "something.else/1"));
    zc_test_output_free(&r);
    zc_test_run_zc((const char *[]){"report", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    zc_test_output_free(&r);
    report_test_cleanup(dir);
}

/* Names from the input files cannot break out of a gnuplot title: the scripts gnuplot gets
 * hold no command that a stream run's name smuggled in after a quote or a line break. */
static void test_names_stay_in_titles(void **state)
{
    (void)state;
    char dir[512], path[4096], scripts[4096], fake[4096], env_plot[4200];
    report_test_tempdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/stream.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(
        "{\"schema\": \"zerocopy.stream/1\", \"runs\": [{\"name\": \"x'\\nsystem('true')\\n'\",\n"
        " \"mode\": \"zerocopy\", \"latency_us\": {\"p50\": 3, \"p90\": 4, \"p99\": 5,\n"
        " \"p999\": 6, \"max\": 7}, \"histogram_us\": [{\"lo\": 2, \"hi\": 4, \"count\": 9}]}]}\n",
        f);
    fclose(f);
    /* A stand-in for gnuplot that keeps every script it is given and draws an empty SVG. */
    snprintf(scripts, sizeof scripts, "%s/scripts.gp", dir);
    snprintf(fake, sizeof fake, "%s/fake-gnuplot", dir);
    f = fopen(fake, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\ncat \"$1\" >> '%s'\necho '<svg></svg>'\n", scripts);
    fclose(f);
    assert_int_equal(chmod(fake, 0755), 0);
    snprintf(env_plot, sizeof env_plot, "ZC_GNUPLOT=%s", fake);
    const char *env[] = {env_plot, "ZC_DOT=/nonexistent/dot", NULL};
    char out[4096];
    snprintf(out, sizeof out, "%s/report.html", dir);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"report", "-o", out, BENCH, path, NULL}, env, &r);
    if (r.exit_code != 0)
        fail_msg("zc report exit %d: %s", r.exit_code, r.err);
    zc_test_output_free(&r);
    char *text = zc_test_read_file(scripts, NULL);
    /* Both stream plots were drawn, and no line of any script starts a command of the name. */
    assert_non_null(strstr(text, "Frame round-trip latency"));
    assert_non_null(strstr(text, "Distribution of frame latency"));
    for (const char *line = text; line != NULL; line = strchr(line, '\n')) {
        line += *line == '\n';
        if (strncmp(line, "system(", 7) == 0)
            fail_msg("a gnuplot script runs a command from a run's name: %.60s", line);
    }
    free(text);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_tools),
        cmocka_unit_test(test_from_profile_and_bad_input),
        cmocka_unit_test(test_names_stay_in_titles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
