/* SPDX-License-Identifier: Apache-2.0 */
/* What the host gives this process (core/host.h): the CPUs of its affinity mask, not the
 * machine's, and the page size. */
#include "test_support.h"

#include <sched.h>
#include <unistd.h>

#include "core/host.h"

static void test_counts_the_affinity_mask(void **state)
{
    (void)state;
    cpu_set_t all;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    assert_int_equal(zc__usable_cpus(), (unsigned)CPU_COUNT(&all));
    assert_true(zc__usable_cpus() >= 1);
}

/* Held to one CPU (as taskset -c N would), the count is 1 whatever the machine has. */
static void test_one_cpu_held(void **state)
{
    (void)state;
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    unsigned held = zc__usable_cpus();
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    assert_int_equal(held, 1);
    assert_int_equal(zc__usable_cpus(), (unsigned)CPU_COUNT(&all));
}

static void test_page_size(void **state)
{
    (void)state;
    assert_int_equal(zc__page_size(), (size_t)sysconf(_SC_PAGESIZE));
    assert_int_equal(zc__page_size(), zc__page_size()); /* read once, the same after */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_the_affinity_mask),
        cmocka_unit_test(test_one_cpu_held),
        cmocka_unit_test(test_page_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
