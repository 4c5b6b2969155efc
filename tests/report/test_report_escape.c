/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 21, item 8: strings from the inputs are escaped wherever they go. A device name with
 * '", URL="javascript:..."' stays text in the picture's graphviz source (no attribute, no link
 * in the SVG); a name with a quote or a trailing backslash keeps the picture; file and run names
 * with quotes stay inside gnuplot's strings. Text that is not UTF-8, and control characters (an
 * escape sequence from a log), reach neither the page nor the plots' strings: U+FFFD instead. */
#include "test_support.h"

#include <string.h>
#include <sys/stat.h>

#include "report/report_page.h"
#include "report_test.h"
#include "zerocopy/text.h"

#define BENCH ZC_REPORT_FIXTURES "/h200.bench.json"

/*
 * The DOT text with every double-quoted string blanked out, as graphviz reads it (a backslash
 * escapes the next character inside a string); fails when a string is left open. The label
 * holding want (unescaped) is looked for on the way: found_p is set when one does.
 */
static char *outside_strings(const char *dot, const char *want, int *found_p)
{
    char *out = strdup(dot);
    char *value = malloc(strlen(dot) + 1);
    assert_non_null(out);
    assert_non_null(value);
    *found_p = 0;
    size_t v = 0;
    int in = 0;
    for (size_t i = 0; dot[i]; i++) {
        if (!in) {
            if (dot[i] == '"') {
                in = 1;
                v = 0;
            }
            continue;
        }
        out[i] = ' ';
        if (dot[i] == '\\' && dot[i + 1]) {
            out[++i] = ' ';
            value[v++] = dot[i] == 'n' ? '\n' : dot[i];
        } else if (dot[i] == '"') {
            in = 0;
            value[v] = '\0';
            *found_p |= strstr(value, want) != NULL;
        } else {
            value[v++] = dot[i];
        }
    }
    free(value);
    if (in)
        fail_msg("the picture's source leaves a string open");
    return out;
}

/* A bench fixture whose device is named name (as JSON string text) into path. */
static void bench_named(const char *path, const char *json_name)
{
    char quoted[512];
    snprintf(quoted, sizeof quoted, "\"name\": \"%s\"", json_name);
    report_test_copy_replacing(BENCH, path, "\"name\": \"NVIDIA H200\"", quoted);
}

