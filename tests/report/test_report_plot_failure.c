/* Issue 21, item 9: one plot that gnuplot fails on costs that plot only. Its place says why,
 * with gnuplot's own message (not an empty reason, not the temporary script's name); the plots
 * after it are still drawn and the page is made. */
#include "test_support.h"

#include <string.h>

#include "report_test.h"

static void test_one_failed_plot(void **state)
{
    (void)state;
    char dir[512], env_plot[4200], out[4096];
    report_test_tempdir(dir, sizeof dir);
    /* The zero-copy plot, third of the page, fails; the others draw. */
    report_test_fake_gnuplot(dir, "A kernel reading and writing mapped host memory",
                             "undefined variable: boom", env_plot, sizeof env_plot);
    const char *env[] = {env_plot, "ZC_DOT=/nonexistent/dot", NULL};
    snprintf(out, sizeof out, "%s/report.html", dir);
    report_test_how how = {.env = env};
    char *err = NULL;
    int code =
        report_test_zc((const char *[]){"report", "-o", out, ZC_REPORT_FIXTURES "/h200.bench.json",
                                        ZC_REPORT_FIXTURES "/stream.json", NULL},
                       &how, NULL, &err);
    if (code != 0)
        fail_msg("zc report exit %d: %s", code, err);
    free(err);
    char *html = zc_test_read_file(out, NULL);
    const char *end = NULL;
    const char *failed = report_test_figure_after(
        html, "<h2>Zero-copy: the GPU reading host memory in place</h2>", &end);
    const char *want = "No picture: gnuplot exited with 1: line 3: undefined variable: boom.";
    if (strncmp(strstr(failed, "<p"), "<p class=\"missing\">", 19) != 0 ||
        strstr(failed, want) == NULL)
        fail_msg("the failed plot's place says: %.200s", failed);
    assert_null(strstr(html, "zc-report-")); /* no temporary script's name */
    /* Six of the seven plots (no graphviz here: the picture is not drawn). */
    assert_int_equal(report_test_count(html, "<img"), 6);
    /* Every later plot was drawn. */
    static const char *const later[] = {"crossover", "latency", "histogram", "alloc"};
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++) {
        char id[64];
        snprintf(id, sizeof id, "<figure id=\"figure-%s\">\n<img", later[i]);
        if (strstr(html, id) == NULL)
            fail_msg("the %s plot after the failed one was not drawn", later[i]);
    }
    /* The note at the top counts it and gives the first reason; gnuplot is not "missing". */
    assert_non_null(strstr(html, "id=\"gnuplot-failed\">1 picture could not be drawn"));
    assert_null(strstr(html, "id=\"no-gnuplot\""));
    free(html);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_failed_plot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
