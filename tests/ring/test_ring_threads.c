/* SPDX-License-Identifier: Apache-2.0 */
/* The ring's real host code against a CPU thread playing the GPU: every frame delivered once,
 * in order, untorn, across 2^32 and 2^64; backpressure; drops counted exactly; timeouts. */
#include "test_support.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "fake_gpu.h"
#include "zerocopy/clock.h"

#define WORDS 16 /* 64-byte frames: small, so that many pass quickly even on a loaded machine */

typedef struct run_spec {
    zc_ring_protocol protocol;
    uint32_t slots;
    uint32_t consumers;
    uint64_t first_seq;
    uint64_t frames;
    uint32_t in_flight;
    int lag;
    zc_ring_results results; /* COPY: results in the FLAG form whatever the input's protocol */
} run_spec;

static zc_ring_config config_for(const run_spec *s)
{
    zc_ring_config c;
    zc_ring_config_init(&c);
    c.slots = s->slots;
    c.in_bytes = WORDS * 4;
    c.out_bytes = WORDS * 4;
    c.consumers = s->consumers;
    c.protocol = s->protocol;
    c.results = s->results;
    return c;
}

static void take_result(zc_ring *ring, uint64_t expect_seq)
{
    uint32_t out[WORDS];
    uint64_t seq = 0;
    zc_status st = zc_ring_pop(ring, out, sizeof out, 5000000000ull, &seq);
    if (st != ZC_OK)
        fail_msg("pop of result %llu: %s: %s", (unsigned long long)expect_seq, zc_status_str(st),
                 zc_last_error());
    assert_int_equal(seq, expect_seq);
    size_t bad = zc_fake_check(out, WORDS, seq, (uint32_t)seq);
    if (bad)
        fail_msg("result %llu word %zu wrong: 0x%08x", (unsigned long long)seq, bad - 1,
                 out[bad - 1]);
}

/* Push s->frames frames keeping up to in_flight outstanding; check every result. */
static void run_frames(const run_spec *s, int reverse_writes)
{
    zc_ring_config c = config_for(s);
    void *memory;
    zc_ring *ring = zc_fake_ring(&c, s->first_seq, &memory);
    zc_fake_gpu gpus[8];
    assert_true(s->consumers <= 8);
    memset(gpus, 0, sizeof gpus);
    for (uint32_t b = 0; b < s->consumers; b++) {
        assert_int_equal(zc_ring_device_view(ring, &gpus[b].view), ZC_OK);
        gpus[b].block = b;
        gpus[b].first_seq = s->first_seq;
        gpus[b].max_frames = s->frames;
        gpus[b].lag = s->lag;
        gpus[b].reverse_writes = reverse_writes;
        zc_fake_start(&gpus[b]);
    }
    uint32_t frame[WORDS];
    uint64_t next_result = s->first_seq;
    for (uint64_t k = 0; k < s->frames; k++) {
        uint64_t seq = s->first_seq + k, got = 0;
        zc_fake_fill(frame, WORDS, seq, (uint32_t)seq);
        if (k % 3 == 0) {
            zc_status st = zc_ring_push(ring, frame, sizeof frame, 5000000000ull, &got);
            if (st != ZC_OK)
                fail_msg("push %llu: %s: %s", (unsigned long long)seq, zc_status_str(st),
                         zc_last_error());
        } else {
            /* The zero-copy way: fill the acquired slot, then publish. */
            void *slot = NULL;
            zc_status st = zc_ring_acquire(ring, 5000000000ull, &slot, &got);
            if (st != ZC_OK)
                fail_msg("acquire %llu: %s: %s", (unsigned long long)seq, zc_status_str(st),
                         zc_last_error());
            memcpy(slot, frame, sizeof frame);
            assert_int_equal(zc_ring_publish(ring), ZC_OK);
        }
        assert_int_equal(got, seq);
        uint64_t outstanding = 0;
        assert_int_equal(zc_ring_outstanding(ring, &outstanding), ZC_OK);
        if (outstanding >= s->in_flight)
            take_result(ring, next_result++);
    }
    while (next_result != s->first_seq + s->frames)
        take_result(ring, next_result++);
    for (uint32_t b = 0; b < s->consumers; b++) {
        zc_fake_join(&gpus[b]);
        if (gpus[b].errors)
            fail_msg("consumer %u: %llu bad frames; first: %s", b,
                     (unsigned long long)gpus[b].errors, gpus[b].first_error);
        assert_int_equal(gpus[b].processed, s->frames);
    }
    zc_ring_counters counters;
    assert_int_equal(zc_ring_counters_get(ring, &counters), ZC_OK);
    assert_int_equal(counters.published, s->frames);
    assert_int_equal(counters.results, s->frames);
    assert_int_equal(counters.dropped, 0);
    zc_ring_destroy(ring);
    free(memory);
}

