/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hostcopy cure on the CPU, against the stand-in driver (fake_cuda.c): a large memcpy or
 * memmove into or out of pinned memory the program holds (the driver's, through the pinning
 * cure's row, or a block the fastpin cure served) is made by the copying threads, and every
 * byte lands where the C library's would have put it, two threads copying at once included
 * (the one that finds the copying threads busy copies alone), and a signal handler's copy that
 * interrupts one; small copies, copies between
 * pageable buffers, overlapping moves, and every copy with the cure off or no row that knows
 * pinned memory go to the C library as they were. Each case runs in a child process with the
 * library and the copy library preloaded (fake_child.h).
 */
#include "test_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>

#include <cuda.h>

#include "fake_child.h"
#include "zerocopy/run.h"

#define MIB ((size_t)1 << 20)

/* Above the threshold (4 MiB), not a multiple of the copying threads' parts. */
static const size_t big = 24 * MIB + 77;

/* The program's copies through pointers read at run time, so that the compiler cannot make
 * them its own inline copies: they are the calls the process makes of the symbols. */
static void *(*volatile program_memcpy)(void *, const void *, size_t) = memcpy;
static void *(*volatile program_memmove)(void *, const void *, size_t) = memmove;

static int same(const unsigned char *a, const unsigned char *b, size_t n, const char *what)
{
    if (memcmp(a, b, n) == 0)
        return 0;
    printf("FAIL %s: the bytes differ\n", what);
    return 1;
}

/* One pinned block of bytes (cuMemHostAlloc), and two pageable buffers of its size, the first
 * holding seed's pattern. */
static int setup(size_t bytes, unsigned char **pinned, unsigned char **from, unsigned char **to)
{
    CHECK_CU(cuInit(0));
    CHECK_CU(cuMemHostAlloc((void **)pinned, bytes, 0));
    *from = malloc(bytes);
    *to = malloc(bytes);
    if (*from == NULL || *to == NULL)
        return 1;
    fake_child_fill(*from, bytes, 11);
    memset(*to, 0, bytes);
    return 0;
}

/* Into the pinned block and out of it, with memcpy and with memmove, and from the middle of it:
 * four copies the threads make. */
static int child_both_ways(void)
{
    unsigned char *pinned, *from, *to;
    if (setup(big, &pinned, &from, &to) != 0)
        return 1;
    program_memcpy(pinned, from, big);
    if (same(pinned, from, big, "memcpy into pinned memory"))
        return 1;
    program_memcpy(to, pinned, big);
    if (same(to, from, big, "memcpy out of pinned memory"))
        return 1;
    fake_child_fill(from, big, 12);
    program_memmove(pinned, from, big);
    if (same(pinned, from, big, "memmove into pinned memory"))
        return 1;
    size_t half = big / 2 + 3;
    memset(to, 0, big);
    program_memcpy(to, pinned + (big - half), half);
    if (same(to, from + (big - half), half, "memcpy out of the block's second half") ||
        to[half] != 0) {
        printf("FAIL the copy out of the second half wrote past its end\n");
        return 1;
    }
    CHECK_CU(cuMemFreeHost(pinned));
    printf("both ways ok\n");
    return 0;
}

/* What the C library makes as it was: a copy below the threshold, one between two pageable
 * buffers, and an overlapping move inside the pinned block. */
static int child_left(void)
{
    unsigned char *pinned, *from, *to;
    if (setup(big, &pinned, &from, &to) != 0)
        return 1;
    program_memcpy(pinned, from, MIB);
    program_memcpy(to, from, big);
    if (same(pinned, from, MIB, "a small copy") || same(to, from, big, "a pageable copy"))
        return 1;
    program_memcpy(pinned, from, big);
    program_memmove(pinned + MIB, pinned, 8 * MIB);
    if (same(pinned + MIB, from, 8 * MIB, "an overlapping move") ||
        same(pinned, from, MIB, "the head an overlapping move left"))
        return 1;
    CHECK_CU(cuMemFreeHost(pinned));
    printf("left ok\n");
    return 0;
}

/* Two threads copying into halves of one pinned block at once, rounds times each: a copy that
 * finds the threads busy with the other's is made by its caller; every byte lands either way. */
enum { ROUNDS = 8 };

typedef struct half_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
    int bad;
} half_job;

static void *copy_rounds(void *arg)
{
    half_job *job = arg;
    for (int round = 0; round < ROUNDS; round++) {
        memset(job->dst, 0, job->bytes);
        program_memcpy(job->dst, job->src, job->bytes);
        job->bad |= memcmp(job->dst, job->src, job->bytes) != 0;
    }
    return NULL;
}

