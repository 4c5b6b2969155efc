/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise from the command line: recorded profiles in, ranking and JSON out, bad input out. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zerocopy/device.h"

#define H200 ZC_ADVISE_FIXTURES "/h200.profile.json"

static void test_json_ranking(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"advise", "--profile", H200, "--bytes", "4K", "--concurrent",
                                    "--latency-budget", "10", "--json", "-", NULL},
                   NULL, &r);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "zerocopy.advise/1");
    assert_string_equal(cJSON_GetObjectItem(doc, "recommendation")->valuestring, "mapped");
    cJSON *ranked = cJSON_GetObjectItem(doc, "ranked");
    assert_int_equal(cJSON_GetArraySize(ranked), 6);
    cJSON *first = cJSON_GetArrayItem(ranked, 0);
    assert_true(cJSON_GetObjectItem(first, "per_transfer_us")->valuedouble > 0.0);
    cJSON *workload = cJSON_GetObjectItem(doc, "workload");
    assert_int_equal(cJSON_GetObjectItem(workload, "bytes")->valueint, 4096);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(workload, "concurrent")));
    assert_true(cJSON_GetArraySize(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "profile"), "assumptions")) > 0);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

static void test_text_and_workload_file(void **state)
{
    (void)state;
    char path[] = "/tmp/zc-advise-workload-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *body = "{\"bytes\": \"256MiB\", \"transfers\": 10, \"gpu_accesses\": 10}";
    assert_int_equal(write(fd, body, strlen(body)), (ssize_t)strlen(body));
    close(fd);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"advise", "--profile", H200, "--workload", path, NULL}, NULL,
                   &r);
    unlink(path);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "256 MiB h2d"));
    assert_non_null(strstr(r.out, "Advice"));
    assert_null(strstr(r.out, "Advice    mapped"));
    zc_test_output_free(&r);
}

static void test_bad_input(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"advise", "--profile", H200, "--bytes", "lots", NULL}, NULL,
                   &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--bytes"));
    zc_test_output_free(&r);
    zc_test_run_zc((const char *[]){"advise", "--frobnicate", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    zc_test_output_free(&r);
    zc_test_run_zc((const char *[]){"advise", "--profile", "/nonexistent/profile.json", NULL}, NULL,
                   &r);
    assert_int_not_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "cannot read"));
    zc_test_output_free(&r);
    zc_test_run_zc((const char *[]){"advise", "--help", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "--validate"));
    zc_test_output_free(&r);
}

/* Without a GPU, --validate says so and exits 3 before measuring anything; the outputs' folder
 * is checked first. On a machine with a GPU this test has nothing to check here (the GPU tests
 * validate) and skips. */
static void test_validate_needs_a_gpu(void **state)
{
    (void)state;
    int count = 0;
    if (zc_device_count(&count) == ZC_OK && count > 0)
        skip();
    char dir[] = "/tmp/zc-advise-validate-XXXXXX";
    assert_non_null(mkdtemp(dir));
    zc_test_output r;
    zc_test_run_zc((const char *[]){"advise", "--validate", "--profile", H200, "--out", dir,
                                    "--rounds", "2", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 3);
    zc_test_output_free(&r);
    zc_test_run_zc((const char *[]){"advise", "--validate", "--rounds", "17", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--rounds"));
    zc_test_output_free(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/validation.md", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/validation.json", dir);
    unlink(path);
    rmdir(dir);
}

/* Stream advice from the committed H200 zc stream runs, through the command line. */
static void test_stream_advice(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc(
        (const char *[]){"advise", "--stream",
                         ZC_ADVISE_FIXTURES
                         "/../../bench/results/h200-20261201/engine/stream_latency_4k.json",
                         "--frame", "4K", "--frame-rate", "1000", "--json", "-", NULL},
        NULL, &r);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring,
                        "zerocopy.stream-advice/1");
    assert_string_equal(cJSON_GetObjectItem(doc, "recommendation")->valuestring, "zerocopy-ll");
    assert_string_equal(cJSON_GetObjectItem(doc, "device_name")->valuestring, "NVIDIA H200");
    cJSON_Delete(doc);
    zc_test_output_free(&r);
    zc_test_run_zc((const char *[]){"advise", "--frame", "4K", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--stream"));
    zc_test_output_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_ranking),  cmocka_unit_test(test_text_and_workload_file),
        cmocka_unit_test(test_bad_input),     cmocka_unit_test(test_validate_needs_a_gpu),
        cmocka_unit_test(test_stream_advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