/* Make the page and picture for a device named json_name; check the name is text only. */
static void check_name(const char *dir, int n, const char *json_name, const char *name)
{
    char bench[4096], out[4096], dot[4096], svg[4096];
    snprintf(bench, sizeof bench, "%s/bench%d.json", dir, n);
    snprintf(out, sizeof out, "%s/report%d.html", dir, n);
    snprintf(dot, sizeof dot, "%s/picture%d.dot", dir, n);
    snprintf(svg, sizeof svg, "%s/picture%d.svg", dir, n);
    bench_named(bench, json_name);
    const char *env[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", NULL};
    report_test_how how = {.env = env};
    char *err = NULL;
    int code = report_test_zc(
        (const char *[]){"report", "-o", out, "--picture-dot", dot, bench, NULL}, &how, NULL, &err);
    if (code != 0)
        fail_msg("zc report exit %d: %s", code, err);
    free(err);
    char *text = zc_test_read_file(dot, NULL);
    int found = 0;
    char *bare = outside_strings(text, name, &found);
    if (!found)
        fail_msg("no label of the picture holds the name %s whole", name);
    if (strstr(bare, "URL") != NULL || strstr(bare, "javascript") != NULL)
        fail_msg("the name became DOT outside a string:\n%s", text);
    free(bare);
    free(text);
    if (report_test_have("dot")) {
        /* graphviz takes the source, draws the name as text and links nowhere. */
        const char *run[] = {"dot", "-Tsvg", "-o", svg, dot, NULL};
        assert_int_equal(report_test_run(run, NULL), 0);
        char *drawn = zc_test_read_file(svg, NULL);
        assert_null(strstr(drawn, "href="));
        assert_null(strstr(drawn, "<a "));
        free(drawn);
        char *html = zc_test_read_file(out, NULL);
        const char *figure = strstr(html, "<figure id=\"figure-picture\">\n");
        assert_non_null(figure);
        if (strncmp(figure + strlen("<figure id=\"figure-picture\">\n"), "<img", 4) != 0)
            fail_msg("the page lost its picture: %.200s", figure);
        free(html);
    }
}

static void test_device_names_in_the_picture(void **state)
{
    (void)state;
    char dir[512];
    report_test_tempdir(dir, sizeof dir);
    check_name(dir, 0, "NVIDIA H200\\\", URL=\\\"javascript:alert(1)\\\"",
               "NVIDIA H200\", URL=\"javascript:alert(1)\"");
    check_name(dir, 1, "NVIDIA \\\"H200\\\"", "NVIDIA \"H200\"");
    check_name(dir, 2, "H200 \\\\", "H200 \\");
    check_name(dir, 3, "H200 \\\\N \\\\G", "H200 \\N \\G");
    report_test_cleanup(dir);
}

/* Every line of script that holds a title: its single quotes pair up ('' is one quote). */
static void titles_closed(const char *script)
{
    for (const char *line = script; line != NULL && *line; line = strchr(line, '\n')) {
        line += *line == '\n';
        size_t len = strcspn(line, "\n");
        if (memmem(line, len, "title", 5) == NULL)
            continue;
        int quotes = 0;
        for (size_t i = 0; i < len; i++)
            quotes += line[i] == '\'';
        if (quotes % 2 != 0)
            fail_msg("a title is left open: %.*s", (int)len, line);
    }
}

static void test_names_in_plots(void **state)
{
    (void)state;
    char dir[512], a[4096], b[4096], out[4096], scripts[4096];
    report_test_tempdir(dir, sizeof dir);
    /* Two stream files whose names hold quotes, a backquote and a dollar: both named in the
     * key; one run named with a quote and a line break. */
    snprintf(a, sizeof a, "%s/it's a \"test\" `x` $y.json", dir);
    snprintf(b, sizeof b, "%s/plain.json", dir);
    report_test_copy_replacing(ZC_REPORT_FIXTURES "/stream.json", a, "\"zerocopy-ll\"",
                               "\"zero'copy\\nll\"");
    report_test_copy_replacing(ZC_REPORT_FIXTURES "/stream.json", b, "\"zerocopy-ll\"",
                               "\"zerocopy-ll\"");
    snprintf(out, sizeof out, "%s/report.html", dir);
    report_test_zc_fake_plots(dir, (const char *[]){"report", "-o", out, BENCH, a, b, NULL});
    snprintf(scripts, sizeof scripts, "%s/scripts.gp", dir);
    char *text = zc_test_read_file(scripts, NULL);
    titles_closed(text);
    assert_non_null(strstr(text, "title 'it''s a \"test\" `x` $y.json'"));
    assert_non_null(strstr(text, "title 'zero''copy ll'"));
    free(text);
    if (report_test_have("gnuplot")) {
        /* The real gnuplot draws both stream plots. */
        snprintf(out, sizeof out, "%s/drawn.html", dir);
        char *err = NULL;
        int code = report_test_zc(
            (const char *[]){"report", "-o", out, BENCH, a, b, NULL},
            &(report_test_how){.env = (const char *[]){"ZC_DOT=/nonexistent/dot", NULL}}, NULL,
            &err);
        assert_int_equal(code, 0);
        free(err);
        char *html = zc_test_read_file(out, NULL);
        assert_non_null(strstr(html, "<figure id=\"figure-latency\">\n<img"));
        assert_non_null(strstr(html, "<figure id=\"figure-histogram\">\n<img"));
        free(html);
    }
    report_test_cleanup(dir);
}

#define R "\xef\xbf\xbd" /* U+FFFD */

/* text through one of the report's escapers, as a string to compare (freed by the next call). */
static const char *escaped(void (*escape)(zc__buf *, const char *), const char *text)
{
    static zc__buf b;
    zc__buf_free(&b);
    escape(&b, text);
    assert_false(b.failed);
    return b.data != NULL ? b.data : "";
}

static void test_text_that_is_not_utf8(void **state)
{
    (void)state;
    /* HTML: the markup characters escaped, tab and line feed kept; every other control
     * character (CR, ESC, DEL, C1 CSI) and each ill-formed part (0xFF, a surrogate, a sequence
     * cut short) one U+FFFD; valid UTF-8 as it is. */
    const char *text = "a<b>&\"c\"\t\n\r\x1b[1m\x7f\xc2\x9b\xff\xed\xa0\x80\xe2\x82 caf\xc3\xa9";
    assert_string_equal(escaped(zc__buf_html, text),
                        "a&lt;b&gt;&amp;&quot;c&quot;\t\n" R R "[1m" R R R R R R R " caf\xc3\xa9");
    /* gnuplot and graphviz strings: control characters as spaces (a line break would end the
     * command), ill-formed parts U+FFFD. */
    assert_string_equal(escaped(zc__buf_gnuplot_string, "it's\n\x1b[1m\xc2\x9b\xff\xe2\x82!"),
                        "'it''s  [1m " R R "!'");
    assert_string_equal(escaped(zc__buf_dot, "\"H200\\\t\xed\xa0\x80\xc3\xa9"),
                        "\\\"H200\\\\ " R R R "\xc3\xa9");
    escaped(zc__buf_html, "");
}

/* Every byte of text is UTF-8 and no control character but tab and line feed is in it. */
static void clean_text(const char *what, const char *text)
{
    size_t len = strlen(text);
    if (!zc_utf8_valid(text, len))
        fail_msg("%s is not UTF-8", what);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ||
            (c == 0xc2 && (unsigned char)text[i + 1] < 0xa0))
            fail_msg("%s holds control byte %#x at %zu: %.60s", what, c, i,
                     text + (i > 20 ? i - 20 : 0));
    }
}

