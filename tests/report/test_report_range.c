/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 21, item 10: a number of the inputs that becomes an integer is range-checked first.
 * 1e30 bytes, a PCIe generation of 1e30, a capability of 1e30, a fractional size or a GPU
 * numbered 1e30 is bad input: exit 2, the field named, no page written (and no undefined
 * float-to-integer conversion on the way, which UBSan's float-cast-overflow would catch). */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report_test.h"

/* The item at a path of names and array indices ("cases", "#0", "points", "#3", "bytes"). */
static cJSON *item_at(cJSON *doc, const char *const *path)
{
    cJSON *at = doc;
    for (size_t i = 0; path[i] != NULL && at != NULL; i++)
        at = path[i][0] == '#' ? cJSON_GetArrayItem(at, atoi(path[i] + 1))
                               : cJSON_GetObjectItemCaseSensitive(at, path[i]);
    if (at == NULL)
        fail_msg("the fixture has no %s...", path[0]);
    return at;
}

/* The case of a bench document with that key. */
static const char *case_index(cJSON *doc, const char *key, char *out, size_t size)
{
    int i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "key");
        if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0) {
            snprintf(out, size, "#%d", i);
            return out;
        }
        i++;
    }
    fail_msg("the fixture has no case %s", key);
    return NULL;
}

/* The fixture with the number at path set to value, through zc report: exit 2 naming field. */
static void expect_refused(const char *fixture, const char *const *path, double value,
                           const char *field, const char *why)
{
    char dir[512], in[4096], out[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(in, sizeof in, "%s/input.json", dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    char *text = zc_test_read_file(fixture, NULL);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    free(text);
    cJSON_SetNumberValue(item_at(doc, path), value);
    char *printed = cJSON_Print(doc);
    report_test_write(in, printed);
    cJSON_free(printed);
    cJSON_Delete(doc);
    const char *env[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", "ZC_DOT=/nonexistent/dot", NULL};
    report_test_how how = {.env = env};
    char *err = NULL;
    int code = report_test_zc((const char *[]){"report", "-o", out, in, NULL}, &how, NULL, &err);
    print_message("%s = %g: exit %d: %s", field, value, code, err);
    if (code != 2 || strstr(err, field) == NULL || strstr(err, why) == NULL)
        fail_msg("%s = %g: exit %d (wanted 2, naming %s: %s): %s", field, value, code, field, why,
                 err);
    free(err);
    assert_int_equal(access(out, F_OK), -1);
    report_test_cleanup(dir);
}

static void test_sizes(void **state)
{
    (void)state;
    const char *bench = ZC_REPORT_FIXTURES "/h200.bench.json";
    char *text = zc_test_read_file(bench, NULL);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    char crossover[16], copy[16];
    case_index(doc, "crossover.read_k", crossover, sizeof crossover);
    case_index(doc, "copy.h2d.pinned", copy, sizeof copy);
    cJSON_Delete(doc);
    expect_refused(bench, (const char *[]){"cases", crossover, "points", "#2", "bytes", NULL}, 1e30,
                   "crossover.read_k, point 2, bytes", "out of range");
    expect_refused(bench, (const char *[]){"cases", copy, "points", "#0", "bytes", NULL}, 1e30,
                   "copy.h2d.pinned, point 0, bytes", "out of range");
    expect_refused(bench, (const char *[]){"cases", copy, "points", "#1", "bytes", NULL}, -4096,
                   "copy.h2d.pinned, point 1, bytes", "out of range");
    expect_refused(bench, (const char *[]){"cases", crossover, "points", "#0", "bytes", NULL},
                   4096.5, "crossover.read_k, point 0, bytes", "not a whole number");
    expect_refused(ZC_ADVISE_FIXTURES "/h200.profile.json",
                   (const char *[]){"copy_gbps", "pinned", "h2d", "#0", "#0", NULL}, 1e30,
                   "copy_gbps.pinned.h2d[0][0]", "out of range");
}

static void test_machine_and_gpus(void **state)
{
    (void)state;
    const char *bench = ZC_REPORT_FIXTURES "/h200.bench.json";
    expect_refused(bench,
                   (const char *[]){"machine", "devices", "#0", "pcie_link", "gen_current", NULL},
                   1e30, "pcie_link.gen_current", "out of range");
    expect_refused(
        bench,
        (const char *[]){"machine", "devices", "#0", "capabilities", "canMapHostMemory", NULL},
        1e30, "capabilities.canMapHostMemory", "out of range");
    expect_refused(bench, (const char *[]){"machine", "devices", "#0", "driver_version", NULL},
                   1e30, "driver_version", "out of range");
    expect_refused(ZC_REPORT_FIXTURES "/multigpu.stream.json",
                   (const char *[]){"per_gpu", "#1", "device", NULL}, 1e30, "per_gpu[1].device",
                   "out of range");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_machine_and_gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
