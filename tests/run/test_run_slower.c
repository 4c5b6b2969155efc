/* SPDX-License-Identifier: Apache-2.0 */
/* The pageable cure's judgement of its own staging, on the CPU: a direction and size class whose
 * staged copies, all but the slowest, went slower than its sample (the copy left as it was and
 * timed) is judged slower once eight were staged, and stays so; a class staged faster, one
 * without a sample, and one whose only slow copy was the first (which made the staging) are
 * not; classes and directions are judged apart. */
#include "test_support.h"

#include "run/run_counts.h"

#define MiB ((size_t)1 << 20)

/* count staged copies of bytes, each taking ns. */
static void staged(zc__run_dir dir, size_t bytes, uint64_t ns, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        zc__run_pageable_cured(ZC__RUN_STAGED, dir, bytes, ns);
}

static void test_slower_after_eight(void **state)
{
    (void)state;
    zc__run_pageable_sampled(ZC__RUN_H2D, 8 * MiB, 1000000); /* 8 MiB in 1 ms */
    staged(ZC__RUN_H2D, 8 * MiB, 1500000, 7);
    assert_false(zc__run_pageable_slower(ZC__RUN_H2D, 8 * MiB)); /* seven: not judged yet */
    staged(ZC__RUN_H2D, 9 * MiB, 1700000, 1);                    /* the same class */
    assert_true(zc__run_pageable_slower(ZC__RUN_H2D, 8 * MiB));
    assert_true(zc__run_pageable_slower(ZC__RUN_H2D, 15 * MiB));
    /* Judged, it stays so whatever comes after. */
    staged(ZC__RUN_H2D, 8 * MiB, 100000, 50);
    assert_true(zc__run_pageable_slower(ZC__RUN_H2D, 8 * MiB));
    /* The other direction, and the class below, are their own. */
    assert_false(zc__run_pageable_slower(ZC__RUN_D2H, 8 * MiB));
    assert_false(zc__run_pageable_slower(ZC__RUN_H2D, 4 * MiB));
}

static void test_faster_stays_staged(void **state)
{
    (void)state;
    zc__run_pageable_sampled(ZC__RUN_D2H, 2 * MiB, 400000);
    staged(ZC__RUN_D2H, 2 * MiB, 150000, 40);
    assert_false(zc__run_pageable_slower(ZC__RUN_D2H, 2 * MiB));
    /* Within a tenth of the sample's time is not slower. */
    zc__run_pageable_sampled(ZC__RUN_D2H, 32 * MiB, 4000000);
    staged(ZC__RUN_D2H, 32 * MiB, 4300000, 8);
    assert_false(zc__run_pageable_slower(ZC__RUN_D2H, 32 * MiB));
}

static void test_first_copy_made_the_staging(void **state)
{
    (void)state;
    zc__run_pageable_sampled(ZC__RUN_H2D, 64 * MiB, 8000000);
    staged(ZC__RUN_H2D, 64 * MiB, 60000000, 1); /* paid for making the staging */
    staged(ZC__RUN_H2D, 64 * MiB, 5000000, 7);
    assert_false(zc__run_pageable_slower(ZC__RUN_H2D, 64 * MiB));
}

static void test_no_sample_never_slower(void **state)
{
    (void)state;
    staged(ZC__RUN_H2D, 256 * MiB, 900000000, 20);
    assert_false(zc__run_pageable_slower(ZC__RUN_H2D, 256 * MiB));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slower_after_eight),
        cmocka_unit_test(test_faster_stays_staged),
        cmocka_unit_test(test_first_copy_made_the_staging),
        cmocka_unit_test(test_no_sample_never_slower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