static void test_page_of_names_that_are_not_utf8(void **state)
{
    (void)state;
    char dir[512], bench[4096], stream[4096], out[4096], scripts[4096];
    report_test_tempdir(dir, sizeof dir);
    /* A device name with a stray byte, an escape sequence (\u001b in JSON), a C1 CSI and a
     * surrogate's bytes; a stream file whose name and run are not UTF-8 either. */
    snprintf(bench, sizeof bench, "%s/bench.json", dir);
    bench_named(bench, "NVIDIA \xff\\u001b[31mH200\\u009b2J \xed\xa0\x80");
    snprintf(stream, sizeof stream, "%s/run\xfe\x1b.json", dir);
    report_test_copy_replacing(ZC_REPORT_FIXTURES "/stream.json", stream, "\"zerocopy-ll\"",
                               "\"zero\xc0\xaf"
                               "copy\\r\"");
    snprintf(out, sizeof out, "%s/report.html", dir);
    report_test_zc_fake_plots(dir, (const char *[]){"report", "-o", out, bench, stream, NULL});
    char *html = zc_test_read_file(out, NULL);
    clean_text("the page", html);
    /* The name is there, its bad parts replaced. */
    assert_non_null(strstr(html, "NVIDIA " R R "[31mH200" R "2J " R R R));
    free(html);
    snprintf(scripts, sizeof scripts, "%s/scripts.gp", dir);
    char *text = zc_test_read_file(scripts, NULL);
    clean_text("the gnuplot scripts", text);
    free(text);
    report_test_cleanup(dir);
}

/* What zc report says on the terminal about an input keeps that input's escape sequences off
 * it: a file named with one, whose schema is unknown (exit 2, named on stderr). */
static void test_stderr_has_no_escapes(void **state)
{
    (void)state;
    char dir[512], path[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/\x1b]0;owned\x07\x1b[2J\xff.json", dir);
    report_test_write(path, "{\"schema\": \"\\u001b[31mzerocopy.other/1\"}");
    char *err = NULL;
    const char *env[] = {"ZC_GNUPLOT=none", "ZC_DOT=none", NULL};
    report_test_how how = {.env = env};
    int code = report_test_zc((const char *[]){"report", "-o", "-", path, NULL}, &how, NULL, &err);
    assert_int_equal(code, 2);
    assert_non_null(strstr(err, "[2J"));
    assert_non_null(strstr(err, "zerocopy.other/1"));
    clean_text("stderr", err);
    free(err);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_names_in_the_picture),
        cmocka_unit_test(test_names_in_plots),
        cmocka_unit_test(test_text_that_is_not_utf8),
        cmocka_unit_test(test_page_of_names_that_are_not_utf8),
        cmocka_unit_test(test_stderr_has_no_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
