/* SPDX-License-Identifier: Apache-2.0 */
/* zc run on ordinary CUDA programs (GPU): the output of every program is the same cured and
 * uncured, each cure does its work (counted in the report), each can be switched off, child
 * processes are cured, a killed program's report says so, and zc trace sees the cured copies
 * on the pinned path. Every summary is printed so that the GPU machine's log shows it. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* What a program printed on stdout, run without zc run. */
static char *run_plain(const char *const *argv, int *exit_code_p)
{
    char cmd[1024] = "";
    for (size_t i = 0; argv[i] != NULL; i++) {
        strncat(cmd, "'", sizeof cmd - strlen(cmd) - 1);
        strncat(cmd, argv[i], sizeof cmd - strlen(cmd) - 1);
        strncat(cmd, "' ", sizeof cmd - strlen(cmd) - 1);
    }
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t size = 1 << 16, used = 0;
    char *out = malloc(size);
    assert_non_null(out);
    size_t got;
    while ((got = fread(out + used, 1, size - used - 1, p)) > 0) {
        used += got;
        if (used + 1 == size) {
            size *= 2;
            out = realloc(out, size);
            assert_non_null(out);
        }
    }
    out[used] = '\0';
    int status = pclose(p);
    *exit_code_p = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return out;
}

/* zc run [options] -- argv with --report; the report (the caller deletes it) and the run. */
static cJSON *run_cured(const char *const *options, const char *const *argv, zc_test_output *r)
{
    char report[] = "/tmp/zc-run-gpu-XXXXXX";
    int fd = mkstemp(report);
    assert_true(fd >= 0);
    close(fd);
    const char *args[32];
    size_t n = 0;
    args[n++] = "run";
    args[n++] = "--force";
    args[n++] = "--report";
    args[n++] = report;
    for (size_t i = 0; options != NULL && options[i] != NULL; i++)
        args[n++] = options[i];
    args[n++] = "--";
    for (size_t i = 0; argv[i] != NULL && n < 31; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    zc_test_run_zc(args, NULL, r);
    fprintf(stderr, "==== zc run %s%s -- %s %s\n-- summary:\n%s",
            options && options[0] ? options[0] : "",
            options && options[0] && options[1] ? options[1] : "", argv[0], argv[1] ? argv[1] : "",
            r->err);
    char *text = zc_test_read_file(report, NULL);
    unlink(report);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (doc == NULL)
        fail_msg("no report from zc run");
    return doc;
}

static const cJSON *counter(const cJSON *doc, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "counters"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "name")), name) == 0)
            return c;
    }
    fail_msg("no counter %s in the report", name);
    return NULL;
}

static double calls(const cJSON *doc, const char *name)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItem(counter(doc, name), "calls"));
}

/* Cured and uncured, the same stdout and exit code; gives the cured run's report. */
static cJSON *same_output(const char *const *options, const char *const *argv, int exit_code)
{
    int plain_code;
    char *plain = run_plain(argv, &plain_code);
    assert_int_equal(plain_code, exit_code);
    zc_test_output r;
    cJSON *doc = run_cured(options, argv, &r);
    assert_int_equal(r.exit_code, exit_code);
    if (strcmp(plain, r.out) != 0)
        fail_msg("the output changed under zc run:\n-- uncured:\n%s-- cured:\n%s", plain, r.out);
    assert_true(strlen(plain) > 0);
    free(plain);
    zc_test_output_free(&r);
    return doc;
}

/* The staging cure alone: with the register cure, the third copy of each buffer would find it
 * copied twice its size over and pin it. */
static const char *const staging_only[] = {"--fix", "pageable,pinning", NULL};

/* The copies of run_subject (program), counted. */
static void expect_copies_cured(const char *program)
{
    cJSON *doc = same_output(staging_only, (const char *[]){program, "copies", NULL}, 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "cured")));
    assert_int_equal(cJSON_GetObjectItem(doc, "processes")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(doc, "processes_cut")->valueint, 0);
    /* 2 rounds x 10 sizes x 3 kinds of call x 2 directions: every copy seen, each counted once
     * as cured, sampled or left. Left as they were: below 1 MiB host to device (5 sizes) and
     * below 256 KiB device to host (3 sizes); sampled: the second copy of each size class that
     * is cured (4 classes host to device, 6 device to host); cured: all the others. */
    double seen = calls(doc, "pageable-h2d") + calls(doc, "pageable-d2h") +
                  calls(doc, "pageable-sample") + calls(doc, "pageable-small") +
                  calls(doc, "pageable-capture") + calls(doc, "pageable-unsure");
    assert_true(seen == 120);
    assert_true(calls(doc, "pageable-small") == 30 + 18);
    assert_true(calls(doc, "pageable-sample") == 4 + 6);
    assert_true(calls(doc, "pageable-h2d") == 30 - 4);
    assert_true(calls(doc, "pageable-d2h") == 42 - 6);
    assert_true(calls(doc, "pageable-unsure") == 0);
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItem(counter(doc, "pageable-h2d"), "pricing")),
        "scaled");
    cJSON_Delete(doc);
}

