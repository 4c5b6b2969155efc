/* SPDX-License-Identifier: Apache-2.0 */
/* The frame time budget's arithmetic on made-up stamps with a known answer: the clock offset
 * from round trips, the per-block clock fits, each step of each frame. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ring/budget_math.h"
#include "zerocopy/ring.h"
#include "zerocopy/status.h"

/* A small generator: the same numbers every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

/* %globaltimer as the GPU reads it: the true time on its clock, held to the last tick. In
 * integers: a double holds 1.7e18 only to 256 ns. */
static uint64_t timer_of(double true_host_ns, int64_t offset, double tick)
{
    uint64_t t = (uint64_t)(offset + (int64_t)floor(true_host_ns)), step = (uint64_t)tick;
    return t - t % step;
}

#define OFFSET ((int64_t)1700000000000000000ll + 123457)

static void test_offset_within_its_interval(void **state)
{
    (void)state;
    enum { N = 2000 };
    static uint64_t send[N], back[N], gpu[N];
    const double tick = 32.0;
    double t = 5e12, fastest = 1e9, first_there = 1e9, first_again = 1e9;
    for (int i = 0; i < N; i++) {
        double there = uniform(300, 1500), again = uniform(300, 1500);
        first_there = fmin(first_there, there);
        first_again = fmin(first_again, again);
        send[i] = (uint64_t)t;
        gpu[i] = timer_of((double)send[i] + there, OFFSET, tick);
        back[i] = send[i] + (uint64_t)(there + again);
        fastest = fmin(fastest, (double)(back[i] - send[i]));
        t += 2500;
    }
    zc_ring_clock_sync s;
    memset(&s, 0, sizeof s);
    assert_int_equal(zc__clock_offset_solve(send, back, gpu, N, tick, &s), ZC_OK);
    assert_int_equal(s.round_trips, N);
    assert_false(s.interval_empty);
    assert_true(llabs(s.offset_ns - OFFSET) <= (long long)s.uncertainty_ns + 1);
    /* The bounds meet no closer than the fastest way there and the fastest way back: which of
     * the two a round trip spent is what no clock measurement can see. */
    double floor_ns = (first_there + first_again) / 2.0;
    assert_true(s.uncertainty_ns >= floor_ns - 1.0 && s.uncertainty_ns <= floor_ns + tick);
    assert_true(fabs(s.rtt_min_us - fastest / 1e3) < 1e-9);
    assert_true(s.rtt_p50_us > s.rtt_min_us && s.rtt_p99_us >= s.rtt_p50_us);
}

static void test_offset_when_bounds_do_not_meet(void **state)
{
    (void)state;
    enum { N = 400 };
    static uint64_t send[N], back[N], gpu[N];
    /* The clocks jump apart by 5 us halfway: no offset fits every round trip. */
    for (int i = 0; i < N; i++) {
        send[i] = 7000000000000ull + (uint64_t)i * 3000u;
        back[i] = send[i] + 1000u;
        gpu[i] = timer_of((double)send[i] + 500, OFFSET + (i < N / 2 ? 0 : 5000), 1.0);
    }
    zc_ring_clock_sync s;
    assert_int_equal(zc__clock_offset_solve(send, back, gpu, N, 1.0, &s), ZC_OK);
    assert_true(s.interval_empty);
    assert_true(s.offset_ns >= OFFSET - 600 && s.offset_ns <= OFFSET + 5600);
}

static void test_offset_refuses_nonsense(void **state)
{
    (void)state;
    uint64_t send[1] = {100}, back[1] = {50}, gpu[1] = {1};
    zc_ring_clock_sync s;
    assert_int_equal(zc__clock_offset_solve(send, back, gpu, 1, 0, &s), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "before it was sent"));
    assert_int_equal(zc__clock_offset_solve(send, back, gpu, 0, 0, &s), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc__clock_offset_solve(NULL, back, gpu, 1, 0, &s), ZC_ERR_INVALID_ARG);
}

/* The true steps of every made-up frame, ns. */
static const double true_step[ZC_RING_STEP_COUNT] = {400, 1100, 700, 300, 500, 1200, 200};

