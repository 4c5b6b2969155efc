/* SPDX-License-Identifier: Apache-2.0 */
/* The block family without a GPU: the points planned per block size (the count, its bounds,
 * the sizes left out and why), the shuffled slots, and the pattern that makes one check of a
 * destination region prove every block landed in its slot: a right move passes, a swapped or
 * missing block fails where it should. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#include "bench/blocks_bench.h"
#include "bench/pattern.h"
#include "zerocopy/bench.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* The default sizes at 256 MiB a move: thousands of small blocks, the count capped at 4096;
 * large blocks down to the target; the minimum for huge blocks; the cap lowering the count. */
static void test_plan_counts(void **state)
{
    (void)state;
    static const size_t sizes[] = {4 * KIB, 64 * KIB, MIB, 4 * MIB, 64 * MIB};
    zc__blk_point p[5];
    char left[256];
    size_t n = zc__blk_plan(sizes, 5, 256 * MIB, (size_t)8 << 30, p, left, sizeof left);
    assert_int_equal(n, 5);
    assert_string_equal(left, "");
    static const size_t want[] = {4096, 4096, 256, 64, 16};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].block_bytes, sizes[i]);
        assert_int_equal(p[i].count, want[i]);
    }
    /* A region may take 64 MiB: 1 MiB blocks down to 64, 4 MiB ones to 16, 64 MiB left out. */
    n = zc__blk_plan(sizes, 5, 256 * MIB, 64 * MIB, p, left, sizeof left);
    assert_int_equal(n, 4);
    assert_int_equal(p[1].count, 1024);
    assert_int_equal(p[2].count, 64);
    assert_int_equal(p[3].count, 16);
    assert_non_null(strstr(left, "67108864 B left out (16 blocks do not fit"));
    /* Quick: 16 MiB a move. */
    n = zc__blk_plan(sizes + 1, 1, 16 * MIB, (size_t)8 << 30, p, left, sizeof left);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].count, 256);
}

/* Beside each point a small move of the same size: a sixteenth of its blocks, 16 at least, none
 * where that is no fewer; after the points, in their order, within the room given. */
static void test_small_moves(void **state)
{
    (void)state;
    static const size_t sizes[] = {4 * KIB, 64 * KIB, MIB, 4 * MIB, 64 * MIB};
    zc__blk_point p[10];
    char left[256];
    size_t n = zc__blk_plan(sizes, 5, 256 * MIB, (size_t)8 << 30, p, left, sizeof left);
    n = zc__blk_add_small_moves(p, n, 10);
    static const size_t want_bytes[] = {4 * KIB, 64 * KIB, MIB, 4 * MIB, 64 * MIB,
                                        4 * KIB, 64 * KIB, MIB, 4 * MIB};
    static const size_t want_count[] = {4096, 4096, 256, 64, 16, 256, 256, 16, 16};
    assert_int_equal(n, 9); /* 64 MiB blocks: 16 already, no smaller move */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].block_bytes, want_bytes[i]);
        assert_int_equal(p[i].count, want_count[i]);
    }
    /* No room past the points: none added. */
    n = zc__blk_plan(sizes, 2, 256 * MIB, (size_t)8 << 30, p, left, sizeof left);
    assert_int_equal(zc__blk_add_small_moves(p, n, 2), 2);
    assert_int_equal(zc__blk_add_small_moves(p, n, 3), 3);
    assert_int_equal(p[2].count, 256);
}

/* Sizes the family cannot take are named, the others kept in order. */
static void test_plan_left_out(void **state)
{
    (void)state;
    static const size_t sizes[] = {6, 4 * KIB, 128 * MIB, 12};
    zc__blk_point p[4];
    char left[256];
    size_t n = zc__blk_plan(sizes, 4, 256 * MIB, (size_t)64 << 30, p, left, sizeof left);
    assert_int_equal(n, 2);
    assert_int_equal(p[0].block_bytes, 4 * KIB);
    assert_int_equal(p[1].block_bytes, 12);
    assert_int_equal(p[1].count, ZC__BLK_COUNT_MAX);
    assert_non_null(strstr(left, "6 B left out (not a whole number of 4-byte words)"));
    assert_non_null(strstr(left, "134217728 B left out (above the family's 64 MiB blocks)"));
    /* A short buffer for the reason is cut, never overrun. */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    zc__blk_plan(sizes, 4, 256 * MIB, (size_t)64 << 30, p, tiny, sizeof tiny);
    assert_true(memchr(tiny, '\0', sizeof tiny) != NULL);
}

