/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream end to end on a GPU: every mode in one run, its JSON, output samples, paced input,
 * and raw int16 input from a file; every mode alone in a fresh process, from a file and a pipe,
 * and modes together, each run bounded so that a hang fails. */
#include "test_support.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "stream_check.h"
#include "stream_cli_check.h"
#include "zerocopy/stream.h"

static cJSON *run_json(const char *const *args, int want_exit, zc_test_output *r)
{
    zc_test_run_zc(args, NULL, r);
    if (r->exit_code != want_exit)
        fail_msg("exit %d (wanted %d)\nstderr: %s", r->exit_code, want_exit, r->err);
    cJSON *doc = cJSON_Parse(r->out);
    if (doc == NULL)
        fail_msg("not JSON: %.400s\nstderr: %s", r->out, r->err);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "zerocopy.stream/1");
    return doc;
}

/* The modes "--mode all" runs, or under compute-sanitizer every mode but hybrid (stream_check.h
 * says why); with --protocol both, zerocopy (and hybrid) run twice, LL and FLAG. */
static const char *all_modes(void)
{
    static char list[256];
    if (!zc_test_under_sanitizer())
        return "all";
    if (list[0] == '\0') {
        size_t used = 0;
        for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
            if (stream_check_sanitizer_skips((zc_stream_mode)m, ZC_RING_PROTO_LL))
                continue;
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? "," : "",
                                     zc_stream_mode_name((zc_stream_mode)m));
            assert_true(used < sizeof list);
        }
    }
    return list;
}

/* How many runs all_modes() makes: each mode once, the modes on a ring twice. */
static int runs_of_all_modes(void)
{
    int runs = 0;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        if (zc_test_under_sanitizer() && m == ZC_STREAM_HYBRID)
            continue;
        runs += zc_stream_mode_on_ring((zc_stream_mode)m) ? 2 : 1;
    }
    return runs;
}

static void test_mode_all(void **state)
{
    (void)state;
    zc_test_output r;
    cJSON *doc = run_json((const char *[]){"stream", "--mode", all_modes(), "--protocol", "both",
                                           "--frames", "2000", "--warmup", "100", "--verify", "all",
                                           "--json", "-", NULL},
                          0, &r);
    fprintf(stderr, "%s", r.err);
    cJSON *runs = cJSON_GetObjectItem(doc, "runs");
    /* zerocopy and hybrid twice (ll and flag), cpu and classic-overlap among them */
    assert_int_equal(cJSON_GetArraySize(runs), runs_of_all_modes());
    cJSON *run;
    cJSON_ArrayForEach(run, runs)
    {
        const char *name = cJSON_GetObjectItem(run, "name")->valuestring;
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(run, "ok")));
        assert_int_equal(cJSON_GetObjectItem(run, "frames")->valueint, 2000);
        assert_int_equal(cJSON_GetObjectItem(run, "dropped")->valueint, 0);
        cJSON *lat = cJSON_GetObjectItem(run, "latency_us");
        double p50 = cJSON_GetObjectItem(lat, "p50")->valuedouble;
        double p99 = cJSON_GetObjectItem(lat, "p99")->valuedouble;
        assert_true(p50 > 0 && p50 <= p99);
        cJSON *v = cJSON_GetObjectItem(run, "verify");
        assert_int_equal(cJSON_GetObjectItem(v, "frames_checked")->valueint, 2100);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(v, "passed")));
        double histo_total = 0;
        cJSON *bin;
        cJSON_ArrayForEach(bin, cJSON_GetObjectItem(run, "histogram_us"))
        {
            histo_total += cJSON_GetObjectItem(bin, "count")->valuedouble;
        }
        assert_int_equal((int)histo_total, 2000);
        fprintf(stderr, "%-16s p50 %.2f us p99 %.2f us\n", name, p50, p99);
    }
    cJSON *cmp = cJSON_GetObjectItem(doc, "comparison");
    assert_non_null(cJSON_GetObjectItem(cmp, "p50_speedup_vs_classic_pinned"));
    cJSON *host = cJSON_GetObjectItem(doc, "host");
    assert_non_null(cJSON_GetObjectItem(host, "pinning"));
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

static void test_reuse_many_in_flight(void **state)
{
    (void)state;
    zc_test_output r;
    /* Frames republished from the transport buffers; sampled checks deferred past the loop. */
    cJSON *doc =
        run_json((const char *[]){"stream", "--mode", all_modes(), "--protocol", "both",
                                  "--frame-samples", "65536", "--in-flight", "6", "--frames", "400",
                                  "--warmup", "20", "--reuse", "--json", "-", NULL},
                 0, &r);
    cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItem(doc, "runs"))
    {
        cJSON *v = cJSON_GetObjectItem(run, "verify");
        fprintf(
            stderr, "%-16s %.2f GB/s, %d frames checked, %d buffers\n",
            cJSON_GetObjectItem(run, "name")->valuestring,
            cJSON_GetObjectItem(cJSON_GetObjectItem(run, "throughput"), "gb_per_s")->valuedouble,
            cJSON_GetObjectItem(v, "frames_checked")->valueint,
            cJSON_GetObjectItem(run, "host_buffers")->valueint);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(run, "ok")));
        assert_int_equal(cJSON_GetObjectItem(run, "frames")->valueint, 400);
        assert_true(cJSON_GetObjectItem(v, "frames_checked")->valueint >= 22);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(v, "passed")));
    }
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