static int child_two_threads(void)
{
    unsigned char *pinned, *from, *to;
    if (setup(big, &pinned, &from, &to) != 0)
        return 1;
    size_t half = big / 2;
    half_job jobs[2] = {{pinned, from, half, 0}, {pinned + half, from + half, big - half, 0}};
    pthread_t other;
    if (pthread_create(&other, NULL, copy_rounds, &jobs[1]) != 0)
        return 1;
    (void)copy_rounds(&jobs[0]);
    pthread_join(other, NULL);
    if (jobs[0].bad || jobs[1].bad || same(pinned, from, big, "two threads' copies"))
        return 1;
    CHECK_CU(cuMemFreeHost(pinned));
    printf("two threads ok\n");
    return 0;
}

/* A signal handler copying into the pinned block, interrupting the program's own copies there
 * (and the library inside them, holding the copying threads' turn): it never waits for what the
 * thread it interrupted holds, and both copies land. */
static unsigned char *signal_dst, *signal_src;
static size_t signal_bytes;
static volatile sig_atomic_t signal_copies;

static void copy_in_handler(int sig)
{
    (void)sig;
    program_memcpy(signal_dst, signal_src, signal_bytes);
    signal_copies++;
}

static int child_signal(void)
{
    unsigned char *pinned, *from, *to;
    if (setup(big, &pinned, &from, &to) != 0)
        return 1;
    size_t half = big / 2;
    signal_dst = pinned + half;
    signal_src = to;            /* a second pattern */
    signal_bytes = 4 * MIB + 1; /* from the threshold on, short of the timer's period */
    fake_child_fill(to, big, 14);
    struct sigaction action = {.sa_handler = copy_in_handler};
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGALRM, &action, NULL) != 0)
        return 1;
    struct itimerval every = {.it_interval = {0, 2000}, .it_value = {0, 500}};
    if (setitimer(ITIMER_REAL, &every, NULL) != 0)
        return 1;
    for (int round = 0; round < ROUNDS; round++)
        program_memcpy(pinned, from, half);
    struct itimerval off = {0};
    if (setitimer(ITIMER_REAL, &off, NULL) != 0)
        return 1;
    if (same(pinned, from, half, "the program's copies") ||
        (signal_copies > 0 && same(signal_dst, signal_src, signal_bytes, "the handler's copies")))
        return 1;
    CHECK_CU(cuMemFreeHost(pinned));
    printf("signal ok, handler copies %d\n", (int)signal_copies);
    return 0;
}

/* ---- the parent's assertions ---- */

static const char *const cure_on[] = {"ZC_RUN_FIXES", "pinning,hostcopy", NULL};

static void test_both_ways(void **state)
{
    (void)state;
    child_run r;
    run_child("both-ways", cure_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "both ways ok\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_THREADS), 4);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_BUSY), 0);
}

/* The same block served by the fastpin cure (its threshold set below the block's size): its
 * row knows it as pinned memory, as the pinning cure's knows the driver's. */
static void test_fastpin_block(void **state)
{
    (void)state;
    static const char *const env[] = {"ZC_RUN_FIXES", "fastpin,hostcopy", "ZC_RUN_FASTPIN_BYTES",
                                      "8388608", NULL};
    child_run r;
    run_child("both-ways", env, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "both ways ok\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_SERVED), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_THREADS), 4);
}

static void test_left(void **state)
{
    (void)state;
    child_run r;
    run_child("left", cure_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "left ok\n"));
    /* Only the one whole copy into the block, made to set up the overlapping move. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_THREADS), 1);
}

static void test_two_threads(void **state)
{
    (void)state;
    child_run r;
    run_child("two-threads", cure_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "two threads ok\n"));
    /* Every copy was asked of the row: made by the threads, or by its caller when they were
     * busy with the other thread's. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_THREADS) +
                         child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_BUSY),
                     2 * ROUNDS);
}

static void test_signal(void **state)
{
    (void)state;
    child_run r;
    run_child("signal", cure_on, &r);
    assert_int_equal(r.exit_code, 0);
    int handler_copies = -1;
    const char *line = strstr(r.out, "signal ok, handler copies ");
    assert_non_null(line);
    assert_int_equal(sscanf(line, "signal ok, handler copies %d", &handler_copies), 1);
    /* Every copy, the handler's among them, asked of the row and accounted for. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_THREADS) +
                         child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_BUSY),
                     ROUNDS + handler_copies);
}

/* Without a row that knows pinned memory (pinning and fastpin off) and with the cure off: the
 * same bytes, no copy made by the threads. */
static void test_cure_off(void **state)
{
    (void)state;
    static const char *const no_pinned_rows[] = {"ZC_RUN_FIXES", "pageable,hostcopy", NULL};
    child_run r;
    run_child("both-ways", no_pinned_rows, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "both ways ok\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_THREADS), 0);
    run_child("both-ways", NULL, &r); /* the default cures: hostcopy is named or "all" */
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "both ways ok\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_HOSTCOPY_THREADS), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"both-ways", child_both_ways},
                 {"left", child_left},
                 {"two-threads", child_two_threads},
                 {"signal", child_signal}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0)
            return cases[i].run();
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_ways), cmocka_unit_test(test_fastpin_block),
        cmocka_unit_test(test_left),      cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_signal),    cmocka_unit_test(test_cure_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
