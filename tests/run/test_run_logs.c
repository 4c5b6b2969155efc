/* SPDX-License-Identifier: Apache-2.0 */
/* The zc run logs as libzerocopy reads them (hand-written logs, as the library writes them),
 * the cure list, and the names tables. */
#include "test_support.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zerocopy/run.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/zc-run-logs-XXXXXX");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

static void write_log(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_sums_processes(void **state)
{
    (void)state;
    write_log("100.run",
              "zcrun 1 pid=100 fixes=3 threads=8 chunk=1048576 buffers=4 min=262144 min_d2h=4096\n"
              "count pageable-h2d 10 10485760 2000000 9000000 scaled\n"
              "count pinning-hit 4 4096 100 4000000 measured\n"
              "end\n");
    write_log("101.run",
              "zcrun 1 pid=101 fixes=1 threads=2 chunk=65536 buffers=2 min=4096 min_d2h=4096\n"
              "count pageable-h2d 5 5242880 1000000 0 none\n"
              "end\n");
    /* A process killed after its header: counted, and said to be cut. */
    write_log(
        "102.run",
        "zcrun 1 pid=102 fixes=3 threads=8 chunk=1048576 buffers=4 min=262144 min_d2h=4096\n");
    write_log("notes.txt", "not a log\n");
    zc_run_summary s;
    assert_int_equal(zc_run_logs_read(dir, &s), ZC_OK);
    assert_int_equal(s.processes, 3);
    assert_int_equal(s.processes_cut, 1);
    assert_int_equal(s.fixes, 3);
    const zc_run_count *h2d = &s.counts[ZC_RUN_COUNTER_PAGEABLE_H2D];
    assert_int_equal(h2d->calls, 15);
    assert_int_equal(h2d->bytes, 15728640);
    assert_int_equal(h2d->ns, 3000000);
    assert_int_equal(h2d->uncured_ns, 9000000);
    /* One process could not price its copies: the sum says so. */
    assert_int_equal(h2d->pricing, ZC_RUN_PRICED_NONE);
    assert_int_equal(s.counts[ZC_RUN_COUNTER_PINNING_HIT].calls, 4);
    assert_int_equal(s.counts[ZC_RUN_COUNTER_PINNING_HIT].pricing, ZC_RUN_PRICED_MEASURED);
    assert_int_equal(s.counts[ZC_RUN_COUNTER_PAGEABLE_D2H].calls, 0);
}

static void test_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "count pageable-h2d 1 2 3 4 scaled\n",                                    /* no header */
        "zcrun 2 pid=1 fixes=3 threads=1 chunk=1 buffers=2 min=1 min_d2h=4096\n", /* version */
        "zcrun 1 pid=1 fixes=3 threads=1 chunk=1 buffers=2 min=1 min_d2h=4096\ncount nope 1 2 3 4 "
        "none\n",
        "zcrun 1 pid=1 fixes=3 threads=1 chunk=1 buffers=2 min=1 min_d2h=4096\ncount pinning-hit 1 "
        "2 3\n",
        "zcrun 1 pid=1 fixes=3 threads=1 chunk=1 buffers=2 min=1 min_d2h=4096\ncount pinning-hit 1 "
        "2 3 4 odd\n",
        "zcrun 1 pid=1 fixes=3 threads=1 chunk=1 buffers=2 min=1 min_d2h=4096\nzcrun 1 pid=1 "
        "fixes=3 "
        "threads=1 chunk=1 buffers=2 min=1 min_d2h=4096\n",
        "zcrun 1 pid=1 fixes=3 threads=1 chunk=1 buffers=2 min=1 min_d2h=4096\nsomething else\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_log("7.run", bad[i]);
        zc_run_summary s;
        memset(&s, 0x5a, sizeof s);
        zc_run_summary before = s;
        if (zc_run_logs_read(dir, &s) != ZC_ERR_PARSE)
            fail_msg("log %zu was read: %s", i, bad[i]);
        assert_non_null(strstr(zc_last_error(), "7.run"));
        assert_memory_equal(&s, &before, sizeof s); /* untouched on failure */
    }
    char path[128];
    snprintf(path, sizeof path, "%s/7.run", dir);
    unlink(path);
}

static void test_empty_and_missing(void **state)
{
    (void)state;
    char empty[64];
    snprintf(empty, sizeof empty, "/tmp/zc-run-empty-XXXXXX");
    assert_non_null(mkdtemp(empty));
    zc_run_summary s;
    assert_int_equal(zc_run_logs_read(empty, &s), ZC_OK);
    assert_int_equal(s.processes, 0);
    rmdir(empty);
    assert_int_equal(zc_run_logs_read(empty, &s), ZC_ERR_IO);
    assert_int_equal(zc_run_logs_read(NULL, &s), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_run_logs_read(empty, NULL), ZC_ERR_INVALID_ARG);
}

