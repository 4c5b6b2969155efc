/* SPDX-License-Identifier: Apache-2.0 */
/* The ring's index, sequence and LL-word arithmetic (ring_protocol.h), on the CPU. */
#include "test_support.h"

#include <string.h>

#include "ring/ring_internal.h"
#include "zerocopy/ring_protocol.h"

static void test_slots_and_powers_of_two(void **state)
{
    (void)state;
    assert_true(zc_ring_is_pow2(1));
    assert_true(zc_ring_is_pow2(2));
    assert_true(zc_ring_is_pow2((uint64_t)1 << 63));
    assert_false(zc_ring_is_pow2(0));
    assert_false(zc_ring_is_pow2(3));
    assert_false(zc_ring_is_pow2(65535));
    for (uint64_t seq = 0; seq < 100; seq++)
        assert_int_equal(zc_ring_slot(seq, 8), seq % 8);
    /* Past 2^32 and across 2^64 the slot keeps cycling without a jump. */
    uint64_t near = ((uint64_t)1 << 32) - 3;
    for (uint64_t k = 0; k < 10; k++)
        assert_int_equal(zc_ring_slot(near + k, 4), (near + k) % 4);
    uint64_t top = UINT64_MAX - 2;
    uint32_t prev = zc_ring_slot(top, 16);
    for (uint64_t k = 1; k < 6; k++) {
        uint32_t slot = zc_ring_slot(top + k, 16);
        assert_int_equal(slot, (prev + 1) % 16);
        prev = slot;
    }
}

static void test_stamps(void **state)
{
    (void)state;
    assert_true(zc_ring_stamp_ready(zc_ring_stamp(0), 0));
    assert_false(zc_ring_stamp_ready(0, 0)); /* zeroed memory is never frame 0 */
    assert_false(zc_ring_stamp_ready(zc_ring_stamp(7), 8));
    assert_false(zc_ring_stamp_ready(zc_ring_stamp(8 - 4), 8)); /* previous lap of a 4-slot ring */
    uint64_t big = ((uint64_t)1 << 32) + 5;
    assert_true(zc_ring_stamp_ready(zc_ring_stamp(big), big));
    assert_false(zc_ring_stamp_ready(zc_ring_stamp(big), big - ((uint64_t)1 << 32)));
}

static void test_ll_words(void **state)
{
    (void)state;
    uint64_t w = zc_ring_ll_pack(0xdeadbeefu, 0x12345678u);
    assert_int_equal(zc_ring_ll_data(w), 0xdeadbeefu);
    assert_int_equal(zc_ring_ll_word_flag(w), 0x12345678u);
    /* Little-endian: the payload is the first 4 bytes of the word. */
    unsigned char bytes[8];
    memcpy(bytes, &w, 8);
    assert_int_equal(bytes[0], 0xef);
    assert_int_equal(bytes[4], 0x78);

    assert_int_equal(zc_ring_ll_flag(0), 1u);
    /* The flag wraps at 2^32 frames: frame 2^32 - 1 has flag 0. */
    uint64_t wrap = ((uint64_t)1 << 32) - 1;
    assert_int_equal(zc_ring_ll_flag(wrap), 0u);
    assert_int_equal(zc_ring_ll_flag(wrap + 1), 1u);
    /* A slot's stale flag never equals the awaited one, for every slot count and across the
     * wrap, including the frame whose flag is 0. */
    for (uint32_t slots = 2; slots <= 65536; slots *= 2) {
        for (uint64_t seq = wrap - 2 * slots; seq < wrap + 2 * slots; seq++) {
            assert_int_not_equal(zc_ring_ll_stale_flag(seq, slots), zc_ring_ll_flag(seq));
            assert_int_equal(zc_ring_ll_stale_flag(seq, slots), zc_ring_ll_flag(seq - slots));
            assert_false(
                zc_ring_ll_ready(zc_ring_ll_pack(42, zc_ring_ll_stale_flag(seq, slots)), seq));
        }
    }
    assert_true(zc_ring_ll_ready(zc_ring_ll_pack(0, zc_ring_ll_flag(wrap)), wrap));
    assert_int_equal(zc_ring_ll_bytes(4096), 8192);
}

static void test_full_and_empty(void **state)
{
    (void)state;
    /* Empty: nothing in flight; full: slots in flight. */
    assert_int_equal(zc_ring_in_flight(10, 10), 0);
    assert_true(zc_ring_can_publish(10, 10, 4));
    assert_true(zc_ring_can_publish(13, 10, 4));
    assert_false(zc_ring_can_publish(14, 10, 4));
    /* The same across 2^32 and across the 64-bit wrap. */
    uint64_t b = ((uint64_t)1 << 32) - 2;
    assert_true(zc_ring_can_publish(b + 3, b, 4));
    assert_false(zc_ring_can_publish(b + 4, b, 4));
    uint64_t top = UINT64_MAX - 1; /* head has wrapped past 0, released has not */
    assert_int_equal(zc_ring_in_flight(top + 3, top), 3);
    assert_true(zc_ring_can_publish(top + 3, top, 4));
    assert_false(zc_ring_can_publish(top + 4, top, 4));
    assert_true(zc_ring_has_frame(top + 1, top));
    assert_false(zc_ring_has_frame(top, top));
}

