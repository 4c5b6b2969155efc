/* SPDX-License-Identifier: Apache-2.0 */
/* zc run as a user calls it, on programs that are not CUDA (any machine): options refused
 * before anything runs, the program's exit code and signal passed through, its environment
 * kept, the library harmless in a process that never uses CUDA. */
#include "test_support.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
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
    /* The library writes its log as it loads: the shell's process is counted, with no call. */
    assert_true(cJSON_GetObjectItem(doc, "processes")->valueint >= 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "library_loaded")));
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

/* A fresh folder of this test's in /tmp, named for what it holds; removed with rm_tree. */
static void make_folder(char *path, size_t size, const char *what)
{
    snprintf(path, size, "/tmp/zc-run-cli-%s-XXXXXX", what);
    assert_non_null(mkdtemp(path));
}

static void rm_tree(const char *path)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(chmod(to, mode), 0);
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static char touch_arg[96];

/* cli_subject's argument that leaves the marker file when it runs. */
static const char *subject_touch(void)
{
    snprintf(touch_arg, sizeof touch_arg, "touch:%s", marker);
    return touch_arg;
}

/* The loader cannot preload into a statically linked program: refused, not run. A script is
 * judged by its interpreter, and runs. */
static void test_static_refused(void **state)
{
    (void)state;
#ifdef ZC_TEST_CLI_STATIC_SUBJECT
    zc_test_expect_zc(
        (const char *[]){"run", "--", ZC_TEST_CLI_STATIC_SUBJECT, subject_touch(), NULL}, NULL, 2,
        NULL, "is statically linked: the dynamic loader cannot preload");
    if (ran())
        fail_msg("the static program ran although zc run refused it");
#else
    fprintf(stderr, "the compiler links no static program: the static case is left out\n");
#endif
    char folder[64], script[96], text[160];
    make_folder(folder, sizeof folder, "script");
    snprintf(script, sizeof script, "%s/script", folder);
    snprintf(text, sizeof text, "#!/bin/sh\ntouch '%s'\n", marker);
    write_text(script, text, 0755);
    zc_test_expect_zc((const char *[]){"run", "-q", "--", script, NULL}, NULL, 0, NULL, NULL);
    assert_true(ran());
    unlink(marker);
    rm_tree(folder);
}

/* A set-user-ID program of another user (root's test) or a set-group-ID one of another group:
 * the loader ignores LD_PRELOAD for it, so it is refused. */
static void test_setuid_refused(void **state)
{
    (void)state;
    char folder[64], program[96];
    make_folder(folder, sizeof folder, "setuid");
    assert_int_equal(chmod(folder, 0755), 0);
    snprintf(program, sizeof program, "%s/subject", folder);
    copy_file(ZC_TEST_CLI_SUBJECT, program, 0755);
    struct statvfs fs;
    assert_int_equal(statvfs(folder, &fs), 0);
    gid_t groups[64];
    int n = getgroups(64, groups), other = -1;
    for (int i = 0; i < n && other < 0; i++)
        other = groups[i] != getgid() ? i : -1;
    int set = 0;
    if (fs.f_flag & ST_NOSUID)
        fprintf(stderr, "/tmp is mounted nosuid: the set-ID case is left out\n");
    else if (getuid() == 0)
        set = chown(program, 65534, 65534) == 0 && chmod(program, 04755) == 0;
    else if (other >= 0)
        set = chown(program, (uid_t)-1, groups[other]) == 0 && chmod(program, 02755) == 0;
    else
        fprintf(stderr, "no group to give the program: the set-ID case is left out\n");
    if (set) {
        zc_test_expect_zc((const char *[]){"run", "--", program, subject_touch(), NULL}, NULL, 2,
                          NULL, "set-user-ID or set-group-ID: the loader ignores LD_PRELOAD");
        if (ran())
            fail_msg("the set-ID program ran although zc run refused it");
    }
    unlink(marker);
    rm_tree(folder);
}

