/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's command line without a GPU: help, bad options, the no-GPU exit code, and the cpu
 * mode end to end (its JSON), with the GPU hidden. */
#include "test_support.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "stream_cli_check.h"

static void test_help(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"stream", "--help", NULL}, NULL, 0, "usage: zc stream",
                      NULL);
    zc_test_expect_zc((const char *[]){"stream", "--help", NULL}, NULL, 0, "classic-pinned", NULL);
    zc_test_expect_zc((const char *[]){"--help", NULL}, NULL, 0, "stream", NULL);
}

static void test_bad_options(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"stream", "--bogus", NULL}, NULL, 2, NULL, "unknown option");
    zc_test_expect_zc((const char *[]){"stream", "--mode", "fast", NULL}, NULL, 2, NULL,
                      "unknown mode");
    zc_test_expect_zc((const char *[]){"stream", "--protocol", "ll128", NULL}, NULL, 2, NULL,
                      "--protocol");
    zc_test_expect_zc((const char *[]){"stream", "--frames", "0", NULL}, NULL, 2, NULL, "--frames");
    zc_test_expect_zc((const char *[]){"stream", "--in-flight", "5000", NULL}, NULL, 2, NULL,
                      "--in-flight");
    zc_test_expect_zc((const char *[]){"stream", "--frame-samples", "1022", NULL}, NULL, 2, NULL,
                      "multiple of 4");
    zc_test_expect_zc((const char *[]){"stream", "--rate", "1000", "--lowpass", "600", NULL}, NULL,
                      2, NULL, "half the sample rate");
    zc_test_expect_zc((const char *[]){"stream", "--rate", "1000", "--tones", "100,700", NULL},
                      NULL, 2, NULL, "half the sample rate");
    zc_test_expect_zc((const char *[]){"stream", "--lowpass", "100", "--taps-file", "x", NULL},
                      NULL, 2, NULL, "exclude");
    zc_test_expect_zc((const char *[]){"stream", "--output", "-", "--json", "-", NULL}, NULL, 2,
                      NULL, "stdout");
    zc_test_expect_zc((const char *[]){"stream", "--frames", NULL}, NULL, 2, NULL, "needs a value");
    /* One positional argument is the source; a second is an error. */
    zc_test_expect_zc((const char *[]){"stream", "in.raw", "extra", NULL}, NULL, 2, NULL,
                      "unexpected argument 'extra'");
}

static void test_no_gpu(void **state)
{
    (void)state;
    zc_test_expect_zc((const char *[]){"stream", "--frames", "10", NULL}, zc_test_no_gpu_env, 3,
                      NULL, "zc stream");
}

static void test_taps_file_errors(void **state)
{
    (void)state;
    char path[] = "/tmp/zc_taps_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("0.25, 0.5\n0.25 nonsense\n", f);
    fclose(f);
    zc_test_expect_zc((const char *[]){"stream", "--taps-file", path, NULL}, NULL, 2, NULL,
                      "is not a finite float32 number");
    /* A comma after white space separates too: the word after it is read, not ignored. */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("0.25 , 0.5 , nonsense\n", f);
    fclose(f);
    zc_test_expect_zc((const char *[]){"stream", "--taps-file", path, NULL}, NULL, 2, NULL,
                      "is not a finite float32 number");
    /* A number too large for float32 is refused, not turned into an infinite tap. */
    f = fopen(path, "w");
    fputs("0.5 1e39\n", f);
    fclose(f);
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--taps-file", path, NULL},
                      zc_test_no_gpu_env, 2, NULL, "'1e39' is not a finite float32");
    /* A long number is one tap, not two pieces of one. */
    f = fopen(path, "w");
    fputs("0.", f);
    for (int i = 0; i < 200; i++)
        fputc('5', f);
    fputs(" 0.25\n", f);
    fclose(f);
    zc_test_expect_zc(
        (const char *[]){"stream", "--mode", "cpu", "--frames", "1", "--taps-file", path, NULL},
        zc_test_no_gpu_env, 0, "2 taps", NULL);
    /* A NUL byte is not text. */
    f = fopen(path, "w");
    fwrite("0.5\0 0.5\n", 1, 9, f);
    fclose(f);
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--taps-file", path, NULL},
                      zc_test_no_gpu_env, 2, NULL, "NUL byte");
    unlink(path);
}

