/* SPDX-License-Identifier: Apache-2.0 */
/* What a newcomer meets first, without a GPU: the stream's hint that the host runs the same
 * filter, its refusal of a cutoff without the input's rate, short files measured, and the small
 * conventions (zc help version, zc bench --list --json, the driver's absence named). */
#include "test_support.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <dlfcn.h>

#include "device/cuda_check.h"
#include "device/driver_probe.h"
#include "zerocopy/zerocopy.h"

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

/* A file of frames x 1024 float32 samples (a 440 Hz tone at 48 kHz) in a fresh scratch folder;
 * its path in path (size PATH_MAX). */
static void write_tone(char *dir, size_t dir_size, char *path, size_t path_size, size_t frames)
{
    snprintf(dir, dir_size, "%s/zc-newcomer.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(path, path_size, "%s/tone.f32", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < frames * 1024; i++) {
        float v = (float)(0.5 * sin(2.0 * M_PI * 440.0 * (double)i / 48000.0));
        assert_int_equal(fwrite(&v, sizeof v, 1, f), 1);
    }
    assert_int_equal(fclose(f), 0);
}

static void remove_scratch(const char *dir, const char *const *names)
{
    char path[512];
    for (; *names != NULL; names++) {
        snprintf(path, sizeof path, "%s/%s", dir, *names);
        (void)unlink(path);
    }
    (void)rmdir(dir);
}

static void test_stream_file_cutoff_needs_rate(void **state)
{
    (void)state;
    char dir[256], path[512];
    write_tone(dir, sizeof dir, path, sizeof path, 2);
    /* A 48 kHz recording given a cutoff in Hz: without --rate it would be designed at 1 MHz. */
    zc_test_expect_zc((const char *[]){"stream", path, "--mode", "cpu", "--lowpass", "3000", NULL},
                      zc_test_no_gpu_env, 2, NULL, "give the sample rate of");
    zc_test_expect_zc((const char *[]){"stream", path, "--mode", "cpu", "--lowpass", "3000", NULL},
                      zc_test_no_gpu_env, 2, NULL, "--rate HZ");
    zc_test_expect_zc((const char *[]){"stream", "-", "--mode", "cpu", "--lowpass", "3000", NULL},
                      zc_test_no_gpu_env, 2, NULL,
                      "--lowpass 3000 is in Hz: give the sample rate "
                      "of stdin with --rate HZ");
    /* Said before anything runs: without a GPU too. */
    zc_test_expect_zc((const char *[]){"stream", path, "--lowpass", "3000", NULL},
                      zc_test_no_gpu_env, 2, NULL, "--rate");
    /* With the rate, or a rate the pacing gives, or no cutoff in Hz at all, it runs. */
    zc_test_expect_zc((const char *[]){"stream", path, "--mode", "cpu", "--lowpass", "3000",
                                       "--rate", "48000", NULL},
                      zc_test_no_gpu_env, 0, "rate 48000 Hz, low-pass 3000 Hz,", NULL);
    zc_test_expect_zc((const char *[]){"stream", path, "--mode", "cpu", "--lowpass", "3000",
                                       "--paced", "480000", NULL},
                      zc_test_no_gpu_env, 0, "rate 480000 Hz, low-pass 3000 Hz,", NULL);
    zc_test_expect_zc((const char *[]){"stream", path, "--mode", "cpu", NULL}, zc_test_no_gpu_env,
                      0, "rate 1e+06 Hz, low-pass 125000 Hz,", NULL);
    /* The synthetic source is made at the rate it is given, the default included. */
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--lowpass", "3000", "--frames",
                                       "3", "--warmup", "1", NULL},
                      zc_test_no_gpu_env, 0, "rate 1e+06 Hz, low-pass 3000 Hz,", NULL);
    remove_scratch(dir, (const char *[]){"tone.f32", NULL});
}

static void test_stream_start_line_names_taps_file(void **state)
{
    (void)state;
    char dir[256], path[512], taps[512];
    write_tone(dir, sizeof dir, path, sizeof path, 1);
    snprintf(taps, sizeof taps, "%s/taps.txt", dir);
    FILE *f = fopen(taps, "w");
    assert_non_null(f);
    fputs("0.25 0.5 0.25\n", f);
    assert_int_equal(fclose(f), 0);
    zc_test_expect_zc((const char *[]){"stream", path, "--mode", "cpu", "--rate", "48000",
                                       "--taps-file", taps, NULL},
                      zc_test_no_gpu_env, 0, "rate 48000 Hz, taps from ", NULL);
    remove_scratch(dir, (const char *[]){"tone.f32", "taps.txt", NULL});
}