/* --lib (or ZC_RUN_LIB) naming a file that is not the interposition library: refused, naming
 * the file and what is wrong, before anything runs. */
static void test_wrong_library_refused(void **state)
{
    (void)state;
    char folder[64], text[96];
    make_folder(folder, sizeof folder, "lib");
    snprintf(text, sizeof text, "%s/libzerocopy_run.so", folder);
    write_text(text, "not a library\n", 0644);
    const char *cases[][2] = {
        {text, "is not the interposition library: it is not an ELF file"},
        {ZC_TEST_CLI_SUBJECT, "is not the interposition library: it does not export"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zc_test_expect_zc(
            (const char *[]){"run", "--lib", cases[i][0], "--", "sh", "-c", touch_marker(), NULL},
            NULL, 2, NULL, cases[i][1]);
        zc_test_expect_zc(
            (const char *[]){"run", "--lib", cases[i][0], "--", "sh", "-c", touch_marker(), NULL},
            NULL, 2, NULL, cases[i][0]);
        if (ran())
            fail_msg("case %zu: the program ran with a library that is not ours", i);
    }
    char env[128];
    snprintf(env, sizeof env, "ZC_RUN_LIB=%s", text);
    zc_test_expect_zc((const char *[]){"run", "--", "sh", "-c", touch_marker(), NULL},
                      (const char *[]){env, NULL}, 2, NULL, "ZC_RUN_LIB: '");
    assert_false(ran());
    rm_tree(folder);
}

/* A library whose path has a space or a colon (where LD_PRELOAD splits) is preloaded through a
 * link in the log folder; when that folder's path has one too, zc run refuses, saying why. */
static void test_library_path_with_space(void **state)
{
    (void)state;
    char folder[64], spaced[96], library[160];
    make_folder(folder, sizeof folder, "space");
    snprintf(spaced, sizeof spaced, "%s/a b:c", folder);
    assert_int_equal(mkdir(spaced, 0700), 0);
    snprintf(library, sizeof library, "%s/libzerocopy_run.so", spaced);
    copy_file(ZC_TEST_RUN_LIB, library, 0755);
    zc_test_output r;
    zc_test_run_zc(
        (const char *[]){"run", "-q", "--lib", library, "--", ZC_TEST_CLI_SUBJECT, "maps", NULL},
        NULL, &r);
    if (r.exit_code != 0 || strstr(r.out, "library: loaded\n") == NULL)
        fail_msg("the library at '%s' was not preloaded (exit %d):\n%s%s", library, r.exit_code,
                 r.out, r.err);
    zc_test_output_free(&r);
    char tmpdir[192];
    snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", spaced);
    zc_test_expect_zc(
        (const char *[]){"run", "--lib", library, "--", ZC_TEST_CLI_SUBJECT, subject_touch(), NULL},
        (const char *[]){tmpdir, NULL}, 2, NULL, "set TMPDIR to a folder without");
    assert_false(ran());
    rm_tree(folder);
}

/* The copy library is preloaded after the library for the hostcopy cure only, from beside it
 * (through a link when its path has a space or a colon); without it there, a run that asks for
 * the cure is refused before the program runs. */
static void test_copy_library(void **state)
{
    (void)state;
    char folder[64], spaced[96], library[160], copy[192];
    make_folder(folder, sizeof folder, "copy");
    snprintf(spaced, sizeof spaced, "%s/a b:c", folder);
    assert_int_equal(mkdir(spaced, 0700), 0);
    snprintf(library, sizeof library, "%s/libzerocopy_run.so", spaced);
    snprintf(copy, sizeof copy, "%s/libzerocopy_run_copy.so", spaced);
    copy_file(ZC_TEST_RUN_LIB, library, 0755);
    zc_test_expect_zc((const char *[]){"run", "--fix", "pinning,hostcopy", "--lib", library, "--",
                                       ZC_TEST_CLI_SUBJECT, subject_touch(), NULL},
                      NULL, 1, NULL, "needs libzerocopy_run_copy.so beside");
    assert_false(ran());
    const char *fixes[] = {"pinning", "pinning,hostcopy"};
    for (int with_copy = 0; with_copy < 2; with_copy++) {
        if (with_copy)
            copy_file(ZC_TEST_RUN_COPY_LIB, copy, 0755);
        zc_test_output r;
        zc_test_run_zc((const char *[]){"run", "-q", "--fix", fixes[with_copy], "--lib", library,
                                        "--", ZC_TEST_CLI_SUBJECT, "maps", NULL},
                       NULL, &r);
        int preloaded = strstr(r.out, "libzerocopy_run_copy.so") != NULL;
        if (r.exit_code != 0 || strstr(r.out, "library: loaded\n") == NULL ||
            preloaded != with_copy)
            fail_msg("--fix %s: exit %d, the copy library %spreloaded:\n%s%s", fixes[with_copy],
                     r.exit_code, preloaded ? "" : "not ", r.out, r.err);
        zc_test_output_free(&r);
    }
    rm_tree(folder);
}

/* A program that loads the AddressSanitizer runtime as a shared library (gcc's default) stops
 * when another library is preloaded before it: zc run puts the runtime first. */
static void test_asan_program(void **state)
{
    (void)state;
#ifdef ZC_TEST_CLI_ASAN_SUBJECT
    zc_test_output r;
    zc_test_run_zc((const char *[]){"run", "-q", "--", ZC_TEST_CLI_ASAN_SUBJECT, "maps", NULL},
                   NULL, &r);
    if (r.exit_code != 0 || strstr(r.out, "library: loaded\n") == NULL)
        fail_msg("the AddressSanitizer program was not cured (exit %d):\n%s%s", r.exit_code, r.out,
                 r.err);
    /* The runtime first, when it is a shared library (with clang's default, static, nothing). */
    const char *preload = strstr(r.out, "preload: ");
    assert_non_null(preload);
    const char *ours = strstr(preload, "libzerocopy_run.so");
    const char *asan = strstr(preload, "libasan.so");
    assert_non_null(ours);
    assert_true(asan == NULL || asan < ours);
    zc_test_output_free(&r);
#else
    fprintf(stderr, "the compiler has no AddressSanitizer: the case is left out\n");
#endif
}

#ifdef ZC_TEST_CLI_STATIC_SUBJECT
/* zc run's report (with -q when quiet) on a script whose interpreter (the static subject) runs
 * its line: nothing cured, loaded or not as given, the count named (processes or processes_cut)
 * as given, and a why_not that says why. The output is left in *r for the caller's own checks. */
static void expect_not_cured(const char *script, const char *line, int quiet, int loaded,
                             const char *count, int expected, const char *why, zc_test_output *r)
{
    char text[256];
    snprintf(text, sizeof text, "#!%s %s\n", ZC_TEST_CLI_STATIC_SUBJECT, line);
    write_text(script, text, 0755);
    zc_test_run_zc(quiet ? (const char *[]){"run", "-q", "--report", "-", "--", script, NULL}
                         : (const char *[]){"run", "--report", "-", "--", script, NULL},
                   NULL, r);
    cJSON *doc = cJSON_Parse(r->out);
    assert_non_null(doc);
    assert_true(cJSON_IsBool(cJSON_GetObjectItem(doc, "library_loaded")));
    assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(doc, "library_loaded")), loaded);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "cured")));
    assert_int_equal(cJSON_GetObjectItem(doc, count)->valueint, expected);
    assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "why_not")), why));
    cJSON_Delete(doc);
}
#endif

