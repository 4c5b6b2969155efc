/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 21, item 7: zc report's outputs and inputs. An output that is one of the inputs is
 * refused (exit 2, the input untouched), an existing file is replaced only with --force, a
 * failed write (a full disk) leaves the earlier file as it was and no temporary file, -o -
 * writes to stdout (exit 1 when stdout is full), an input - is read from stdin, and a missing
 * or unreadable input is exit 2, and so is one of more JSON values than zc reads, refused before
 * it is parsed; the largest legitimate document is read. */
#include "test_support.h"

#include <cjson/cJSON.h>
#include <time.h>

#include "zerocopy/json.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_test.h"

#define BENCH ZC_REPORT_FIXTURES "/h200.bench.json"

/* No tools: every run is quick and its page the same size. */
static const char *const no_tools[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", "ZC_DOT=/nonexistent/dot",
                                       NULL};

/* Run zc report with args in dir; the exit code, stderr into *err_p. */
static int report_in(const char *dir, const char *const *args, char **err_p)
{
    report_test_how how = {.env = no_tools, .cwd = dir};
    return report_test_zc(args, &how, NULL, err_p);
}

/* Fail when dir holds a file other than those named (temporary files left behind). */
static void only_files(const char *dir, const char *const *names)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        int known = 0;
        for (size_t i = 0; names[i] != NULL; i++)
            known |= strcmp(e->d_name, names[i]) == 0;
        if (!known)
            fail_msg("%s holds %s, which zc report left behind", dir, e->d_name);
    }
    closedir(d);
}

static void expect_unchanged(const char *path, const char *text)
{
    char *now = zc_test_read_file(path, NULL);
    if (strcmp(now, text) != 0)
        fail_msg("%s was changed (now %zu bytes)", path, strlen(now));
    free(now);
}

