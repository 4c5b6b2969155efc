/* SPDX-License-Identifier: Apache-2.0 */
/* Every command's conventions and failure paths, without a GPU: the exit codes the README lists,
 * "-" for stdin and stdout, outputs that never replace an input or (without --force) an existing
 * file and are checked before any GPU is touched, strict numbers and option values, JSON inputs
 * with a size limit, misspelt workload names. */
#include "test_support.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define H200 ZC_CLI_FIXTURES "/../advise/h200.profile.json"

static char g_dir[] = "/tmp/zc_cli_conv_XXXXXX";

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(g_dir) != NULL ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A path in the test's folder (one of a few rotating buffers). */
static const char *in_dir(const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", g_dir, name);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#define NO_GPU zc_test_no_gpu_env

static void test_missing_and_unreadable_inputs_are_bad_input(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"advise", "--profile", "/nonexistent/p.json", NULL}, NO_GPU,
                      2, NULL, "cannot read /nonexistent/p.json");
    zc_test_expect_zc(
        (const char *[]){"advise", "--profile", H200, "--workload", "/nonexistent/w", NULL}, NO_GPU,
        2, NULL, "cannot read");
    zc_test_expect_zc((const char *[]){"advise", "--profile", g_dir, NULL}, NO_GPU, 2, NULL,
                      "it is a directory");
    zc_test_expect_zc((const char *[]){"stream", "/nonexistent.f32", "--mode", "cpu", NULL}, NO_GPU,
                      2, NULL, "cannot open /nonexistent.f32");
    zc_test_expect_zc((const char *[]){"stream", g_dir, "--mode", "cpu", NULL}, NO_GPU, 2, NULL,
                      "directory");
    zc_test_expect_zc(
        (const char *[]){"stream", "--taps-file", "/nonexistent", "--mode", "cpu", NULL}, NO_GPU, 2,
        NULL, "cannot read /nonexistent");
    /* --bench is read before the program runs: nothing is run when it is missing. */
    zc_test_expect_zc(
        (const char *[]){"trace", "--bench", "/nonexistent.json", "--", "/bin/echo", "ran", NULL},
        NO_GPU, 2, "", "cannot read /nonexistent.json");
    const char *bad = in_dir("bad.json");
    write_text(bad, "{\n  \"schema\": \"zerocopy.profile/1\",\n  oops\n}\n");
    zc_test_expect_zc((const char *[]){"advise", "--profile", bad, NULL}, NO_GPU, 2, NULL,
                      "is not JSON (line 3, column");
    /* No JSON reader grows without bound: 64 MiB is the most any input of zc may hold. */
    zc_test_expect_zc((const char *[]){"advise", "--profile", "/dev/zero", NULL}, NO_GPU, 2, NULL,
                      "is over 67108864 bytes");
}

static void test_stdin_is_dash(void **state)
{
    (void)state;
    /* A profile from stdin: the same ranking as from the file. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s advise --profile - --bytes 4K -j - < %s > %s", ZC_TEST_ZC_BINARY,
             H200, in_dir("from_stdin.json"));
    assert_int_equal(system(cmd), 0);
    size_t len = 0;
    char *text = zc_test_read_file(in_dir("from_stdin.json"), &len);
    assert_non_null(strstr(text, "\"schema\":\t\"zerocopy.advise/1\""));
    free(text);
    zc_test_expect_zc((const char *[]){"advise", "--profile", "-", "--workload", "-", NULL}, NO_GPU,
                      2, NULL, "cannot both read stdin");
}

static void test_outputs_never_replace_inputs(void **state)
{
    (void)state;
    const char *profile = in_dir("profile.json");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp %s %s", H200, profile);
    assert_int_equal(system(cmd), 0);
    size_t before = 0, after = 0;
    free(zc_test_read_file(profile, &before));
    zc_test_expect_zc((const char *[]){"advise", "--profile", profile, "--save-profile", profile,
                                       "--force", NULL},
                      NO_GPU, 2, NULL, "is also an input");
    /* The same file under another name is the same file. */
    char other[600];
    snprintf(other, sizeof other, "%s/../%s/profile.json", g_dir, strrchr(g_dir, '/') + 1);
    zc_test_expect_zc(
        (const char *[]){"advise", "--profile", profile, "-j", other, "--force", NULL}, NO_GPU, 2,
        NULL, "is also an input");
    free(zc_test_read_file(profile, &after));
    assert_int_equal(after, before);
    const char *f32 = in_dir("in.f32");
    write_text(f32, "0123456789abcdef");
    zc_test_expect_zc((const char *[]){"stream", f32, "--mode", "cpu", "-o", f32, "--force", NULL},
                      NO_GPU, 2, NULL, "is also an input");
    zc_test_expect_zc((const char *[]){"stream", f32, "--mode", "cpu", "--save-taps", f32, NULL},
                      NO_GPU, 2, NULL, "is also an input");
    const char *bench = in_dir("bench.json");
    write_text(bench, "{\"schema\": \"zerocopy.bench/1\", \"cases\": []}");
    zc_test_expect_zc((const char *[]){"trace", "--bench", bench, "--json", bench, "--force", "--",
                                       "/bin/echo", "ran", NULL},
                      NO_GPU, 2, "", "is also an input");
}