typedef struct made_up {
    uint64_t frames;
    uint32_t blocks;
    uint64_t *host;
    uint64_t *dev;
    double tick;
    double drift_ppm;
    uint64_t host0;
} made_up;

/* Frames 20.3 us apart (not a multiple of the tick, as real ones are not); block b sees a frame
 * b x 50 ns after block 0 and ends each later step (2 - b) x 40 ns before the last block. */
static void make_frames(made_up *m)
{
    const double ns_per_cycle = 1.0 / 1.98; /* a 1980 MHz SM clock */
    m->host = calloc(m->frames * ZC__BUDGET_HOST_MARKS, sizeof *m->host);
    m->dev = calloc(m->frames * m->blocks * ZC_RING_STAMPS * 2u, sizeof *m->dev);
    assert_non_null(m->host);
    assert_non_null(m->dev);
    for (uint64_t f = 0; f < m->frames; f++) {
        double at[ZC_RING_STEP_COUNT + 1];
        at[0] = (double)m->host0 + (double)f * 20317.0;
        for (int k = 0; k < ZC_RING_STEP_COUNT; k++)
            at[k + 1] = at[k] + true_step[k];
        uint64_t *h = m->host + f * ZC__BUDGET_HOST_MARKS;
        h[ZC__BUDGET_HOST_WRITE] = (uint64_t)at[0];
        h[ZC__BUDGET_HOST_PUBLISH] = (uint64_t)at[1];
        h[ZC__BUDGET_HOST_SEEN] = (uint64_t)at[6];
        h[ZC__BUDGET_HOST_READ] = (uint64_t)at[7];
        for (uint32_t b = 0; b < m->blocks; b++)
            for (uint32_t s = 0; s < ZC_RING_STAMPS; s++) {
                double when =
                    at[2 + s] +
                    (s == ZC_RING_STAMP_SEEN ? 50.0 * b : -40.0 * (double)(m->blocks - 1u - b));
                /* The offset drifts: the GPU's clock runs drift_ppm fast. */
                int64_t offset =
                    OFFSET + (int64_t)llround(m->drift_ppm * 1e-6 * (when - (double)m->host0));
                uint64_t *p = m->dev + zc_ring_stamp_index(f, m->blocks, b, s);
                p[0] = 1000000ull * (b + 1) +
                       (uint64_t)llround((when - (double)m->host0) / ns_per_cycle);
                p[1] = timer_of(when, offset, m->tick);
            }
    }
}

static zc__budget_input input_of(const made_up *m)
{
    zc__budget_input in;
    memset(&in, 0, sizeof in);
    in.frames = m->frames;
    in.blocks = m->blocks;
    in.host = m->host;
    in.dev = m->dev;
    in.before.round_trips = 2000;
    in.before.offset_ns = OFFSET;
    in.before.tick_ns = m->tick;
    in.before.host_ns = m->host0;
    if (m->drift_ppm != 0) {
        double span = (double)m->frames * 20317.0;
        in.after = in.before;
        in.after.host_ns = m->host0 + (uint64_t)span;
        in.after.offset_ns = OFFSET + (int64_t)llround(m->drift_ppm * 1e-6 * span);
    }
    return in;
}

static void assert_steps_recovered(const zc_ring_budget *b, double within_ns)
{
    double sum = 0;
    for (int k = 0; k < ZC_RING_STEP_COUNT; k++) {
        double got = b->step_us[k].median * 1e3;
        if (fabs(got - true_step[k]) > within_ns)
            fail_msg("step %s: median %.1f ns, true %.1f ns", zc_ring_step_name((zc_ring_step)k),
                     got, true_step[k]);
        sum += true_step[k];
    }
    assert_true(fabs(b->total_us.median * 1e3 - sum) <= 1.0);
}