static void test_released_min(void **state)
{
    (void)state;
    uint64_t r[3] = {100, 98, 101};
    assert_int_equal(zc_ring_released_min(r, 3, 102), 98);
    assert_int_equal(zc_ring_released_min(r, 1, 102), 100);
    /* Across the 64-bit wrap: the oldest is the one furthest behind head, not the smallest. */
    uint64_t w[3] = {UINT64_MAX, 1, 0};
    assert_int_equal(zc_ring_released_min(w, 3, 2), UINT64_MAX);
    /* A word claiming to be ahead of head counts as nothing released. */
    uint64_t ahead[2] = {50, 60};
    uint64_t m = zc_ring_released_min(ahead, 2, 55);
    assert_false(zc_ring_can_publish(55, m, 65536));
}

/* The arrival count stamps each frame exactly once, by its last block, frame after frame. */
static void test_last_arrival(void **state)
{
    (void)state;
    for (uint32_t consumers = 1; consumers <= 7; consumers++) {
        uint64_t count = 0;
        for (int frame = 0; frame < 50; frame++) {
            int stamped = 0;
            for (uint32_t b = 0; b < consumers; b++) {
                int last = zc_ring_last_arrival(count++, consumers);
                stamped += last;
                assert_int_equal(last, b + 1 == consumers);
            }
            assert_int_equal(stamped, 1);
        }
    }
    /* Far along the count too (64-bit, never wraps in practice). */
    assert_true(zc_ring_last_arrival(3ull * 1000000007ull - 1, 3));
    assert_false(zc_ring_last_arrival(3ull * 1000000007ull, 3));
}

static void test_split(void **state)
{
    (void)state;
    for (uint64_t total = 0; total < 300; total += 7) {
        for (uint32_t parts = 1; parts <= 9; parts++) {
            uint64_t next = 0;
            for (uint32_t i = 0; i < parts; i++) {
                uint64_t first, count;
                zc_ring_split(total, parts, i, &first, &count);
                assert_int_equal(first, next);
                assert_true(count == total / parts || count == total / parts + 1);
                next = first + count;
            }
            assert_int_equal(next, total);
        }
    }
}

static void test_checksum_sees_one_bit(void **state)
{
    (void)state;
    uint32_t a = ZC_RING_CHECKSUM_INIT, b = ZC_RING_CHECKSUM_INIT;
    for (uint32_t i = 0; i < 64; i++) {
        a = zc_ring_checksum_step(a, i * 2654435761u);
        b = zc_ring_checksum_step(b, i * 2654435761u ^ (i == 33 ? 0x100u : 0u));
    }
    assert_int_not_equal(a, b);
}

static void test_ll_encode_decode(void **state)
{
    (void)state;
    enum { N = 37 };
    uint32_t src[N], dst[N];
    _Alignas(16) uint64_t words[N];
    for (uint32_t i = 0; i < N; i++)
        src[i] = 0x9e3779b9u * (i + 1);
    uint64_t seq = ((uint64_t)1 << 32) - 1; /* flag 0 */
    for (size_t i = 0; i < N; i++)
        words[i] = zc_ring_ll_pack(0, zc_ring_ll_stale_flag(seq, 4));
    assert_int_equal(zc__ring_ll_decode(dst, words, N, seq, 0), 0);
    zc__ring_ll_encode(words, src, N, seq);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(zc_ring_ll_data(words[i]), src[i]);
        assert_int_equal(zc_ring_ll_word_flag(words[i]), 0u);
    }
    /* A word still stale in the middle stops decoding there; resuming finishes the frame. */
    words[20] = zc_ring_ll_pack(src[20], zc_ring_ll_stale_flag(seq, 4));
    memset(dst, 0, sizeof dst);
    assert_int_equal(zc__ring_ll_decode(dst, words, N, seq, 0), 20);
    words[20] = zc_ring_ll_pack(src[20], zc_ring_ll_flag(seq));
    assert_int_equal(zc__ring_ll_decode(dst, words, N, seq, 20), N);
    assert_memory_equal(dst, src, sizeof src);
    /* A stale word at an odd index: the pair holding it fails, its even neighbour still counts. */
    words[21] = zc_ring_ll_pack(src[21], zc_ring_ll_stale_flag(seq, 4));
    memset(dst, 0, sizeof dst);
    assert_int_equal(zc__ring_ll_decode(dst, words, N, seq, 0), 21);
    assert_int_equal(dst[20], src[20]);
    /* A word whose data is right but whose flag is one frame ahead is not taken either. */
    words[21] = zc_ring_ll_pack(src[21], zc_ring_ll_flag(seq + 1));
    assert_int_equal(zc__ring_ll_decode(dst, words, N, seq, 0), 21);
    words[21] = zc_ring_ll_pack(src[21], zc_ring_ll_flag(seq));
    assert_int_equal(zc__ring_ll_decode(dst, words, N, seq, 0), N);
    assert_memory_equal(dst, src, sizeof src);
    /* Odd alignment of the destination takes the word-by-word path. */
    _Alignas(16) uint64_t shifted[N + 1];
    zc__ring_ll_encode(shifted + 1, src, N, 5);
    assert_int_equal(zc__ring_ll_decode(dst, shifted + 1, N, 5, 0), N);
    assert_memory_equal(dst, src, sizeof src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_and_powers_of_two),
        cmocka_unit_test(test_stamps),
        cmocka_unit_test(test_ll_words),
        cmocka_unit_test(test_full_and_empty),
        cmocka_unit_test(test_released_min),
        cmocka_unit_test(test_last_arrival),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_checksum_sees_one_bit),
        cmocka_unit_test(test_ll_encode_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