static void test_existing_outputs_need_force(void **state)
{
    (void)state;
    const char *out = in_dir("taps.txt");
    write_text(out, "keep me\n");
    zc_test_expect_zc(
        (const char *[]){"stream", "--mode", "cpu", "--frames", "1", "--save-taps", out, NULL},
        NO_GPU, 2, NULL, "exists: give --force");
    size_t len = 0;
    char *text = zc_test_read_file(out, &len);
    assert_string_equal(text, "keep me\n");
    free(text);
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--frames", "1", "--taps", "5",
                                       "--save-taps", out, "--force", NULL},
                      NO_GPU, 0, NULL, NULL);
    text = zc_test_read_file(out, &len);
    assert_null(strstr(text, "keep me"));
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    assert_int_equal(lines, 5);
    free(text);
    /* No temporary file is left beside it. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -q '^\\.zc-'", g_dir);
    assert_int_not_equal(system(cmd), 0);
}

static void test_outputs_checked_before_the_gpu(void **state)
{
    (void)state;
    /* Without a GPU these would exit 3; a bad output path is said first (2). */
    zc_test_expect_zc(
        (const char *[]){"bench", "--quick", "--json", "/nonexistent/dir/b.json", NULL}, NO_GPU, 2,
        NULL, "cannot write /nonexistent/dir/b.json");
    zc_test_expect_zc((const char *[]){"bench", "--csv", "/nonexistent/dir/b.csv", NULL}, NO_GPU, 2,
                      NULL, "cannot write");
    zc_test_expect_zc((const char *[]){"info", "-j", "/nonexistent/dir/i.json", NULL}, NO_GPU, 2,
                      NULL, "cannot write");
    zc_test_expect_zc((const char *[]){"stream", "-j", "/nonexistent/dir/s.json", NULL}, NO_GPU, 2,
                      NULL, "cannot write");
    zc_test_expect_zc((const char *[]){"trace", "--json", "/nonexistent/dir/t.json", "--",
                                       "/bin/echo", "ran", NULL},
                      NO_GPU, 2, "", "cannot write");
    const char *existing = in_dir("exists.json");
    write_text(existing, "{}");
    zc_test_expect_zc((const char *[]){"bench", "--quick", "-j", existing, NULL}, NO_GPU, 2, NULL,
                      "exists: give --force");
}

static void test_full_outputs_fail(void **state)
{
    (void)state;
    /* A write that fails (a full disk: /dev/full) is a run-time I/O failure: exit 1. */
    zc_test_expect_zc(
        (const char *[]){"stream", "--mode", "cpu", "--frames", "2", "-o", "/dev/full", NULL},
        NO_GPU, 1, NULL, "No space left on device");
    zc_test_expect_zc(
        (const char *[]){"stream", "--mode", "cpu", "--frames", "2", "-j", "/dev/full", NULL},
        NO_GPU, 1, NULL, "No space left on device");
    /* Text to a full stdout: the command's output did not arrive. */
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "ZC_TRACE_LIB= CUDA_VISIBLE_DEVICES=-1 %s stream --mode cpu --frames 2 > /dev/full "
             "2>/dev/null",
             ZC_TEST_ZC_BINARY);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    snprintf(cmd, sizeof cmd, "%s help stream > /dev/full 2>/dev/null", ZC_TEST_ZC_BINARY);
    status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    /* zc trace's results count: the program succeeded, zc trace could not write. */
    zc_test_expect_zc((const char *[]){"trace", "-j", "/dev/full", "--", "/bin/true", NULL}, NO_GPU,
                      1, NULL, "No space left on device");
}