/* When no process of the program loaded the library (here a script whose interpreter is
 * static), zc run says so, even with -q, and the report too; the exit code is the program's. */
static void test_not_loaded_said(void **state)
{
    (void)state;
#ifdef ZC_TEST_CLI_STATIC_SUBJECT
    char folder[64], script[96];
    make_folder(folder, sizeof folder, "static-script");
    snprintf(script, sizeof script, "%s/script", folder);
    zc_test_output r;
    expect_not_cured(script, "exit:3", 1, 0, "processes", 0, "not loaded in any process", &r);
    assert_int_equal(r.exit_code, 3);
    if (strstr(r.err, "the library was not loaded in any process of the program") == NULL)
        fail_msg("zc run did not say the library was not loaded:\n%s", r.err);
    zc_test_output_free(&r);
    /* A log of a process that loaded the library and made no call a cure looks at (written by
     * the static interpreter here, so that it is the only one): loaded, nothing cured, and why. */
    expect_not_cured(script, "log", 0, 1, "processes", 1, "no call that a cure looks at", &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "nothing cured"));
    zc_test_output_free(&r);
    /* Its log without the end line (it left through _exit): whether it made such calls is not
     * known, and nothing is said to be cured. */
    expect_not_cured(script, "log-cut", 0, 1, "processes_cut", 1, "ended before writing its counts",
                     &r);
    assert_int_equal(r.exit_code, 0);
    zc_test_output_free(&r);
    rm_tree(folder);
