/* SPDX-License-Identifier: Apache-2.0 */
/* The trace findings table (src/trace/trace_findings.c): every row whole, keys unique, every
 * finder quiet on a run that did nothing, and the docs naming exactly the table's keys. Adding
 * a finding is one row and its finder; this keeps the docs in step with it. */
#include "test_support.h"

#include <string.h>

#include "trace/trace_findings.h"
#include "zerocopy/trace.h"

static const zc__trace_finding_row *row_of(const char *key, size_t len)
{
    for (size_t i = 0; i < zc__trace_finding_row_count; i++) {
        const char *k = zc__trace_finding_rows[i].key;
        if (strlen(k) == len && strncmp(k, key, len) == 0)
            return &zc__trace_finding_rows[i];
    }
    return NULL;
}

static void test_rows_whole(void **state)
{
    (void)state;
    assert_true(zc__trace_finding_row_count > 0);
    assert_true(zc__trace_finding_row_count <= ZC_TRACE_FINDING_MAX);
    for (size_t i = 0; i < zc__trace_finding_row_count; i++) {
        const zc__trace_finding_row *row = &zc__trace_finding_rows[i];
        assert_non_null(row->key);
        assert_true(row->key[0] != '\0');
        for (const char *c = row->key; *c != '\0'; c++)
            assert_true((*c >= 'a' && *c <= 'z') || *c == '_');
        assert_true(row->severity == ZC_TRACE_NOTE || row->severity == ZC_TRACE_WARNING);
        assert_non_null(row->title);
        assert_true(row->title[0] != '\0');
        assert_non_null(row->fix);
        assert_true(row->fix[0] != '\0');
        assert_true(strlen(row->fix) < sizeof(((zc_trace_finding *)0)->fix));
        assert_non_null(row->find);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(zc__trace_finding_rows[j].key, row->key) == 0)
                fail_msg("key '%s' in rows %zu and %zu", row->key, j, i);
        }
    }
}

/* A run with no activity: every finder finds nothing, and the analysis reports nothing. */
static void test_quiet_on_nothing(void **state)
{
    (void)state;
    zc_trace_log log;
    zc_trace_log_init(&log);
    assert_int_equal(zc_trace_log_read_text(&log, "zctrace 2 pid=1 ram=1000\nend\n", "e.log"),
                     ZC_OK);
    zc_trace_params params = {50.0, "test", 0, NULL, NULL};
    static const zc_trace_counters none = {NULL, 0, NULL};
    zc_trace_report *report = calloc(1, sizeof *report);
    assert_non_null(report);
    zc__trace_facts facts;
    assert_int_equal(zc__trace_facts_build(&log, &params, &none, report, &facts), ZC_OK);
    for (size_t i = 0; i < zc__trace_finding_row_count; i++) {
        zc__trace_evidence ev = {.found = 0, .saving_s = -1.0};
        assert_int_equal(zc__trace_finding_rows[i].find(&facts, &ev), ZC_OK);
        if (ev.found)
            fail_msg("'%s' fired on a run that did nothing", zc__trace_finding_rows[i].key);
    }
    zc__trace_facts_free(&facts);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_OK);
    assert_int_equal(report->finding_count, 0);
    free(report);
    zc_trace_log_free(&log);
}

static char *read_doc(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ZC_TEST_DOCS_DIR, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    assert_non_null(mem);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, mem);
    fclose(f);
    assert_int_equal(fclose(mem), 0);
    return text;
}

/* Each `key` in text[begin, end) (a word of a-z and _ in backquotes: `--pcie-counters` is none)
 * must be a row's, and every row's key must be there once; where note_mark is given, a NOTE
 * row's key must be followed by it and no other's. */
static void expect_keys(const char *doc, const char *begin, const char *end, const char *note_mark)
{
    size_t seen[ZC_TRACE_FINDING_MAX] = {0};
    for (const char *p = strchr(begin, '`'); p != NULL && p < end; p = strchr(p + 1, '`')) {
        const char *close = strchr(p + 1, '`');
        assert_non_null(close);
        size_t len = (size_t)(close - p - 1);
        if (strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_") != len) {
            p = close;
            continue;
        }
        const zc__trace_finding_row *row = row_of(p + 1, len);
        if (row == NULL)
            fail_msg("%s names `%.*s`, which is no row of the findings table", doc,
                     (int)(close - p - 1), p + 1);
        seen[row - zc__trace_finding_rows]++;
        if (note_mark != NULL) {
            int marked = strncmp(close + 1, note_mark, strlen(note_mark)) == 0;
            if (marked != (row->severity == ZC_TRACE_NOTE))
                fail_msg("%s: `%s` is a %s, marked otherwise", doc, row->key,
                         row->severity == ZC_TRACE_NOTE ? "note" : "warning");
        }
        p = close;
    }
    for (size_t i = 0; i < zc__trace_finding_row_count; i++) {
        if (seen[i] != 1)
            fail_msg("%s names `%s` %zu times (once expected)", doc, zc__trace_finding_rows[i].key,
                     seen[i]);
    }
}

/* docs/pitfalls.md's table of when each finding fires: its first column, one row per finding. */
static void test_pitfalls_table(void **state)
{
    (void)state;
    char *text = read_doc("pitfalls.md");
    const char *head = strstr(text, "| finding | fires when | evidence |");
    assert_non_null(head);
    const char *end = strstr(head, "\n\n");
    assert_non_null(end);
    /* Only the first cell of each line: the other cells name calls and options in backquotes. */
    char firsts[4096] = "";
    size_t at = 0;
    for (const char *line = strchr(head, '\n') + 1; line < end; line = strchr(line, '\n') + 1) {
        const char *cell = line + 1, *bar = strchr(cell, '|');
        assert_non_null(bar);
        if (strncmp(cell, " ---", 4) != 0)
            at += (size_t)snprintf(firsts + at, sizeof firsts - at, "%.*s\n", (int)(bar - cell),
                                   cell);
        assert_true(at < sizeof firsts);
    }
    expect_keys("docs/pitfalls.md", firsts, firsts + at, " (note)");
    free(text);
}

/* docs/json.md's FINDING: the list of keys in its first sentence. */
static void test_json_keys(void **state)
{
    (void)state;
    char *text = read_doc("json.md");
    const char *begin = strstr(text, "FINDING: `key` (");
    assert_non_null(begin);
    begin += strlen("FINDING: `key` (");
    const char *end = strstr(begin, "`severity`");
    assert_non_null(end);
    expect_keys("docs/json.md", begin, end, NULL);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_whole),
        cmocka_unit_test(test_quiet_on_nothing),
        cmocka_unit_test(test_pitfalls_table),
        cmocka_unit_test(test_json_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