static void test_trace_keep_logs(void **state)
{
    (void)state;
    const char *file = in_dir("a-file");
    write_text(file, "x");
    zc_test_expect_zc(
        (const char *[]){"trace", "--keep-logs", file, "--", "/bin/echo", "ran", NULL}, NO_GPU, 2,
        "", "not a folder");
    char logs[600];
    snprintf(logs, sizeof logs, "%s/logs", g_dir);
    assert_int_equal(mkdir(logs, 0700), 0);
    char old[700];
    snprintf(old, sizeof old, "%s/1234.log", logs);
    write_text(old, "zctrace 1 pid=1234\n");
    zc_test_expect_zc(
        (const char *[]){"trace", "--keep-logs", logs, "--", "/bin/echo", "ran", NULL}, NO_GPU, 2,
        "", "already holds 1 .log file");
}

static void test_options_and_numbers(void **state)
{
    (void)state;
    /* A short option inside a group is named as such. */
    zc_test_expect_zc((const char *[]){"info", "-xh", NULL}, NULL, 2, NULL, "unknown option '-x'");
    zc_test_expect_zc((const char *[]){"bench", "-q", "--bogus", NULL}, NULL, 2, NULL,
                      "unknown option '--bogus'");
    zc_test_expect_zc((const char *[]){"stream", "-j", NULL}, NULL, 2, NULL, "-j needs a value");
    /* Numbers are plain decimal digits everywhere. */
    const char *const bad_numbers[] = {" 5", "+5", "-0", "0x10", "5 ", "", "1e3"};
    for (size_t i = 0; i < sizeof bad_numbers / sizeof bad_numbers[0]; i++) {
        zc_test_expect_zc((const char *[]){"stream", "--device", bad_numbers[i], NULL}, NULL, 2,
                          NULL, "--device");
        zc_test_expect_zc((const char *[]){"bench", "-d", bad_numbers[i], NULL}, NULL, 2, NULL,
                          "--device");
        zc_test_expect_zc((const char *[]){"info", "--device", bad_numbers[i], NULL}, NULL, 2, NULL,
                          "--device");
        zc_test_expect_zc(
            (const char *[]){"trace", "--device", bad_numbers[i], "--", "/bin/true", NULL}, NULL, 2,
            NULL, "--device");
        zc_test_expect_zc((const char *[]){"advise", "--device", bad_numbers[i], NULL}, NULL, 2,
                          NULL, "--device");
    }
    zc_test_expect_zc((const char *[]){"advise", "--profile", H200, "--bytes", "0x10", NULL}, NULL,
                      2, NULL, "--bytes");
    zc_test_expect_zc((const char *[]){"advise", "--profile", H200, "--bytes", "1.5", NULL}, NULL,
                      2, NULL, "--bytes");
    zc_test_expect_zc((const char *[]){"trace", "--ram", "0x10", "--", "/bin/true", NULL}, NULL, 2,
                      NULL, "--ram");
    zc_test_expect_zc((const char *[]){"stream", "--rate", "inf", NULL}, NULL, 2, NULL, "--rate");
    /* Empty values do not silently mean the default. */
    zc_test_expect_zc((const char *[]){"stream", "--mode", "", NULL}, NULL, 2, NULL, "--mode");
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu,", NULL}, NULL, 2, NULL, "--mode");
    zc_test_expect_zc((const char *[]){"stream", "--tones", "1,", NULL}, NULL, 2, NULL, "--tones");
    zc_test_expect_zc((const char *[]){"bench", "--case", "", NULL}, NULL, 2, NULL, "--case");
}