/* zc stream --json's number at config.NAME or runs[0].NAME... (a path of object names). */
static double json_number(const cJSON *doc, const char *const *names)
{
    const cJSON *at = doc;
    for (; *names != NULL; names++) {
        if (strcmp(*names, "runs") == 0)
            at = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(at, "runs"), 0);
        else
            at = cJSON_GetObjectItemCaseSensitive(at, *names);
        if (at == NULL)
            fail_msg("no %s in zc stream's JSON", *names);
    }
    assert_true(cJSON_IsNumber(at));
    return at->valuedouble;
}

static void test_stream_short_file_is_measured(void **state)
{
    (void)state;
    char dir[256], path[512], out[512], json[512];
    write_tone(dir, sizeof dir, path, sizeof path, 10);
    snprintf(out, sizeof out, "%s/out.f32", dir);
    snprintf(json, sizeof json, "%s/run.json", dir);
    /* 10 frames against the default warm-up of 200: every sample out, and a latency. */
    zc_test_output r;
    zc_test_run_zc((const char *[]){"stream", path, "--mode", "cpu", "--rate", "48000", "-o", out,
                                    "--json", json, NULL},
                   zc_test_no_gpu_env, &r);
    if (r.exit_code != 0)
        fail_msg("zc stream on a 10-frame file exited %d:\n%s%s", r.exit_code, r.out, r.err);
    if (strstr(r.out, "holds 10 frames, not more than the warm-up of 200: the first 5 warm up, "
                      "the other 5 are measured (--warmup)") == NULL)
        fail_msg("zc stream on a 10-frame file did not say its warm-up was reduced:\n%s", r.out);
    assert_null(strstr(r.out, "no measured frame"));
    zc_test_output_free(&r);
    size_t len = 0;
    free(zc_test_read_file(out, &len));
    assert_int_equal(len, 10 * 1024 * sizeof(float));
    char *text = zc_test_read_file(json, NULL);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    assert_int_equal((int)json_number(doc, (const char *[]){"config", "warmup", NULL}), 5);
    assert_int_equal((int)json_number(doc, (const char *[]){"runs", "latency_us", "count", NULL}),
                     5);
    assert_true(json_number(doc, (const char *[]){"runs", "latency_us", "max", NULL}) > 0);
    cJSON_Delete(doc);

    /* Stdin redirected from the file is as long as the file. */
    zc_test_run_opts from_file = {.stdin_path = path};
    zc_test_run_zc_bounded(
        (const char *[]){"stream", "-", "--mode", "cpu", "--rate", "48000", "--warmup", "50", NULL},
        zc_test_no_gpu_env, &from_file, &r);
    assert_int_equal(r.exit_code, 0);
    if (strstr(r.out, "stdin holds 10 frames, not more than the warm-up of 50") == NULL)
        fail_msg("zc stream - < a 10-frame file said:\n%s", r.out);
    assert_null(strstr(r.out, "no measured frame"));
    zc_test_output_free(&r);

    /* One frame more than the warm-up: measured as asked, nothing said. */
    zc_test_run_zc(
        (const char *[]){"stream", path, "--mode", "cpu", "--rate", "48000", "--warmup", "9", NULL},
        zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 0);
    assert_null(strstr(r.out, "warm-up of"));
    assert_null(strstr(r.out, "no measured frame"));
    zc_test_output_free(&r);

    /* A file of one frame: that frame is measured. */
    remove_scratch(dir, (const char *[]){"tone.f32", "out.f32", "run.json", NULL});
    write_tone(dir, sizeof dir, path, sizeof path, 1);
    zc_test_expect_zc((const char *[]){"stream", path, "--mode", "cpu", "--rate", "48000", NULL},
                      zc_test_no_gpu_env, 0, "the first 0 warm up, the other 1 is measured", NULL);
    remove_scratch(dir, (const char *[]){"tone.f32", NULL});
}

static void test_stream_stalled_pipe_is_the_input(void **state)
{
    (void)state;
    char dir[256], path[512];
    write_tone(dir, sizeof dir, path, sizeof path, 4);
    /* The writer pauses longer than --timeout-ms after each piece: the input stalled, not the GPU.
     */
    zc_test_run_opts paused = {.stdin_path = path, .stdin_pipe = 1, .pause_ms = 600};
    zc_test_output r;
    zc_test_run_zc_bounded((const char *[]){"stream", "-", "--mode", "cpu", "--rate", "48000",
                                            "--timeout-ms", "150", NULL},
                           zc_test_no_gpu_env, &paused, &r);
    assert_int_equal(r.exit_code, 6);
    if (strstr(r.err, "stalled") == NULL || strstr(r.err, "--timeout-ms") == NULL ||
        strstr(r.err, "GPU") != NULL)
        fail_msg("a stalled writer was said as:\n%s", r.err);
    zc_test_output_free(&r);
    remove_scratch(dir, (const char *[]){"tone.f32", NULL});
}