static void test_flag_one_consumer(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_FLAG, 8, 1, 0, 100000, 6, 0, ZC_RING_RESULTS_MAPPED};
    run_frames(&s, 0);
}

static void test_ll_across_flag_wrap(void **state)
{
    (void)state;
    /* Crosses frame 2^32 - 1, whose LL flag is 0, and 2^32, where the flag restarts. */
    run_spec s = {ZC_RING_PROTO_LL, 8, 1, ((uint64_t)1 << 32) - 50000,
                  100000,           8, 0, ZC_RING_RESULTS_MAPPED};
    run_frames(&s, 1);
}

static void test_ll_one_in_flight(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_LL, 2, 1, 0, 30000, 1, 0, ZC_RING_RESULTS_MAPPED};
    run_frames(&s, 0);
}

static void test_flag_across_64bit_wrap_three_consumers(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_FLAG,    4, 3, UINT64_MAX - 10000, 20000, 3, 0,
                  ZC_RING_RESULTS_MAPPED};
    run_frames(&s, 1);
}

static void test_ll_three_consumers_with_lag(void **state)
{
    (void)state;
    /* Consumers that keep the previous frame (a filter's history) leave one slot fewer. */
    run_spec s = {ZC_RING_PROTO_LL,      4, 3, ((uint64_t)1 << 33) - 10000, 20000, 3, 1,
                  ZC_RING_RESULTS_MAPPED};
    run_frames(&s, 0);
}

static void test_flag_lag_two_slots(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_FLAG, 2, 2, UINT64_MAX - 3000, 6000, 1, 1, ZC_RING_RESULTS_MAPPED};
    run_frames(&s, 0);
}

/* A ring whose results go by copy reads LL frames and gives FLAG results (stamped by the last
 * consumer); here the stand-in GPU writes them where the copy engine would land them. */
static void test_ll_in_flag_results(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_LL,    4, 3, ((uint64_t)1 << 32) - 10000, 20000, 3, 1,
                  ZC_RING_RESULTS_COPY};
    run_frames(&s, 1);
}

/* A slow consumer under the drop policy: each offer is either published or counted dropped,
 * and the results are exactly the published offers, in order. */
static void drop_policy(zc_ring_protocol protocol)
{
    run_spec s = {protocol, 4, 1, 0, 0, 0, 0, ZC_RING_RESULTS_MAPPED};
    zc_ring_config c = config_for(&s);
    c.policy = ZC_RING_FULL_DROP;
    void *memory;
    zc_ring *ring = zc_fake_ring(&c, 0, &memory);
    zc_fake_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    assert_int_equal(zc_ring_device_view(ring, &gpu.view), ZC_OK);
    gpu.delay_ns = 200000; /* 200 us per frame */
    zc_fake_start(&gpu);

    enum { OFFERS = 3000 };
    static uint32_t accepted_offer[OFFERS];
    uint64_t accepted = 0, dropped = 0, taken = 0;
    uint32_t frame[WORDS], out[WORDS];
    for (uint32_t offer = 0; offer < OFFERS; offer++) {
        zc_fake_fill(frame, WORDS, accepted, offer);
        uint64_t seq = 0;
        zc_status st = zc_ring_push(ring, frame, sizeof frame, 0, &seq);
        if (st == ZC_OK) {
            assert_int_equal(seq, accepted);
            accepted_offer[accepted++] = offer;
        } else {
            assert_int_equal(st, ZC_ERR_DROPPED);
            dropped++;
        }
        /* Take whatever results are ready without waiting. */
        for (;;) {
            uint64_t outstanding = 0, rseq = 0;
            assert_int_equal(zc_ring_outstanding(ring, &outstanding), ZC_OK);
            if (outstanding == 0)
                break;
            st = zc_ring_pop(ring, out, sizeof out, 0, &rseq);
            if (st == ZC_ERR_TIMEOUT)
                break;
            assert_int_equal(st, ZC_OK);
            assert_int_equal(rseq, taken);
            assert_int_equal(zc_fake_check(out, WORDS, rseq, accepted_offer[taken]), 0);
            taken++;
        }
        struct timespec us = {0, 20000};
        nanosleep(&us, NULL);
    }
    while (taken < accepted) {
        uint64_t rseq = 0;
        assert_int_equal(zc_ring_pop(ring, out, sizeof out, 5000000000ull, &rseq), ZC_OK);
        assert_int_equal(zc_fake_check(out, WORDS, rseq, accepted_offer[taken]), 0);
        taken++;
    }
    __atomic_store_n(&ring->ctrl->stop, 1, __ATOMIC_RELEASE);
    zc_fake_join(&gpu);
    zc_ring_counters counters;
    assert_int_equal(zc_ring_counters_get(ring, &counters), ZC_OK);
    fprintf(stderr, "drop policy: %u offers, %llu published, %llu dropped\n", OFFERS,
            (unsigned long long)counters.published, (unsigned long long)counters.dropped);
    assert_int_equal(counters.published + counters.dropped, OFFERS);
    assert_int_equal(counters.dropped, dropped);
    assert_int_equal(counters.published, accepted);
    assert_int_equal(counters.results, accepted);
    assert_int_equal(gpu.processed, accepted);
    assert_int_equal(gpu.errors, 0);
    assert_true(dropped > 0); /* the consumer was slower: the policy must have acted */
    zc_ring_destroy(ring);
    free(memory);
}