static void test_paced_and_output(void **state)
{
    (void)state;
    char out_path[] = "/tmp/zc_stream_out_XXXXXX";
    int fd = mkstemp(out_path);
    assert_true(fd >= 0);
    close(fd);
    zc_test_output r;
    /* 2 M samples/s for 0.5 s in 4096-sample frames: about 244 frames, none dropped. */
    cJSON *doc =
        run_json((const char *[]){"stream", "--paced", "2000000", "--duration", "0.5",
                                  "--frame-samples", "4096", "--in-flight", "4", "--warmup", "0",
                                  "--output", out_path, "--force", "--json", "-", NULL},
                 0, &r);
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "runs"), 0);
    int frames = cJSON_GetObjectItem(run, "frames")->valueint;
    fprintf(stderr, "paced: %d frames, %d dropped\n", frames,
            cJSON_GetObjectItem(run, "dropped")->valueint);
    assert_true(frames >= 200 && frames <= 260);
    assert_int_equal(cJSON_GetObjectItem(run, "dropped")->valueint, 0);
    FILE *f = fopen(out_path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    assert_int_equal(ftell(f), (long)frames * 4096 * 4);
    fclose(f);
    unlink(out_path);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

static void test_int16_file_complex(void **state)
{
    (void)state;
    char in_path[] = "/tmp/zc_stream_in_XXXXXX";
    int fd = mkstemp(in_path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    for (int i = 0; i < 2 * 1024 * 50; i++) {
        int16_t v = (int16_t)(10000.0 * sin(0.01 * i) + (i % 13) * 100);
        fwrite(&v, sizeof v, 1, f);
    }
    fclose(f);
    zc_test_output r;
    cJSON *doc =
        run_json((const char *[]){"stream", "--source", in_path, "--format", "s16", "--complex",
                                  "--mode", "zerocopy,classic-pinned", "--frames", "1000",
                                  "--warmup", "0", "--verify", "all", "--json", "-", NULL},
                 0, &r);
    cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItem(doc, "runs"))
    {
        /* 50 frames of 1024 I/Q pairs in the file: the input ends first. */
        assert_int_equal(cJSON_GetObjectItem(run, "frames")->valueint, 50);
        assert_true(
            cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(run, "verify"), "passed")));
    }
    unlink(in_path);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

/* Lazy loading (the default since CUDA 12.2 on Linux) said outright: stream-wait hung under it. */
static const char *const lazy_env[] = {"CUDA_MODULE_LOADING=LAZY", NULL};

/* A synthetic run of args (after "stream") in a fresh, bounded process: exit 0, and frames
 * (warm-up included) of 1024 samples in and out. */
static void check_synth_run(const char *const *args, uint64_t frames)
{
    const char *argv[32] = {"stream"};
    size_t n = 1;
    for (size_t i = 0; args[i] != NULL && n < 28; i++)
        argv[n++] = args[i];
    argv[n++] = "--json";
    argv[n++] = "-";
    argv[n] = NULL;
    const zc_test_run_opts bound = {.timeout_ms = STREAM_CLI_TIMEOUT_MS};
    zc_test_output r;
    zc_test_run_zc_bounded(argv, lazy_env, &bound, &r);
    if (r.exit_code != 0)
        fail_msg("exit %d\nstderr: %s", r.exit_code, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    cJSON *samples =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "runs"), 0), "samples");
    assert_non_null(samples);
    assert_true(cJSON_GetObjectItem(samples, "in")->valuedouble == (double)frames * 1024);
    assert_true(cJSON_GetObjectItem(samples, "out")->valuedouble == (double)frames * 1024);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
}

/*
 * stream-wait as the only mode of a fresh process: it queued its frames behind waits on words
 * the CPU had not written yet, and the first launch of the FIR kernel, loading it lazily, then
 * never returned (so --timeout-ms could not stop it either); after another GPU mode in the same
 * process the kernel was loaded and it ran. Synthetic, file and pipe input, 1, 2 and 4 in
 * flight, each bounded: a hang fails.
 */
