/* SPDX-License-Identifier: Apache-2.0 */
/* The report in a program whose locale writes a decimal comma (setlocale(LC_ALL, "de_DE.UTF-8")):
 * the page, every gnuplot script with its data and the picture's graphviz source are the same
 * bytes as in the C locale, so gnuplot reads 12.5 and not "12,5"; the plot area gnuplot prints
 * back is read with its decimal point too. The locale is the program's argument. */
#include "test_support.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locale_test.h"
#include "report_test.h"
#include "zerocopy/report.h"

static const char *g_locale;

/* What gnuplot prints for the plot area (report_html.c asks for it): in pixels already. */
#define AREA         "zc-plot-area 54.5 845.5 40.25 380.75 900 420 1"
#define AREA_ON_PAGE "data-plot-area=\"54.50 39.25 845.50 379.75\""

/* A stand-in for gnuplot: every script appended to dir/scripts.gp, the plot area on stderr. */
static void fake_gnuplot(const char *dir)
{
    char fake[4096], text[8192];
    snprintf(fake, sizeof fake, "%s/fake-gnuplot", dir);
    snprintf(text, sizeof text,
             "#!/bin/sh\ncat \"$1\" >> '%s/scripts.gp'\necho '#### end of script' >> "
             "'%s/scripts.gp'\necho '%s' >&2\necho '<svg></svg>'\n",
             dir, dir, AREA);
    report_test_write(fake, text);
    assert_int_equal(chmod(fake, 0755), 0);
    assert_int_equal(setenv("ZC_GNUPLOT", fake, 1), 0);
    assert_int_equal(setenv("ZC_DOT", "/nonexistent/dot", 1), 0);
}

/* The page without its line that says when it was made (the minute may change between runs). */
static void drop_stamp(char *page)
{
    char *made = strstr(page, "<p class=\"note\">Made by zc report");
    assert_non_null(made);
    char *end = strchr(made, '\n');
    assert_non_null(end);
    memmove(made, end, strlen(end) + 1);
}

typedef struct outputs {
    char *page, *scripts, *dot;
} outputs;

/* The report of the fixtures made in the locale now in force. */
static outputs make_report(const char *dir)
{
    static const char *const inputs[] = {
        ZC_REPORT_FIXTURES "/h200.bench.json", ZC_REPORT_FIXTURES "/stream.json",
        ZC_REPORT_FIXTURES "/multigpu.stream.json", ZC_REPORT_FIXTURES "/pinning.json"};
    enum { N = sizeof inputs / sizeof inputs[0] };
    char scripts[4096];
    snprintf(scripts, sizeof scripts, "%s/scripts.gp", dir);
    unlink(scripts);
    cJSON *docs[N];
    zc_report_input *in = calloc(1, sizeof *in);
    zc_report_bad bad;
    assert_non_null(in);
    assert_int_equal(zc_report_input_init(in, &bad), ZC_OK);
    for (size_t i = 0; i < N; i++) {
        char *text = zc_test_read_file(inputs[i], NULL);
        docs[i] = cJSON_Parse(text);
        free(text);
        assert_non_null(docs[i]);
        if (zc_report_input_add(in, inputs[i], docs[i]) != ZC_OK)
            fail_msg("%s: %s", inputs[i], zc_last_error());
    }
    assert_int_equal(zc_report_input_finish(in), ZC_OK);
    outputs o = {0};
    assert_int_equal(zc_report_html(in, "Locale", &o.page, NULL, NULL), ZC_OK);
    assert_int_equal(zc_report_picture_dot(in, &o.dot), ZC_OK);
    if (bad.set)
        fail_msg("%s: the fixtures were taken as out of range: %s", g_locale, bad.why);
    for (size_t i = 0; i < N; i++)
        cJSON_Delete(docs[i]);
    free(in);
    drop_stamp(o.page);
    o.scripts = zc_test_read_file(scripts, NULL);
    return o;
}

static void outputs_free(outputs *o)
{
    free(o->page);
    free(o->scripts);
    free(o->dot);
}

/* The first line of a that differs from b, for the message. */
static void same_text(const char *what, const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return;
    size_t i = 0;
    while (a[i] == b[i])
        i++;
    while (i > 0 && a[i - 1] != '\n')
        i--;
    fail_msg("%s: %s differs from the C locale's at:\n%.160s\nC locale:\n%.160s", g_locale, what,
             a + i, b + i);
}

/* At least one number with a decimal point (digit '.' digit) in text: there is something to
 * compare. */
static int has_decimals(const char *text)
{
    for (const char *p = strchr(text, '.'); p != NULL; p = strchr(p + 1, '.')) {
        if (p > text && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9')
            return 1;
    }
    return 0;
}

static void test_report_is_the_same_in_every_locale(void **state)
{
    (void)state;
    char dir[512];
    report_test_tempdir(dir, sizeof dir);
    fake_gnuplot(dir);
    assert_non_null(setlocale(LC_ALL, "C"));
    outputs c = make_report(dir);
    locale_test_enter(g_locale);
    outputs here = make_report(dir);
    assert_true(has_decimals(c.scripts));
    assert_true(has_decimals(c.dot));
    same_text("the gnuplot scripts", here.scripts, c.scripts);
    same_text("the picture's graphviz source", here.dot, c.dot);
    same_text("the page", here.page, c.page);
    /* The plot area gnuplot printed was read whole (54.5, not 54). */
    if (strstr(here.page, AREA_ON_PAGE) == NULL)
        fail_msg("%s: the page has no %s", g_locale, AREA_ON_PAGE);
    outputs_free(&c);
    outputs_free(&here);
    report_test_cleanup(dir);
}

int main(int argc, char **argv)
{
    g_locale = argc > 1 ? argv[1] : "de_DE.UTF-8";
    locale_test_enter(g_locale); /* or exit 77 when it cannot be had */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_is_the_same_in_every_locale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
