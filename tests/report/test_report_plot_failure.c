/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 21, item 9: one plot that gnuplot fails on costs that plot only. Its place says why,
 * with gnuplot's own message (not an empty reason, not the temporary script's name); the plots
 * after it are still drawn and the page is made, and stderr names the plot and why. When
 * gnuplot fails on every plot, zc report says so (which plots, why), writes nothing and exits 1;
 * when gnuplot is not installed (or ZC_GNUPLOT=none), the page is made without plots and that
 * is said once (exit 0): pictures are optional. */
#include "test_support.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_test.h"

#define BENCH  ZC_REPORT_FIXTURES "/h200.bench.json"
#define STREAM ZC_REPORT_FIXTURES "/stream.json"

/* The plots the fixtures give data for, in the page's order (the picture is graphviz's). */
static const char *const g_plots[] = {"copy-h2d", "copy-d2h",  "zerocopy", "crossover",
                                      "latency",  "histogram", "alloc"};
#define PLOTS (sizeof g_plots / sizeof g_plots[0])

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
    /* Said on stderr too: the plot and gnuplot's reason, once; nothing of the others. */
    if (report_test_count(err, "plot zerocopy not drawn: gnuplot exited with 1: line 3: "
                               "undefined variable: boom\n") != 1)
        fail_msg("stderr does not name the failed plot once: %s", err);
    for (size_t i = 0; i < PLOTS; i++) {
        char said[64];
        snprintf(said, sizeof said, "plot %s not drawn", g_plots[i]);
        if (strcmp(g_plots[i], "zerocopy") != 0 && strstr(err, said) != NULL)
            fail_msg("stderr names %s, which was drawn: %s", g_plots[i], err);
    }
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

/* A folder holding a gnuplot that fails on every script, as gnuplot words its errors, and the
 * PATH entry that puts it first. */
static void failing_gnuplot_on_path(const char *dir, char *path_entry, size_t size)
{
    char fake[4096];
    snprintf(fake, sizeof fake, "%s/gnuplot", dir);
    report_test_write(fake,
                      "#!/bin/sh\nprintf 'set terminal svg\\n    ^\\n\"%s\" line 1: unknown or "
                      "ambiguous terminal type\\n' \"$1\" >&2\nexit 1\n");
    assert_int_equal(chmod(fake, 0755), 0);
    const char *path = getenv("PATH");
    snprintf(path_entry, size, "PATH=%s:%s", dir, path != NULL ? path : "/usr/bin:/bin");
}

static void test_every_plot_failed(void **state)
{
    (void)state;
    char dir[512], path_entry[8192], out[4096];
    report_test_tempdir(dir, sizeof dir);
    failing_gnuplot_on_path(dir, path_entry, sizeof path_entry);
    /* ZC_GNUPLOT unset: gnuplot is the one found on PATH. */
    const char *env[] = {path_entry, "ZC_DOT=none", NULL};
    snprintf(out, sizeof out, "%s/report.html", dir);
    report_test_how how = {.env = env};
    char *err = NULL;
    int code = report_test_zc((const char *[]){"report", "-o", out, BENCH, STREAM, NULL}, &how,
                              NULL, &err);
    if (code != 1)
        fail_msg("zc report exit %d, expected 1: %s", code, err);
    /* Every plot named, with gnuplot's reason, and what it means. */
    for (size_t i = 0; i < PLOTS; i++) {
        char said[256];
        snprintf(said, sizeof said,
                 "plot %s not drawn: gnuplot exited with 1: line 1: unknown or ambiguous "
                 "terminal type\n",
                 g_plots[i]);
        if (report_test_count(err, said) != 1)
            fail_msg("stderr does not say once: %s\n%s", said, err);
    }
    assert_non_null(strstr(err, "gnuplot drew none of the 7 plots"));
    assert_non_null(strstr(err, "no page written"));
    /* Nothing written: a failed run leaves no page (README, outputs whole or not at all). */
    assert_int_equal(access(out, F_OK), -1);
    free(err);
    /* Nor the picture's source, not even on stdout. */
    char *printed = NULL;
    code = report_test_zc(
        (const char *[]){"report", "-o", out, "--picture-dot", "-", BENCH, STREAM, NULL}, &how,
        &printed, &err);
    assert_int_equal(code, 1);
    assert_string_equal(printed, "");
    assert_int_equal(access(out, F_OK), -1);
    free(printed);
    free(err);
    report_test_cleanup(dir);
}

/* zc report with gnuplot as env says and no graphviz: exit 0, the page made, its stderr. */
static char *page_without_plots(const char *dir, const char *gnuplot_entry)
{
    char out[4096];
    snprintf(out, sizeof out, "%s/report.html", dir);
    unlink(out);
    const char *env[] = {gnuplot_entry, "ZC_DOT=none", NULL};
    report_test_how how = {.env = env};
    char *err = NULL;
    int code = report_test_zc((const char *[]){"report", "-o", out, BENCH, STREAM, NULL}, &how,
                              NULL, &err);
    if (code != 0)
        fail_msg("%s: zc report exit %d: %s", gnuplot_entry, code, err);
    char *html = zc_test_read_file(out, NULL);
    assert_int_equal(report_test_count(html, "<img"), 0);
    assert_non_null(strstr(html, "id=\"no-gnuplot\""));
    free(html);
    return err;
}

static void test_no_gnuplot_is_said_once(void **state)
{
    (void)state;
    char dir[512];
    report_test_tempdir(dir, sizeof dir);
    char *err = page_without_plots(dir, "ZC_GNUPLOT=/nonexistent/gnuplot");
    /* Once, not once per plot; and the picture's graphviz, turned off, once too. */
    if (report_test_count(err, "gnuplot not found") != 1 ||
        report_test_count(err, "the page has no plots") != 1)
        fail_msg("stderr: %s", err);
    assert_null(strstr(err, "not drawn"));
    if (report_test_count(err, "ZC_DOT=none") != 1)
        fail_msg("stderr: %s", err);
    free(err);
    err = page_without_plots(dir, "ZC_GNUPLOT=none");
    if (report_test_count(err, "ZC_GNUPLOT=none") != 1 ||
        report_test_count(err, "the page has no plots") != 1)
        fail_msg("stderr: %s", err);
    free(err);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_failed_plot),
        cmocka_unit_test(test_every_plot_failed),
        cmocka_unit_test(test_no_gnuplot_is_said_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
