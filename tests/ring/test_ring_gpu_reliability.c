/* SPDX-License-Identifier: Apache-2.0 */
/* Millions of frames through the GPU and back: none lost, duplicated, reordered or torn. */
#include "test_support.h"

#include "gpu_ring_support.h"

static zc_ring_config config(zc_ring_protocol protocol, uint32_t slots, size_t bytes,
                             uint32_t consumers)
{
    zc_ring_config c;
    zc_ring_config_init(&c);
    c.protocol = protocol;
    c.slots = slots;
    c.in_bytes = c.out_bytes = bytes;
    c.consumers = consumers;
    return c;
}

static void run(const char *name, zc_ring_config c, uint32_t threads, int interleave,
                uint64_t full_frames, uint32_t window)
{
    uint64_t frames = zc_rt_frames(full_frames);
    zc_echo_run r;
    zc_echo_start(&c, c.consumers, threads, interleave, 0, &r);
    double seconds = zc_echo_traffic(r.ring, frames, window);
    zc_ring_counters rc;
    assert_int_equal(zc_ring_counters_get(r.ring, &rc), ZC_OK);
    zc_echo_counts k;
    zc_echo_finish(&r, &k);
    fprintf(stderr,
            "%s: %llu frames of %zu bytes in %.2f s (%.2f M frames/s), window %u, %u blocks; GPU "
            "saw %llu frames, %llu with a wrong sequence number, %llu torn\n",
            name, (unsigned long long)frames, c.in_bytes, seconds, (double)frames / seconds / 1e6,
            window, c.consumers, k.frames, k.bad_seq, k.torn);
    if (k.bad_seq || k.torn)
        fail_msg("%s: the GPU saw bad frames; the first at sequence number %llu", name,
                 k.first_bad - 1);
    assert_int_equal(k.frames, frames);
    assert_int_equal(rc.published, frames);
    assert_int_equal(rc.results, frames);
    assert_int_equal(rc.dropped, 0);
}

static void test_ten_million_small_frames_ll(void **state)
{
    (void)state;
    /* 64-byte frames, 32 blocks each taking every 32nd frame: up to 192 frames in the GPU's
     * hands at once, so ten million pass in seconds. */
    run("LL 10M", config(ZC_RING_PROTO_LL, 256, 64, 32), 32, 1, 10000000, 192);
}

static void test_flag_4k_frames_four_blocks(void **state)
{
    (void)state;
    run("FLAG 4 KiB", config(ZC_RING_PROTO_FLAG, 16, 4096, 4), 256, 0, 300000, 12);
}

static void test_ll_4k_frames_four_blocks(void **state)
{
    (void)state;
    run("LL 4 KiB", config(ZC_RING_PROTO_LL, 16, 4096, 4), 256, 0, 300000, 12);
}

static void test_flag_small_frames_one_in_flight(void **state)
{
    (void)state;
    run("FLAG 64 B, 1 in flight", config(ZC_RING_PROTO_FLAG, 2, 64, 1), 32, 0, 200000, 1);
}

int main(void)
{
    zc_test_require_gpu("gpu_ring_reliability");
    if (zc_rt_under_sanitizer())
        fprintf(stderr, "under compute-sanitizer: frame counts divided by 1000\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_million_small_frames_ll),
        cmocka_unit_test(test_flag_4k_frames_four_blocks),
        cmocka_unit_test(test_ll_4k_frames_four_blocks),
        cmocka_unit_test(test_flag_small_frames_one_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
