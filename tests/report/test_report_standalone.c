/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 18, item 5: the report stands on its own. Its headings and text, its picture's
 * source and zc report --help never point at "the chapter" or "section 4.5", which a reader of
 * the page does not have. */
#include "test_support.h"

#include <ctype.h>
#include <string.h>

#include "report_test.h"

/* Fail when text refers to a chapter or to a numbered section ("section 4.5", "(4.1)"). */
static void no_outside_references(const char *what, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (strncasecmp(c, "chapter", 7) == 0)
            fail_msg("%s mentions a chapter: ...%.60s", what, c > text + 20 ? c - 20 : text);
        if (strncasecmp(c, "section ", 8) == 0 && isdigit((unsigned char)c[8]))
            fail_msg("%s mentions a numbered section: %.40s", what, c);
        if (c[0] == '(' && isdigit((unsigned char)c[1]) && c[2] == '.' &&
            isdigit((unsigned char)c[3]) && c[4] == ')')
            fail_msg("%s holds a section number: %.40s", what, c);
    }
}

static void test_page_and_picture(void **state)
{
    (void)state;
    char dir[512], out[4096], dot[4096];
    report_test_tempdir(dir, sizeof dir);
    static const char *const inputs[] = {ZC_REPORT_FIXTURES "/h200.bench.json",
                                         ZC_ADVISE_FIXTURES "/h200.profile.json"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(out, sizeof out, "%s/report%zu.html", dir, i);
        snprintf(dot, sizeof dot, "%s/picture%zu.dot", dir, i);
        report_test_zc_fake_plots(dir, (const char *[]){"report", "-o", out, "--picture-dot", dot,
                                                        inputs[i],
                                                        ZC_REPORT_FIXTURES "/stream.json", NULL});
        char *html = zc_test_read_file(out, NULL);
        no_outside_references("the page", html);
        /* The headings say what they show. */
        assert_non_null(strstr(html, "<h2>The techniques compared, measured on this machine"));
        assert_non_null(strstr(html, "<h2>How data moves between host and GPU</h2>"));
        free(html);
        char *text = zc_test_read_file(dot, NULL);
        no_outside_references("the picture", text);
        free(text);
    }
    char *help = NULL;
    assert_int_equal(report_test_zc((const char *[]){"report", "--help", NULL}, NULL, &help, NULL),
                     0);
    no_outside_references("zc report --help", help);
    free(help);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_and_picture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