static void test_help_version_is_the_version_help(void **state)
{
    (void)state;
    zc_test_output general, help, option;
    zc_test_run_zc((const char *[]){"help", NULL}, NULL, &general);
    zc_test_run_zc((const char *[]){"help", "version", NULL}, NULL, &help);
    zc_test_run_zc((const char *[]){"version", "--help", NULL}, NULL, &option);
    assert_int_equal(help.exit_code, 0);
    assert_int_equal(option.exit_code, 0);
    if (strcmp(help.out, general.out) == 0 || strncmp(help.out, "usage: zc version", 17) != 0)
        fail_msg("zc help version printed:\n%s", help.out);
    assert_string_equal(help.out, option.out);
    assert_string_equal(help.err, "");
    zc_test_output_free(&general);
    zc_test_output_free(&help);
    zc_test_output_free(&option);
    /* zc help -V and --version are the same word; an argument to version is refused. */
    zc_test_expect_zc((const char *[]){"help", "--version", NULL}, NULL, 0, "usage: zc version",
                      NULL);
    zc_test_expect_zc((const char *[]){"version", "--json", NULL}, NULL, 2, NULL,
                      "zc version: unexpected argument '--json'");
    zc_test_expect_zc((const char *[]){"version", NULL}, NULL, 0, "zerocopy library", NULL);
}

static void test_bench_list_json(void **state)
{
    (void)state;
    char dir[256], path[512];
    snprintf(dir, sizeof dir, "%s/zc-newcomer.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cases.json", dir);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"bench", "--list", "--case", "copy.h2d", "--json", path, NULL},
                   zc_test_no_gpu_env, &r);
    if (r.exit_code != 0)
        fail_msg("zc bench --list --json exited %d:\n%s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, "copy.h2d.pinned"));
    char *text = zc_test_read_file(path, NULL);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "schema")->valuestring,
                        "zerocopy.bench-cases/1");
    /* The same cases as the library's catalogue selects, in its order, with their fields. */
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    size_t n = zc_bench_case_count(), at = 0;
    unsigned char *selected = calloc(n, 1);
    size_t matched = 0;
    assert_int_equal(zc_bench_select("copy.h2d", selected, n, &matched), ZC_OK);
    assert_int_equal(cJSON_GetArraySize(cases), (int)matched);
    for (size_t i = 0; i < n; i++) {
        if (!selected[i])
            continue;
        const zc_bench_case_info *info = zc_bench_case_at(i);
        const cJSON *row = cJSON_GetArrayItem(cases, (int)at++);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(row, "key")->valuestring, info->key);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(row, "title")->valuestring,
                            info->title);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(row, "technique")->valuestring,
                            info->technique);
    }
    free(selected);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
    /* An existing file is kept without --force, said before the list is printed. */
    zc_test_run_zc((const char *[]){"bench", "--list", "--json", path, NULL}, zc_test_no_gpu_env,
                   &r);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    zc_test_output_free(&r);
    /* To stdout: the JSON alone there, the list on stderr. */
    zc_test_run_zc(
        (const char *[]){"bench", "--list", "--case", "latency.launch", "--json", "-", NULL},
        zc_test_no_gpu_env, &r);
    assert_int_equal(r.exit_code, 0);
    doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "cases")), 1);
    assert_non_null(strstr(r.err, "latency.launch"));
    cJSON_Delete(doc);
    zc_test_output_free(&r);
    zc_test_expect_zc((const char *[]){"bench", "--list", "--csv", "-", NULL}, zc_test_no_gpu_env,
                      2, NULL, "--csv is for measured points");
    unlink(path);
    rmdir(dir);
}

