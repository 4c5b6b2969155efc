/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 18, item 3: the crossover plot's range and its caption agree. The bench measured 64 KiB
 * to 128 MiB: the plot spans those sizes, the caption names them and says which side won at
 * each; a profile without crossover points gets the default range, named the same way. */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

#include "report_test.h"

/* The report's crossover script (from the stand-in's log) and the figure's caption. */
static void make(const char *input, char **script_p, char **caption_p)
{
    char dir[512], out[4096], path[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    report_test_zc_fake_plots(dir, (const char *[]){"report", "-o", out, input, NULL});
    char *html = zc_test_read_file(out, NULL);
    const char *figure_end = NULL;
    const char *figure =
        report_test_figure_after(html, "<h2>The crossover: when a copy pays off</h2>", &figure_end);
    const char *cap = strstr(figure, "<figcaption>");
    assert_non_null(cap);
    cap += strlen("<figcaption>");
    *caption_p = strndup(cap, strcspn(cap, "<"));
    free(html);
    snprintf(path, sizeof path, "%s/scripts.gp", dir);
    char *log = zc_test_read_file(path, NULL);
    const char *at = strstr(log, "time against size");
    *script_p = NULL;
    if (at != NULL) {
        const char *start = at;
        while (start > log && strncmp(start, "#### end of script", 18) != 0)
            start--;
        const char *end = strstr(at, "#### end of script");
        *script_p = strndup(start, (size_t)(end - start));
    }
    free(log);
    report_test_cleanup(dir);
}

/* Every size in the script's datablocks lies within [lo, hi]. */
static void sizes_within(const char *script, double lo, double hi)
{
    int in_block = 0, points = 0;
    for (const char *line = script; line != NULL && *line; line = strchr(line, '\n')) {
        line += *line == '\n';
        if (line[0] == '$') {
            in_block = 1;
            continue;
        }
        if (strncmp(line, "EOD", 3) == 0) {
            in_block = 0;
            continue;
        }
        double x = 0.0, y = 0.0;
        if (in_block && sscanf(line, "%lf %lf", &x, &y) == 2) {
            points++;
            if (x < lo || x > hi)
                fail_msg("a point at %g bytes lies outside %g..%g", x, lo, hi);
        }
    }
    assert_true(points >= 4);
}

static void test_measured_range(void **state)
{
    (void)state;
    char *script = NULL, *caption = NULL;
    make(ZC_REPORT_FIXTURES "/h200.bench.json", &script, &caption);
    print_message("caption: %s\n", caption);
    assert_non_null(strstr(caption, "read once"));
    assert_non_null(strstr(caption, "for transfers of 64 KiB to 128 MiB"));
    assert_non_null(strstr(caption, "zero-copy was faster at 64 KiB and 1 MiB"));
    assert_non_null(strstr(caption, "copying first at 16 MiB and 128 MiB"));
    assert_non_null(script);
    assert_non_null(strstr(script, "set xrange [65536:134217728]"));
    sizes_within(script, 65536, 134217728);
    /* Measured points at k = 1 are drawn, in both variants. */
    assert_non_null(strstr(script, "65536 6.944"));
    assert_non_null(strstr(script, "134217728 2513.12"));
    free(script);
    free(caption);
}

static void test_table_of_every_point(void **state)
{
    (void)state;
    char dir[512], out[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    const char *env[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", "ZC_DOT=/nonexistent/dot", NULL};
    report_test_how how = {.env = env};
    int code = report_test_zc(
        (const char *[]){"report", "-o", out, ZC_REPORT_FIXTURES "/h200.bench.json", NULL}, &how,
        NULL, NULL);
    assert_int_equal(code, 0);
    char *html = zc_test_read_file(out, NULL);
    const char *table = strstr(html, "<table class=\"crossover\">");
    assert_non_null(table);
    assert_non_null(strstr(table, "<th>read 16 times</th>"));
    assert_non_null(strstr(table, "<td class=\"n\">128 MiB</td>"));
    /* 128 MiB read 16 times: copying first (2.85 ms) beats zero-copy (39.2 ms). */
    assert_non_null(strstr(table, "zero-copy 39.2 ms<br><b>copy first 2.85 ms</b>"));
    free(html);
    report_test_cleanup(dir);
}

static void test_predicted_range(void **state)
{
    (void)state;
    char *script = NULL, *caption = NULL;
    make(ZC_ADVISE_FIXTURES "/h200.profile.json", &script, &caption);
    print_message("caption: %s\n", caption);
    assert_non_null(strstr(caption, "for transfers of 4 KiB to 256 MiB"));
    assert_null(strstr(caption, "Measured here"));
    assert_non_null(script);
    assert_non_null(strstr(script, "set xrange [4096:268435456]"));
    sizes_within(script, 4096, 268435456);
    free(script);
    free(caption);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measured_range),
        cmocka_unit_test(test_table_of_every_point),
        cmocka_unit_test(test_predicted_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
