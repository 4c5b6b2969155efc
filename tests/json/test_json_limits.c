/* SPDX-License-Identifier: Apache-2.0 */
/* The most JSON values and the deepest nesting zc reads (ZC_JSON_VALUES_MAX, ZC_JSON_DEPTH_MAX),
 * checked by a scan of the text before cJSON parses it: cJSON takes some 64 bytes per value, so
 * a 62 MB file of small numbers took 2.6 GB. The scan counts what cJSON would build (checked
 * against cJSON's own tree for every fixture); a document one value or one level over is
 * refused, one at the limit is not. */
#include "test_support.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <string.h>

#include "zerocopy/json.h"

/* The values of a parsed tree: itself and everything under it (keys are not values). */
static size_t tree_values(const cJSON *item)
{
    size_t n = 1;
    for (const cJSON *c = item->child; c != NULL; c = c->next)
        n += tree_values(c);
    return n;
}

static size_t scanned(const char *text)
{
    size_t values = 0;
    zc_status st = zc_json_check_limits(text, strlen(text), "t", &values);
    if (st != ZC_OK)
        fail_msg("refused: %s", zc_last_error());
    return values;
}

static void test_counts_as_cjson_builds(void **state)
{
    (void)state;
    static const char *const docs[] = {"0",
                                       "\"a\"",
                                       "[]",
                                       "{}",
                                       "[1,2,3]",
                                       "{\"a\":1,\"b\":[true,false,null]}",
                                       " { \"k\" : \"v:,{}[]\\\"\" , \"n\" : -1.5e+3 } ",
                                       "[\"\\\\\",\"\\\"\",{\"\":\"\"},[[[]]],{\"x\":{\"y\":{}}}]",
                                       "{\"a\\\":\":\"b\\\\\"}"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        cJSON *doc = cJSON_Parse(docs[i]);
        assert_non_null(doc);
        if (scanned(docs[i]) != tree_values(doc))
            fail_msg("'%s': scan counts %zu values, cJSON built %zu", docs[i], scanned(docs[i]),
                     tree_values(doc));
        cJSON_Delete(doc);
    }
}

/* The same on every JSON fixture of the tests (bench, stream, profile, info documents). */
static void test_counts_the_fixtures(void **state)
{
    (void)state;
    static const char *const dirs[] = {ZC_JSON_FIXTURES "/report", ZC_JSON_FIXTURES "/advise"};
    int files = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        DIR *dir = opendir(dirs[d]);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            size_t n = strlen(e->d_name);
            if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            size_t len = 0;
            char *text = zc_test_read_file(path, &len);
            cJSON *doc = cJSON_ParseWithLength(text, len);
            assert_non_null(doc);
            size_t values = 0;
            assert_int_equal(zc_json_check_limits(text, len, path, &values), ZC_OK);
            if (values != tree_values(doc))
                fail_msg("%s: scan counts %zu values, cJSON built %zu", path, values,
                         tree_values(doc));
            cJSON_Delete(doc);
            free(text);
            files++;
        }
        closedir(dir);
    }
    assert_true(files >= 5);
}

/* "[0,0,...]" with count values in all (the array is one of them). */
static char *array_of(size_t count)
{
    size_t zeros = count - 1;
    char *text = malloc(2 * zeros + 3);
    assert_non_null(text);
    char *p = text;
    *p++ = '[';
    for (size_t i = 0; i < zeros; i++) {
        *p++ = '0';
        *p++ = ',';
    }
    if (zeros > 0)
        p--;
    *p++ = ']';
    *p = '\0';
    return text;
}

