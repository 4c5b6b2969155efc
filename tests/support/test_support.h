/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the tests: GPU presence, running the zc binary, scratch files. */
#ifndef ZC_TEST_SUPPORT_H
#define ZC_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

/* cmocka 1.1 compares floating point values only as floats; these need double precision. */
#undef assert_double_equal
#define assert_double_equal(a, b, epsilon)                                                         \
    do {                                                                                           \
        double zc__a = (a), zc__b = (b), zc__e = (epsilon);                                        \
        if (!(zc__a - zc__b <= zc__e && zc__b - zc__a <= zc__e))                                   \
            fail_msg("%s = %.17g, expected %.17g within %g", #a, zc__a, zc__b, zc__e);             \
    } while (0)

/* The exit code ctest reads as "skipped" (SKIP_RETURN_CODE). */
#define ZC_TEST_SKIP 77

/* True when a CUDA GPU is usable. */
int zc_test_gpu_present(void);

/*
 * For GPU test programs: call first in main. Without a GPU, prints why on stderr and exits
 * with ZC_TEST_SKIP so ctest shows the program as skipped, never passed.
 */
void zc_test_require_gpu(const char *program);

/*
 * True when the test runs under compute-sanitizer: scripts/gpu-check sets ZC_UNDER_SANITIZER=1
 * for those runs. Tests then shrink their work and leave out checks of timing, which the
 * sanitizer slows by orders of magnitude, and of tools that cannot share the process with it.
 */
int zc_test_under_sanitizer(void);

/* What a finished child process printed and how it ended. */
typedef struct zc_test_output {
    int exit_code; /* -1 when killed by a signal */
    char *out;     /* everything written on stdout, NUL-terminated */
    char *err;     /* everything written on stderr */
} zc_test_output;

/*
 * Run the built zc binary with argv (NULL-terminated, without "zc") and extra environment
 * entries ("NAME=value", NULL-terminated or NULL), capture its output. Fails the test on error.
 */
void zc_test_run_zc(const char *const *args, const char *const *env, zc_test_output *result);

/* Environment entries that hide every GPU from the CUDA runtime, for zc_test_run_zc. */
extern const char *const zc_test_no_gpu_env[];

/*
 * Run zc as zc_test_run_zc does and fail the test, showing what zc printed, unless it exits with
 * exit_code and its stdout and stderr contain in_stdout and in_stderr (NULL: not checked).
 */
void zc_test_expect_zc(const char *const *args, const char *const *env, int exit_code,
                       const char *in_stdout, const char *in_stderr);

/* zc with args and "-j DIR/out.json" after them (DIR a new folder under /tmp) in env: refused
 * with exit 2 and in_stderr on stderr, and the -j file never made. */
void zc_test_expect_refused(const char *const *args, const char *const *env, const char *in_stderr);

/* How zc_test_run_zc_bounded feeds zc and how long it lets it run. */
typedef struct zc_test_run_opts {
    const char *stdin_path; /* the file zc reads as its stdin; NULL: /dev/null */
    int stdin_pipe;         /* 1: its bytes come through a pipe, written in pieces of changing
                               sizes (1, 7, 1000, 13, 4096, 333 bytes, ...) as a slow writer's
                               would; 0: stdin is the file itself */
    unsigned timeout_ms;    /* the bound on zc's run (0: 120000) */
    unsigned pause_ms;      /* stdin_pipe: a pause after each piece, so that zc reads them one
                               at a time (0: none) */
} zc_test_run_opts;

/*
 * Run zc as zc_test_run_zc does, with the stdin opts names, bounded: a zc still running after
 * timeout_ms is killed (SIGKILL) and the test fails, showing the command and what it printed,
 * so that a hang fails rather than blocks. opts may be NULL (/dev/null, the default bound).
 */
void zc_test_run_zc_bounded(const char *const *args, const char *const *env,
                            const zc_test_run_opts *opts, zc_test_output *result);

/* Free what zc_test_run_zc allocated. */
void zc_test_output_free(zc_test_output *result);

/* The whole file at path, NUL-terminated, its length in *len_p (may be NULL); fails the test
 * when it cannot be read. Free with free(). */
char *zc_test_read_file(const char *path, size_t *len_p);

/* The next number of a xorshift sequence kept in *state (never 0, for a state not 0). */
uint64_t zc_test_next_random(uint64_t *state);

/* Fill n bytes with a pattern seeded by seed (xorshift), never all zeros. */
void zc_test_fill_pattern(void *data, size_t n, uint64_t seed);

/* Index of the first byte that differs from the pattern for seed, or n when all match. */
size_t zc_test_check_pattern(const void *data, size_t n, uint64_t seed);

#endif
