/* zc report's page opened in headless Chromium: every image loads and the screenshot is a page,
 * not a blank. Without Chromium, gnuplot, graphviz or Python 3 the test is skipped (exit 77);
 * scripts/deps installs them. */
#include "test_support.h"

#include <string.h>

#include "report_test.h"

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

    zc_test_output r;
    zc_test_run_zc(
        (const char *[]){"report", "-o", html, ZC_REPORT_FIXTURES "/h200.bench.json", NULL}, NULL,
        &r);
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
        fprintf(stderr, "SKIP cpu_report_browser: %s not found (scripts/deps installs it)\n",
                missing);
        return ZC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_in_browser),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