#else
    fprintf(stderr, "the compiler links no static program: the case is left out\n");
#endif
}

/* The log folder is the program's to write in: a FIFO named like a log does not block zc run
 * (bounded: a hang fails the test). */
static void test_fifo_in_log_folder(void **state)
{
    (void)state;
    zc_test_run_opts opts = {.timeout_ms = 20000};
    zc_test_output r;
    zc_test_run_zc_bounded(
        (const char *[]){"run", "-q", "--", "sh", "-c",
                         "mkfifo \"$ZC_RUN_DIR/1.run\" \"$ZC_RUN_DIR/fifo\"; exit 4", NULL},
        NULL, &opts, &r);
    assert_int_equal(r.exit_code, 4);
    zc_test_output_free(&r);
}

/* Whatever the program leaves in the log folder, zc run removes the folder, and never through
 * a link: what a link points to stays. */
static void test_log_folder_removed(void **state)
{
    (void)state;
    char keep[64], kept[96], cmd[512];
    make_folder(keep, sizeof keep, "keep");
    snprintf(kept, sizeof kept, "%s/kept", keep);
    write_text(kept, "kept\n", 0644);
    snprintf(cmd, sizeof cmd,
             "d=\"$ZC_RUN_DIR\"; mkdir -p \"$d/a/b/c\"; touch \"$d/a/b/c/f\" \"$d/x.txt\"; "
             "ln -s '%s' \"$d/link\"; ln -s '%s' \"$d/2.run\"; ln -s '%s' \"$d/a/up\"; "
             "mkdir \"$d/z\"; touch \"$d/z/f\"; mkfifo \"$d/fifo\"; "
             "chmod 0500 \"$d/a/b\"; chmod 0 \"$d/z\"; printf %%s \"$d\"",
             keep, kept, keep);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"run", "-q", "--", "sh", "-c", cmd, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    struct stat st;
    if (r.out[0] != '/' || lstat(r.out, &st) == 0)
        fail_msg("the log folder '%s' is still there:\n%s", r.out, r.err);
    zc_test_output_free(&r);
    assert_int_equal(stat(kept, &st), 0);
    rm_tree(keep);
}

static int process_gone(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *state = strrchr(text, ')');
    return state != NULL && (state[2] == 'Z' || state[2] == 'X');
}