static void test_fix_lists(void **state)
{
    (void)state;
    unsigned fixes = 99;
    assert_int_equal(zc_run_fixes_parse("all", &fixes), ZC_OK);
    assert_int_equal(fixes, ZC_RUN_FIXES_ALL);
    assert_int_equal(zc_run_fixes_parse("none", &fixes), ZC_OK);
    assert_int_equal(fixes, 0);
    assert_int_equal(zc_run_fixes_parse("pinning", &fixes), ZC_OK);
    assert_int_equal(fixes, 1u << ZC_RUN_FIX_PINNING);
    assert_int_equal(zc_run_fixes_parse("pinning,pageable", &fixes), ZC_OK);
    assert_int_equal(fixes, (1u << ZC_RUN_FIX_PINNING) | (1u << ZC_RUN_FIX_PAGEABLE));
    assert_int_equal(zc_run_fixes_parse("register,pinning,pageable", &fixes), ZC_OK);
    assert_int_equal(fixes, ZC_RUN_FIXES_DEFAULT);
    const unsigned reuse = 1u << ZC_RUN_FIX_REUSE, hostcopy = 1u << ZC_RUN_FIX_HOSTCOPY;
    assert_int_equal(fixes, ZC_RUN_FIXES_ALL & ~(1u << ZC_RUN_FIX_FRESH) &
                                ~(1u << ZC_RUN_FIX_FASTPIN) & ~reuse & ~hostcopy);
    assert_int_equal(zc_run_fixes_parse("fresh,register,pinning,pageable", &fixes), ZC_OK);
    assert_int_equal(fixes, ZC_RUN_FIXES_ALL & ~(1u << ZC_RUN_FIX_FASTPIN) & ~reuse & ~hostcopy);
    assert_int_equal(zc_run_fixes_parse("fastpin,fresh,register,pinning,pageable", &fixes), ZC_OK);
    assert_int_equal(fixes, ZC_RUN_FIXES_ALL & ~reuse & ~hostcopy);
    assert_int_equal(zc_run_fixes_parse("reuse,fastpin,fresh,register,pinning,pageable", &fixes),
                     ZC_OK);
    assert_int_equal(fixes, ZC_RUN_FIXES_ALL & ~hostcopy);
    assert_int_equal(
        zc_run_fixes_parse("hostcopy,reuse,fastpin,fresh,register,pinning,pageable", &fixes),
        ZC_OK);
    assert_int_equal(fixes, ZC_RUN_FIXES_ALL);
    static const char *const bad[] = {
        "", "pin", "pageable,", ",pageable", "pageable,,pinning", "PAGEABLE", "all,bogus"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fixes = 99;
        if (zc_run_fixes_parse(bad[i], &fixes) != ZC_ERR_PARSE)
            fail_msg("'%s' was taken as a cure list", bad[i]);
        assert_int_equal(fixes, 99);
        assert_non_null(
            strstr(zc_last_error(), "known: pageable, pinning, register, fresh, fastpin"));
    }
    /* What format writes, parse reads back. */
    char text[64];
    for (unsigned set = 0; set <= ZC_RUN_FIXES_ALL; set++) {
        assert_int_equal(zc_run_fixes_format(set, text, sizeof text), ZC_OK);
        assert_int_equal(zc_run_fixes_parse(text, &fixes), ZC_OK);
        assert_int_equal(fixes, set);
    }
    assert_int_equal(zc_run_fixes_format(0, text, sizeof text), ZC_OK);
    assert_string_equal(text, "none");
    assert_int_equal(zc_run_fixes_format(ZC_RUN_FIXES_ALL, text, sizeof text), ZC_OK);
    assert_string_equal(text, "pageable,pinning,register,fresh,fastpin,reuse,hostcopy");
    assert_int_equal(zc_run_fixes_format(1, text, 0), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_run_fixes_parse(NULL, &fixes), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_run_fixes_parse("all", NULL), ZC_ERR_INVALID_ARG);
}

