/* SPDX-License-Identifier: Apache-2.0 */
/* The interposition library's copying threads, on the CPU: every byte of every size lands where
 * it should, with one thread and with many, from several callers at once, every part of a job
 * that is not a copy is done once, and no call waits on a worker that is never scheduled (each
 * case runs under ctest's timeout; with --one-cpu every thread shares one CPU, so that the
 * caller takes most parts before a worker runs). */
#include "test_support.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "run/run_config.h"
#include "run/run_workers.h"

static void copy_and_check(size_t n, uint64_t seed)
{
    unsigned char *src = malloc(n + 64), *dst = malloc(n + 64);
    assert_non_null(src);
    assert_non_null(dst);
    zc_test_fill_pattern(src, n + 64, seed);
    memset(dst, 0xEE, n + 64);
    zc__run_parallel_copy(dst + 1, src + 3, n); /* unaligned on both sides */
    if (memcmp(dst + 1, src + 3, n) != 0)
        fail_msg("a copy of %zu bytes differs", n);
    assert_int_equal(dst[0], 0xEE); /* nothing written outside */
    assert_int_equal(dst[n + 1], 0xEE);
    free(dst);
    free(src);
}

static void test_sizes(void **state)
{
    (void)state;
    static const size_t sizes[] = {0,
                                   1,
                                   63,
                                   4096,
                                   (64u << 10) - 1,
                                   64u << 10,
                                   (64u << 10) + 1,
                                   178184,
                                   (1u << 20) + 7,
                                   3u << 20,
                                   (17u << 20) + 13};
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            copy_and_check(sizes[i], (uint64_t)(round * 16 + i));
    }
}

static void *caller(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    for (int i = 0; i < 100; i++)
        copy_and_check((size_t)(65536 + (id * 7919 + (uintptr_t)i * 104729) % (2u << 20)),
                       id * 1000 + (uint64_t)i);
    return NULL;
}

static void test_callers_at_once(void **state)
{
    (void)state;
    pthread_t threads[4];
    for (uintptr_t i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, caller, (void *)i), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
}

#define EACH_MOST_PARTS 64

typedef struct each_record {
    _Atomic unsigned calls[EACH_MOST_PARTS];
    _Atomic unsigned parts_seen; /* the parts argument of every call, which must agree */
    _Atomic unsigned disagreed;
} each_record;

static void record_part(void *arg, unsigned part, unsigned parts)
{
    each_record *r = arg;
    unsigned none = 0;
    if (!atomic_compare_exchange_strong(&r->parts_seen, &none, parts) && none != parts)
        atomic_fetch_add(&r->disagreed, 1);
    if (part < EACH_MOST_PARTS)
        atomic_fetch_add(&r->calls[part], 1);
}

/* Returns the number of parts the job was cut in, each checked done exactly once. */
static unsigned each_once(size_t work)
{
    each_record r = {0};
    zc__run_parallel_each(record_part, &r, work);
    unsigned parts = atomic_load(&r.parts_seen);
    assert_int_equal(atomic_load(&r.disagreed), 0);
    assert_true(parts >= 1 && parts <= EACH_MOST_PARTS);
    for (unsigned part = 0; part < EACH_MOST_PARTS; part++)
        if (atomic_load(&r.calls[part]) != (part < parts ? 1u : 0u))
            fail_msg("part %u of %u done %u times", part, parts, atomic_load(&r.calls[part]));
    return parts;
}

static void test_each_part_once(void **state)
{
    (void)state;
    assert_int_equal(each_once(4096), 1); /* below what the threads pay for: the caller alone */
    for (int round = 0; round < 200; round++)
        assert_int_equal(each_once((size_t)64 << 20), 12); /* a part per thread */
}

static void *each_caller(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        assert_int_equal(each_once((size_t)8 << 20), 12);
    return NULL;
}

/* Jobs that are not copies beside copies, from other threads: they take turns, and no part of
 * one job is done as part of another. */
static void test_each_beside_copies(void **state)
{
    (void)state;
    pthread_t threads[4];
    for (uintptr_t i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, i % 2 ? each_caller : caller, (void *)i),
                         0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--one-cpu") == 0) {
        /* Before the first copy starts the workers: they inherit it. */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu(), &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) {
            perror("sched_setaffinity");
            return 1;
        }
    }
    /* ctest sets ZC_RUN_THREADS=12, more threads than this machine may have cores, so that
     * some workers are not scheduled for a while and the caller must take their parts. It is
     * read before main (a constructor asks for the configuration): set here, it would not be. */
    if (zc__run_config_get()->threads != 12) {
        fprintf(stderr, "run with ZC_RUN_THREADS=12 in the environment (ctest sets it)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_callers_at_once),
        cmocka_unit_test(test_each_part_once),
        cmocka_unit_test(test_each_beside_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
