/* SPDX-License-Identifier: Apache-2.0 */
/* zc run as a user calls it, on programs that are not CUDA (any machine): options refused
 * before anything runs, the program's exit code and signal passed through, its environment
 * kept, the library harmless in a process that never uses CUDA. */
#include "test_support.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zerocopy/run.h"

static char marker[64];

static int setup(void **state)
{
    (void)state;
    snprintf(marker, sizeof marker, "/tmp/zc-run-cli-%ld", (long)getpid());
    unlink(marker);
    return 0;
}

static int ran(void)
{
    struct stat st;
    return stat(marker, &st) == 0;
}

/* A shell command that leaves the marker file when it runs. */
static const char *touch_marker(void)
{
    static char cmd[128];
    snprintf(cmd, sizeof cmd, "touch '%s'", marker);
    return cmd;
}

static void test_refused_before_running(void **state)
{
    (void)state;
    const char *cases[][8] = {
        {"run", "--fix", "bogus", "--", "sh", "-c", NULL, NULL},
        {"run", "--fix", "", "--", "sh", "-c", NULL, NULL},
        {"run", "--lib", "/nonexistent/libzerocopy_run.so", "--", "sh", "-c", NULL, NULL},
        {"run", "--frobnicate", "--", "sh", "-c", NULL, NULL, NULL},
    };
    const char *said[] = {"unknown cure 'bogus'", "--fix needs a value", "cannot be read",
                          "--frobnicate"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = 0;
        while (cases[i][n] != NULL)
            n++;
        cases[i][n] = touch_marker();
        zc_test_expect_zc(cases[i], NULL, 2, NULL, said[i]);
        if (ran())
            fail_msg("case %zu: the program ran although zc run refused its options", i);
    }
    zc_test_expect_zc((const char *[]){"run", NULL}, NULL, 2, NULL, "no program to run");
    zc_test_expect_zc((const char *[]){"run", "--fix", "pinning", NULL}, NULL, 2, NULL,
                      "no program to run");
}

static void test_report_not_replaced(void **state)
{
    (void)state;
    char report[64];
    snprintf(report, sizeof report, "/tmp/zc-run-report-%ld.json", (long)getpid());
    FILE *f = fopen(report, "w");
    assert_non_null(f);
    fputs("keep me\n", f);
    fclose(f);
    zc_test_expect_zc(
        (const char *[]){"run", "--report", report, "--", "sh", "-c", touch_marker(), NULL}, NULL,
        2, NULL, "exists");
    assert_false(ran());
    char *text = zc_test_read_file(report, NULL);
    assert_string_equal(text, "keep me\n");
    free(text);
    /* With --force it is replaced, once the program has run. */
    zc_test_expect_zc((const char *[]){"run", "--force", "--report", report, "--", "sh", "-c",
                                       touch_marker(), NULL},
                      NULL, 0, NULL, NULL);
    assert_true(ran());
    unlink(marker);
    text = zc_test_read_file(report, NULL);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "schema")), "zerocopy-run/1");
    cJSON_Delete(doc);
    unlink(report);
}

static void test_exit_codes_pass_through(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"run", "--", "sh", "-c", "echo out; exit 7", NULL}, NULL, 7,
                      "out\n", NULL);
    zc_test_expect_zc((const char *[]){"run", "-q", "--", "sh", "-c", "kill -TERM $$", NULL}, NULL,
                      128 + 15, NULL, NULL);
    zc_test_expect_zc((const char *[]){"run", "--", "/nonexistent/program", NULL}, NULL, 127, NULL,
                      "could not be started");
    char plain[64];
    snprintf(plain, sizeof plain, "/tmp/zc-run-not-executable-%ld", (long)getpid());
    FILE *f = fopen(plain, "w");
    assert_non_null(f);
    fputs("echo should not run\n", f);
    fclose(f);
    assert_int_equal(chmod(plain, 0644), 0);
    zc_test_expect_zc((const char *[]){"run", "--", plain, NULL}, NULL, 126, NULL,
                      "could not be started");
    unlink(plain);
}

/* The program's own preloads stay, after ours; the rest of its environment is untouched. */
static void test_environment_kept(void **state)
{
    (void)state;
    zc_test_output r;
    /* zc itself runs with this LD_PRELOAD too; in the AddressSanitizer build its runtime would
     * refuse a preload before it unless told that the order is known. */
    const char *asan = getenv("ASAN_OPTIONS");
    char asan_options[512];
    snprintf(asan_options, sizeof asan_options, "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
             asan != NULL ? asan : "", asan != NULL && asan[0] != '\0' ? ":" : "");
    const char *env[] = {"LD_PRELOAD=libm.so.6", "ZC_RUN_TEST_VALUE=kept", asan_options, NULL};
    zc_test_run_zc((const char *[]){"run", "-q", "--", "sh", "-c",
                                    "printf '%s|%s|%s' \"$LD_PRELOAD\" \"$ZC_RUN_TEST_VALUE\" "
                                    "\"$ZC_RUN_FIXES\"",
                                    NULL},
                   env, &r);
    assert_int_equal(r.exit_code, 0);
    const char *bar = strchr(r.out, '|');
    assert_non_null(bar);
    assert_true(strncmp(bar - strlen(":libm.so.6"), ":libm.so.6", strlen(":libm.so.6")) == 0);
    assert_non_null(strstr(r.out, "libzerocopy_run.so:libm.so.6|kept|pageable,pinning,register"));
    zc_test_output_free(&r);
    zc_test_run_zc((const char *[]){"run", "-q", "--fix", "pinning", "--", "sh", "-c",
                                    "printf '%s' \"$ZC_RUN_FIXES\"", NULL},
                   NULL, &r);
    assert_string_equal(r.out, "pinning");
    zc_test_output_free(&r);
}

/* A program that never uses CUDA, and one that looks up symbols with dlsym (Python's ctypes),
 * run as they would alone; the report says nothing was cured and why. */
static void test_harmless_without_cuda(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"run", "--report", "-", "--", "sh", "-c", "echo plain", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_true(strncmp(r.out, "plain\n", 6) == 0);
    cJSON *doc = cJSON_Parse(r.out + 6);
    assert_non_null(doc);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "cured")));
    assert_int_equal(cJSON_GetObjectItem(doc, "processes")->valueint, 0);
    assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "why_not")),
                           "no call that a cure looks at"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "counters")),
                     ZC_RUN_COUNTER_COUNT);
    cJSON_Delete(doc);
    assert_non_null(strstr(r.err, "nothing cured"));
    zc_test_output_free(&r);

    if (system("command -v python3 >/dev/null 2>&1") != 0) {
        fprintf(stderr, "python3 not found: the dlsym case is left out\n");
        return;
    }
    zc_test_run_zc((const char *[]){"run", "-q", "--", "python3", "-c",
                                    "import ctypes; libc = ctypes.CDLL(None); "
                                    "print(libc.getpid() > 0, libc.strlen(b'four'))",
                                    NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "True 4\n");
    zc_test_output_free(&r);
}

static void test_help(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"run", "--help", NULL}, NULL, 0, "--fix LIST", NULL);
    zc_test_expect_zc((const char *[]){"run", "--help", NULL}, NULL, 0, "  pinning ", NULL);
    zc_test_expect_zc((const char *[]){"--help", NULL}, NULL, 0, "run", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_refused_before_running, setup),
        cmocka_unit_test_setup(test_report_not_replaced, setup),
        cmocka_unit_test(test_exit_codes_pass_through),
        cmocka_unit_test(test_environment_kept),
        cmocka_unit_test(test_harmless_without_cuda),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
