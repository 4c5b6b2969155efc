/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --blocks from the command line: the committed H100 bench document in, the engines
 * ranked out (text and JSON), every bad input refused with exit 2 and nothing written; and zc
 * bench --blocks-profile, which fits the same document. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define BENCH ZC_BLOCKS_BENCH

/* zc advise with args; its output in r. */
static void run(const char *const *args, zc_test_output *r)
{
    zc_test_run_zc(args, zc_test_no_gpu_env, r);
}

static void test_text(void **state)
{
    (void)state;
    zc_test_output r;
    run((const char *[]){"advise", "--blocks", "4K", "--count", "4096", "--bench", BENCH, NULL},
        &r);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "4 KiB x4096 to the device"));
    assert_non_null(strstr(r.out, "The mover chooses kernel"));
    assert_non_null(strstr(r.out, "NVIDIA H100 80GB HBM3"));
    assert_null(strstr(r.out, "Outside the measured moves"));
    assert_null(strstr(r.out, "Beside compute"));
    zc_test_output_free(&r);

    run((const char *[]){"advise", "--blocks", "1MiB", "--count", "256", "--both-ways",
                         "--beside-compute", "--bench", BENCH, NULL},
        &r);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "both ways at once"));
    assert_non_null(strstr(r.out, "The mover chooses batch"));
    assert_non_null(strstr(r.out, "blocks.beside at 1 MiB x256"));
    assert_non_null(strstr(r.out, "beside batch     3.3 %"));
    zc_test_output_free(&r);

    /* Small moves are outside what the document measured: said. */
    run((const char *[]){"advise", "--blocks", "4K", "--count", "16", "--to-host", "--bench", BENCH,
                         NULL},
        &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "to the host"));
    assert_non_null(strstr(r.out, "Outside the measured moves"));
    zc_test_output_free(&r);
}

static void test_json(void **state)
{
    (void)state;
    zc_test_output r;
    run((const char *[]){"advise", "--blocks", "64K", "--count", "4096", "--to-host",
                         "--beside-compute", "--bench", BENCH, "--json", "-", NULL},
        &r);
    if (r.exit_code != 0)
        fail_msg("exit %d, stderr: %s", r.exit_code, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc); /* --json -: the document alone on stdout */
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring,
                        "zerocopy.advise-blocks/1");
    assert_string_equal(cJSON_GetObjectItem(doc, "choice")->valuestring, "kernel");
    cJSON *move = cJSON_GetObjectItem(doc, "move");
    assert_int_equal(cJSON_GetObjectItem(move, "block_bytes")->valuedouble, 65536);
    assert_string_equal(cJSON_GetObjectItem(move, "direction")->valuestring, "to_host");
    cJSON *ranked = cJSON_GetObjectItem(doc, "ranked");
    assert_int_equal(cJSON_GetArraySize(ranked), 3);
    cJSON *first = cJSON_GetArrayItem(ranked, 0);
    assert_string_equal(cJSON_GetObjectItem(first, "engine")->valuestring, "kernel");
    double gbps = cJSON_GetObjectItem(first, "gbps")->valuedouble;
    assert_true(gbps > 41.66 * 0.75 && gbps < 41.66 * 1.25); /* measured 41.66 GB/s */
    cJSON *profile = cJSON_GetObjectItem(doc, "profile");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(profile, "measured")));
    assert_int_equal(cJSON_GetObjectItem(profile, "measured_sms")->valueint, 8);
    cJSON *batch = cJSON_GetObjectItem(cJSON_GetObjectItem(profile, "to_host"), "batch");
    assert_int_equal(cJSON_GetObjectItem(batch, "points")->valueint, 4);
    cJSON *beside = cJSON_GetObjectItem(doc, "beside_compute");
    assert_int_equal(cJSON_GetObjectItem(beside, "measured_block_bytes")->valueint, 65536);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(doc, "outside_measured")));
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

/* Refused with exit 2, stderr containing words, and the -j file never made. */
static void expect_bad(const char *const *args, const char *words)
{
    zc_test_expect_refused(args, zc_test_no_gpu_env, words);
}