static void test_drop_policy_flag(void **state)
{
    (void)state;
    drop_policy(ZC_RING_PROTO_FLAG);
}

static void test_drop_policy_ll(void **state)
{
    (void)state;
    drop_policy(ZC_RING_PROTO_LL);
}

/* Backpressure under the wait policy: a stalled consumer makes the producer time out, never
 * overwrite; a consumer that ended makes every wait say so. */
static void test_wait_policy_timeout_and_dead_kernel(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_LL, 4, 1, 0, 0, 0, 0, ZC_RING_RESULTS_MAPPED};
    zc_ring_config c = config_for(&s);
    void *memory;
    zc_ring *ring = zc_fake_ring(&c, 0, &memory);
    zc_fake_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    assert_int_equal(zc_ring_device_view(ring, &gpu.view), ZC_OK);
    gpu.paused = 1;
    zc_fake_start(&gpu);
    uint32_t frame[WORDS];
    for (uint64_t k = 0; k < 4; k++) {
        zc_fake_fill(frame, WORDS, k, (uint32_t)k);
        assert_int_equal(zc_ring_push(ring, frame, sizeof frame, 1000000000ull, NULL), ZC_OK);
    }
    uint64_t t0 = zc_clock_ns();
    zc_fake_fill(frame, WORDS, 4, 4);
    assert_int_equal(zc_ring_push(ring, frame, sizeof frame, 30000000ull, NULL), ZC_ERR_TIMEOUT);
    uint64_t waited = zc_clock_ns() - t0;
    assert_true(waited >= 30000000ull && waited < 2000000000ull);
    assert_non_null(strstr(zc_last_error(), "results not taken"));
    /* The slots still hold frames 0..3 untouched (LL words of the right frames). */
    for (uint64_t k = 0; k < 4; k++) {
        const uint64_t *w = (const uint64_t *)(ring->in + (size_t)k * ring->in_stride);
        assert_true(zc_ring_ll_ready(w[0], k));
        assert_int_equal(zc_ring_ll_data(w[0]), (uint32_t)k);
    }
    uint32_t out[WORDS];
    assert_int_equal(zc_ring_pop(ring, out, sizeof out, 0, NULL), ZC_ERR_TIMEOUT);
    t0 = zc_clock_ns();
    assert_int_equal(zc_ring_pop(ring, out, sizeof out, 20000000ull, NULL), ZC_ERR_TIMEOUT);
    assert_true(zc_clock_ns() - t0 >= 20000000ull);

    /* Let it run: the four results arrive and the ring has room again. */
    __atomic_store_n(&gpu.paused, 0, __ATOMIC_RELEASE);
    for (uint64_t k = 0; k < 4; k++) {
        uint64_t seq = 99;
        assert_int_equal(zc_ring_pop(ring, out, sizeof out, 5000000000ull, &seq), ZC_OK);
        assert_int_equal(seq, k);
        assert_int_equal(zc_fake_check(out, WORDS, k, (uint32_t)k), 0);
    }
    /* The "kernel" ends: waits report it instead of timing out. */
    __atomic_store_n(&ring->ctrl->stop, 1, __ATOMIC_RELEASE);
    zc_fake_join(&gpu);
    __atomic_store_n(&ring->ctrl->started, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&ring->ctrl->exit_reason, ZC_RING_EXIT_WATCHDOG, __ATOMIC_RELEASE);
    zc_fake_fill(frame, WORDS, 4, 4);
    assert_int_equal(zc_ring_push(ring, frame, sizeof frame, 1000000000ull, NULL), ZC_OK);
    assert_int_equal(zc_ring_pop(ring, out, sizeof out, 1000000000ull, NULL), ZC_ERR_KERNEL);
    assert_non_null(strstr(zc_last_error(), "watchdog"));
    zc_ring_kernel_state ks;
    assert_int_equal(zc_ring_kernel_state_get(ring, &ks), ZC_OK);
    assert_int_equal(ks.running, 0);
    assert_int_equal(ks.exit_reason, ZC_RING_EXIT_WATCHDOG);
    zc_ring_destroy(ring);
    free(memory);
}