static void test_stream_wait_alone_in_a_fresh_process(void **state)
{
    (void)state;
    const size_t samples = 1024 * 40 + 78;
    char input[40];
    stream_cli_input(input, samples, (size_t)-1);
    const char *const in_flight[] = {"1", "2", "4"};
    for (size_t i = 0; i < 3; i++) {
        check_synth_run((const char *[]){"--mode", "stream-wait", "--in-flight", in_flight[i],
                                         "--frames", "300", "--warmup", "20", NULL},
                        320);
        const char *const args[] = {"--mode", "stream-wait", "--in-flight", in_flight[i], NULL};
        assert_int_equal(
            stream_cli_check_all_out(input, samples, 1, STREAM_CLI_FILE, args, lazy_env), 1);
        assert_int_equal(
            stream_cli_check_all_out(input, samples, 1, STREAM_CLI_PIPE, args, lazy_env), 1);
    }
    const char *const with_timeout[] = {"--mode", "stream-wait", "--timeout-ms", "500", NULL};
    assert_int_equal(
        stream_cli_check_all_out(input, samples, 1, STREAM_CLI_FILE, with_timeout, lazy_env), 1);
    unlink(input);
}

/* Every GPU mode of the table (zerocopy with each protocol) alone, each run a fresh process with
 * a bound, from a file and from a pipe, 1 and 3 frames in flight: as many samples out as in,
 * exit 0. A mode added to the table is run here without a change. */
static void test_every_mode_alone(void **state)
{
    (void)state;
    const size_t samples = 1024 * 40 + 78;
    char input[40];
    stream_cli_input(input, samples, (size_t)-1);
    const stream_cli_from from[] = {STREAM_CLI_FILE, STREAM_CLI_PIPE};
    const char *const in_flight[] = {"1", "3"};
    /* Under the sanitizer one in flight only, from a file and a pipe: each run there takes
     * seconds, and what it watches (memory) is the same with three in flight. */
    const size_t cases = zc_test_under_sanitizer() ? 2 : 4;
    int runs = 0;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        if (m == ZC_STREAM_CPU)
            continue; /* the cpu tests' (cpu_stream_cli) */
        const int protocols = zc_stream_mode_on_ring((zc_stream_mode)m) ? 2 : 1;
        for (int p = 0; p < protocols; p++) {
            if (stream_check_sanitizer_skips((zc_stream_mode)m,
                                             p == 0 ? ZC_RING_PROTO_LL : ZC_RING_PROTO_FLAG))
                continue;
            for (size_t k = 0; k < cases; k++) {
                /* --protocol only for a mode on a ring: elsewhere zc stream refuses it */
                const char *const args[] = {"--mode",
                                            zc_stream_mode_name((zc_stream_mode)m),
                                            "--in-flight",
                                            in_flight[k / 2],
                                            protocols > 1 ? "--protocol" : NULL,
                                            p == 0 ? "ll" : "flag",
                                            NULL};
                fprintf(stderr, "%s%s%s, %s in flight, from a %s\n",
                        zc_stream_mode_name((zc_stream_mode)m), protocols > 1 ? " " : "",
                        protocols > 1 ? args[5] : "", in_flight[k / 2],
                        from[k % 2] == STREAM_CLI_FILE ? "file" : "pipe");
                runs += stream_cli_check_all_out(input, samples, 1, from[k % 2], args, lazy_env);
            }
        }
    }
    /* every GPU mode (all but cpu), zerocopy and hybrid twice */
    assert_int_equal(runs, (int)cases * (runs_of_all_modes() - 1));
    unlink(input);
}

/* Modes together in one process, from a file and from a pipe: each run takes and gives back
 * every sample. stream-wait comes last in a run (the table's order): after the cpu mode, which
 * loads no kernel, it is first on the GPU, as alone. */
static void test_mode_combinations(void **state)
{
    (void)state;
    const size_t samples = 1024 * 40 + 78;
    char input[40];
    stream_cli_input(input, samples, (size_t)-1);
    /* The long list in parentheses: one string, not two that lost their comma (clang asks). */
    const char *const lists[] = {"cpu,stream-wait", "zerocopy,stream-wait",
                                 ("mapped-launch,classic-pageable,classic-pinned,graph,"
                                  "classic-overlap"),
                                 all_modes()};
    const int wanted[] = {2, 2, 5, runs_of_all_modes()};
    for (size_t i = 0; i < 4; i++) {
        /* the last list with both protocols, as "all" has them by default */
        const char *const args[] = {
            "--mode", lists[i], "--in-flight", "2", i == 3 ? "--protocol" : NULL, "both", NULL};
        for (int f = 0; f < 2; f++) {
            int runs = stream_cli_check_all_out(
                input, samples, 1, f ? STREAM_CLI_PIPE : STREAM_CLI_FILE, args, lazy_env);
            if (runs != wanted[i])
                fail_msg("--mode %s: %d runs, %d wanted", lists[i], runs, wanted[i]);
        }
    }
    unlink(input);
}

int main(void)
{
    zc_test_require_gpu("gpu_stream_cli");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_all),
        cmocka_unit_test(test_reuse_many_in_flight),
        cmocka_unit_test(test_paced_and_output),
        cmocka_unit_test(test_int16_file_complex),
        cmocka_unit_test(test_stream_wait_alone_in_a_fresh_process),
        cmocka_unit_test(test_every_mode_alone),
        cmocka_unit_test(test_mode_combinations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
