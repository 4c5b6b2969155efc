/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the report tests: scratch folders, running programs and zc, fixtures, stand-ins
 * for gnuplot. */
#ifndef ZC_REPORT_TEST_H
#define ZC_REPORT_TEST_H

#include <stddef.h>

/* A new scratch folder under TMPDIR (or /tmp); its path into dir. */
void report_test_tempdir(char *dir, size_t size);

/* 1 when program is found on PATH. */
int report_test_have(const char *program);

/* Run argv (argv[0] searched on PATH) with stdout into out_path (may be NULL: discarded) and
 * stderr discarded; its exit code, or -1 when it could not run or was killed. */
int report_test_run(const char *const *argv, const char *out_path);

/* Remove the scratch folder and what is in it (one level). */
void report_test_cleanup(const char *dir);

/* How report_test_zc runs zc. Every field may be left 0 / NULL. */
typedef struct report_test_how {
    const char *const *env;  /* extra "NAME=value" entries, NULL-terminated */
    const char *stdin_path;  /* what zc reads on stdin; NULL: /dev/null */
    const char *stdout_path; /* where its stdout goes; NULL: captured into *out_p */
    const char *cwd;         /* the folder it runs in; NULL: the test's */
    long file_size_limit;    /* > 0: no file may grow past this many bytes (RLIMIT_FSIZE, its
                                signal ignored): writes fail as on a full disk */
} report_test_how;

/*
 * Run the zc binary with args (NULL-terminated, without "zc") as how says; its exit code (-1:
 * killed by a signal). What it wrote on stdout (unless redirected) and stderr into *out_p and
 * *err_p, NUL-terminated and malloc'd; either may be NULL.
 */
int report_test_zc(const char *const *args, const report_test_how *how, char **out_p, char **err_p);

/* Write text to path (fails the test when it cannot). */
void report_test_write(const char *path, const char *text);

/* The fixture at from with every "find" replaced by "replace", written to to. */
void report_test_copy_replacing(const char *from, const char *to, const char *find,
                                const char *replace);

/* The first <figure> after heading (an "<h2>...</h2>" of the page) and its end, "</figure>";
 * fails the test when there is none. */
const char *report_test_figure_after(const char *html, const char *heading, const char **end_p);

/*
 * The page (dir/report.html) and picture (dir/picture.dot) from input, the stream fixture and
 * extra (may be NULL), zc run with env; fails unless zc exits 0 and the picture's source holds
 * every node and the fixture's measured figures. The page's text, to free.
 */
char *report_test_make_page(const char *dir, const char *const *env, const char *input,
                            const char *extra);

/* The page from inputs (NULL-terminated, at most 12) without plots or picture (no gnuplot, no
 * dot), and what zc said on stderr (to free; err_p may be NULL); fails unless zc exits 0 and
 * says nothing is malformed. The page's text, to free. */
char *report_test_page_of(const char *const *inputs, char **err_p);

/* Fail the test unless the page holds what. */
void report_test_expect(const char *html, const char *what);

/* How many times what occurs in text. */
int report_test_count(const char *text, const char *what);

/*
 * A stand-in for gnuplot at dir/fake-gnuplot that appends every script it is given to
 * dir/scripts.gp (each followed by a line "#### end of script") and draws an empty SVG. When
 * fail_on is not NULL, a script containing it fails instead: exit 1 with "line 3: fail_message"
 * on stderr, as gnuplot words its errors. The "ZC_GNUPLOT=..." entry to run it into env_entry.
 */
void report_test_fake_gnuplot(const char *dir, const char *fail_on, const char *fail_message,
                              char *env_entry, size_t size);

/* zc args... with the stand-in gnuplot of dir (report_test_fake_gnuplot, every script logged to
 * dir/scripts.gp) and no dot; fails the test unless zc exits 0. */
void report_test_zc_fake_plots(const char *dir, const char *const *args);

#endif