typedef struct host_producer {
    zc_ring *ring;
    uint64_t frames;
    zc_status status;
} host_producer;

static void *produce(void *arg)
{
    host_producer *p = arg;
    uint32_t frame[WORDS];
    for (uint64_t seq = 0; seq < p->frames && p->status == ZC_OK; seq++) {
        zc_fake_fill(frame, WORDS, seq, (uint32_t)seq);
        p->status = zc_ring_push(p->ring, frame, sizeof frame, 5000000000ull, NULL);
    }
    return NULL;
}

/* The producer and the result taker are two host threads: the producer waits for results to
 * be taken (the result side full) as well as for the GPU (the input side). */
static void test_two_host_threads(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_LL, 4, 1, 0, 0, 0, 0, ZC_RING_RESULTS_MAPPED};
    zc_ring_config c = config_for(&s);
    void *memory;
    zc_ring *ring = zc_fake_ring(&c, 0, &memory);
    zc_fake_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    assert_int_equal(zc_ring_device_view(ring, &gpu.view), ZC_OK);
    zc_fake_start(&gpu);
    host_producer p = {ring, 20000, ZC_OK};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, produce, &p), 0);
    uint32_t out[WORDS];
    for (uint64_t seq = 0; seq < p.frames; seq++) {
        uint64_t got = 0, outstanding = 0, start = zc_clock_ns();
        /* Nothing to wait for until the producer has published this frame. */
        while (zc_ring_outstanding(ring, &outstanding) == ZC_OK && outstanding == 0 &&
               zc_clock_ns() - start < 5000000000ull) {
            struct timespec nap = {0, 2000}; /* a yield alone does not give the core up */
            nanosleep(&nap, NULL);
        }
        zc_status st = zc_ring_pop(ring, out, sizeof out, 5000000000ull, &got);
        if (st != ZC_OK)
            fail_msg("pop %llu: %s: %s", (unsigned long long)seq, zc_status_str(st),
                     zc_last_error());
        assert_int_equal(got, seq);
        assert_int_equal(zc_fake_check(out, WORDS, seq, (uint32_t)seq), 0);
        if (seq % 1000 == 0) {
            struct timespec pause = {0, 200000}; /* let the result side fill now and then */
            nanosleep(&pause, NULL);
        }
    }
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(p.status, ZC_OK);
    __atomic_store_n(&ring->ctrl->stop, 1, __ATOMIC_RELEASE);
    zc_fake_join(&gpu);
    assert_int_equal(gpu.errors, 0);
    zc_ring_counters counters;
    assert_int_equal(zc_ring_counters_get(ring, &counters), ZC_OK);
    fprintf(stderr, "two host threads: %llu frames, producer waited %llu times\n",
            (unsigned long long)counters.published, (unsigned long long)counters.full_waits);
    assert_int_equal(counters.published, p.frames);
    assert_int_equal(counters.results, p.frames);
    assert_true(counters.full_waits > 0);
    zc_ring_destroy(ring);
    free(memory);
}

