/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench --quick on a GPU, the whole command: every case measured and verified within the
 * time target, the JSON and CSV written, and corrupted data reported as FAIL with exit 5. */
#include "test_support.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zerocopy/bench.h"

static cJSON *read_json(const char *path)
{
    char *text = zc_test_read_file(path, NULL);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (doc == NULL)
        fail_msg("%s is not JSON", path);
    return doc;
}

static const cJSON *find_case(const cJSON *doc, const char *key)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
    {
        if (strcmp(cJSON_GetObjectItem(c, "key")->valuestring, key) == 0)
            return c;
    }
    return NULL;
}

static void test_quick_runs_and_verifies_every_case(void **state)
{
    (void)state;
    const char *json = "gpu_bench_quick.json", *csv = "gpu_bench_quick.csv";
    zc_test_output r;
    zc_test_run_zc(
        (const char *[]){"bench", "--quick", "--json", json, "--csv", csv, "--force", NULL}, NULL,
        &r);
    fprintf(stderr, "%s\n", r.out); /* the whole table, for whoever reads the log */
    if (r.exit_code != 0)
        fprintf(stderr, "zc bench --quick exited %d\nstderr:\n%s\n", r.exit_code, r.err);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "The chapter's comparison"));
    /* stderr is not a terminal here: no progress bar may appear in it. */
    assert_null(strstr(r.err, "["));
    zc_test_output_free(&r);

    cJSON *doc = read_json(json);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "zerocopy.bench/1");
    assert_string_equal(cJSON_GetObjectItem(doc, "mode")->valuestring, "quick");
    double wall = cJSON_GetObjectItem(doc, "wall_seconds")->valuedouble;
    fprintf(stderr, "quick run: %.1f s\n", wall);
    assert_true(wall <= 30.0);
    const cJSON *cases = cJSON_GetObjectItem(doc, "cases");
    assert_int_equal((size_t)cJSON_GetArraySize(cases), zc_bench_case_count());
    int bad = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        const char *key = cJSON_GetObjectItem(c, "key")->valuestring;
        const char *outcome = cJSON_GetObjectItem(c, "outcome")->valuestring;
        const char *reason = cJSON_GetObjectItem(c, "reason")->valuestring;
        const cJSON *points = cJSON_GetObjectItem(c, "points");
        if (strcmp(outcome, "skipped") == 0) {
            fprintf(stderr, "%s skipped: %s\n", key, reason);
            if (strlen(reason) == 0) {
                fprintf(stderr, "%s: skipped without a reason\n", key);
                bad++;
            }
            continue;
        }
        if (strcmp(outcome, "ok") != 0) {
            fprintf(stderr, "%s: %s: %s\n", key, outcome, reason);
            bad++;
            continue;
        }
        if (cJSON_GetArraySize(points) == 0) {
            fprintf(stderr, "%s: ok without a single point\n", key);
            bad++;
        }
        const cJSON *p;
        cJSON_ArrayForEach(p, points)
        {
            const cJSON *stats = cJSON_GetObjectItem(p, "stats");
            double median = cJSON_GetObjectItem(stats, "median")->valuedouble;
            if (!cJSON_IsTrue(cJSON_GetObjectItem(p, "verified")) || !(median > 0.0) ||
                !isfinite(median)) {
                fprintf(stderr, "%s: point '%s' %.0f B: verified=%d median=%g\n", key,
                        cJSON_GetObjectItem(p, "variant")->valuestring,
                        cJSON_GetObjectItem(p, "bytes")->valuedouble,
                        cJSON_IsTrue(cJSON_GetObjectItem(p, "verified")), median);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
    /* The cases every CUDA GPU with mapped memory can run did run. */
    static const char *must_run[] = {"copy.h2d.pinned",    "copy.d2h.pinned",  "zerocopy.read.16b",
                                     "zerocopy.write.16b", "latency.pingpong", "latency.launch"};
    for (size_t i = 0; i < sizeof must_run / sizeof must_run[0]; i++) {
        const cJSON *mc = find_case(doc, must_run[i]);
        assert_non_null(mc);
        assert_string_equal(cJSON_GetObjectItem(mc, "outcome")->valuestring, "ok");
    }
    cJSON_Delete(doc);

    char *text = zc_test_read_file(csv, NULL);
    assert_non_null(strstr(text, "key,group,technique"));
    assert_non_null(strstr(text, "copy.h2d.pinned,copy,pinned,h2d,ok"));
    free(text);
}

/* Corrupt one case's data on purpose: it must FAIL with no number, exit 5, others stay ok. The
 * document goes to stdout, which gets it even from a failed run (a file would be left as it
 * was: test_corrupted_data_fails checks that once). */
static void expect_fail(const char *cases, const char *corrupt, const char *healthy)
{
    zc_test_output r;
    zc_test_run_zc((const char *[]){"bench", "--quick", "--case", cases, "--inject-corruption",
                                    corrupt, "--json", "-", NULL},
                   NULL, &r);
    if (r.exit_code != 5)
        fprintf(stderr, "corrupting %s: exit %d, wanted 5\nstdout:\n%s\nstderr:\n%s\n", corrupt,
                r.exit_code, r.out, r.err);
    assert_int_equal(r.exit_code, 5);
    assert_non_null(strstr(r.err, "FAIL"));
    cJSON *doc = cJSON_Parse(r.out);
    zc_test_output_free(&r);
    assert_non_null(doc);
    const cJSON *c = find_case(doc, corrupt);
    assert_non_null(c);
    assert_string_equal(cJSON_GetObjectItem(c, "outcome")->valuestring, "FAIL");
    assert_string_equal(cJSON_GetObjectItem(c, "status")->valuestring, "ERR_VERIFY");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c, "points")), 0);
    fprintf(stderr, "%s FAIL as expected: %s\n", corrupt,
            cJSON_GetObjectItem(c, "reason")->valuestring);
    if (healthy) {
        c = find_case(doc, healthy);
        assert_non_null(c);
        assert_string_equal(cJSON_GetObjectItem(c, "outcome")->valuestring, "ok");
    }
    cJSON_Delete(doc);
}

static void test_corrupted_data_fails(void **state)
{
    (void)state;
    /* A failed run replaces no file: the old document stays as it was. */
    const char *json = "gpu_bench_corrupt.json";
    FILE *f = fopen(json, "w");
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"bench", "--quick", "--case", "copy.h2d.pinned",
                                    "--inject-corruption", "copy.h2d.pinned", "--json", json,
                                    "--force", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 5);
    assert_non_null(strstr(r.err, "not written"));
    zc_test_output_free(&r);
    char *text = zc_test_read_file(json, NULL);
    assert_string_equal(text, "old\n");
    free(text);
    unlink(json);
    expect_fail("copy.h2d.pinned,copy.h2d.pageable", "copy.h2d.pinned", "copy.h2d.pageable");
    expect_fail("copy.d2h.write_combined", "copy.d2h.write_combined", NULL);
    expect_fail("zerocopy.read.16b,zerocopy.write.16b", "zerocopy.read.16b", "zerocopy.write.16b");
    expect_fail("zerocopy.write.16b", "zerocopy.write.16b", NULL);
    expect_fail("overlap.pipeline", "overlap.pipeline", NULL);
}

int main(void)
{
    zc_test_require_gpu("gpu_bench_run");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_runs_and_verifies_every_case),
        cmocka_unit_test(test_corrupted_data_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
