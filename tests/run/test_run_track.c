/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register cure's table of the program's large allocations (src/run/run_track.c), on the
 * CPU: an allocation is found at its base and nowhere else; its release forgets it and gives
 * its size only when it was pinned; a new allocation over a stale one, and a range unmapped,
 * forget what they cover; the copies counted towards pinning it; random operations over bases
 * that share the filter's slots agree with a plain list kept beside it (the filter in front of
 * the table must never hide an allocation held, nor keep one released).
 */
#include "test_support.h"

#include <string.h>

#include "run/run_track.h"

#define MIB ((uintptr_t)1 << 20)

/* Every test starts from an empty table. */
static int empty_table(void **state)
{
    (void)state;
    zc__run_track_release_range(0, SIZE_MAX);
    return 0;
}

static void *at(uintptr_t address)
{
    return (void *)address;
}

static void test_found_at_its_base(void **state)
{
    (void)state;
    size_t size = 0;
    assert_int_equal(zc__run_track_copied(at(64 * MIB), &size), ZC__COPIED_UNTRACKED);
    assert_int_equal(zc__run_track_release(at(64 * MIB)), 0); /* nothing held: nothing to do */
    assert_int_equal(zc__run_track_add(at(64 * MIB), 4 * MIB), 0);
    assert_int_equal(zc__run_track_add(at(16 * MIB + 16), 2 * MIB), 0); /* a malloc block */
    assert_int_equal(zc__run_track_copied(at(64 * MIB), &size), ZC__COPIED_PART);
    assert_int_equal(size, 4 * MIB);
    assert_int_equal(zc__run_track_copied(at(16 * MIB + 16), &size), ZC__COPIED_PART);
    assert_int_equal(size, 2 * MIB);
    /* Inside an allocation is not its base. */
    assert_int_equal(zc__run_track_copied(at(65 * MIB), &size), ZC__COPIED_UNTRACKED);
    assert_int_equal(zc__run_track_copied(at(16 * MIB), &size), ZC__COPIED_UNTRACKED);
    assert_int_equal(zc__run_track_release(at(65 * MIB)), 0);
    assert_int_equal(zc__run_track_copied(at(64 * MIB), &size), ZC__COPIED_PART);
    /* Released: gone, and its size not given (it was never pinned). */
    assert_int_equal(zc__run_track_release(at(64 * MIB)), 0);
    assert_int_equal(zc__run_track_copied(at(64 * MIB), &size), ZC__COPIED_UNTRACKED);
    assert_int_equal(zc__run_track_copied(at(16 * MIB + 16), &size), ZC__COPIED_PART);
}

static void test_copies_pin_it(void **state)
{
    (void)state;
    void *base = NULL;
    size_t size = 0;
    zc__run_track_add(at(128 * MIB), 2 * MIB);
    /* Copied once whole: a buffer the program copies whole, not yet worth pinning. */
    assert_int_equal(zc__run_track_count_copy(at(128 * MIB), 2 * MIB, &base, &size), 0);
    assert_int_equal(zc__run_track_copied(at(128 * MIB), &size), ZC__COPIED_WHOLE);
    /* Copies that do not start at its base do not count. */
    assert_int_equal(zc__run_track_count_copy(at(129 * MIB), 8 * MIB, &base, &size), 0);
    assert_false(zc__run_track_held(at(128 * MIB)));
    /* Twice its size over: pin it. */
    assert_int_equal(zc__run_track_count_copy(at(128 * MIB), 2 * MIB, &base, &size), 1);
    assert_ptr_equal(base, at(128 * MIB));
    assert_int_equal(size, 2 * MIB);
    assert_true(zc__run_track_held(at(128 * MIB)));
    assert_int_equal(zc__run_track_pinned(at(128 * MIB), 1), 1);
    assert_true(zc__run_track_held(at(128 * MIB)));
    /* Its release gives its size: the pin must go with it. */
    assert_int_equal(zc__run_track_release(at(128 * MIB)), 2 * MIB);
    assert_false(zc__run_track_held(at(128 * MIB)));
    assert_int_equal(zc__run_track_pinned(at(128 * MIB), 1), 0); /* released meanwhile */
}

