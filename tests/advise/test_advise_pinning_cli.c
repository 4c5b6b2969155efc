/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --pinning from the command line: the committed H100 bench document in, the ways of
 * pinning ranked out (text and JSON), every bad input refused with exit 2 and nothing written. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define BENCH ZC_PINNING_BENCH

static void run(const char *const *args, zc_test_output *r)
{
    zc_test_run_zc(args, zc_test_no_gpu_env, r);
}

static void test_text(void **state)
{
    (void)state;
    zc_test_output r;
    run((const char *[]){"advise", "--pinning", "16GiB", "--bench", BENCH, NULL}, &r);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "16 GiB of pinned host memory"));
    assert_non_null(strstr(r.out, "NVIDIA H100 80GB HBM3"));
    /* The bench's own figures at 16 GiB, fastest first. */
    const char *zc = strstr(r.out, "  zerocopy            0.899    0.056        1.15        2.65");
    const char *ha = strstr(r.out, "  cudaHostAlloc       8.344    0.522       10.64       24.65");
    assert_non_null(zc);
    assert_non_null(ha);
    assert_true(zc < ha);
    assert_non_null(strstr(r.out, "floor THP           0.339    0.021"));
    assert_non_null(strstr(r.out, "zc run --fix fastpin serves it"));
    assert_non_null(strstr(r.out, "Fastest: zerocopy, 9.3 times less time than cudaHostAlloc."));
    assert_null(strstr(r.out, "extrapolated"));
    zc_test_output_free(&r);

    /* Beyond the measured sizes: marked and said. */
    run((const char *[]){"advise", "--pinning", "64G", "--bench", BENCH, NULL}, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, " *\n"));
    assert_non_null(strstr(r.out, "* extrapolated: 64 GiB lies outside"));
    zc_test_output_free(&r);
}

static void test_json(void **state)
{
    (void)state;
    zc_test_output r;
    run((const char *[]){"advise", "--pinning", "1G", "--bench", BENCH, "-j", "-", NULL}, &r);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc); /* -j -: the document alone on stdout */
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring,
                        "zerocopy.advise-pinning/1");
    assert_int_equal(cJSON_GetObjectItem(doc, "bytes")->valuedouble, 1073741824.0);
    assert_string_equal(cJSON_GetObjectItem(doc, "fastest")->valuestring, "zerocopy");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(doc, "extrapolated")));
    cJSON *ranked = cJSON_GetObjectItem(doc, "ranked");
    assert_int_equal(cJSON_GetArraySize(ranked), 5);
    cJSON *last = cJSON_GetArrayItem(ranked, 4);
    assert_string_equal(cJSON_GetObjectItem(last, "way")->valuestring, "touch_register");
    assert_true(cJSON_GetObjectItem(last, "seconds")->valuedouble == 0.589928137);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(last, "measured_bytes")), 3);
    cJSON *floors = cJSON_GetObjectItem(doc, "floors");
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(floors, "floor_4k")));
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(floors, "floor_thp")));
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

/* Refused with exit 2, stderr containing words, and the -j file never made. */
static void expect_bad(const char *const *args, const char *words)
{
    zc_test_expect_refused(args, zc_test_no_gpu_env, words);
}

static void test_bad_input(void **state)
{
    (void)state;
    expect_bad((const char *[]){"advise", "--pinning", "0", "--bench", BENCH, NULL},
               "--pinning: '0' is not a size");
    expect_bad((const char *[]){"advise", "--pinning", "lots", "--bench", BENCH, NULL},
               "is not a byte count");
    expect_bad((const char *[]){"advise", "--pinning", "1G", NULL}, "--pinning needs --bench FILE");
    expect_bad(
        (const char *[]){"advise", "--pinning", "1G", "--pinning", "2G", "--bench", BENCH, NULL},
        "--pinning was given 2 times");
    expect_bad((const char *[]){"advise", "--pinning", "1G", "--blocks", "4K", "--count", "4",
                                "--bench", BENCH, NULL},
               "--pinning and --blocks");
    expect_bad(
        (const char *[]){"advise", "--pinning", "1G", "--bytes", "4K", "--bench", BENCH, NULL},
        "it takes no workload");
    expect_bad((const char *[]){"advise", "--pinning", "1G", "-d", "0", "--bench", BENCH, NULL},
               "it takes no workload");
    expect_bad(
        (const char *[]){"advise", "--pinning", "1G", "--trace", "t.json", "--bench", BENCH, NULL},
        "it takes no workload");
    expect_bad((const char *[]){"advise", "--bench", BENCH, NULL},
               "--bench has no effect without --blocks or --pinning");
    expect_bad((const char *[]){"advise", "--pinning", "1G", "--bench",
                                ZC_ADVISE_FIXTURES "/h200.profile.json", NULL},
               "not a zerocopy.bench/1 document");
    expect_bad(
        (const char *[]){"advise", "--pinning", "1G", "--bench", "/nonexistent/bench.json", NULL},
        "cannot read");
    /* A bench document without the pinning family. */
    expect_bad((const char *[]){"advise", "--pinning", "1G", "--bench", ZC_BLOCKS_BENCH, NULL},
               "no pin.cost or pin.floor result");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