static void test_workload_json_is_strict(void **state)
{
    (void)state;
    const struct {
        const char *json, *says;
    } cases[] = {
        {"{\"byts\": 4096}", "unknown name \"byts\""},
        {"{\"bytes\": 1.5}", "bytes must be a whole size"},
        {"{\"bytes\": 1e300}", "bytes must be a whole size"},
        {"{\"bytes\": -4}", "bytes must be a whole size"},
        {"{\"bytes\": 4096} trailing", "is not JSON"},
        {"[1, 2]", "expected a JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *w = in_dir("workload.json");
        write_text(w, cases[i].json);
        zc_test_expect_zc((const char *[]){"advise", "--profile", H200, "--workload", w, NULL},
                          NULL, 2, NULL, cases[i].says);
    }
    /* A profile point with an absurd size is refused, not cast (undefined behaviour). */
    const char *p = in_dir("huge.json");
    write_text(p, "{\"schema\": \"zerocopy.profile/1\", \"copy\": {\"h2d\": {\"pinned\": "
                  "[[1e30, 50]]}}}");
    zc_test_expect_zc((const char *[]){"advise", "--profile", p, NULL}, NULL, 2, NULL, NULL);
}

/* The numeric figures at the top of a profile document, as "name,name,...". */
static void scalar_names(const char *path, char *out, size_t size)
{
    size_t len = 0;
    char *text = zc_test_read_file(path, &len);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    out[0] = '\0';
    const cJSON *item;
    cJSON_ArrayForEach(item, doc)
    {
        if (cJSON_IsNumber(item))
            snprintf(out + strlen(out), size - strlen(out), "%s,", item->string);
    }
    cJSON_Delete(doc);
}

static void test_saved_profile_holds_only_measurements(void **state)
{
    (void)state;
    /* The fixture leaves figures out; the advice assumes them, the saved profile must not claim
     * them as measured but list them apart. */
    const char *saved = in_dir("saved.json");
    zc_test_expect_zc(
        (const char *[]){"advise", "--profile", H200, "--save-profile", saved, "--force", NULL},
        NO_GPU, 0, NULL, NULL);
    char before[2048], after[2048];
    scalar_names(H200, before, sizeof before);
    scalar_names(saved, after, sizeof after);
    assert_string_equal(after, before);
    size_t len = 0;
    char *text = zc_test_read_file(saved, &len);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const cJSON *assumed = cJSON_GetObjectItem(doc, "not_measured");
    assert_true(cJSON_IsArray(assumed) && cJSON_GetArraySize(assumed) > 0);
    assert_non_null(strstr(cJSON_GetArrayItem(assumed, 0)->valuestring, "assumed"));
    cJSON_Delete(doc);
    /* Loaded again, it gives the same advice as the original. */
    const char *a = in_dir("a.json"), *b = in_dir("b.json");
    zc_test_expect_zc((const char *[]){"advise", "--profile", H200, "-j", a, "--force", NULL},
                      NO_GPU, 0, NULL, NULL);
    zc_test_expect_zc((const char *[]){"advise", "--profile", saved, "-j", b, "--force", NULL},
                      NO_GPU, 0, NULL, NULL);
    char *ta = zc_test_read_file(a, &len), *tb = zc_test_read_file(b, &len);
    cJSON *da = cJSON_Parse(ta), *db = cJSON_Parse(tb);
    assert_string_equal(cJSON_GetObjectItem(da, "recommendation")->valuestring,
                        cJSON_GetObjectItem(db, "recommendation")->valuestring);
    cJSON_Delete(da);
    cJSON_Delete(db);
    free(ta);
    free(tb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_and_unreadable_inputs_are_bad_input),
        cmocka_unit_test(test_stdin_is_dash),
        cmocka_unit_test(test_outputs_never_replace_inputs),
        cmocka_unit_test(test_existing_outputs_need_force),
        cmocka_unit_test(test_outputs_checked_before_the_gpu),
        cmocka_unit_test(test_full_outputs_fail),
        cmocka_unit_test(test_trace_keep_logs),
        cmocka_unit_test(test_options_and_numbers),
        cmocka_unit_test(test_workload_json_is_strict),
        cmocka_unit_test(test_saved_profile_holds_only_measurements),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