static void test_stale_and_unmapped(void **state)
{
    (void)state;
    void *base = NULL;
    size_t size = 0;
    zc__run_track_add(at(256 * MIB), 4 * MIB);
    zc__run_track_count_copy(at(256 * MIB), 8 * MIB, &base, &size);
    zc__run_track_pinned(at(256 * MIB), 1);
    /* Released where no hook saw, then made again at the same base: the old pin must go. */
    assert_int_equal(zc__run_track_add(at(256 * MIB), 1 * MIB), 4 * MIB);
    assert_false(zc__run_track_held(at(256 * MIB)));
    assert_int_equal(zc__run_track_copied(at(256 * MIB), &size), ZC__COPIED_PART);
    assert_int_equal(size, 1 * MIB);
    /* A range unmapped forgets every allocation inside it, and only those. */
    for (uintptr_t i = 0; i < 8; i++)
        zc__run_track_add(at((300 + 4 * i) * MIB), 2 * MIB);
    zc__run_track_release_range(306 * MIB - 1, 8 * MIB);
    assert_int_equal(zc__run_track_copied(at(300 * MIB), &size), ZC__COPIED_PART);
    assert_int_equal(zc__run_track_copied(at(304 * MIB), &size), ZC__COPIED_UNTRACKED);
    assert_int_equal(zc__run_track_copied(at(308 * MIB), &size), ZC__COPIED_UNTRACKED);
    assert_int_equal(zc__run_track_copied(at(312 * MIB), &size), ZC__COPIED_UNTRACKED);
    assert_int_equal(zc__run_track_copied(at(316 * MIB), &size), ZC__COPIED_PART);
    /* A mapping unmapped whole, found where it starts. */
    zc__run_track_release_range(316 * MIB, 2 * MIB);
    assert_int_equal(zc__run_track_copied(at(316 * MIB), &size), ZC__COPIED_UNTRACKED);
}

/* The list kept beside the table: which of BASES allocations of 16 bytes, one after another,
 * are held. More of them than the filter has slots, so that many share one; at most LIVE held
 * at once, far below what a stripe holds (a full stripe leaves one out, which the list would
 * not). */
#define BASES 65536u
#define LIVE  1500u
#define SIZE  16u
typedef struct model {
    unsigned char held[BASES];
    unsigned live;
} model;

static uintptr_t base_of(unsigned i)
{
    return 1024 * MIB + (uintptr_t)i * SIZE;
}

/* One random operation, on both; gives whether the probe after it was held. */
static int random_step(model *m, uint64_t *seed)
{
    unsigned i = (unsigned)(zc_test_next_random(seed) % BASES);
    switch (zc_test_next_random(seed) % 8) {
    case 0:
    case 1:
    case 2:
        if (!m->held[i] && m->live < LIVE) {
            m->held[i] = 1;
            m->live++;
            zc__run_track_add(at(base_of(i)), SIZE);
        }
        break;
    case 3:
    case 4:
        m->live -= m->held[i];
        m->held[i] = 0;
        zc__run_track_release(at(base_of(i)));
        break;
    case 5: {
        /* A range over a few of them: every one it covers goes. */
        unsigned count = (unsigned)(zc_test_next_random(seed) % 4 + 1);
        zc__run_track_release_range(base_of(i), (size_t)count * SIZE);
        for (unsigned k = i; k < i + count && k < BASES; k++) {
            m->live -= m->held[k];
            m->held[k] = 0;
        }
        break;
    }
    default:
        break;
    }
    unsigned probe = (unsigned)(zc_test_next_random(seed) % BASES);
    size_t size = 0;
    zc__run_copied is = zc__run_track_copied(at(base_of(probe)), &size);
    if (!m->held[probe]) {
        assert_int_equal(is, ZC__COPIED_UNTRACKED);
        return 0;
    }
    assert_int_equal(is, ZC__COPIED_PART);
    assert_int_equal(size, SIZE);
    return 1;
}

static void test_random_against_a_list(void **state)
{
    (void)state;
    static model m;
    memset(&m, 0, sizeof m);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int held = 0;
    for (int step = 0; step < 400000; step++)
        held += random_step(&m, &seed);
    /* Both answers were asked for, many times. */
    assert_in_range(held, 1000, 399000);
    /* And at the end, every base agrees. */
    for (unsigned i = 0; i < BASES; i++) {
        size_t size = 0;
        zc__run_copied is = zc__run_track_copied(at(base_of(i)), &size);
        assert_int_equal(is, m.held[i] ? ZC__COPIED_PART : ZC__COPIED_UNTRACKED);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_found_at_its_base, empty_table),
        cmocka_unit_test_setup(test_copies_pin_it, empty_table),
        cmocka_unit_test_setup(test_stale_and_unmapped, empty_table),
        cmocka_unit_test_setup(test_random_against_a_list, empty_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
