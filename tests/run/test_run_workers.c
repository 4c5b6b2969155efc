/* SPDX-License-Identifier: Apache-2.0 */
/* The interposition library's copying threads, on the CPU: every byte of every size lands where
 * it should, with one thread and with many, from several callers at once, and no call waits on
 * a worker that is never scheduled (each case runs under ctest's timeout). */
#include "test_support.h"

#include <pthread.h>
#include <string.h>

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

int main(void)
{
    /* More threads than this machine may have cores: some workers are not scheduled for a
     * while, and the caller must take their parts. */
    setenv("ZC_RUN_THREADS", "12", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_callers_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