/* cudaMemcpy2D and cudaMemcpy2DAsync: 2 rounds x 2 kinds each way. The 4K frame is cured
 * (its second copy each way sampled), the small frame left as small, the rows wider than a
 * staging buffer left as unsure. */
static void test_copies(void **state)
{
    (void)state;
    expect_copies_cured(ZC_RUN_SUBJECT);
}

/* The same program built with --default-stream per-thread: the runtime asks for the _ptds and
 * _ptsz forms, and they are cured alike. */
static void test_copies_per_thread_stream(void **state)
{
    (void)state;
    expect_copies_cured(ZC_RUN_SUBJECT_PTDS);
}

/* Every cure on: each copy still counted once, some of them from buffers pinned in place. */
static void test_copies_all_cures(void **state)
{
    (void)state;
    cJSON *doc = same_output(NULL, (const char *[]){ZC_RUN_SUBJECT, "copies", NULL}, 0);
    double seen = calls(doc, "pageable-h2d") + calls(doc, "pageable-d2h") +
                  calls(doc, "registered-h2d") + calls(doc, "registered-d2h") +
                  calls(doc, "pageable-sample") + calls(doc, "pageable-small") +
                  calls(doc, "pageable-capture") + calls(doc, "pageable-unsure");
    assert_true(seen == 120);
    assert_true(calls(doc, "registered-h2d") > 0 && calls(doc, "registered-d2h") > 0);
    assert_true(calls(doc, "register-pin") == calls(doc, "register-unpin"));
    cJSON_Delete(doc);
}

static void test_copies_2d(void **state)
{
    (void)state;
    cJSON *doc = same_output(NULL, (const char *[]){ZC_RUN_SUBJECT, "copies2d", NULL}, 0);
    assert_true(calls(doc, "pageable-sample") == 2);
    assert_true(calls(doc, "pageable-h2d") == 3 && calls(doc, "pageable-d2h") == 3);
    assert_true(calls(doc, "pageable-small") == 8);
    assert_true(calls(doc, "pageable-unsure") == 8);
    cJSON_Delete(doc);
}

/* cudaMemcpy3D and cudaMemcpy3DAsync: 2 rounds x 2 kinds each way; the large volume cured (its
 * second copy each way sampled), the small one left. */
static void test_copies_3d(void **state)
{
    (void)state;
    cJSON *doc = same_output(NULL, (const char *[]){ZC_RUN_SUBJECT, "copies3d", NULL}, 0);
    assert_true(calls(doc, "pageable-sample") == 2);
    assert_true(calls(doc, "pageable-h2d") == 3 && calls(doc, "pageable-d2h") == 3);
    assert_true(calls(doc, "pageable-small") == 8);
    cJSON_Delete(doc);
}

/* Buffers copied again and again are pinned in place: the program's output is the same, its
 * forked child reads the pinned buffer, and every way it gives pages back unpins first (the
 * program checks that the copies after see its new pages). */
static void test_register(void **state)
{
    (void)state;
    cJSON *doc = same_output(NULL, (const char *[]){ZC_RUN_SUBJECT, "reuse", NULL}, 0);
    assert_true(calls(doc, "register-pin") >= 5);
    assert_true(calls(doc, "register-pin") == calls(doc, "register-unpin"));
    assert_true(calls(doc, "registered-h2d") >= 6 && calls(doc, "registered-d2h") >= 5);
    assert_true(calls(doc, "register-refused") == 0);
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItem(counter(doc, "registered-h2d"), "pricing")),
        "scaled");
    cJSON_Delete(doc);
}

static void test_cures_switch_off(void **state)
{
    (void)state;
    cJSON *doc = same_output((const char *[]){"--fix", "none", NULL},
                             (const char *[]){ZC_RUN_SUBJECT, "copies", NULL}, 0);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "cured")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "fixes")), 0);
    cJSON_Delete(doc);
    doc = same_output((const char *[]){"--fix", "pinning", NULL},
                      (const char *[]){ZC_RUN_SUBJECT, "copies", NULL}, 0);
    assert_true(calls(doc, "pageable-h2d") == 0 && calls(doc, "pageable-d2h") == 0);
    assert_true(calls(doc, "pageable-sample") == 0);
    cJSON_Delete(doc);
    doc = same_output((const char *[]){"--fix", "pageable", NULL},
                      (const char *[]){ZC_RUN_SUBJECT, "pin", "6", "1048576", NULL}, 0);
    assert_true(calls(doc, "pinning-hit") == 0 && calls(doc, "pinning-miss") == 0);
    cJSON_Delete(doc);
}

static void test_pinning_loop(void **state)
{
    (void)state;
    cJSON *doc =
        same_output(NULL, (const char *[]){ZC_RUN_SUBJECT, "pin", "20", "4194304", NULL}, 0);
    assert_true(calls(doc, "pinning-miss") == 1);
    assert_true(calls(doc, "pinning-hit") == 19);
    const cJSON *hit = counter(doc, "pinning-hit");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(hit, "pricing")), "measured");
    /* Each reuse is priced at what the one real pinning of that size took. */
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(hit, "uncured_seconds")) > 0);
    cJSON_Delete(doc);
}