/* Whether this process can load the driver library, as the library's probe does. */
static int driver_installed(void)
{
    void *handle = dlopen(ZC__DRIVER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (handle != NULL)
        dlclose(handle);
    return handle != NULL;
}

static void test_stream_engine_names_a_missing_driver(void **state)
{
    (void)state;
    /* Every GPU hidden, as the other tests hide them from zc; this is the process's first CUDA
     * call. */
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    float taps[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    const int device = 0;
    zc_stream_config c;
    zc_stream_config_init(&c);
    c.mode = ZC_STREAM_ZEROCOPY;
    c.taps = taps;
    c.ntaps = 4;
    c.frame_samples = 1024;
    c.channels = 1;
    c.devices = &device;
    c.device_count = 1;
    zc_stream *s = NULL;
    assert_int_equal(zc_stream_create(&c, &s), ZC_ERR_NO_DEVICE);
    assert_null(s);
    const char *why = zc_last_error();
    /* The runtime's words for no driver at all, "driver version is insufficient", never show. */
    if (strstr(why, "insufficient for CUDA runtime") != NULL)
        fail_msg("zc_stream_create without a GPU said: %s", why);
    if (!driver_installed()) {
        if (strstr(why, "no NVIDIA driver found (libcuda.so.1 cannot be loaded: ") == NULL)
            fail_msg("zc_stream_create without a driver said: %s", why);
    } else if (strstr(why, "the driver found no GPU") == NULL &&
               strstr(why, "the NVIDIA driver is too old") == NULL) {
        fail_msg("zc_stream_create with a driver and no GPU said: %s", why);
    }
}

static void test_cuda_status_explains_the_driver(void **state)
{
    (void)state;
    /* Any call, not only the device count: the same reason, the call and its place kept. */
    zc_status st = zc__cuda_status(cudaErrorInsufficientDriver, "cudaSetDevice(0)", "x.c", 3);
    assert_int_equal(st, ZC_ERR_NO_DEVICE);
    const char *why = zc_last_error();
    assert_non_null(strstr(why, "cudaSetDevice(0) failed: cudaErrorInsufficientDriver: "));
    assert_non_null(strstr(why, "(x.c:3)"));
    assert_null(strstr(why, "insufficient for CUDA runtime"));
    if (!driver_installed())
        assert_non_null(strstr(why, "no NVIDIA driver found"));
    /* Other errors keep the runtime's own words. */
    st = zc__cuda_status(cudaErrorMemoryAllocation, "cudaMalloc(&p, n)", "x.c", 4);
    assert_int_equal(st, ZC_ERR_NO_MEMORY);
    assert_non_null(
        strstr(zc_last_error(), "cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation ("));
}

/* A document zc advise or zc report cannot use: the message says why, without the library's
 * source locations or function names, unless ZC_VERBOSE asks for them. */
static void test_bad_document_message_has_no_source_location(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/zc-newcomer.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    static const char *const docs[] = {"{\"schema\":5}", "{\"schema\":\"zerocopy.bench/1\"}",
                                       "{\"schema\":\"zerocopy.profile/1\"}"};
    static const char *const quiet[] = {"ZC_VERBOSE=0", NULL}, *const verbose[] = {"ZC_VERBOSE=1",
                                                                                   NULL};
    snprintf(path, sizeof path, "%s/bad.json", dir);
    char html[PATH_MAX + 32];
    snprintf(html, sizeof html, "%s/report.html", dir);
    int located = 0;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(docs[i], f);
        assert_int_equal(fclose(f), 0);
        const char *const advise[] = {"advise", "--profile", path, NULL};
        const char *const report[] = {"report", path, "-o", html, "--force", NULL};
        const char *const *const commands[] = {advise, report};
        for (size_t c = 0; c < 2; c++) {
            zc_test_output r;
            zc_test_run_zc(commands[c], quiet, &r);
            if (strstr(r.err, "(src/") != NULL || strstr(r.err, ": zc_") != NULL)
                fail_msg("zc %s on %s said: %s", commands[c][0], docs[i], r.err);
            zc_test_output_free(&r);
            zc_test_run_zc(commands[c], verbose, &r);
            located += strstr(r.err, "(src/") != NULL;
            zc_test_output_free(&r);
        }
    }
    /* The same failures with ZC_VERBOSE: the locations are back. */
    assert_true(located > 0);
    /* A failure in the middle of a stream (a NaN sample) is said the same way. */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    const float samples[4] = {0.0f, 0.0f, (float)NAN, 0.0f};
    assert_int_equal(fwrite(samples, sizeof samples, 1, f), 1);
    assert_int_equal(fclose(f), 0);
    const char *const stream[] = {"stream", "--mode", "cpu", "--source", path, NULL};
    zc_test_output r;
    zc_test_run_zc(stream, quiet, &r);
    assert_int_not_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "NaN"));
    if (strstr(r.err, "(src/") != NULL || strstr(r.err, ": zc_") != NULL)
        fail_msg("zc stream on a NaN sample said: %s", r.err);
    zc_test_output_free(&r);
    unlink(html);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_version_is_the_version_help),
        cmocka_unit_test(test_bench_list_json),
        cmocka_unit_test(test_stream_engine_names_a_missing_driver),
        cmocka_unit_test(test_cuda_status_explains_the_driver),
        cmocka_unit_test(test_stream_file_cutoff_needs_rate),
        cmocka_unit_test(test_stream_start_line_names_taps_file),
        cmocka_unit_test(test_stream_short_file_is_measured),
        cmocka_unit_test(test_stream_stalled_pipe_is_the_input),
        cmocka_unit_test(test_stream_without_gpu_points_to_cpu_mode),
        cmocka_unit_test(test_stream_mode_all_without_gpu_points_to_cpu_mode),
        cmocka_unit_test(test_stream_cpu_mode_needs_no_hint),
        cmocka_unit_test(test_bad_document_message_has_no_source_location),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
