/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream --devices on two GPUs or more: every frame back, in order, checked; the filtered
 * samples the same as one GPU's for the same input; per-GPU and total figures in the JSON.
 * Skips below two GPUs. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

static int g_count;

static void run_ok(const char *const *args)
{
    zc_test_output r;
    zc_test_run_zc(args, NULL, &r);
    fprintf(stderr, "%s%s", r.out, r.err);
    if (r.exit_code != 0)
        fail_msg("zc %s %s ... exited %d", args[0], args[1], r.exit_code);
    zc_test_output_free(&r);
}

static void check_json(const char *path, const char *protocol_mode, double frames)
{
    size_t len = 0;
    char *text = zc_test_read_file(path, &len);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "zerocopy.stream-multi/1");
    assert_string_equal(cJSON_GetObjectItem(doc, "mode")->valuestring, protocol_mode);
    assert_string_equal(cJSON_GetObjectItem(doc, "status")->valuestring, "OK");
    const cJSON *per = cJSON_GetObjectItem(doc, "per_gpu");
    assert_int_equal(cJSON_GetArraySize(per), g_count);
    const cJSON *total = cJSON_GetObjectItem(doc, "total");
    assert_true(cJSON_GetObjectItem(total, "frames")->valuedouble == frames);
    double sum = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, per)
    {
        double f = cJSON_GetObjectItem(e, "frames")->valuedouble;
        /* Round-robin: every GPU gets its share, give or take one frame. */
        assert_true(fabs(f - frames / g_count) <= 1.0);
        assert_true(cJSON_GetObjectItem(e, "gb_per_s")->valuedouble > 0);
        sum += f;
    }
    assert_true(sum == frames);
    const cJSON *v = cJSON_GetObjectItem(doc, "verification");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(v, "in_order")));
    assert_true(cJSON_GetObjectItem(v, "frames_checked")->valuedouble >= frames);
    assert_true(cJSON_GetObjectItem(v, "max_rel_error")->valuedouble <= 1e-5);
    cJSON_Delete(doc);
}

static void test_round_robin_matches_one_gpu(void **state)
{
    (void)state;
    const char *one = "gpu_stream_multi_one.f32", *all = "gpu_stream_multi_all.f32";
    const char *json = "gpu_stream_multi.json";
    /* The same synthetic input through GPU 0 alone and through every GPU. */
    run_ok((const char *[]){"stream", "--device", "0", "--frames", "600", "--warmup", "0",
                            "--frame-samples", "4096", "--in-flight", "4", "--verify", "all",
                            "--output", one, "--force", NULL});
    run_ok((const char *[]){"stream", "--devices", "all", "--frames", "600", "--warmup", "0",
                            "--frame-samples", "4096", "--in-flight", "4", "--verify", "all",
                            "--output", all, "--json", json, "--force", NULL});
    check_json(json, "zerocopy-ll", 600);
    size_t n1 = 0, n2 = 0;
    char *a = zc_test_read_file(one, &n1), *b = zc_test_read_file(all, &n2);
    assert_int_equal(n1, (size_t)600 * 4096 * 4);
    assert_int_equal(n2, n1);
    const float *x = (const float *)a, *y = (const float *)b;
    for (size_t i = 0; i < n1 / 4; i++)
        if (fabsf(x[i] - y[i]) > 1e-6f)
            fail_msg("sample %zu (frame %zu): one GPU %.9g, every GPU %.9g", i, i / 4096, x[i],
                     y[i]);
    free(a);
    free(b);
}

static void test_flag_reuse_1mib(void **state)
{
    (void)state;
    if (zc_test_under_sanitizer()) {
        /* Persistent kernels under memcheck crawl; the small frames above cover the path. */
        fprintf(stderr, "under the sanitizer: 1 MiB frames left out\n");
        return;
    }
    const char *json = "gpu_stream_multi_flag.json";
    run_ok((const char *[]){"stream",   "--devices",   "all",      "--protocol", "flag",
                            "--frames", "400",         "--warmup", "20",         "--frame-samples",
                            "262144",   "--in-flight", "8",        "--reuse",    "--verify",
                            "all",      "--json",      json,       "--force",    NULL});
    check_json(json, "zerocopy-flag", 400);
}

int main(void)
{
    zc_test_require_gpu("gpu_stream_multi");
    if (cudaGetDeviceCount(&g_count) != cudaSuccess || g_count < 2) {
        fprintf(stderr, "SKIP gpu_stream_multi: needs two GPUs, found %d\n", g_count);
        return ZC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_matches_one_gpu),
        cmocka_unit_test(test_flag_reuse_1mib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
