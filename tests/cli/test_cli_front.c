/* SPDX-License-Identifier: Apache-2.0 */
/* What zc says before any work: `zc help CMD`, `zc version`, and why there is no GPU. */
#include "test_support.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "device/driver_probe.h"

/* Fail unless both command lines exit 0 and print the same stdout and nothing on stderr. */
static void expect_same_output(const char *const *args_a, const char *const *args_b)
{
    zc_test_output a, b;
    zc_test_run_zc(args_a, NULL, &a);
    zc_test_run_zc(args_b, NULL, &b);
    if (a.exit_code != 0 || b.exit_code != 0)
        fail_msg("exit codes %d and %d, wanted 0\nstderr: %s\nstderr: %s", a.exit_code, b.exit_code,
                 a.err, b.err);
    if (strcmp(a.out, b.out) != 0)
        fail_msg("zc %s %s printed:\n%s\nbut zc %s %s printed:\n%s", args_a[0],
                 args_a[1] ? args_a[1] : "", a.out, args_b[0], args_b[1] ? args_b[1] : "", b.out);
    assert_true(a.out[0] != '\0');
    assert_string_equal(a.err, "");
    assert_string_equal(b.err, "");
    zc_test_output_free(&a);
    zc_test_output_free(&b);
}

static void test_help_command_is_command_help(void **state)
{
    (void)state;
    expect_same_output((const char *[]){"help", "stream", NULL},
                       (const char *[]){"stream", "--help", NULL});
    /* Every command of the table, so that a new one cannot miss it. */
    for (size_t i = 0; i < zc_cli_command_count; i++)
        expect_same_output((const char *[]){"help", zc_cli_commands[i].name, NULL},
                           (const char *[]){zc_cli_commands[i].name, "--help", NULL});
}

static void test_help_alone_is_top_level_help(void **state)
{
    (void)state;
    expect_same_output((const char *[]){"help", NULL}, (const char *[]){"--help", NULL});
    zc_test_expect_zc((const char *[]){"help", NULL}, NULL, 0, "  help ", NULL);
    zc_test_expect_zc((const char *[]){"help", NULL}, NULL, 0, "  version ", NULL);
}

static void test_help_of_unknown_command(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"help", "nosuch", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "zc help: unknown command 'nosuch'"));
    zc_test_output_free(&r);
    zc_test_expect_zc((const char *[]){"help", "stream", "info", NULL}, NULL, 2, NULL,
                      "one command at a time");
}

static void test_version_command(void **state)
{
    (void)state;
    expect_same_output((const char *[]){"version", NULL}, (const char *[]){"--version", NULL});
    zc_test_expect_zc((const char *[]){"version", NULL}, NULL, 0, "zerocopy library", NULL);
}

/* Whether this test process can load the driver, as the library inside zc tries to. */
static int driver_loadable(void)
{
    void *handle = dlopen(ZC__DRIVER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL)
        return 0;
    dlclose(handle);
    return 1;
}

static void test_no_gpu_message_says_why(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"info", NULL}, zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 3);
    /* The call stays named, and the runtime's misleading "insufficient" never shows. */
    assert_non_null(strstr(r.err, "cudaGetDeviceCount(&count) failed: cudaError"));
    assert_null(strstr(r.err, "insufficient for CUDA runtime"));
    if (!driver_loadable()) {
        /* This is the machine without a driver, CI's included. */
        if (strstr(r.err, "no NVIDIA driver found (libcuda.so.1 cannot be loaded: ") == NULL)
            fail_msg("zc info without a driver said:\n%s", r.err);
    } else if (strstr(r.err, "the driver found no GPU") == NULL &&
               strstr(r.err, "the NVIDIA driver is too old") == NULL) {
        fail_msg("zc info with a driver and CUDA_VISIBLE_DEVICES=-1 said:\n%s", r.err);
    }
    zc_test_output_free(&r);
}

static void explain(cudaError_t error, zc__driver_probe probe, const char *visible, char *why,
                    size_t size)
{
    zc__driver_explain(error, &probe, 13000, visible, why, size);
}

