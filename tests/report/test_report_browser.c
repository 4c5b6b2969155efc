/* SPDX-License-Identifier: Apache-2.0 */
/* zc report's page opened in headless Chromium: every image loads, the screenshot is a page,
 * not a blank, and with several stream results no key entry of any plot lies on its plot area
 * (issue 18). Without Chromium, gnuplot, graphviz or Python 3 the test is skipped (exit 77);
 * scripts/deps installs them. */
#include "test_support.h"

#include <string.h>
#include <sys/stat.h>

#include "report_test.h"

/* Three stream results like the fixture, each with its own p50 of zerocopy-ll, in dir/a, dir/b
 * and dir/c (the same file name: the key tells them apart by folder). */
static void three_stream_files(const char *dir, char paths[3][4096])
{
    static const char *const p50[] = {"\"p50\": 3.17", "\"p50\": 4.6", "\"p50\": 6.1"};
    for (int f = 0; f < 3; f++) {
        snprintf(paths[f], sizeof paths[f], "%s/%c", dir, 'a' + f);
        assert_int_equal(mkdir(paths[f], 0755), 0);
        snprintf(paths[f], sizeof paths[f], "%s/%c/stream.json", dir, 'a' + f);
        report_test_copy_replacing(ZC_REPORT_FIXTURES "/stream.json", paths[f], "\"p50\": 3.17",
                                   p50[f]);
    }
}

/* The legend check's line for one plot: its entries and how many overlap the plot area. */
static void legend_of(const char *report, const char *plot, int *entries_p, int *over_p)
{
    char want[64];
    snprintf(want, sizeof want, "plot %s entries ", plot);
    const char *line = strstr(report, want);
    if (line == NULL)
        fail_msg("svg_legend.py says nothing of the %s plot:\n%s", plot, report);
    if (sscanf(line + strlen(want), "%d overlapping %d", entries_p, over_p) != 2)
        fail_msg("svg_legend.py: %.80s", line);
}

static const char *chromium(void)
{
    const char *env = getenv("ZC_CHROMIUM");
    if (env != NULL && *env)
        return env;
    static const char *const names[] = {"chromium", "chromium-browser", "google-chrome"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (report_test_have(names[i]))
            return names[i];
    }
    return NULL;
}

static void test_report_in_browser(void **state)
{
    (void)state;
    const char *browser = chromium();
    char dir[512], html[4096], dom[4096], png[4096], stats[4096], url[4200], profile[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(dom, sizeof dom, "%s/dom.html", dir);
    snprintf(png, sizeof png, "%s/shot.png", dir);
    snprintf(stats, sizeof stats, "%s/stats.txt", dir);
    snprintf(profile, sizeof profile, "--user-data-dir=%s/chromium", dir);
    snprintf(url, sizeof url, "file://%s", html);

    char streams[3][4096];
    three_stream_files(dir, streams);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"report", "-o", html, ZC_REPORT_FIXTURES "/h200.bench.json",
                                    streams[0], streams[1], streams[2], NULL},
                   NULL, &r);
    if (r.exit_code != 0)
        fail_msg("zc report exit %d: %s", r.exit_code, r.err);
    zc_test_output_free(&r);

    /* Every image loaded: the page's own script marks the body once the load event fired. */
    const char *dump[] = {"timeout",
                          "90",
                          browser,
                          "--headless",
                          "--no-sandbox",
                          "--disable-gpu",
                          profile,
                          "--virtual-time-budget=10000",
                          "--dump-dom",
                          url,
                          NULL};
    int rc = report_test_run(dump, dom);
    if (rc != 0)
        fail_msg("%s --dump-dom exited with %d", browser, rc);
    char *text = zc_test_read_file(dom, NULL);
    if (strstr(text, "data-checked=\"1\"") == NULL)
        fail_msg("the page's check script did not run (no data-checked on <body>)");
    const char *count = strstr(text, "data-image-count=\"");
    assert_non_null(count);
    int images = atoi(count + strlen("data-image-count=\""));
    const char *broken = strstr(text, "data-broken-images=\"");
    assert_non_null(broken);
    broken += strlen("data-broken-images=\"");
    print_message("images: %d, broken: %.*s\n", images, (int)strcspn(broken, "\""), broken);
    if (*broken != '"')
        fail_msg("images that did not load (indices): %.*s", (int)strcspn(broken, "\""), broken);
    assert_true(images >= 5);
    free(text);

    /* Not blank: a screenshot with many colours and a fair share of non-white pixels. */
    const char *shot[] = {"timeout",
                          "90",
                          browser,
                          "--headless",
                          "--no-sandbox",
                          "--disable-gpu",
                          "--hide-scrollbars",
                          profile,
                          "--window-size=1000,2200",
                          "--virtual-time-budget=10000",
                          NULL,
                          url,
                          NULL};
    char shot_arg[4200];
    snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", png);
    shot[10] = shot_arg;
    rc = report_test_run(shot, NULL);
    if (rc != 0)
        fail_msg("%s --screenshot exited with %d", browser, rc);
    const char *check[] = {"python3", ZC_REPORT_FIXTURES "/png_stats.py", png, NULL};
    rc = report_test_run(check, stats);
    text = zc_test_read_file(stats, NULL);
    if (rc != 0)
        fail_msg("png_stats.py exited with %d: %s", rc, text);
    int width = 0, height = 0, colours = 0;
    double nonwhite = 0.0;
    if (sscanf(text, "width %d height %d colours %d nonwhite %lf", &width, &height, &colours,
               &nonwhite) != 4)
        fail_msg("unexpected png_stats output: %s", text);
    print_message("screenshot %dx%d, %d colours, %.1f%% non-white\n", width, height, colours,
                  100.0 * nonwhite);
    assert_int_equal(width, 1000);
    assert_int_equal(height, 2200);
    assert_true(colours >= 50);
    assert_true(nonwhite >= 0.03 && nonwhite <= 0.9);
    free(text);

    /* The key of every plot stays off its plot area: gnuplot's own plot area (the page keeps
     * it beside each image) against where each key entry was drawn in the SVG. */
    char legend[4096];
    snprintf(legend, sizeof legend, "%s/legend.txt", dir);
    const char *check_legend[] = {"python3", ZC_REPORT_FIXTURES "/svg_legend.py", html, NULL};
    rc = report_test_run(check_legend, legend);
    text = zc_test_read_file(legend, NULL);
    print_message("%s", text);
    if (rc != 0)
        fail_msg("svg_legend.py exited with %d: a key covers the data:\n%s", rc, text);
    /* Both stream plots name each of the four modes and each of the three files once. */
    static const char *const stream_plots[] = {"latency", "histogram"};
    for (size_t i = 0; i < 2; i++) {
        int entries = 0, over = 0;
        legend_of(text, stream_plots[i], &entries, &over);
        assert_int_equal(entries, 4 + 3);
        assert_int_equal(over, 0);
    }
    assert_true(report_test_count(text, "overlapping 0") >= 7);
    free(text);
    report_test_cleanup(dir);
}

int main(void)
{
    const char *missing = NULL;
    if (chromium() == NULL)
        missing = "chromium";
    else if (!report_test_have("gnuplot"))
        missing = "gnuplot";
    else if (!report_test_have("dot"))
        missing = "dot (graphviz)";
    else if (!report_test_have("python3"))
        missing = "python3";
    if (missing != NULL) {
        fprintf(stderr,
                "SKIP cpu_report_browser: %s not found (scripts/deps --with-browser installs it)\n",
                missing);
        return ZC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_in_browser),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