static void test_cpu_mode_without_gpu(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"stream", "--mode", "cpu", "--frames", "300", "--warmup", "20",
                                    "--frame-samples", "256", "--verify", "all", "--json", "-",
                                    NULL},
                   zc_test_no_gpu_env, &r);
    if (r.exit_code != 0)
        fail_msg("exit %d: %s", r.exit_code, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "zerocopy.stream/1");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "device")));
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "runs"), 0);
    assert_string_equal(cJSON_GetObjectItem(run, "name")->valuestring, "cpu");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(run, "ok")));
    assert_int_equal(cJSON_GetObjectItem(run, "frames")->valueint, 300);
    cJSON *samples = cJSON_GetObjectItem(run, "samples");
    assert_int_equal(cJSON_GetObjectItem(samples, "in")->valueint, 320 * 256);
    assert_int_equal(cJSON_GetObjectItem(samples, "out")->valueint, 320 * 256);
    cJSON *v = cJSON_GetObjectItem(run, "verify");
    assert_int_equal(cJSON_GetObjectItem(v, "frames_checked")->valueint, 320);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(v, "passed")));
    double histo = 0;
    cJSON *bin;
    cJSON_ArrayForEach(bin, cJSON_GetObjectItem(run, "histogram_us"))
    {
        histo += cJSON_GetObjectItem(bin, "count")->valuedouble;
    }
    assert_int_equal((int)histo, 300);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
    /* A GPU mode in the list needs the GPU: exit 3 before anything runs. */
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu,graph", NULL}, zc_test_no_gpu_env,
                      3, NULL, "zc stream");
}

static void test_save_taps_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/zc_taps_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--frames", "1", "--taps", "17",
                                       "--save-taps", path, "--force", NULL},
                      zc_test_no_gpu_env, 0, NULL, NULL);
    size_t len = 0;
    char *text = zc_test_read_file(path, &len);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    assert_int_equal(lines, 17);
    free(text);
    /* Read back as a taps file, the same filter. */
    zc_test_expect_zc(
        (const char *[]){"stream", "--mode", "cpu", "--frames", "1", "--taps-file", path, NULL},
        zc_test_no_gpu_env, 0, "17 taps", NULL);
    unlink(path);
}

/* A scratch file of bytes zero bytes (sparse); its path in path (room for 32). */
static void zero_file(char *path, size_t bytes)
{
    strcpy(path, "/tmp/zc_stream_zero_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)bytes), 0);
    close(fd);
}

/* The run's "verify" object of zc stream's JSON on stdout, the document in *doc_p. */
static cJSON *verify_of(const zc_test_output *r, cJSON **doc_p)
{
    *doc_p = cJSON_Parse(r->out);
    if (*doc_p == NULL)
        fail_msg("not JSON: %.300s\nstderr: %s", r->out, r->err);
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(*doc_p, "runs"), 0);
    assert_non_null(run);
    return cJSON_GetObjectItem(run, "verify");
}

/* A run that checked no frame says so: never "ok", JSON passed null, and exit 0 (nothing
 * failed either). */