static void test_values_limit(void **state)
{
    (void)state;
    char *text = array_of(ZC_JSON_VALUES_MAX);
    size_t values = 0;
    assert_int_equal(zc_json_check_limits(text, strlen(text), "at.json", &values), ZC_OK);
    assert_int_equal(values, ZC_JSON_VALUES_MAX);
    free(text);
    text = array_of((size_t)ZC_JSON_VALUES_MAX + 1);
    assert_int_equal(zc_json_check_limits(text, strlen(text), "over.json", NULL), ZC_ERR_PARSE);
    char want[160];
    snprintf(want, sizeof want, "over.json has more than %d JSON values (the most zc reads)",
             ZC_JSON_VALUES_MAX);
    if (strstr(zc_last_error(), want) == NULL)
        fail_msg("the detail says: %s", zc_last_error());
    free(text);
    /* Keys are not values: an object of as many members as the limit, plus itself, is over. */
    size_t members = ZC_JSON_VALUES_MAX;
    char *obj = malloc(members * 8 + 3);
    assert_non_null(obj);
    char *p = obj;
    *p++ = '{';
    for (size_t i = 0; i < members; i++)
        p += sprintf(p, "%s\"\":0", i ? "," : "");
    *p++ = '}';
    *p = '\0';
    size_t len = strlen(obj);
    assert_int_equal(zc_json_check_limits(obj, len, NULL, &values), ZC_ERR_PARSE);
    assert_non_null(strstr(zc_last_error(), "the document has more than"));
    /* One member fewer: the last ',"":0' gone. */
    obj[len - 6] = '}';
    obj[len - 5] = '\0';
    assert_int_equal(zc_json_check_limits(obj, len - 5, NULL, &values), ZC_OK);
    assert_int_equal(values, ZC_JSON_VALUES_MAX);
    free(obj);
}

/* depth arrays inside each other, or objects ({"k": {"k": ... 0}}), into text. */
static void nested(char *text, size_t size, int depth, int objects)
{
    size_t n = 0;
    for (int i = 0; i < depth; i++)
        n += (size_t)snprintf(text + n, size - n, "%s", objects ? "{\"k\":" : "[");
    n += (size_t)snprintf(text + n, size - n, "%s", objects ? "0" : "");
    for (int i = 0; i < depth; i++)
        n += (size_t)snprintf(text + n, size - n, "%s", objects ? "}" : "]");
}

static void test_depth_limit(void **state)
{
    (void)state;
    char text[8 * ZC_JSON_DEPTH_MAX + 16];
    for (int objects = 0; objects < 2; objects++) {
        nested(text, sizeof text, ZC_JSON_DEPTH_MAX, objects);
        assert_int_equal(zc_json_check_limits(text, strlen(text), "deep.json", NULL), ZC_OK);
        cJSON *doc = cJSON_Parse(text);
        assert_non_null(doc); /* and cJSON takes it */
        cJSON_Delete(doc);
        nested(text, sizeof text, ZC_JSON_DEPTH_MAX + 1, objects);
        assert_int_equal(zc_json_check_limits(text, strlen(text), "deep.json", NULL), ZC_ERR_PARSE);
        char want[96];
        snprintf(want, sizeof want, "deep.json nests deeper than %d (the most zc reads)",
                 ZC_JSON_DEPTH_MAX);
        if (strstr(zc_last_error(), want) == NULL)
            fail_msg("the detail says: %s", zc_last_error());
    }
}

static void test_arguments(void **state)
{
    (void)state;
    assert_int_equal(zc_json_check_limits(NULL, 1, "x", NULL), ZC_ERR_INVALID_ARG);
    size_t values = 7;
    assert_int_equal(zc_json_check_limits("", 0, "x", &values), ZC_OK);
    assert_int_equal(values, 0);
    /* Not JSON is not the scan's to judge: cJSON says so after it. */
    assert_int_equal(zc_json_check_limits("}}]] ::: ,,", 11, "x", NULL), ZC_OK);
    assert_int_equal(zc_json_check_limits("\"never closed", 13, "x", NULL), ZC_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_as_cjson_builds),
        cmocka_unit_test(test_counts_the_fixtures),
        cmocka_unit_test(test_values_limit),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
