/* What a newcomer meets first, without a GPU: the stream's hint that the host runs the same
 * filter, its refusal of a cutoff without the input's rate, short files measured, and the small
 * conventions (zc help version, zc bench --list --json, the driver's absence named). */
#include "test_support.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_file_cutoff_needs_rate),
        cmocka_unit_test(test_stream_start_line_names_taps_file),
        cmocka_unit_test(test_stream_short_file_is_measured),
        cmocka_unit_test(test_stream_stalled_pipe_is_the_input),
        cmocka_unit_test(test_stream_without_gpu_points_to_cpu_mode),
        cmocka_unit_test(test_stream_mode_all_without_gpu_points_to_cpu_mode),
        cmocka_unit_test(test_stream_cpu_mode_needs_no_hint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