static void test_zero_frames_checked(void **state)
{
    (void)state;
    char path[32];
    zero_file(path, 0); /* empty: no frame at all */
    zc_test_output r;
    zc_test_run_zc((const char *[]){"stream", path, "--mode", "cpu", "--json", "-", NULL},
                   zc_test_no_gpu_env, &r);
    if (r.exit_code != 0)
        fail_msg("exit %d: %s", r.exit_code, r.err);
    cJSON *doc;
    cJSON *v = verify_of(&r, &doc);
    assert_int_equal(cJSON_GetObjectItem(v, "frames_checked")->valueint, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(v, "passed")));
    if (strstr(r.err, "not checked against the reference (0 frames)") == NULL)
        fail_msg("the summary does not say nothing was checked:\n%s", r.err);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
    unlink(path);

    /* One measured frame too large for a deferred check (128 MiB) and no warm-up: the table's
     * check column must not say ok. Four taps keep the host filter quick. */
    zero_file(path, (size_t)128 << 20);
    zc_test_run_zc((const char *[]){"stream", path, "--mode", "cpu", "--warmup", "0",
                                    "--frame-samples", "33554432", "--taps", "4", "--json", "-",
                                    NULL},
                   zc_test_no_gpu_env, &r);
    unlink(path);
    if (r.exit_code != 0)
        fail_msg("exit %d: %s", r.exit_code, r.err);
    v = verify_of(&r, &doc);
    assert_int_equal(cJSON_GetObjectItem(v, "frames_checked")->valueint, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(v, "passed")));
    if (strstr(r.err, "not checked (0 frames)") == NULL || strstr(r.err, " ok\n") != NULL)
        fail_msg("the table claims a check that did not happen:\n%s", r.err);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A FIFO that no writer ever opens ends the run after --timeout-ms (exit 6, naming the FIFO
 * and the option) instead of blocking in open(); a writer that comes within it is read whole. */
static void test_fifo_without_writer(void **state)
{
    (void)state;
    char dir[] = "/tmp/zc_fifo_XXXXXX", fifo[64];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/in", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const zc_test_run_opts bound = {.timeout_ms = 5000}; /* a hang fails, it does not block */
    zc_test_output r;
    double t0 = now_s();
    zc_test_run_zc_bounded(
        (const char *[]){"stream", fifo, "--mode", "cpu", "--timeout-ms", "300", NULL},
        zc_test_no_gpu_env, &bound, &r);
    double took = now_s() - t0;
    if (r.exit_code != 6 || strstr(r.err, fifo) == NULL || strstr(r.err, "no writer") == NULL ||
        strstr(r.err, "300 ms") == NULL || strstr(r.err, "--timeout-ms") == NULL)
        fail_msg("exit %d after %.2f s:\n%s", r.exit_code, took, r.err);
    assert_true(took < 2.5);
    zc_test_output_free(&r);

    /* A writer that opens the FIFO 200 ms late, within the 2 s, is waited for and read whole. */
    pid_t writer = fork();
    assert_true(writer >= 0);
    if (writer == 0) {
        struct timespec late = {0, 200000000};
        nanosleep(&late, NULL);
        int fd = open(fifo, O_WRONLY);
        static float x[3000];
        for (size_t i = 0; i < 3000; i++)
            x[i] = (float)(i % 17) / 17.0f;
        _exit(fd >= 0 && write(fd, x, sizeof x) == (ssize_t)sizeof x ? 0 : 1);
    }
    zc_test_run_zc_bounded(
        (const char *[]){"stream", fifo, "--mode", "cpu", "--timeout-ms", "2000", NULL},
        zc_test_no_gpu_env, &bound, &r);
    int wstatus = 0;
    assert_int_equal(waitpid(writer, &wstatus, 0), writer);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    if (r.exit_code != 0 || strstr(r.out, "cpu: 3000 samples in, 3000 out") == NULL)
        fail_msg("exit %d\nstdout: %s\nstderr: %s", r.exit_code, r.out, r.err);
    zc_test_output_free(&r);
    unlink(fifo);
    rmdir(dir);
}

/* The taps and the samples cannot both come from stdin: refused (exit 2) before either is read,
 * rather than the taps eating the samples (or the samples the taps). */
static void test_taps_and_input_both_stdin(void **state)
{
    (void)state;
    char path[] = "/tmp/zc_taps_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "0.25 0.5 0.25\n", 14), 14); /* would pass as a taps file */
    close(fd);
    const zc_test_run_opts from_file = {.stdin_path = path, .timeout_ms = 10000};
    const char *const *cases[] = {
        (const char *[]){"stream", "-", "--taps-file", "-", "--mode", "cpu", NULL},
        (const char *[]){"stream", "--taps-file", "-", "--source", "-", "--mode", "cpu", NULL},
    };
    for (size_t i = 0; i < 2; i++) {
        zc_test_output r;
        zc_test_run_zc_bounded(cases[i], zc_test_no_gpu_env, &from_file, &r);
        if (r.exit_code != 2 ||
            strstr(r.err, "--taps-file - and the input - both name stdin") == NULL)
            fail_msg("case %zu: exit %d\nstdout: %s\nstderr: %s", i, r.exit_code, r.out, r.err);
        assert_null(strstr(r.out, "running cpu")); /* nothing ran */
        zc_test_output_free(&r);
    }
    /* Either alone from stdin is fine. */
    zc_test_output r;
    zc_test_run_zc_bounded(
        (const char *[]){"stream", "--taps-file", "-", "--mode", "cpu", "--frames", "2", NULL},
        zc_test_no_gpu_env, &from_file, &r);
    if (r.exit_code != 0 || strstr(r.out, "3 taps") == NULL)
        fail_msg("exit %d\nstdout: %s\nstderr: %s", r.exit_code, r.out, r.err);
    zc_test_output_free(&r);
    unlink(path);
}