/* A list that says two things at once is refused, naming the clash; nothing is set. */
static void test_fix_list_conflicts(void **state)
{
    (void)state;
    static const char *const clash[][2] = {
        {"all,none", "'all' cannot be combined"},
        {"none,pinning", "'none' cannot be combined"},
        {"pinning,all", "'all' cannot be combined"},
        {"all,all", "'all' cannot be combined"},
        {"pinning,pinning", "'pinning' is named twice"},
        {"pageable,pinning,pageable", "'pageable' is named twice"},
        {"register,pinning,pinning", "'pinning' is named twice"},
    };
    for (size_t i = 0; i < sizeof clash / sizeof clash[0]; i++) {
        unsigned fixes = 99;
        if (zc_run_fixes_parse(clash[i][0], &fixes) != ZC_ERR_PARSE)
            fail_msg("'%s' was taken as a cure list", clash[i][0]);
        assert_int_equal(fixes, 99);
        if (strstr(zc_last_error(), clash[i][1]) == NULL)
            fail_msg("'%s': the detail '%s' does not say %s", clash[i][0], zc_last_error(),
                     clash[i][1]);
    }
    /* An unknown name is said first, as before. */
    unsigned fixes = 99;
    assert_int_equal(zc_run_fixes_parse("all,bogus", &fixes), ZC_ERR_PARSE);
    assert_non_null(strstr(zc_last_error(), "unknown cure 'bogus'"));
}

static void fail_on_alarm(int sig)
{
    (void)sig;
    static const char said[] = "zc_run_logs_read blocked on an entry that is not a log\n";
    ssize_t unused = write(2, said, sizeof said - 1);
    (void)unused;
    _exit(1);
}

/* The folder is the program's to write in: only regular files named <digits>.run are read. A
 * FIFO is not opened (a plain open would wait for a writer for ever), a link is not followed, a
 * folder or a file of another name is left alone. */
static void test_only_logs_read(void **state)
{
    (void)state;
    char own[64], outside[96], path[160];
    snprintf(own, sizeof own, "/tmp/zc-run-entries-XXXXXX");
    assert_non_null(mkdtemp(own));
    snprintf(outside, sizeof outside, "%s.outside.run", own);
    FILE *f = fopen(outside, "w");
    assert_non_null(f);
    fputs("zcrun 1 pid=9 fixes=3 threads=1 chunk=1 buffers=2 min=1 min_d2h=1\nend\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/5.run", own);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/6.run", own);
    assert_int_equal(symlink(outside, path), 0);
    snprintf(path, sizeof path, "%s/8.run", own);
    assert_int_equal(mkdir(path, 0700), 0);
    static const char *const others[] = {"abc.run", "1.run.txt", ".run", "12a.run"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", own, others[i]);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs("not a log\n", f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/10.run", own);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("zcrun 1 pid=10 fixes=1 threads=1 chunk=1 buffers=2 min=1 min_d2h=1\nend\n", f);
    fclose(f);
    signal(SIGALRM, fail_on_alarm);
    alarm(20);
    zc_run_summary s;
    zc_status status = zc_run_logs_read(own, &s);
    alarm(0);
    if (status != ZC_OK)
        fail_msg("the folder was not read: %s", zc_last_error());
    assert_int_equal(s.processes, 1);
    assert_int_equal(s.fixes, 1);
    char cmd[192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", own, outside);
    assert_int_equal(system(cmd), 0);
}

/* Every row of the tables has its names, and a cure's counters include a cured one. */
static void test_names(void **state)
{
    (void)state;
    int cured[ZC_RUN_FIX_COUNT] = {0};
    for (int i = 0; i < ZC_RUN_COUNTER_COUNT; i++) {
        zc_run_counter c = (zc_run_counter)i;
        assert_string_not_equal(zc_run_counter_name(c), "unknown");
        assert_true(strlen(zc_run_counter_meaning(c)) > 10);
        assert_true((unsigned)zc_run_counter_fix(c) < ZC_RUN_FIX_COUNT);
        cured[zc_run_counter_fix(c)] |= zc_run_counter_cured(c);
    }
    for (int f = 0; f < ZC_RUN_FIX_COUNT; f++) {
        assert_string_not_equal(zc_run_fix_name((zc_run_fix)f), "unknown");
        assert_true(cured[f]);
    }
    assert_string_equal(zc_run_counter_name(ZC_RUN_COUNTER_COUNT), "unknown");
    assert_string_equal(zc_run_fix_name(ZC_RUN_FIX_COUNT), "unknown");
    assert_string_equal(zc_run_pricing_name(ZC_RUN_PRICED_SCALED), "scaled");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sums_processes),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_empty_and_missing),
        cmocka_unit_test(test_fix_lists),
        cmocka_unit_test(test_fix_list_conflicts),
        cmocka_unit_test(test_only_logs_read),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
