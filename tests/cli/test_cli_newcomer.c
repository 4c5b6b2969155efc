/* What a newcomer meets first, without a GPU: the stream's hint that the host runs the same
 * filter, its refusal of a cutoff without the input's rate, short files measured, and the small
 * conventions (zc help version, zc bench --list --json, the driver's absence named). */
#include "test_support.h"

#include <string.h>

/* The line every no-GPU exit of zc stream's GPU modes ends with. */
#define NO_GPU_HINT "no CUDA GPU: run the same filter on the host with --mode cpu"

static void test_stream_without_gpu_points_to_cpu_mode(void **state)
{
    (void)state;
    /* The default mode, and the README's first example. */
    zc_test_expect_zc((const char *[]){"stream", NULL}, zc_test_no_gpu_env, 3, NULL, NO_GPU_HINT);
    zc_test_expect_zc((const char *[]){"stream", "--frames", "10", NULL}, zc_test_no_gpu_env, 3,
                      NULL, NO_GPU_HINT);
    /* The README's pipe: its samples on stdin, filtered samples on stdout. */
    zc_test_expect_zc((const char *[]){"stream", "-", "--rate", "48000", "--lowpass", "4000",
                                       "--output", "-", NULL},
                      zc_test_no_gpu_env, 3, NULL, NO_GPU_HINT);
    zc_test_expect_zc((const char *[]){"stream", "--mode", "zerocopy,cpu", NULL},
                      zc_test_no_gpu_env, 3, NULL, NO_GPU_HINT);
    zc_test_expect_zc((const char *[]){"stream", "--devices", "all", NULL}, zc_test_no_gpu_env, 3,
                      NULL, NO_GPU_HINT);
}

static void test_stream_mode_all_without_gpu_points_to_cpu_mode(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"stream", "--mode", "all", NULL}, zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 3);
    if (strstr(r.err, "no CUDA GPU") == NULL || strstr(r.err, "with --mode cpu") == NULL)
        fail_msg("zc stream --mode all without a GPU said:\n%s", r.err);
    zc_test_output_free(&r);
}

static void test_stream_cpu_mode_needs_no_hint(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc(
        (const char *[]){"stream", "--mode", "cpu", "--frames", "5", "--warmup", "1", NULL},
        zc_test_no_gpu_env, &r);
    if (r.exit_code != 0)
        fail_msg("zc stream --mode cpu exited %d:\n%s", r.exit_code, r.err);
    assert_null(strstr(r.err, "no CUDA GPU"));
    assert_null(strstr(r.out, "no CUDA GPU"));
    zc_test_output_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_without_gpu_points_to_cpu_mode),
        cmocka_unit_test(test_stream_mode_all_without_gpu_points_to_cpu_mode),
        cmocka_unit_test(test_stream_cpu_mode_needs_no_hint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