/* The cpu mode alone, each run a fresh process with a bound, from a file and from a pipe fed in
 * uneven pieces: as many samples out as in, exit 0; one lane and three, real and complex. */
static void test_cpu_alone_from_file_and_pipe(void **state)
{
    (void)state;
    const size_t samples = 1024 * 30 + 78; /* not a multiple of the frame */
    char input[40];
    stream_cli_input(input, samples, (size_t)-1);
    const char *const one_lane[] = {"--mode", "cpu", NULL};
    const char *const three_lanes[] = {"--mode", "cpu", "--lanes", "3", NULL};
    /* The same bytes as I/Q pairs: half as many samples, two values each. */
    const char *const iq[] = {"--mode",          "cpu", "--format", "cf32", "--in-flight", "3",
                              "--frame-samples", "512", NULL};
    const stream_cli_from from[] = {STREAM_CLI_FILE, STREAM_CLI_PIPE};
    const char *const *env = zc_test_no_gpu_env;
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(stream_cli_check_all_out(input, samples, 1, from[i], one_lane, env), 1);
        assert_int_equal(stream_cli_check_all_out(input, samples, 1, from[i], three_lanes, env), 1);
        assert_int_equal(stream_cli_check_all_out(input, samples / 2, 2, from[i], iq, env), 1);
    }
    unlink(input);
}

/* A NaN that comes through a pipe in pieces is named at its own place: sample 3000 is in frame
 * 2 of 1024-sample frames (it was said to be sample 3952, frame 3, when earlier pieces had left
 * part of a frame staged), and the failed run leaves the file it would have replaced as it was
 * (here empty; pipeline_test.sh checks the 3000 samples before it reach stdout). */
static void test_cpu_nan_through_a_pipe(void **state)
{
    (void)state;
    char input[40], out[] = "/tmp/zc_stream_out_XXXXXX";
    stream_cli_input(input, 5000, 3000);
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    /* A pause after each piece, so that zc reads them one by one, as from a slow writer. */
    const zc_test_run_opts piped = {
        .stdin_path = input, .stdin_pipe = 1, .timeout_ms = STREAM_CLI_TIMEOUT_MS, .pause_ms = 2};
    zc_test_output r;
    zc_test_run_zc_bounded(
        (const char *[]){"stream", "-", "--mode", "cpu", "--output", out, "--force", NULL},
        zc_test_no_gpu_env, &piped, &r);
    struct stat info;
    assert_int_equal(stat(out, &info), 0);
    unlink(out);
    unlink(input);
    if (r.exit_code != 2 || strstr(r.err, "sample 3000 (frame 2, channel 0) is NaN") == NULL ||
        strstr(r.err, "not written") == NULL || info.st_size != 0)
        fail_msg("exit %d, %lld bytes out:\n%s", r.exit_code, (long long)info.st_size, r.err);
    zc_test_output_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_taps_file_errors),
        cmocka_unit_test(test_cpu_mode_without_gpu),
        cmocka_unit_test(test_save_taps_round_trip),
        cmocka_unit_test(test_zero_frames_checked),
        cmocka_unit_test(test_fifo_without_writer),
        cmocka_unit_test(test_taps_and_input_both_stdin),
        cmocka_unit_test(test_cpu_alone_from_file_and_pipe),
        cmocka_unit_test(test_cpu_nan_through_a_pipe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