static void test_misuse_is_refused(void **state)
{
    (void)state;
    run_spec s = {ZC_RING_PROTO_FLAG, 2, 1, 0, 0, 0, 0, ZC_RING_RESULTS_MAPPED};
    zc_ring_config c = config_for(&s);
    void *memory;
    zc_ring *ring = zc_fake_ring(&c, 0, &memory);
    void *slot;
    uint64_t seq;
    const void *result;
    assert_int_equal(zc_ring_publish(ring), ZC_ERR_STATE);
    assert_int_equal(zc_ring_result_release(ring), ZC_ERR_STATE);
    assert_int_equal(zc_ring_result_wait(ring, 0, &result, &seq), ZC_ERR_STATE);
    assert_non_null(strstr(zc_last_error(), "no frame outstanding"));
    assert_int_equal(zc_ring_acquire(ring, 0, &slot, &seq), ZC_OK);
    assert_int_equal(zc_ring_acquire(ring, 0, &slot, &seq), ZC_ERR_STATE);
    assert_int_equal(zc_ring_publish(ring), ZC_OK);
    uint32_t frame[WORDS] = {0};
    assert_int_equal(zc_ring_push(ring, frame, sizeof frame - 4, 0, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_ring_push(NULL, frame, sizeof frame, 0, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_ring_pop(ring, frame, sizeof frame + 4, 0, NULL), ZC_ERR_INVALID_ARG);
    /* Input released by the GPU but results not taken: the producer waits, then says why. */
    assert_int_equal(zc_ring_push(ring, frame, sizeof frame, 0, NULL), ZC_OK);
    __atomic_store_n(&ring->released[0], 2, __ATOMIC_RELEASE);
    assert_int_equal(zc_ring_push(ring, frame, sizeof frame, 1000000, NULL), ZC_ERR_TIMEOUT);
    assert_non_null(strstr(zc_last_error(), "results not taken"));
    /* The GPU released nothing: the producer waits, then says the kernel is not keeping up. */
    zc_ring_config c2 = c;
    c2.slots = 4;
    void *memory2;
    zc_ring *ring2 = zc_fake_ring(&c2, 0, &memory2);
    for (int k = 0; k < 4; k++)
        assert_int_equal(zc_ring_push(ring2, frame, sizeof frame, 0, NULL), ZC_OK);
    uint32_t out[WORDS];
    assert_int_equal(zc_ring_pop(ring2, out, sizeof out, 0, NULL), ZC_ERR_TIMEOUT);
    __atomic_store_n(&ring2->out_stamp[0], zc_ring_stamp(0), __ATOMIC_RELEASE);
    assert_int_equal(zc_ring_pop(ring2, out, sizeof out, 0, NULL), ZC_OK);
    assert_int_equal(zc_ring_push(ring2, frame, sizeof frame, 1000000, NULL), ZC_ERR_TIMEOUT);
    assert_non_null(strstr(zc_last_error(), "not keeping up"));
    zc_ring_counters counters;
    assert_int_equal(zc_ring_counters_get(ring2, &counters), ZC_OK);
    assert_int_equal(counters.full_waits, 1);
    assert_int_equal(counters.dropped, 0);
    zc_ring_destroy(ring2);
    free(memory2);
    zc_ring_destroy(ring);
    free(memory);
    zc_ring_destroy(NULL);
}

static void test_config_checks(void **state)
{
    (void)state;
    zc_ring_config c;
    zc_ring_config_init(&c);
    assert_int_equal(zc_ring_config_check(&c), ZC_OK);
    assert_int_equal(zc_ring_config_check(NULL), ZC_ERR_INVALID_ARG);
    zc_ring_config bad = c;
    bad.slots = 6;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.slots = 1;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.in_bytes = 4100;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.out_bytes = 0;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.consumers = 0;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.protocol = (zc_ring_protocol)7;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.watchdog_ns = 1000;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.poll_check_ns = c.watchdog_ns;
    assert_int_equal(zc_ring_config_check(&bad), ZC_ERR_INVALID_ARG);
    bad = c;
    bad.in_bytes = SIZE_MAX / 2 + 1 - 15;
    bad.in_bytes -= bad.in_bytes % 16;
    assert_int_not_equal(zc_ring_config_check(&bad), ZC_OK);
    assert_string_equal(zc_ring_exit_reason_str(ZC_RING_EXIT_WATCHDOG), "watchdog");
    assert_string_equal(zc_ring_exit_reason_str(99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag_one_consumer),
        cmocka_unit_test(test_ll_across_flag_wrap),
        cmocka_unit_test(test_ll_one_in_flight),
        cmocka_unit_test(test_flag_across_64bit_wrap_three_consumers),
        cmocka_unit_test(test_ll_three_consumers_with_lag),
        cmocka_unit_test(test_flag_lag_two_slots),
        cmocka_unit_test(test_ll_in_flag_results),
        cmocka_unit_test(test_drop_policy_flag),
        cmocka_unit_test(test_drop_policy_ll),
        cmocka_unit_test(test_wait_policy_timeout_and_dead_kernel),
        cmocka_unit_test(test_two_host_threads),
        cmocka_unit_test(test_misuse_is_refused),
        cmocka_unit_test(test_config_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