/* A copy of the document with its blocks.beside case gone, or a quick run's single size. */
static char *bench_copy(const char *drop_key, int only_64k)
{
    size_t len = 0;
    char *text = zc_test_read_file(BENCH, &len);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON *cases = cJSON_GetObjectItem(doc, "cases");
    for (int i = cJSON_GetArraySize(cases) - 1; i >= 0; i--) {
        cJSON *c = cJSON_GetArrayItem(cases, i);
        if (drop_key != NULL && strcmp(cJSON_GetObjectItem(c, "key")->valuestring, drop_key) == 0) {
            cJSON_DeleteItemFromArray(cases, i);
            continue;
        }
        cJSON *pts = cJSON_GetObjectItem(c, "points");
        for (int j = cJSON_GetArraySize(pts) - 1; only_64k && j >= 0; j--)
            if (cJSON_GetObjectItem(cJSON_GetArrayItem(pts, j), "bytes")->valuedouble != 65536.0)
                cJSON_DeleteItemFromArray(pts, j);
    }
    char *printed = cJSON_Print(doc);
    cJSON_Delete(doc);
    static char path[3][40];
    static int next;
    char *p = path[next++ % 3];
    snprintf(p, sizeof path[0], "/tmp/zc-blocks-bench-XXXXXX");
    int fd = mkstemp(p);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, printed, strlen(printed)), (ssize_t)strlen(printed));
    close(fd);
    free(printed);
    return p;
}

static void test_bad_input(void **state)
{
    (void)state;
    expect_bad((const char *[]){"advise", "--blocks", "0", "--count", "4", "--bench", BENCH, NULL},
               "--blocks: '0' is not a size");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "0", "--bench", BENCH, NULL},
               "--count needs a number of blocks");
    expect_bad((const char *[]){"advise", "--blocks", "4Q", "--count", "4", "--bench", BENCH, NULL},
               "is not a byte count");
    expect_bad(
        (const char *[]){"advise", "--blocks", "1.3K", "--count", "4", "--bench", BENCH, NULL},
        "did you mean 1331 or 1332");
    expect_bad(
        (const char *[]){"advise", "--blocks", "1P", "--count", "1000000", "--bench", BENCH, NULL},
        "overflow a size");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", NULL},
               "--blocks needs --bench FILE");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--bench", BENCH, NULL},
               "--blocks needs --count N");
    expect_bad((const char *[]){"advise", "--count", "4", NULL},
               "--count has no effect without --blocks");
    expect_bad((const char *[]){"advise", "--bench", BENCH, NULL},
               "--bench has no effect without --blocks");
    expect_bad((const char *[]){"advise", "--to-host", NULL}, "--to-host has no effect");
    expect_bad((const char *[]){"advise", "--beside-compute", NULL},
               "--beside-compute has no effect");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", "--to-host",
                                "--both-ways", "--bench", BENCH, NULL},
               "--to-host and --both-ways exclude each other");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", "--bytes", "4K",
                                "--bench", BENCH, NULL},
               "it takes no workload");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", "-d", "0", "--bench",
                                BENCH, NULL},
               "it takes no workload");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", "--bench",
                                ZC_ADVISE_FIXTURES "/h200.profile.json", NULL},
               "not a zerocopy.bench/1 document");
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", "--bench",
                                "/nonexistent/bench.json", NULL},
               "cannot read");
    char *no_h2d = bench_copy("blocks.h2d", 0);
    expect_bad(
        (const char *[]){"advise", "--blocks", "4K", "--count", "4", "--bench", no_h2d, NULL},
        "no blocks.h2d results");
    char *quick = bench_copy(NULL, 1);
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", "--bench", quick, NULL},
               "--quick measures one size");
    char *no_beside = bench_copy("blocks.beside", 0);
    expect_bad((const char *[]){"advise", "--blocks", "4K", "--count", "4", "--beside-compute",
                                "--bench", no_beside, NULL},
               "no blocks.beside points");
    unlink(no_h2d);
    unlink(quick);
    unlink(no_beside);
}

/* zc bench --blocks-profile reads the same document: refused where it would change nothing or
 * cannot be fitted (exit 2, nothing written), taken otherwise (here, with the GPU hidden, the
 * run stops after it: no GPU to measure, exit 3). */
static void test_bench_blocks_profile(void **state)
{
    (void)state;
    expect_bad((const char *[]){"bench", "--case", "copy.h2d", "--blocks-profile", BENCH, NULL},
               "--blocks-profile has no effect without a case of the block family");
    expect_bad(
        (const char *[]){"bench", "--case", "blocks", "--list", "--blocks-profile", BENCH, NULL},
        "--blocks-profile has no effect with --list");
    expect_bad((const char *[]){"bench", "--case", "blocks.h2d", "--blocks-profile",
                                ZC_ADVISE_FIXTURES "/h200.profile.json", NULL},
               "not a zerocopy.bench/1 document");
    char *quick = bench_copy(NULL, 1);
    expect_bad((const char *[]){"bench", "--case", "blocks.h2d", "--blocks-profile", quick, NULL},
               "--quick measures one size");
    unlink(quick);
    zc_test_output r;
    run((const char *[]){"bench", "--case", "blocks.h2d", "--blocks-profile", BENCH, NULL}, &r);
    if (r.exit_code != 3 || strstr(r.err, "no GPU to measure") == NULL)
        fail_msg("want exit 3 (the profile taken, no GPU), got %d: %s", r.exit_code, r.err);
    zc_test_output_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_bench_blocks_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