static void test_driver_explanations(void **state)
{
    (void)state;
    char why[512];
    zc__driver_probe none = {.loaded = 0};
    snprintf(none.problem, sizeof none.problem, "libcuda.so.1: cannot open shared object file");
    explain(cudaErrorInsufficientDriver, none, NULL, why, sizeof why);
    assert_string_equal(why, "no NVIDIA driver found (libcuda.so.1 cannot be loaded: "
                             "libcuda.so.1: cannot open shared object file)");

    zc__driver_probe old = {.loaded = 1, .cuda_version = 12080};
    explain(cudaErrorInsufficientDriver, old, NULL, why, sizeof why);
    assert_string_equal(why, "the NVIDIA driver is too old: it supports CUDA 12.8, this build of "
                             "zerocopy needs CUDA 13.0 (CUDART_VERSION 13000)");

    zc__driver_probe current = {.loaded = 1, .cuda_version = 13010};
    explain(cudaErrorNoDevice, current, NULL, why, sizeof why);
    assert_string_equal(why, "the driver found no GPU (CUDA 13.1 driver)");
    explain(cudaErrorNoDevice, current, "-1", why, sizeof why);
    assert_non_null(strstr(why, "the driver found no GPU"));
    assert_non_null(strstr(why, "CUDA_VISIBLE_DEVICES='-1'"));
    /* New enough and still refused: not called "too old", nor "no GPU". */
    explain(cudaErrorInsufficientDriver, current, NULL, why, sizeof why);
    assert_non_null(strstr(why, "kernel module"));

    zc__driver_probe mute = {.loaded = 1, .cuda_version = 0};
    snprintf(mute.problem, sizeof mute.problem, "cuDriverGetVersion failed with CUresult 3");
    explain(cudaErrorInsufficientDriver, mute, NULL, why, sizeof why);
    assert_non_null(strstr(why, "cuDriverGetVersion failed with CUresult 3"));
}

static void test_driver_probe_opens_the_library_named(void **state)
{
    (void)state;
    zc__driver_probe probe;
    zc__driver_probe_run("/nonexistent/libcuda.so.1", &probe);
    assert_int_equal(probe.loaded, 0);
    assert_non_null(strstr(probe.problem, "/nonexistent/libcuda.so.1"));

    /* A library that loads but is no driver: no version, and the probe says what is missing. */
    zc__driver_probe_run("libc.so.6", &probe);
    assert_int_equal(probe.loaded, 1);
    assert_int_equal(probe.cuda_version, 0);
    assert_string_equal(probe.problem, "libc.so.6 has no cuDriverGetVersion");
}

static void test_device_count_failure_status_and_detail(void **state)
{
    (void)state;
    zc_status status = zc__device_count_failure(cudaErrorInsufficientDriver, "count()", "x.c", 7);
    assert_int_equal(status, ZC_ERR_NO_DEVICE);
    assert_non_null(strstr(zc_last_error(), "count() failed: cudaErrorInsufficientDriver: "));
    assert_non_null(strstr(zc_last_error(), "(x.c:7)"));
    /* Other errors keep the runtime's words, as every CUDA check does. */
    status = zc__device_count_failure(cudaErrorMemoryAllocation, "count()", "x.c", 8);
    assert_int_equal(status, ZC_ERR_NO_MEMORY);
    assert_non_null(strstr(zc_last_error(), "count() failed: cudaErrorMemoryAllocation ("));
}

/* A library detail as zc prints it: locations and the failing call's name left out, every one
 * of them; ZC_VERBOSE keeps the detail whole; a location of the user's own file stays. */
static void test_error_detail_for_people(void **state)
{
    (void)state;
    const char *detail = "zc_profile_load: profile: zc_profile_from_bench: the results lack "
                         "copy.h2d.pinned (src/advise/from_bench.c:557) "
                         "(src/json/profile_bench_json.c:121)";
    char out[512];
    unsetenv("ZC_VERBOSE");
    assert_string_equal(zc_cli_error_detail(detail, out, sizeof out),
                        "profile: the results lack copy.h2d.pinned");
    assert_string_equal(
        zc_cli_error_detail("cudaMalloc(&p, n) failed (/b/src/mem/exact.cu:12)", out, sizeof out),
        "cudaMalloc(&p, n) failed");
    /* Not a source file of ours, or not a location: kept. */
    assert_string_equal(zc_cli_error_detail("bad value (in.json:3) (x:y) (a.c:z)", out, sizeof out),
                        "bad value (in.json:3) (x:y) (a.c:z)");
    /* Truncated, never overrun. */
    assert_string_equal(zc_cli_error_detail("zc_a: abcdef (src/a.c:1)", out, 4), "abc");
    setenv("ZC_VERBOSE", "0", 1);
    assert_string_equal(zc_cli_error_detail(detail, out, sizeof out),
                        "profile: the results lack copy.h2d.pinned");
    setenv("ZC_VERBOSE", "1", 1);
    assert_string_equal(zc_cli_error_detail(detail, out, sizeof out), detail);
    unsetenv("ZC_VERBOSE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_command_is_command_help),
        cmocka_unit_test(test_help_alone_is_top_level_help),
        cmocka_unit_test(test_help_of_unknown_command),
        cmocka_unit_test(test_version_command),
        cmocka_unit_test(test_no_gpu_message_says_why),
        cmocka_unit_test(test_driver_explanations),
        cmocka_unit_test(test_driver_probe_opens_the_library_named),
        cmocka_unit_test(test_device_count_failure_status_and_detail),
        cmocka_unit_test(test_error_detail_for_people),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
