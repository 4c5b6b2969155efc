/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace --bench: the ceiling read from a zc bench --json document (the library's reading,
 * zc_bench_copy_ceiling_from_json; the analysis itself is tested in test_trace_analysis.c). */
#include "test_support.h"

#include <cjson/cJSON.h>

#include "zerocopy/json.h"

static double ceiling(const cJSON *doc)
{
    double gbps = -1.0;
    assert_int_equal(zc_bench_copy_ceiling_from_json(doc, &gbps), ZC_OK);
    return gbps;
}

static void test_ceiling_from_bench_json(void **state)
{
    (void)state;
    /* zerocopy.bench/1: cases with points; only ok pinned copy cases count. */
    cJSON *doc = cJSON_Parse(
        "{\"schema\":\"zerocopy.bench/1\",\"cases\":["
        "{\"key\":\"copy.h2d.pageable\",\"group\":\"copy\",\"technique\":\"pageable\","
        "\"direction\":\"h2d\",\"outcome\":\"ok\",\"points\":[{\"metric\":\"bandwidth\","
        "\"stats\":{\"median\":70.0}}]},"
        "{\"key\":\"copy.h2d.pinned\",\"group\":\"copy\",\"technique\":\"pinned\","
        "\"direction\":\"h2d\",\"outcome\":\"ok\",\"points\":["
        "{\"bytes\":4096,\"metric\":\"bandwidth\",\"stats\":{\"median\":3.1,\"max\":90}},"
        "{\"bytes\":268435456,\"metric\":\"bandwidth\",\"stats\":{\"median\":55.4}}]},"
        "{\"key\":\"copy.d2h.pinned\",\"group\":\"copy\",\"technique\":\"pinned\","
        "\"direction\":\"d2h\",\"outcome\":\"FAIL\",\"points\":[{\"metric\":\"bandwidth\","
        "\"stats\":{\"median\":80.0}}]},"
        "{\"key\":\"latency.pinned\",\"group\":\"latency\",\"technique\":\"pinned\","
        "\"direction\":\"h2d\",\"outcome\":\"ok\",\"points\":[{\"metric\":\"latency\","
        "\"stats\":{\"median\":99.0}}]}]}");
    assert_non_null(doc);
    assert_double_equal(ceiling(doc), 55.4, 1e-12);
    cJSON_Delete(doc);
    /* Another document: any object naming a pinned copy, with a "gbps" figure. */
    doc = cJSON_Parse("{\"results\":[{\"name\":\"pageable h2d\",\"median_gbps\":70.0},"
                      "{\"name\":\"pinned h2d\",\"stats\":{\"median_gbps\":54.9}},"
                      "{\"name\":\"pinned d2h\",\"median_gbps\":55.3}]}");
    assert_non_null(doc);
    assert_double_equal(ceiling(doc), 55.3, 1e-12);
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"cases\":[{\"key\":\"copy.pageable.h2d\",\"median_gbps\":7.0}]}");
    assert_double_equal(ceiling(doc), 0.0, 0.0);
    cJSON_Delete(doc);
    assert_int_equal(zc_bench_copy_ceiling_from_json(NULL, &(double){0}), ZC_ERR_INVALID_ARG);
    /* Reading the file is zc trace's (--bench, through cli_io): tests/cli checks it. */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ceiling_from_bench_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