static void test_steps_recovered_through_a_coarse_timer(void **state)
{
    (void)state;
    /* A 1 us tick, coarser than every step: the clock64 fit must carry the resolution. */
    made_up m = {1500, 3, NULL, NULL, 1000.0, 0.0, 9000000000000ull};
    make_frames(&m);
    zc__budget_input in = input_of(&m);
    zc_ring_budget b;
    memset(&b, 0, sizeof b);
    assert_int_equal(zc__budget_compute(&in, &b), ZC_OK);
    assert_int_equal(b.frames, 1500);
    assert_steps_recovered(&b, 25.0);
    assert_true(fabs(b.gpu_clock_mhz - 1980.0) < 1.0);
    assert_true(b.fit_residual_ns > 200.0 && b.fit_residual_ns < 400.0); /* tick / sqrt(12) */
    free(m.host);
    free(m.dev);
}

static void test_steps_recovered_with_drift(void **state)
{
    (void)state;
    made_up m = {2000, 2, NULL, NULL, 32.0, 40.0, 9000000000000ull};
    make_frames(&m);
    zc__budget_input in = input_of(&m);
    zc_ring_budget b;
    assert_int_equal(zc__budget_compute(&in, &b), ZC_OK);
    assert_true(fabs(b.drift_ppm - 40.0) < 0.5);
    assert_steps_recovered(&b, 20.0);
    /* Without the second measurement the drift (40 ppm of 40 ms: 1.6 us) lands in the
     * crossing steps, which is why the budget measures again at the end. */
    in.after.round_trips = 0;
    assert_int_equal(zc__budget_compute(&in, &b), ZC_OK);
    assert_true(b.step_us[ZC_RING_STEP_TO_GPU].max * 1e3 - true_step[ZC_RING_STEP_TO_GPU] > 1000);
    free(m.host);
    free(m.dev);
}

static void test_frames_missing_a_stamp_are_left_out(void **state)
{
    (void)state;
    made_up m = {600, 2, NULL, NULL, 32.0, 0.0, 9000000000000ull};
    make_frames(&m);
    m.dev[zc_ring_stamp_index(7, 2, 1, ZC_RING_STAMP_COMPUTED) + 1] = 0;
    m.host[9 * ZC__BUDGET_HOST_MARKS + ZC__BUDGET_HOST_SEEN] = 0;
    zc__budget_input in = input_of(&m);
    zc_ring_budget b;
    assert_int_equal(zc__budget_compute(&in, &b), ZC_OK);
    assert_int_equal(b.frames, 598);
    assert_steps_recovered(&b, 20.0);
    memset(m.dev, 0, m.frames * 2 * ZC_RING_STAMPS * 2 * sizeof *m.dev);
    assert_int_equal(zc__budget_compute(&in, &b), ZC_ERR_NOT_FOUND);
    assert_non_null(strstr(zc_last_error(), "every stamp"));
    in.frames = 0;
    assert_int_equal(zc__budget_compute(&in, &b), ZC_ERR_INVALID_ARG);
    free(m.host);
    free(m.dev);
}

static void test_config_caps_the_stamps(void **state)
{
    (void)state;
    zc_ring_config c;
    zc_ring_config_init(&c);
    c.consumers = 4;
    c.budget_frames = (256ull << 20) / (4 * 64); /* exactly 256 MiB of stamps */
    assert_int_equal(zc_ring_config_check(&c), ZC_OK);
    c.budget_frames++;
    assert_int_equal(zc_ring_config_check(&c), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "256 MiB"));
    c.budget_frames = UINT64_MAX; /* no overflow on the way to the refusal */
    assert_int_equal(zc_ring_config_check(&c), ZC_ERR_INVALID_ARG);
}

static void test_step_names(void **state)
{
    (void)state;
    assert_string_equal(zc_ring_step_name(ZC_RING_STEP_HOST_WRITE), "host-write");
    assert_string_equal(zc_ring_step_name(ZC_RING_STEP_HOST_READ), "host-read");
    assert_string_equal(zc_ring_step_name(ZC_RING_STEP_COUNT), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_within_its_interval),
        cmocka_unit_test(test_offset_when_bounds_do_not_meet),
        cmocka_unit_test(test_offset_refuses_nonsense),
        cmocka_unit_test(test_steps_recovered_through_a_coarse_timer),
        cmocka_unit_test(test_steps_recovered_with_drift),
        cmocka_unit_test(test_frames_missing_a_stamp_are_left_out),
        cmocka_unit_test(test_config_caps_the_stamps),
        cmocka_unit_test(test_step_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
