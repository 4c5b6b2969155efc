/* SPDX-License-Identifier: Apache-2.0 */
/* The walks of src/device/walk.h, which zc advise's workload kernel and the bench's walk cases
 * share: every word visited once per pass, and the launch both of them use. */
#include "test_support.h"

#include <stdlib.h>

#include "device/walk.h"

/* Every index below words exactly once over words steps. */
static void assert_bijection(size_t words, zc__walk walk)
{
    size_t mul = zc__walk_multiplier(words);
    unsigned char *seen = calloc(words, 1);
    assert_non_null(seen);
    for (size_t i = 0; i < words; i++) {
        size_t at = zc__walk_index(i, words, walk, mul);
        assert_true(at < words);
        assert_int_equal(seen[at], 0);
        seen[at] = 1;
    }
    free(seen);
}

static void test_walks_visit_every_word_once(void **state)
{
    (void)state;
    const size_t sizes[] = {32, 64, 96, 1024, 4096, 32 * 1000, 262144};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        assert_bijection(sizes[i], ZC__WALK_STRIDED);
        assert_bijection(sizes[i], ZC__WALK_RANDOM);
    }
    /* Sizes that share factors with the golden-ratio guess still get a coprime multiplier. */
    for (size_t words = 2; words < 600; words++)
        assert_bijection(words, ZC__WALK_RANDOM);
}

static void test_strided_walk_steps_a_line_at_a_time(void **state)
{
    (void)state;
    /* 4 lines of 32 words: the first four steps take each line's first word. */
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(zc__walk_index(i, 128, ZC__WALK_STRIDED, 1), i * 32);
    assert_int_equal(zc__walk_index(4, 128, ZC__WALK_STRIDED, 1), 1);
}

static void test_launch_is_bounded_by_work_and_sms(void **state)
{
    (void)state;
    assert_int_equal(zc__walk_blocks(0, 132), 1);
    assert_int_equal(zc__walk_blocks(1, 132), 1);
    assert_int_equal(zc__walk_blocks(ZC__WALK_THREADS, 132), 1);
    assert_int_equal(zc__walk_blocks(ZC__WALK_THREADS + 1, 132), 2);
    assert_int_equal(zc__walk_blocks((size_t)1 << 30, 132), 132 * 8);
    /* An unknown SM count (0) still launches, as one SM's worth. */
    assert_int_equal(zc__walk_blocks((size_t)1 << 30, 0), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walks_visit_every_word_once),
        cmocka_unit_test(test_strided_walk_steps_a_line_at_a_time),
        cmocka_unit_test(test_launch_is_bounded_by_work_and_sms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