/* zc run killed outright (SIGKILL, where it cannot pass anything on) takes the program with it. */
static void test_killed_takes_program(void **state)
{
    (void)state;
    char folder[64], pid_file[96], cmd[512];
    make_folder(folder, sizeof folder, "kill");
    snprintf(pid_file, sizeof pid_file, "%s/pid", folder);
    snprintf(cmd, sizeof cmd, "echo $$ > '%s.new' && mv '%s.new' '%s' && exec sleep 30", pid_file,
             pid_file, pid_file);
    pid_t zc = fork();
    assert_true(zc >= 0);
    if (zc == 0) {
        execl(ZC_TEST_ZC_BINARY, "zc", "run", "-q", "--", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    long program = 0;
    for (int i = 0; i < 200 && program == 0; i++) {
        FILE *f = fopen(pid_file, "r");
        if (f == NULL || fscanf(f, "%ld", &program) != 1)
            nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
        if (f != NULL)
            fclose(f);
    }
    assert_true(program > 0);
    kill(zc, SIGKILL);
    waitpid(zc, NULL, 0);
    int gone = 0;
    for (int i = 0; i < 100 && !gone; i++) {
        gone = process_gone((pid_t)program);
        if (!gone)
            nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
    }
    if (!gone)
        kill((pid_t)program, SIGKILL);
    rm_tree(folder);
    if (!gone)
        fail_msg("the program (pid %ld) outlived zc run killed with SIGKILL", program);
}

/* zc run's messages are for people: no function names or source locations of the library. */
static void test_messages_plain(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"run", "--fix", "bogus", "--", "true", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "zc run: --fix: unknown cure 'bogus'"));
    if (strstr(r.err, "(src/") != NULL || strstr(r.err, "zc_run_fixes_parse") != NULL)
        fail_msg("the message names the library's insides:\n%s", r.err);
    zc_test_output_free(&r);
    zc_test_run_zc(
        (const char *[]){"run", "--", "sh", "-c", "echo garbage > \"$ZC_RUN_DIR/1.run\"", NULL},
        NULL, &r);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.err, "the logs could not be read: "));
    assert_non_null(strstr(r.err, "1.run line 1 is not a zc run record\n"));
    if (strstr(r.err, "(src/") != NULL || strstr(r.err, "zc_run_logs_read") != NULL)
        fail_msg("the message names the library's insides:\n%s", r.err);
    zc_test_output_free(&r);
}

/* A cure list that says two things at once is refused before anything runs. */
static void test_fix_clash_refused(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"all,none", "'all' cannot be combined with other cures"},
        {"none,pinning", "'none' cannot be combined with other cures"},
        {"pinning,pinning", "'pinning' is named twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zc_test_expect_zc(
            (const char *[]){"run", "--fix", cases[i][0], "--", "sh", "-c", touch_marker(), NULL},
            NULL, 2, NULL, cases[i][1]);
        if (ran())
            fail_msg("--fix %s: the program ran", cases[i][0]);
    }
}

static void test_help(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"run", "--help", NULL}, NULL, 0, "--fix LIST", NULL);
    zc_test_expect_zc((const char *[]){"run", "--help", NULL}, NULL, 0, "  pinning ", NULL);
    zc_test_expect_zc((const char *[]){"--help", NULL}, NULL, 0, "run", NULL);
    zc_test_expect_zc((const char *[]){"run", "--help", NULL}, NULL, 0, "statically linked", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_refused_before_running, setup),
        cmocka_unit_test_setup(test_report_not_replaced, setup),
        cmocka_unit_test(test_exit_codes_pass_through),
        cmocka_unit_test(test_environment_kept),
        cmocka_unit_test(test_harmless_without_cuda),
        cmocka_unit_test_setup(test_static_refused, setup),
        cmocka_unit_test_setup(test_setuid_refused, setup),
        cmocka_unit_test_setup(test_wrong_library_refused, setup),
        cmocka_unit_test_setup(test_library_path_with_space, setup),
        cmocka_unit_test_setup(test_copy_library, setup),
        cmocka_unit_test(test_asan_program),
        cmocka_unit_test(test_not_loaded_said),
        cmocka_unit_test(test_fifo_in_log_folder),
        cmocka_unit_test(test_log_folder_removed),
        cmocka_unit_test(test_killed_takes_program),
        cmocka_unit_test(test_messages_plain),
        cmocka_unit_test_setup(test_fix_clash_refused, setup),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
