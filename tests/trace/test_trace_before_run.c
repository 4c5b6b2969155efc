/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace checks everything it needs before the program runs: an injection library named by
 * ZC_TRACE_LIB or --lib that cannot be read (exit 2), an installed one it cannot find and a
 * TMPDIR it cannot make its log folder in (exit 1); in each case the program is not run at all.
 * A program that cannot be started is said to be so, and nothing more. */
#include "test_support.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[] = "/tmp/zc_trace_before_XXXXXX";
static char g_marker[600], g_script[700];

static int make_dir(void **state)
{
    (void)state;
    if (mkdtemp(g_dir) == NULL)
        return -1;
    snprintf(g_marker, sizeof g_marker, "%s/ran", g_dir);
    snprintf(g_script, sizeof g_script, "touch '%s'", g_marker);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* zc trace with the options and environment given, running the marker program: it exits
 * with code, says says on stderr, and the program never ran. */
static void expect_not_run(const char *const *options, const char *const *env, int code,
                           const char *says)
{
    const char *args[16];
    size_t n = 0;
    args[n++] = "trace";
    for (size_t i = 0; options[i] != NULL; i++)
        args[n++] = options[i];
    args[n++] = "--";
    args[n++] = "/bin/sh";
    args[n++] = "-c";
    args[n++] = g_script;
    args[n] = NULL;
    zc_test_output r;
    zc_test_run_zc(args, env, &r);
    if (r.exit_code != code || strstr(r.err, says) == NULL)
        fail_msg("exit %d (wanted %d), stderr lacks '%s':\n%s", r.exit_code, code, says, r.err);
    assert_string_equal(r.out, "");
    /* Nothing about a run that did not happen. */
    assert_null(strstr(r.err, "exited with code"));
    assert_null(strstr(r.err, "CUDA activity"));
    zc_test_output_free(&r);
    if (access(g_marker, F_OK) == 0)
        fail_msg("the program ran although zc trace said: %s", says);
}

static void test_bad_injection_library_runs_nothing(void **state)
{
    (void)state;
    expect_not_run((const char *[]){NULL},
                   (const char *[]){"ZC_TRACE_LIB=/nonexistent/lib.so", NULL}, 2,
                   "the injection library '/nonexistent/lib.so' (ZC_TRACE_LIB) cannot be read");
    char env[700];
    snprintf(env, sizeof env, "ZC_TRACE_LIB=%s", g_dir);
    expect_not_run((const char *[]){NULL}, (const char *[]){env, NULL}, 2, "(ZC_TRACE_LIB)");
    expect_not_run((const char *[]){"--lib", "/nonexistent/lib.so", NULL}, NULL, 2,
                   "--lib: the injection library '/nonexistent/lib.so' (--lib) cannot be read");
    /* --json - too: no document for a run that did not happen. */
    expect_not_run((const char *[]){"--json", "-", NULL},
                   (const char *[]){"ZC_TRACE_LIB=/nonexistent/lib.so", NULL}, 2,
                   "(ZC_TRACE_LIB) cannot be read");
}

/* A copy of zc in a folder without the library: the installed one is missing. */
static void test_missing_installed_library_runs_nothing(void **state)
{
    (void)state;
    char copy[700], cmd[2400], err[700];
    snprintf(copy, sizeof copy, "%s/zc", g_dir);
    snprintf(err, sizeof err, "%s/stderr", g_dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", ZC_TEST_ZC_BINARY, copy);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "env -u ZC_TRACE_LIB '%s' trace -- /bin/sh -c \"%s\" 2>'%s'", copy,
             g_script, err);
    int status = system(cmd);
    char *text = zc_test_read_file(err, NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1 ||
        strstr(text, "libzerocopy_trace.so was not found") == NULL)
        fail_msg("status %d, stderr: %s", status, text);
    assert_null(strstr(text, "exited with code"));
    free(text);
    assert_int_not_equal(access(g_marker, F_OK), 0);
}

static void test_unusable_tmpdir_runs_nothing(void **state)
{
    (void)state;
    expect_not_run((const char *[]){NULL}, (const char *[]){"TMPDIR=/nonexistent/tmp", NULL}, 1,
                   "cannot make a folder for the trace logs in TMPDIR '/nonexistent/tmp': No such "
                   "file or directory");
    char file[700], env[720];
    snprintf(file, sizeof file, "%s/a-file", g_dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(env, sizeof env, "TMPDIR=%s", file);
    expect_not_run((const char *[]){NULL}, (const char *[]){env, NULL}, 1, "Not a directory");
    /* Not writable, even by root. */
    expect_not_run((const char *[]){NULL}, (const char *[]){"TMPDIR=/proc", NULL}, 1,
                   "in TMPDIR '/proc'");
    /* With --keep-logs the logs go there, and TMPDIR is not needed. */
    char keep[700];
    snprintf(keep, sizeof keep, "%s/logs", g_dir);
    zc_test_expect_zc(
        (const char *[]){"trace", "--keep-logs", keep, "--", "/bin/sh", "-c", g_script, NULL},
        (const char *[]){"TMPDIR=/nonexistent/tmp", NULL}, 0, NULL, NULL);
    assert_int_equal(access(g_marker, F_OK), 0);
    unlink(g_marker);
}

/* A program that cannot be started: said once, with why, and nothing about CUDA. */
static void test_program_that_cannot_start(void **state)
{
    (void)state;
    char plain[700];
    snprintf(plain, sizeof plain, "%s/not-executable", g_dir);
    FILE *f = fopen(plain, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    static const struct {
        const char *program, *says;
        int code;
    } cases[] = {
        {"/nonexistent/program",
         "zc trace: cannot run '/nonexistent/program': No such file or directory", 127},
        {"no-such-program-on-path", "cannot run 'no-such-program-on-path'", 127},
        {NULL, "Permission denied", 126},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *program = cases[i].program ? cases[i].program : plain;
        zc_test_output r;
        zc_test_run_zc((const char *[]){"trace", "--", program, NULL}, NULL, &r);
        if (r.exit_code != cases[i].code || strstr(r.err, cases[i].says) == NULL ||
            strstr(r.err, "CUDA") != NULL || strstr(r.err, "exited with code") != NULL)
            fail_msg("%s: exit %d (wanted %d), stderr:\n%s", program, r.exit_code, cases[i].code,
                     r.err);
        /* One line: the reason is not said twice. */
        assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
        zc_test_output_free(&r);
    }
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--json", "-", "--", "/nonexistent/program", NULL},
                   NULL, &r);
    assert_int_equal(r.exit_code, 127);
    cJSON *doc = cJSON_Parse(r.out);
    if (doc == NULL)
        fail_msg("stdout is not JSON: %s", r.out);
    const char *why = cJSON_GetObjectItem(doc, "why_not_traced")->valuestring;
    if (strstr(why, "could not be started: No such file or directory") == NULL ||
        strstr(why, "CUDA") != NULL)
        fail_msg("why_not_traced: %s", why);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_injection_library_runs_nothing),
        cmocka_unit_test(test_missing_installed_library_runs_nothing),
        cmocka_unit_test(test_unusable_tmpdir_runs_nothing),
        cmocka_unit_test(test_program_that_cannot_start),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
