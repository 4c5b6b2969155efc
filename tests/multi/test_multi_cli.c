/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench --devices on any machine: lists refused before any GPU is touched, the multi-GPU
 * cases in the catalogue, and the no-GPU answer. */
#include "test_support.h"

#include <string.h>

static void test_bad_device_lists(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"bench", "--devices", "0,0", "--list", NULL}, NULL, 2, NULL,
                      "given twice");
    zc_test_expect_zc((const char *[]){"bench", "--devices", "x", "--list", NULL}, NULL, 2, NULL,
                      "not a GPU number");
    zc_test_expect_zc((const char *[]){"bench", "--devices", "0,", "--list", NULL}, NULL, 2, NULL,
                      "--devices");
    zc_test_expect_zc((const char *[]){"bench", "--devices", "", "--list", NULL}, NULL, 2, NULL,
                      "empty");
    zc_test_expect_zc((const char *[]){"bench", "--devices", "0,1", "--device", "1", NULL}, NULL, 2,
                      NULL, "not both");
    zc_test_expect_zc((const char *[]){"bench", "--devices", NULL}, NULL, 2, NULL, "needs a value");
    zc_test_expect_zc((const char *[]){"bench", "--devices",
                                       "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "--list", NULL},
                      NULL, 2, NULL, "more than");
}

static void test_good_lists_and_catalogue(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"bench", "--devices", "all", "--list", NULL}, NULL, 0,
                      "multigpu.h2d.all", NULL);
    zc_test_expect_zc(
        (const char *[]){"bench", "--devices", "1,0", "--list", "--case", "multigpu", NULL}, NULL,
        0, "multigpu.peer.write", NULL);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"bench", "--list", "--case", "multigpu", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    const char *keys[] = {"multigpu.h2d.all", "multigpu.d2h.all", "multigpu.peer.copy",
                          "multigpu.peer.read", "multigpu.peer.write"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strstr(r.out, keys[i]) == NULL)
            fail_msg("--list lacks %s:\n%s", keys[i], r.out);
    zc_test_output_free(&r);
    zc_test_expect_zc((const char *[]){"bench", "--help", NULL}, NULL, 0, "--devices", NULL);
}

static void test_stream_devices_options(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"stream", "--devices", "0,0", NULL}, NULL, 2, NULL,
                      "given twice");
    zc_test_expect_zc((const char *[]){"stream", "--devices", "a,b", NULL}, NULL, 2, NULL,
                      "not a GPU number");
    zc_test_expect_zc((const char *[]){"stream", "--devices", "0,1", "--device", "0", NULL}, NULL,
                      2, NULL, "not both");
    zc_test_expect_zc((const char *[]){"stream", "--devices", "0,1", "--mode", "all", NULL}, NULL,
                      2, NULL, "one mode");
    zc_test_expect_zc((const char *[]){"stream", "--devices", "0,1", "--protocol", "both", NULL},
                      NULL, 2, NULL, "one mode");
    /* Paced runs and the drop policy work over several lanes (the engine sends every frame with
     * the end of the last one sent); --lanes, the host's lanes, are for the cpu mode. */
    zc_test_expect_zc((const char *[]){"stream", "--devices", "0,1", "--mode", "cpu", NULL}, NULL,
                      2, NULL, "--lanes");
    zc_test_expect_zc((const char *[]){"stream", "--lanes", "2", NULL}, NULL, 2, NULL,
                      "--mode cpu");
    zc_test_expect_zc((const char *[]){"stream", "--help", NULL}, NULL, 0, "--devices", NULL);
    zc_test_expect_zc((const char *[]){"stream", "--devices", "all", NULL}, zc_test_no_gpu_env, 3,
                      NULL, NULL);
}

static void test_no_gpu(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"bench", "--devices", "all", "--case", "multigpu", NULL},
                      zc_test_no_gpu_env, 3, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_device_lists),
        cmocka_unit_test(test_good_lists_and_catalogue),
        cmocka_unit_test(test_stream_devices_options),
        cmocka_unit_test(test_no_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