static void test_output_that_is_an_input(void **state)
{
    (void)state;
    char dir[512], copy[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(copy, sizeof copy, "%s/b.json", dir);
    char *text = zc_test_read_file(BENCH, NULL);
    report_test_write(copy, text);
    char *err = NULL;
    /* The same path, the same file by another path, and the picture's output. */
    const char *const *cases[] = {
        (const char *[]){"report", "-o", "b.json", "b.json", NULL},
        (const char *[]){"report", "--force", "-o", "./b.json", "b.json", NULL},
        (const char *[]){"report", "-o", "page.html", "--picture-dot", "b.json", "b.json", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(report_in(dir, cases[i], &err), 2);
        assert_non_null(strstr(err, "is also an input"));
        free(err);
        expect_unchanged(copy, text);
        only_files(dir, (const char *[]){"b.json", NULL});
    }
    /* The page and the picture to one file. */
    assert_int_equal(report_in(dir,
                               (const char *[]){"report", "-o", "x.html", "--picture-dot", "x.html",
                                                "b.json", NULL},
                               &err),
                     2);
    free(err);
    only_files(dir, (const char *[]){"b.json", NULL});
    free(text);
    report_test_cleanup(dir);
}

static void test_existing_output_needs_force(void **state)
{
    (void)state;
    char dir[512], page[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(page, sizeof page, "%s/page.html", dir);
    report_test_write(page, "an earlier page\n");
    char *err = NULL;
    assert_int_equal(
        report_in(dir, (const char *[]){"report", "-o", "page.html", BENCH, NULL}, &err), 2);
    assert_non_null(strstr(err, "--force"));
    free(err);
    expect_unchanged(page, "an earlier page\n");
    assert_int_equal(
        report_in(dir, (const char *[]){"report", "--force", "-o", "page.html", BENCH, NULL}, &err),
        0);
    free(err);
    char *html = zc_test_read_file(page, NULL);
    assert_int_equal(strncmp(html, "<!DOCTYPE html>", 15), 0);
    free(html);
    only_files(dir, (const char *[]){"page.html", NULL});
    /* --help says so. */
    char *help = NULL;
    assert_int_equal(report_test_zc((const char *[]){"report", "--help", NULL}, NULL, &help, NULL),
                     0);
    assert_non_null(strstr(help, "--force"));
    assert_non_null(strstr(help, "- for stdout"));
    free(help);
    report_test_cleanup(dir);
}

static void test_full_disk_leaves_the_old_file(void **state)
{
    (void)state;
    char dir[512], page[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(page, sizeof page, "%s/page.html", dir);
    report_test_write(page, "an earlier page\n");
    /* Files may not grow past 16 KiB: the page (over 40 KiB) cannot be written whole. */
    report_test_how how = {.env = no_tools, .cwd = dir, .file_size_limit = 16384};
    char *err = NULL;
    int code = report_test_zc((const char *[]){"report", "--force", "-o", "page.html", BENCH, NULL},
                              &how, NULL, &err);
    print_message("full disk: exit %d: %s", code, err);
    assert_int_equal(code, 1);
    assert_non_null(strstr(err, "page.html"));
    free(err);
    expect_unchanged(page, "an earlier page\n");
    only_files(dir, (const char *[]){"page.html", NULL});
    report_test_cleanup(dir);
}

static void test_stdout_and_stdin(void **state)
{
    (void)state;
    char dir[512];
    report_test_tempdir(dir, sizeof dir);
    /* -o - is stdout, not a file named "-"; the input - is stdin. */
    report_test_how how = {.env = no_tools, .cwd = dir, .stdin_path = BENCH};
    char *out = NULL, *err = NULL;
    int code = report_test_zc((const char *[]){"report", "-o", "-", "-", NULL}, &how, &out, &err);
    if (code != 0)
        fail_msg("zc report -o - - exit %d: %s", code, err);
    assert_int_equal(strncmp(out, "<!DOCTYPE html>", 15), 0);
    assert_non_null(strstr(out, "NVIDIA H200"));
    assert_non_null(strstr(out, "from: stdin."));
    assert_true(strstr(out, "</html>\n") != NULL);
    free(out);
    free(err);
    only_files(dir, (const char *[]){NULL});
    /* A full stdout is a failed write: exit 1. */
    report_test_how full = {.env = no_tools, .cwd = dir, .stdout_path = "/dev/full"};
    code = report_test_zc((const char *[]){"report", "-o", "-", BENCH, NULL}, &full, NULL, &err);
    assert_int_equal(code, 1);
    assert_non_null(strstr(err, "stdout"));
    free(err);
    /* The picture's source to stdout, the page to a file. */
    char *dot = NULL;
    code = report_test_zc(
        (const char *[]){"report", "-o", "page.html", "--picture-dot", "-", BENCH, NULL}, &how,
        &dot, &err);
    assert_int_equal(code, 0);
    assert_int_equal(strncmp(dot, "// ", 3), 0);
    assert_non_null(strstr(dot, "digraph zerocopy {"));
    free(dot);
    free(err);
    report_test_cleanup(dir);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    char dir[512], path[4096];
    report_test_tempdir(dir, sizeof dir);
    char *err = NULL;
    assert_int_equal(
        report_in(dir, (const char *[]){"report", "-o", "p.html", "missing.json", NULL}, &err), 2);
    assert_non_null(strstr(err, "missing.json"));
    free(err);
    snprintf(path, sizeof path, "%s/folder.json", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(
        report_in(dir, (const char *[]){"report", "-o", "p.html", "folder.json", NULL}, &err), 2);
    free(err);
    snprintf(path, sizeof path, "%s/text.json", dir);
    report_test_write(path, "not JSON\n");
    assert_int_equal(
        report_in(dir, (const char *[]){"report", "-o", "p.html", "text.json", NULL}, &err), 2);
    assert_non_null(strstr(err, "not JSON"));
    free(err);
    /* Unreadable (only when not root: root reads every file). */
    if (geteuid() != 0) {
        snprintf(path, sizeof path, "%s/secret.json", dir);
        report_test_write(path, "{}");
        assert_int_equal(chmod(path, 0), 0);
        assert_int_equal(
            report_in(dir, (const char *[]){"report", "-o", "p.html", "secret.json", NULL}, &err),
            2);
        free(err);
        unlink(path);
    }
    /* An output without a name. */
    assert_int_equal(report_in(dir, (const char *[]){"report", "-o", "", BENCH, NULL}, &err), 2);
    free(err);
    /* stdin twice cannot be. */
    assert_int_equal(
        report_in(dir, (const char *[]){"report", "-o", "p.html", "-", "-", NULL}, &err), 2);
    free(err);
    only_files(dir, (const char *[]){"folder.json", "text.json", NULL});
    report_test_cleanup(dir);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_too_many_values(void **state)
{
    (void)state;
    char dir[512], path[4096];
    report_test_tempdir(dir, sizeof dir);
    /* A bench document of one value more than zc reads. */
    snprintf(path, sizeof path, "%s/huge.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"schema\": \"zerocopy.bench/1\", \"cases\": [], \"x\": [0");
    /* The object, its schema, cases and x, and x's zeros: one more than the limit. */
    for (long i = 5; i < ZC_JSON_VALUES_MAX + 1; i++)
        fputs(",0", f);
    fprintf(f, "]}\n");
    fclose(f);
    char *err = NULL;
    double start = seconds();
    int code = report_in(dir, (const char *[]){"report", "-o", "p.html", "huge.json", NULL}, &err);
    double took = seconds() - start;
    if (code != 2)
        fail_msg("exit %d: %s", code, err);
    char want[160];
    snprintf(want, sizeof want, "huge.json has more than %d JSON values (the most zc reads)",
             ZC_JSON_VALUES_MAX);
    if (strstr(err, want) == NULL)
        fail_msg("stderr: %s", err);
    free(err);
    /* Refused by the scan, before anything is built: well under a second where cJSON takes
     * several (a bound loose enough for a sanitizer's build). */
    if (took > 5.0)
        fail_msg("refusing took %.1f s", took);
    only_files(dir, (const char *[]){"huge.json", NULL});
    report_test_cleanup(dir);
}

static void test_largest_legitimate_document(void **state)
{
    (void)state;
    char dir[512], path[4096];
    report_test_tempdir(dir, sizeof dir);
    /* The bench fixture with every point keeping the most samples a bench document holds
     * (1000), each the point's median: a bench run as large as they come, per point. */
    char *text = zc_test_read_file(BENCH, NULL);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    const cJSON *c, *pt;
    size_t points = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
    {
        cJSON_ArrayForEach(pt, cJSON_GetObjectItem(c, "points"))
        {
            const cJSON *median = cJSON_GetObjectItem(cJSON_GetObjectItem(pt, "stats"), "median");
            cJSON *samples = cJSON_CreateArray();
            for (int i = 0; i < 1000; i++)
                cJSON_AddItemToArray(
                    samples,
                    cJSON_CreateNumber(cJSON_IsNumber(median) ? median->valuedouble : 1.0));
            cJSON_DeleteItemFromObject((cJSON *)pt, "samples");
            cJSON_AddItemToObject((cJSON *)pt, "samples", samples);
            points++;
        }
    }
    assert_true(points > 50);
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "%s/large.bench.json", dir);
    report_test_write(path, text);
    size_t values = 0;
    assert_int_equal(zc_json_check_limits(text, strlen(text), path, &values), ZC_OK);
    assert_true(values > 1000 * points);
    cJSON_free(text);
    char *err = NULL;
    int code =
        report_in(dir, (const char *[]){"report", "-o", "p.html", "large.bench.json", NULL}, &err);
    if (code != 0)
        fail_msg("exit %d: %s", code, err);
    free(err);
    report_test_cleanup(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_that_is_an_input),
        cmocka_unit_test(test_existing_output_needs_force),
        cmocka_unit_test(test_full_disk_leaves_the_old_file),
        cmocka_unit_test(test_stdout_and_stdin),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_too_many_values),
        cmocka_unit_test(test_largest_legitimate_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
