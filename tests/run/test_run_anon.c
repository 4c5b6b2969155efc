/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fresh cure's table of the program's anonymous allocations (src/run/run_anon.c), on the
 * CPU: an address is found inside the allocation that holds it and nowhere else; a release by
 * base, a range unmapped or replaced, and a new allocation over a stale one forget exactly what
 * they overlap; a full table leaves new allocations out; a forked child keeps the table; random
 * operations agree with a plain list kept beside it.
 */
#include "test_support.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/run_anon.h"

#define KIB ((uintptr_t)1 << 10)
#define MIB ((uintptr_t)1 << 20)

/* Every test starts from an empty table. */
static int empty_table(void **state)
{
    (void)state;
    zc__run_anon_release_range(0, SIZE_MAX);
    return 0;
}

static void test_found_inside(void **state)
{
    (void)state;
    assert_false(zc__run_anon_covers(64 * MIB, 1));
    zc__run_anon_release(64 * MIB); /* nothing held: nothing to do */
    zc__run_anon_add(64 * MIB, 4 * MIB);
    zc__run_anon_add(16 * MIB + 16, 2 * MIB); /* a malloc block: not page-aligned */
    assert_true(zc__run_anon_covers(64 * MIB, 4 * MIB));
    assert_true(zc__run_anon_covers(65 * MIB + 3, MIB));
    assert_true(zc__run_anon_covers(68 * MIB - 1, 1));
    assert_false(zc__run_anon_covers(68 * MIB - 1, 2)); /* past its end */
    assert_false(zc__run_anon_covers(64 * MIB - 1, 2)); /* before its start */
    assert_false(zc__run_anon_covers(68 * MIB, 1));
    assert_false(zc__run_anon_covers(32 * MIB, MIB)); /* between the two */
    assert_true(zc__run_anon_covers(16 * MIB + 16, 2 * MIB));
    assert_false(zc__run_anon_covers(16 * MIB, 32));
    assert_false(zc__run_anon_covers(64 * MIB, 0));
    assert_false(zc__run_anon_covers(UINTPTR_MAX - 4, 16)); /* an end that wraps */
}

static void test_released(void **state)
{
    (void)state;
    zc__run_anon_add(64 * MIB, 4 * MIB);
    zc__run_anon_add(80 * MIB, 4 * MIB);
    zc__run_anon_release(65 * MIB); /* not a base: nothing */
    assert_true(zc__run_anon_covers(65 * MIB, 1));
    zc__run_anon_release(64 * MIB);
    assert_false(zc__run_anon_covers(65 * MIB, 1));
    assert_true(zc__run_anon_covers(81 * MIB, 1));
    /* Part of a mapping unmapped: the whole allocation is forgotten. */
    zc__run_anon_release_range(83 * MIB, 4 * KIB);
    assert_false(zc__run_anon_covers(81 * MIB, 1));
}

static void test_ranges_and_stale_ones(void **state)
{
    (void)state;
    for (uintptr_t i = 0; i < 8; i++)
        zc__run_anon_add((100 + 4 * i) * MIB, 2 * MIB);
    /* One range over three of them, from the last byte of one to inside the third. */
    zc__run_anon_release_range(106 * MIB - 1, 8 * MIB);
    assert_true(zc__run_anon_covers(100 * MIB, 1));
    assert_false(zc__run_anon_covers(104 * MIB, 1));
    assert_false(zc__run_anon_covers(108 * MIB, 1));
    assert_false(zc__run_anon_covers(112 * MIB, 1));
    assert_true(zc__run_anon_covers(116 * MIB, 1));
    /* A new allocation over two that were released where no hook saw: they go, it stays. */
    zc__run_anon_add(117 * MIB, 4 * MIB);
    assert_false(zc__run_anon_covers(116 * MIB, 1));
    assert_false(zc__run_anon_covers(120 * MIB + MIB + 1, 1));
    assert_true(zc__run_anon_covers(117 * MIB, 4 * MIB));
    assert_true(zc__run_anon_covers(124 * MIB, 1)); /* the last, untouched */
}

