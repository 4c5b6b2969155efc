/* SPDX-License-Identifier: Apache-2.0 */
/* A slow GPU consumer: the producer waits under the wait policy, and under the drop policy each
 * frame is either delivered or counted dropped, exactly. */
#include "test_support.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "gpu_ring_support.h"
#include "zerocopy/clock.h"

#define WORDS 16

typedef struct producer {
    zc_ring *ring;
    uint64_t frames;
    zc_status status;
    char detail[512];
} producer;

static void *produce(void *arg)
{
    producer *p = arg;
    uint32_t frame[WORDS];
    p->status = ZC_OK;
    for (uint64_t seq = 0; seq < p->frames; seq++) {
        zc_fake_fill(frame, WORDS, seq, (uint32_t)seq);
        zc_status st = zc_ring_push(p->ring, frame, sizeof frame, 5000000000ull, NULL);
        if (st != ZC_OK) {
            p->status = st;
            snprintf(p->detail, sizeof p->detail, "push %llu: %s", (unsigned long long)seq,
                     zc_last_error());
            break;
        }
    }
    return NULL;
}

static void test_wait_policy_holds(void **state)
{
    (void)state;
    zc_ring_config c;
    zc_ring_config_init(&c);
    c.slots = 4;
    c.in_bytes = c.out_bytes = WORDS * 4;
    zc_echo_run r;
    zc_echo_start(&c, 1, 32, 0, 100000 /* 100 us per frame */, &r);
    producer p = {r.ring, zc_rt_frames(3000), ZC_OK, ""};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, produce, &p), 0);
    uint32_t out[WORDS];
    for (uint64_t seq = 0; seq < p.frames; seq++) {
        uint64_t got = 0;
        zc_status st = ZC_ERR_TIMEOUT;
        uint64_t start = zc_clock_ns();
        /* Results are taken on this thread while the producer pushes on its own. */
        while (st == ZC_ERR_TIMEOUT && zc_clock_ns() - start < 5000000000ull) {
            uint64_t outstanding = 0;
            zc_ring_outstanding(r.ring, &outstanding);
            if (outstanding == 0)
                continue;
            st = zc_ring_pop(r.ring, out, sizeof out, 1000000000ull, &got);
        }
        if (st != ZC_OK) {
            zc_rt_print_state(r.ring, "wait policy");
            fail_msg("result %llu: %s: %s", (unsigned long long)seq, zc_status_str(st),
                     zc_last_error());
        }
        assert_int_equal(got, seq);
        assert_int_equal(zc_fake_check(out, WORDS, seq, (uint32_t)seq), 0);
    }
    assert_int_equal(pthread_join(thread, NULL), 0);
    if (p.status != ZC_OK)
        fail_msg("producer: %s", p.detail);
    zc_ring_counters rc;
    assert_int_equal(zc_ring_counters_get(r.ring, &rc), ZC_OK);
    zc_echo_counts k;
    zc_echo_finish(&r, &k);
    fprintf(stderr, "wait policy: %llu frames, producer waited %llu times, 0 dropped expected\n",
            (unsigned long long)p.frames, (unsigned long long)rc.full_waits);
    assert_int_equal(rc.dropped, 0);
    assert_int_equal(rc.published, p.frames);
    assert_true(rc.full_waits > 0); /* the consumer was slower: backpressure must have acted */
    assert_int_equal(k.frames, p.frames);
    assert_int_equal(k.bad_seq + k.torn, 0);
}

static void test_drop_policy_counts_exactly(void **state)
{
    (void)state;
    zc_ring_config c;
    zc_ring_config_init(&c);
    c.slots = 4;
    c.in_bytes = c.out_bytes = WORDS * 4;
    c.policy = ZC_RING_FULL_DROP;
    zc_echo_run r;
    zc_echo_start(&c, 1, 32, 0, 200000 /* 200 us per frame */, &r);
    const uint32_t offers = (uint32_t)zc_rt_frames(4000);
    uint32_t *accepted_offer = calloc(offers, sizeof *accepted_offer);
    assert_non_null(accepted_offer);
    uint64_t accepted = 0, dropped = 0, taken = 0;
    uint32_t frame[WORDS], out[WORDS];
    for (uint32_t offer = 0; offer < offers; offer++) {
        zc_fake_fill(frame, WORDS, accepted, offer);
        zc_status st = zc_ring_push(r.ring, frame, sizeof frame, 0, NULL);
        if (st == ZC_OK)
            accepted_offer[accepted++] = offer;
        else if (st == ZC_ERR_DROPPED)
            dropped++;
        else
            fail_msg("offer %u: %s: %s", offer, zc_status_str(st), zc_last_error());
        for (;;) {
            uint64_t outstanding = 0, seq = 0;
            zc_ring_outstanding(r.ring, &outstanding);
            if (outstanding == 0 || zc_ring_pop(r.ring, out, sizeof out, 0, &seq) != ZC_OK)
                break;
            assert_int_equal(seq, taken);
            size_t bad = zc_fake_check(out, WORDS, seq, accepted_offer[taken]);
            if (bad)
                fail_msg("result %llu (offer %u) word %zu wrong", (unsigned long long)seq,
                         accepted_offer[taken], bad - 1);
            taken++;
        }
        struct timespec pace = {0, 20000};
        nanosleep(&pace, NULL);
    }
    while (taken < accepted) {
        uint64_t seq = 0;
        zc_status st = zc_ring_pop(r.ring, out, sizeof out, 2000000000ull, &seq);
        if (st != ZC_OK)
            fail_msg("draining result %llu: %s", (unsigned long long)taken, zc_last_error());
        assert_int_equal(zc_fake_check(out, WORDS, seq, accepted_offer[taken]), 0);
        taken++;
    }
    zc_ring_counters rc;
    assert_int_equal(zc_ring_counters_get(r.ring, &rc), ZC_OK);
    zc_echo_counts k;
    zc_echo_finish(&r, &k);
    fprintf(stderr, "drop policy: %u offered, %llu delivered, %llu dropped (ring counted %llu)\n",
            offers, (unsigned long long)accepted, (unsigned long long)dropped,
            (unsigned long long)rc.dropped);
    assert_int_equal(accepted + dropped, offers);
    assert_int_equal(rc.dropped, dropped);
    assert_int_equal(rc.published, accepted);
    assert_int_equal(k.frames, accepted);
    assert_int_equal(k.bad_seq + k.torn, 0);
    assert_true(dropped > 0);
    free(accepted_offer);
}

int main(void)
{
    zc_test_require_gpu("gpu_ring_backpressure");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_policy_holds),
        cmocka_unit_test(test_drop_policy_counts_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