/* Every slot once, in an order that is not the identity and that the state decides. */
static void test_shuffle(void **state)
{
    (void)state;
    size_t n = 4096;
    size_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    unsigned char *seen = calloc(n, 1);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(seen);
    uint64_t r1 = 12345, r2 = 12345;
    zc__blk_shuffle(a, n, &r1);
    zc__blk_shuffle(b, n, &r2);
    assert_memory_equal(a, b, n * sizeof *a);
    size_t fixed = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(a[i] < n);
        assert_int_equal(seen[a[i]], 0);
        seen[a[i]] = 1;
        fixed += a[i] == i;
    }
    assert_true(fixed < 16); /* about one fixed point is expected of a random permutation */
    zc__blk_shuffle(b, n, &r2);
    assert_true(memcmp(a, b, n * sizeof *a) != 0); /* the state moved on */
    uint64_t zero = 0;
    zc__blk_shuffle(a, 1, &zero);
    assert_int_equal(a[0], 0);
    zc__blk_shuffle(a, 0, &zero);
    free(seen);
    free(b);
    free(a);
}

/* The moves a mover makes, by memcpy: block i from src slot src[i] to dst slot dst[i]. */
static void move_blocks(uint8_t *to, const uint8_t *from, size_t bs, size_t n, const size_t *src,
                        const size_t *dst)
{
    for (size_t i = 0; i < n; i++)
        memcpy(to + dst[i] * bs, from + src[i] * bs, bs);
}

/* A right move gives the region's pattern; a block sent to another slot, or not sent, fails at
 * that slot's first byte. */
static void fill_and_check(size_t bs, size_t n)
{
    size_t *idx = malloc(2 * n * sizeof *idx);
    uint8_t *src = malloc(n * bs), *dst = malloc(n * bs);
    assert_non_null(idx);
    assert_non_null(src);
    assert_non_null(dst);
    uint64_t rng = 0x5EED;
    zc__blk_shuffle(idx, n, &rng);
    zc__blk_shuffle(idx + n, n, &rng);
    uint32_t seed = 0xC0FFEEu;
    zc__blk_fill(src, bs, n, idx, idx + n, seed);
    memset(dst, 0xA5, n * bs);
    move_blocks(dst, src, bs, n, idx, idx + n);
    size_t bad = 0;
    if (!zc__pattern_check(dst, n * bs, seed, 0, &bad))
        fail_msg("%zu blocks of %zu B: byte %zu wrong after a right move", n, bs, bad);
    /* Blocks 0 and 1 swap destinations: the lower of the two slots is the first wrong one. */
    size_t t = idx[n];
    idx[n] = idx[n + 1];
    idx[n + 1] = t;
    move_blocks(dst, src, bs, n, idx, idx + n);
    size_t first = (idx[n] < idx[n + 1] ? idx[n] : idx[n + 1]) * bs;
    assert_false(zc__pattern_check(dst, n * bs, seed, 0, &bad));
    assert_int_equal(bad, first);
    /* Swapped back, but block 2 never sent: its slot is still poison. */
    idx[n + 1] = idx[n];
    idx[n] = t;
    memset(dst, 0xA5, n * bs);
    for (size_t i = 0; i < n; i++)
        if (i != 2)
            memcpy(dst + idx[n + i] * bs, src + idx[i] * bs, bs);
    assert_false(zc__pattern_check(dst, n * bs, seed, 0, &bad));
    assert_int_equal(bad, idx[n + 2] * bs);
    free(dst);
    free(src);
    free(idx);
}

static void test_pattern_proves_each_block(void **state)
{
    (void)state;
    fill_and_check(4 * KIB, 64);
    fill_and_check(12, 37);
    fill_and_check(64 * KIB, 16);
}

/* The family in the catalogue, each case with its typed id, and "blocks" selects the four. */
static void test_catalogue(void **state)
{
    (void)state;
    static const struct {
        const char *key, *direction;
        zc_bench_case_id id;
    } cases[] = {{"blocks.h2d", "h2d", ZC_BENCH_CASE_BLOCKS_H2D},
                 {"blocks.d2h", "d2h", ZC_BENCH_CASE_BLOCKS_D2H},
                 {"blocks.bidir", "bidir", ZC_BENCH_CASE_BLOCKS_BIDIR},
                 {"blocks.beside", "bidir", ZC_BENCH_CASE_BLOCKS_BESIDE}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const zc_bench_case_info *info = zc_bench_case_at((size_t)cases[i].id);
        assert_non_null(info);
        assert_string_equal(info->key, cases[i].key);
        assert_string_equal(info->group, "blocks");
        assert_string_equal(info->direction, cases[i].direction);
    }
    size_t count = zc_bench_case_count(), matched = 0;
    unsigned char *selected = calloc(count, 1);
    assert_non_null(selected);
    assert_int_equal(zc_bench_select("blocks", selected, count, &matched), ZC_OK);
    assert_int_equal(matched, 4);
    free(selected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_counts),
        cmocka_unit_test(test_small_moves),
        cmocka_unit_test(test_plan_left_out),
        cmocka_unit_test(test_shuffle),
        cmocka_unit_test(test_pattern_proves_each_block),
        cmocka_unit_test(test_catalogue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
