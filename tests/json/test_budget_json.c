/* SPDX-License-Identifier: Apache-2.0 */
/* The frame time budget's JSON object (docs/json.md): every step named in order with its
 * statistics, the total, both clock measurements or null, the fit's figures. */
#include "test_support.h"

#include <string.h>

#include "zerocopy/json.h"

static void test_budget_object(void **state)
{
    (void)state;
    zc_ring_budget b;
    memset(&b, 0, sizeof b);
    b.first_seq = 200;
    b.frames_asked = 1000;
    b.frames = 998;
    for (int k = 0; k < ZC_RING_STEP_COUNT; k++) {
        double v[1] = {0.5 + k};
        assert_int_equal(zc_stats_compute(v, 1, &b.step_us[k]), ZC_OK);
    }
    double t[1] = {6.25};
    assert_int_equal(zc_stats_compute(t, 1, &b.total_us), ZC_OK);
    b.before.round_trips = 2000;
    b.before.uncertainty_ns = 1040;
    b.before.rtt_min_us = 2.1;
    b.drift_ppm = 2.5;
    b.gpu_clock_mhz = 1980;
    b.fit_residual_ns = 43;
    cJSON *o = NULL;
    assert_int_equal(zc_ring_budget_to_json(&b, &o), ZC_OK);
    assert_int_equal(cJSON_GetObjectItem(o, "first_frame")->valuedouble, 200);
    assert_int_equal(cJSON_GetObjectItem(o, "frames_asked")->valuedouble, 1000);
    assert_int_equal(cJSON_GetObjectItem(o, "frames")->valuedouble, 998);
    const cJSON *steps = cJSON_GetObjectItem(o, "steps");
    assert_int_equal(cJSON_GetArraySize(steps), ZC_RING_STEP_COUNT);
    for (int k = 0; k < ZC_RING_STEP_COUNT; k++) {
        const cJSON *s = cJSON_GetArrayItem(steps, k);
        assert_string_equal(cJSON_GetObjectItem(s, "step")->valuestring,
                            zc_ring_step_name((zc_ring_step)k));
        const cJSON *us = cJSON_GetObjectItem(s, "us");
        assert_true(cJSON_GetObjectItem(us, "median")->valuedouble == 0.5 + k);
    }
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "total_us"), "median")->valuedouble ==
                6.25);
    const cJSON *clock = cJSON_GetObjectItem(o, "clock");
    const cJSON *before = cJSON_GetObjectItem(clock, "before");
    assert_int_equal(cJSON_GetObjectItem(before, "round_trips")->valuedouble, 2000);
    assert_true(cJSON_GetObjectItem(before, "uncertainty_us")->valuedouble == 1.04);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(clock, "after"))); /* not measured */
    assert_true(cJSON_GetObjectItem(clock, "sm_clock_mhz")->valuedouble == 1980);
    cJSON_Delete(o);
    assert_int_equal(zc_ring_budget_to_json(NULL, &o), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_budget_object)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