static void test_driver_api_by_symbol(void **state)
{
    (void)state;
    cJSON *doc = same_output(staging_only, (const char *[]){ZC_RUN_SUBJECT_DRIVER, NULL}, 0);
    /* 3 round trips of 9 MiB: the first each way runs as it was to price the others. */
    assert_true(calls(doc, "pageable-sample") == 2);
    assert_true(calls(doc, "pageable-h2d") == 2);
    assert_true(calls(doc, "pageable-d2h") == 2);
    assert_true(calls(doc, "pinning-hit") == 3);
    cJSON_Delete(doc);
}

static void test_child_process(void **state)
{
    (void)state;
    cJSON *doc = same_output(staging_only, (const char *[]){ZC_RUN_SUBJECT, "spawn", NULL}, 0);
    assert_true(cJSON_GetObjectItem(doc, "processes")->valueint >= 1);
    assert_true(calls(doc, "pageable-h2d") == 30 - 4); /* the child's, as in test_copies */
    cJSON_Delete(doc);
}

static void test_killed_program(void **state)
{
    (void)state;
    zc_test_output r;
    cJSON *doc = run_cured(NULL, (const char *[]){ZC_RUN_SUBJECT, "kill", NULL}, &r);
    assert_int_equal(r.exit_code, 128 + 9);
    assert_int_equal(cJSON_GetObjectItem(doc, "signal")->valueint, 9);
    assert_int_equal(cJSON_GetObjectItem(doc, "processes_cut")->valueint, 1);
    /* One process: "the process ... ended before writing its counts". */
    assert_non_null(strstr(r.err, "ended before writing its counts"));
    zc_test_output_free(&r);
    cJSON_Delete(doc);
}

/* zc trace -- zc run -- PROGRAM: the trace sees the program's large copies leave from pinned
 * memory: more than twice the bytes that stay pageable (the small and the sampled copies). */
static void test_trace_sees_pinned(void **state)
{
    (void)state;
    char json[] = "/tmp/zc-run-trace-XXXXXX";
    int fd = mkstemp(json);
    assert_true(fd >= 0);
    close(fd);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--force", "--json", json, "--", ZC_TEST_ZC_BINARY,
                                    "run", "-q", "--", ZC_RUN_SUBJECT, "copies", NULL},
                   NULL, &r);
    fprintf(stderr, "==== zc trace -- zc run -- run_subject copies\n%s", r.err);
    assert_int_equal(r.exit_code, 0);
    zc_test_output_free(&r);
    char *text = zc_test_read_file(json, NULL);
    unlink(json);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    double pinned = 0, pageable = 0;
    const cJSON *path;
    cJSON_ArrayForEach(path, cJSON_GetObjectItem(doc, "paths"))
    {
        const char *src = cJSON_GetStringValue(cJSON_GetObjectItem(path, "src_kind"));
        const char *dst = cJSON_GetStringValue(cJSON_GetObjectItem(path, "dst_kind"));
        double bytes = cJSON_GetNumberValue(cJSON_GetObjectItem(path, "bytes"));
        if (src == NULL || dst == NULL)
            continue;
        if (strcmp(src, "pinned") == 0 || strcmp(dst, "pinned") == 0)
            pinned += bytes;
        if (strcmp(src, "pageable") == 0 || strcmp(dst, "pageable") == 0)
            pageable += bytes;
    }
    fprintf(stderr, "trace: %.0f bytes on pinned paths, %.0f on pageable ones\n", pinned, pageable);
    assert_true(pinned > 2 * pageable);
    cJSON_Delete(doc);
}

int main(void)
{
    zc_test_require_gpu("gpu_run");
    /* The cases count every copy exactly; staging judged slower than a size's sample would
     * send some copies of a busy machine's run to the driver (pageable-slower), so the
     * programs run without the judgement, which cpu_run_slower holds. */
    setenv("ZC_RUN_JUDGE_AFTER", "0", 1);
    /* Under compute-sanitizer: the programs' own copies and allocations, not the runs that
     * add CUPTI (zc trace) or kill processes, which the sanitizer cannot share. */
    const struct CMUnitTest sanitized[] = {
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_register),
        cmocka_unit_test(test_pinning_loop),
        cmocka_unit_test(test_driver_api_by_symbol),
    };
    if (zc_test_under_sanitizer())
        return cmocka_run_group_tests(sanitized, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_copies_all_cures),
        cmocka_unit_test(test_copies_2d),
        cmocka_unit_test(test_copies_3d),
        cmocka_unit_test(test_register),
        cmocka_unit_test(test_copies_per_thread_stream),
        cmocka_unit_test(test_cures_switch_off),
        cmocka_unit_test(test_pinning_loop),
        cmocka_unit_test(test_driver_api_by_symbol),
        cmocka_unit_test(test_child_process),
        cmocka_unit_test(test_killed_program),
        cmocka_unit_test(test_trace_sees_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