static void test_full_table(void **state)
{
    (void)state;
    for (uintptr_t i = 0; i < 5000; i++)
        zc__run_anon_add((i + 1) * MIB, 256 * KIB);
    assert_true(zc__run_anon_covers(MIB, 1));
    assert_true(zc__run_anon_covers(4096 * MIB, 1));
    assert_false(zc__run_anon_covers(4097 * MIB, 1)); /* left out */
    /* Room again once one is released. */
    zc__run_anon_release(MIB);
    zc__run_anon_add(4097 * MIB, 256 * KIB);
    assert_true(zc__run_anon_covers(4097 * MIB, 1));
}

/* A forked child keeps what the parent held (no thread was changing the table as it forked). */
static void test_forked_child(void **state)
{
    (void)state;
    zc__run_anon_add(64 * MIB, 4 * MIB);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        zc__run_anon_after_fork();
        int kept = zc__run_anon_covers(65 * MIB, 1);
        zc__run_anon_release(64 * MIB); /* the lock works in the child */
        _exit(kept && !zc__run_anon_covers(65 * MIB, 1) ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(zc__run_anon_covers(65 * MIB, 1)); /* the parent's, untouched */
}

/* ---- random operations against a plain list ---- */

#define SLOTS 64

typedef struct model {
    uintptr_t base[SLOTS], end[SLOTS];
    int live[SLOTS];
} model;

static void model_forget(model *m, uintptr_t start, uintptr_t end)
{
    for (int i = 0; i < SLOTS; i++) {
        if (m->live[i] && m->base[i] < end && m->end[i] > start)
            m->live[i] = 0;
    }
}

static int model_covers(const model *m, uintptr_t start, uintptr_t end)
{
    for (int i = 0; i < SLOTS; i++) {
        if (m->live[i] && m->base[i] <= start && end <= m->end[i])
            return 1;
    }
    return 0;
}

/* One random operation, on both; gives whether the probe after it was found inside. Addresses
 * in 64 KiB steps over 64 MiB, so they meet often. */
static int random_step(model *m, uint64_t *seed)
{
    uintptr_t start = (uintptr_t)(zc_test_next_random(seed) % 1024) * 64 * KIB + 16;
    uintptr_t length = (uintptr_t)(zc_test_next_random(seed) % 64 + 1) * 64 * KIB;
    int slot = (int)(zc_test_next_random(seed) % SLOTS);
    switch (zc_test_next_random(seed) % 4) {
    case 0:
        /* Into a free slot of the list, after those it overlaps are forgotten. */
        model_forget(m, start, start + length);
        for (int i = 0; i < SLOTS && m->live[slot]; i++)
            slot = (slot + 1) % SLOTS;
        if (m->live[slot])
            break;
        m->base[slot] = start;
        m->end[slot] = start + length;
        m->live[slot] = 1;
        zc__run_anon_add(start, length);
        break;
    case 1:
        if (m->live[slot]) {
            zc__run_anon_release(m->base[slot]);
            m->live[slot] = 0;
        }
        break;
    case 2:
        model_forget(m, start, start + length);
        zc__run_anon_release_range(start, length);
        break;
    default:
        break;
    }
    uintptr_t probe = (uintptr_t)(zc_test_next_random(seed) % (1024 * 64 * KIB));
    uintptr_t span = (uintptr_t)(zc_test_next_random(seed) % (512 * KIB)) + 1;
    int inside = model_covers(m, probe, probe + span);
    assert_int_equal(zc__run_anon_covers(probe, span), inside);
    return inside;
}

static void test_random_against_a_list(void **state)
{
    (void)state;
    model m;
    memset(&m, 0, sizeof m);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    int inside = 0;
    for (int step = 0; step < 200000; step++)
        inside += random_step(&m, &seed);
    /* Both answers were asked for, many times. */
    assert_in_range(inside, 20000, 180000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_found_inside, empty_table),
        cmocka_unit_test_setup(test_released, empty_table),
        cmocka_unit_test_setup(test_ranges_and_stale_ones, empty_table),
        cmocka_unit_test_setup(test_full_table, empty_table),
        cmocka_unit_test_setup(test_forked_child, empty_table),
        cmocka_unit_test_setup(test_random_against_a_list, empty_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
