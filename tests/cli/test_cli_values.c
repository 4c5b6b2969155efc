/* SPDX-License-Identifier: Apache-2.0 */
/* Option values as every zc command reads them, without a GPU: an empty value is an error that
 * names the option, counts are whole numbers, and each refusal says what would be accepted. */
#include "test_support.h"

#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zerocopy/filter.h"

#define H200   ZC_CLI_FIXTURES "/../advise/h200.profile.json"
#define STREAM ZC_CLI_FIXTURES "/../../bench/results/h200-20261201/engine/stream_latency_4k.json"
#define NO_GPU zc_test_no_gpu_env

static char g_dir[] = "/tmp/zc_cli_values_XXXXXX";

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(g_dir) != NULL ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A path in the test's folder (one of a few rotating buffers). */
static const char *in_dir(const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", g_dir, name);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* zc with args exits 2, prints nothing on stdout and names the refusal on stderr. */
static void expect_refused(const char *const *args, const char *says)
{
    zc_test_output r;
    zc_test_run_zc(args, NO_GPU, &r);
    char line[512] = "";
    for (size_t i = 0; args[i] != NULL; i++) {
        size_t used = strlen(line);
        snprintf(line + used, sizeof line - used, " '%s'", args[i]);
    }
    if (r.exit_code != 2 || strstr(r.err, says) == NULL || r.out[0] != '\0')
        fail_msg("zc%s: exit %d (wanted 2), stderr lacks '%s'?\nstdout: %s\nstderr: %s", line,
                 r.exit_code, says, r.out, r.err);
    zc_test_output_free(&r);
}

/* An empty value is refused as "OPTION needs a value, not an empty one", in both spellings
 * ("--opt ''" and "--opt="), for every command, before anything runs. */
static void test_empty_values_are_errors(void **state)
{
    (void)state;
    static const struct {
        const char *command, *option;
    } cases[] = {
        {"info", "--json"},           {"info", "--device"},        {"bench", "--json"},
        {"bench", "--csv"},           {"bench", "--sizes"},        {"bench", "--devices"},
        {"bench", "--case"},          {"advise", "--profile"},     {"advise", "--workload"},
        {"advise", "--save-profile"}, {"advise", "--bytes"},       {"advise", "--direction"},
        {"advise", "--out"},          {"advise", "--stream"},      {"advise", "--frame-rate"},
        {"stream", "--tones"},        {"stream", "--mode"},        {"stream", "--source"},
        {"stream", "--output"},       {"stream", "--taps-file"},   {"stream", "--save-taps"},
        {"stream", "--devices"},      {"stream", "--json"},        {"trace", "--lib"},
        {"trace", "--keep-logs"},     {"trace", "--bench"},        {"trace", "--json"},
        {"trace", "--output"},        {"trace", "--ram"},          {"report", "--title"},
        {"report", "--output"},       {"report", "--picture-dot"},
    };
    const char *marker = in_dir("ran");
    char script[600];
    snprintf(script, sizeof script, "touch '%s'", marker);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char says[64], joined[64];
        snprintf(says, sizeof says, "%s needs a value, not an empty one", cases[i].option);
        snprintf(joined, sizeof joined, "%s=", cases[i].option);
        expect_refused((const char *[]){cases[i].command, cases[i].option, "", "--", "/bin/sh",
                                        "-c", script, NULL},
                       says);
        expect_refused(
            (const char *[]){cases[i].command, joined, "--", "/bin/sh", "-c", script, NULL}, says);
    }
    /* Short options too, named as written. */
    expect_refused((const char *[]){"info", "-j", "", NULL}, "-j needs a value, not an empty one");
    expect_refused((const char *[]){"stream", "-o", "", NULL},
                   "-o needs a value, not an empty one");
    expect_refused((const char *[]){"trace", "-o", "", "--", "/bin/sh", "-c", script, NULL},
                   "-o needs a value, not an empty one");
    /* The source of a stream, given without --source. */
    expect_refused((const char *[]){"stream", "", NULL}, "SOURCE needs a value, not an empty one");
    /* The traced program never ran. */
    assert_int_not_equal(access(marker, F_OK), 0);
}

/* Counts of transfers are whole numbers from 1 to the largest supported, on the command line
 * and in a workload file; 0 in a file is refused, not taken as 1. */
static void test_transfer_counts_are_whole(void **state)
{
    (void)state;
    static const char *const bad[] = {"1.5", "1e3", "0", "0.0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused((const char *[]){"advise", "--profile", H200, "--transfers", bad[i], NULL},
                       "--transfers needs a whole number of transfers, 1 to 1000000000000000");
    zc_test_expect_zc(
        (const char *[]){"advise", "--profile", H200, "--transfers", "1000000000000000", NULL},
        NO_GPU, 0, "1e+15 transfers", NULL);
    static const struct {
        const char *json, *says;
    } files[] = {
        {"{\"transfers\": 0}",
         "transfers must be a whole number from 1 to 1000000000000000, got 0"},
        {"{\"transfers\": 0, \"rate_hz\": 100}", "transfers must be a whole number from 1"},
        {"{\"transfers\": 1.5}", "transfers must be a whole number from 1"},
        {"{\"transfers\": -3}", "transfers must be a whole number from 1"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const char *w = in_dir("workload.json");
        write_text(w, files[i].json);
        expect_refused((const char *[]){"advise", "--profile", H200, "--workload", w, NULL},
                       files[i].says);
    }
}

/* A count too large for the model says so, with the largest supported; a prediction that
 * overflows says that, not that the profile lacks figures. */
static void test_huge_workloads_say_why(void **state)
{
    (void)state;
    expect_refused(
        (const char *[]){"advise", "--profile", H200, "--transfers", "1000000000000000000", NULL},
        "--transfers: 1000000000000000000 is over the largest supported count, "
        "1000000000000000");
    const char *w = in_dir("huge.json");
    write_text(w, "{\"transfers\": 1e18}");
    expect_refused((const char *[]){"advise", "--profile", H200, "--workload", w, NULL},
                   "transfers must be a whole number from 1 to 1000000000000000, got 1e+18");
    expect_refused((const char *[]){"advise", "--profile", H200, "--rate", "1e300", NULL},
                   "--rate needs transfers per second, more than 0 and at most 1e+15");
    expect_refused(
        (const char *[]){"advise", "--profile", H200, "--bytes", "1T", "--accesses", "1e300", NULL},
        "the predicted time overflows");
    zc_test_output r;
    zc_test_run_zc(
        (const char *[]){"advise", "--profile", H200, "--bytes", "1T", "--accesses", "1e300", NULL},
        NO_GPU, &r);
    assert_null(strstr(r.err, "lacks the figures"));
    zc_test_output_free(&r);
}

/* A list of valid modes of any length is read whole: every mode once, and a list longer than
 * any buffer would hold. The --frames after it is the first thing wrong. */
static void test_long_mode_lists_are_read(void **state)
{
    (void)state;
    char every[512] = "";
    for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++) {
        strcat(every, i ? "," : "");
        strcat(every, zc_stream_mode_name((zc_stream_mode)i));
    }
    char repeated[2048] = "";
    while (strlen(repeated) < 1500) {
        strcat(repeated, repeated[0] ? "," : "");
        strcat(repeated, every);
    }
    const char *lists[] = {every, repeated};
    for (size_t i = 0; i < 2; i++) {
        zc_test_output r;
        zc_test_run_zc((const char *[]){"stream", "--mode", lists[i], "--frames", "0", NULL},
                       NO_GPU, &r);
        if (r.exit_code != 2 || strncmp(r.err, "zc stream: --frames", 19) != 0)
            fail_msg("--mode of %zu characters: exit %d, stderr: %s", strlen(lists[i]), r.exit_code,
                     r.err);
        zc_test_output_free(&r);
    }
    /* Run, not only parsed: the cpu mode named 200 times is the cpu mode. */
    char cpus[1024] = "cpu";
    for (int i = 1; i < 200; i++)
        strcat(cpus, ",cpu");
    zc_test_expect_zc((const char *[]){"stream", "--mode", cpus, "--frames", "2", NULL}, NO_GPU, 0,
                      "cpu", NULL);
    /* What is wrong in a list is named. */
    expect_refused((const char *[]){"stream", "--mode", "cpu,,graph", NULL},
                   "--mode needs modes separated by single commas");
    expect_refused((const char *[]){"stream", "--mode", "cpu,bogus", NULL}, "unknown mode 'bogus'");
}

/* A size that is not a whole number of bytes says so and suggests spellings that are valid,
 * each of which is then accepted. */
static void test_fractional_sizes_suggest_valid_spellings(void **state)
{
    (void)state;
    static const struct {
        const char *text, *says, *valid[2];
    } cases[] = {
        {"1.5",
         "--bytes: 1.5 is not a whole number of bytes; did you mean 1.5K (1536 bytes)?",
         {"1.5K", NULL}},
        {"0.25",
         "--bytes: 0.25 is not a whole number of bytes; did you mean 0.25K (256 bytes)?",
         {"0.25K", NULL}},
        {"1.3", "--bytes: 1.3 is not a whole number of bytes; did you mean 1 or 2?", {"1", "2"}},
        {"0.1", "--bytes: 0.1 is not a whole number of bytes; did you mean 1?", {"1", NULL}},
        {"1.3K",
         "--bytes: 1.3K is 1331.2 bytes, not a whole number; did you mean 1331 or 1332?",
         {"1331", "1332"}},
        {"2.0000001 KiB",
         "--bytes: 2.0000001 KiB is 2048.0001024 bytes, not a whole number; did you mean 2048 or "
         "2049?",
         {"2048", "2049"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect_refused(
            (const char *[]){"advise", "--profile", H200, "--bytes", cases[i].text, NULL},
            cases[i].says);
        for (size_t k = 0; k < 2 && cases[i].valid[k] != NULL; k++)
            zc_test_expect_zc(
                (const char *[]){"advise", "--profile", H200, "--bytes", cases[i].valid[k], NULL},
                NO_GPU, 0, NULL, NULL);
    }
    /* The same for every size option; what is not a size at all is said by the grammar. */
    expect_refused((const char *[]){"advise", "--frame", "1.5", "--stream", H200, NULL},
                   "--frame: 1.5 is not a whole number of bytes; did you mean 1.5K (1536 bytes)?");
    expect_refused((const char *[]){"trace", "--ram", "1.5", "--", "/bin/true", NULL},
                   "--ram: 1.5 is not a whole number of bytes; did you mean 1.5K (1536 bytes)?");
    expect_refused((const char *[]){"bench", "--sizes", "4K,1.5", NULL},
                   "--sizes: 1.5 is not a whole number of bytes; did you mean 1.5K (1536 bytes)?");
    expect_refused((const char *[]){"advise", "--profile", H200, "--bytes", "4Q", NULL},
                   "--bytes: '4Q' is not a byte count");
    expect_refused((const char *[]){"advise", "--profile", H200, "--bytes", "2T", NULL},
                   "--bytes: '2T' is not a size from 1 B to 1 TiB");
}

/* Every range-checked number says its range when refused, from the same figures it checks. */
static void test_refused_numbers_say_their_range(void **state)
{
    (void)state;
    static const struct {
        const char *args[8], *says;
    } cases[] = {
        {{"stream", "--rate", "1e300"}, "--rate needs samples per second from 1 to 1e+12, got"},
        {{"stream", "--paced", "0.5"}, "--paced needs samples per second from 1 to 1e+12, got"},
        {{"stream", "--frames", "0"}, "--frames needs a number of frames from 1 to 1000000000000"},
        {{"stream", "--duration", "1e6"}, "--duration needs seconds from 0.001 to 86400, got"},
        {{"stream", "--warmup", "1000000000"},
         "--warmup needs a number of frames from 0 to "
         "100000000, got"},
        {{"stream", "--frame-samples", "2"},
         "--frame-samples needs a number of samples from 4 "
         "to 67108864"},
        {{"stream", "--in-flight", "0"}, "--in-flight needs a number of frames from 1 to 1024"},
        {{"stream", "--noise", "1e7"}, "--noise needs an amplitude from 0 to 1e+06, got"},
        {{"stream", "--lowpass", "0"}, "--lowpass needs a cutoff in Hz from 1e-09 to 1e+12"},
        {{"stream", "--taps", "0"}, "--taps needs a number of taps from 1 to"},
        {{"stream", "--timeout-ms", "0"}, "--timeout-ms needs milliseconds from 1 to 3600000"},
        {{"stream", "--tones", "10,inf"},
         "--tones needs up to 8 frequencies in Hz from 0 to "
         "1e+12, comma-separated, got '10,inf'"},
        {{"stream", "--tones", "1,2,3,4,5,6,7,8,9"}, "--tones needs up to 8 frequencies"},
        {{"stream", "--device", "5000"}, "--device needs a GPU number from 0 to 1023, got"},
        {{"info", "--device", "5000"}, "--device needs a GPU number from 0 to 1023, got"},
        {{"bench", "--device", "5000"}, "--device needs a GPU number from 0 to 1023, got"},
        {{"advise", "--device", "5000"}, "--device needs a GPU number from 0 to 1023, got"},
        {{"advise", "--accesses", "0.5"},
         "--accesses needs reads or writes per byte from 1 to "
         "1e+300, got"},
        {{"advise", "--latency-budget", "0"},
         "--latency-budget needs microseconds, more than 0 "
         "and at most 1e+300, got"},
        {{"advise", "--seconds-per-run", "61"}, "--seconds-per-run needs seconds from 0.001 to 60"},
        {{"advise", "--rounds", "17"}, "--rounds needs a number of rounds from 1 to 16, got"},
        {{"advise", "--random", "0"}, "--random needs a number of workloads from 1 to 1000"},
        {{"advise", "--seed", "18446744073709551616"},
         "--seed needs a whole number from 0 to "
         "18446744073709551615, got"},
        {{"advise", "--frame-rate", "0"},
         "--frame-rate needs frames per second, more than 0 and "
         "at most 1e+300, or max, got"},
        {{"trace", "--ceiling", "0", "--", "/bin/true"},
         "--ceiling needs GB/s from 1e-09 to "
         "1e+06, got"},
        {{"trace", "--device", "5000", "--", "/bin/true"},
         "--device needs a GPU number from 0 to "
         "1023, got"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(cases[i].args, cases[i].says);
    /* A core that this process cannot run on is named with the ones it can. */
    zc_test_output r;
    zc_test_run_zc((const char *[]){"stream", "--cpu", "99999", "--mode", "cpu", NULL}, NO_GPU, &r);
    assert_int_equal(r.exit_code, 2);
    if (strstr(r.err, "--cpu: 99999 is not an online CPU that zc may use (") == NULL)
        fail_msg("stderr: %s", r.err);
    zc_test_output_free(&r);
    cpu_set_t allowed;
    assert_int_equal(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    int usable = 0;
    while (!CPU_ISSET(usable, &allowed))
        usable++;
    char cpu[16];
    snprintf(cpu, sizeof cpu, "%d", usable);
    zc_test_expect_zc(
        (const char *[]){"stream", "--cpu", cpu, "--mode", "cpu", "--frames", "2", NULL}, NO_GPU, 0,
        "cpu", NULL);
    expect_refused((const char *[]){"stream", "--cpu", "x", NULL},
                   "--cpu needs the number of an online CPU that zc may use (");
}

/* --validate runs transfer workloads: asked of a stream it is refused, not ignored. */
static void test_validate_refuses_stream_advice(void **state)
{
    (void)state;
    static const char says[] = "--validate checks transfer workloads; for a stream, run zc stream "
                               "and give its results with --stream";
    expect_refused(
        (const char *[]){"advise", "--frame", "4K", "--stream", STREAM, "--validate", NULL}, says);
    expect_refused((const char *[]){"advise", "--validate", "--frame", "4K", "--frame-rate", "100",
                                    "--profile", H200, "--stream", STREAM, NULL},
                   says);
    expect_refused((const char *[]){"advise", "--stream-check", STREAM, "--validate", NULL}, says);
}

/* An option given with nothing for it to act on, with one it contradicts, or twice when it
 * takes one value, is refused before anything runs: never silently ignored or replaced. */
static void test_unused_and_repeated_options_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *args[12];
        const char *says;
    } cases[] = {
        {{"advise", "--profile", H200, "--seed", "3"},
         "--seed has no effect without --random: add it, or drop --seed"},
        {{"advise", "--profile", H200, "--validate", "--seed", "3"},
         "--seed has no effect without --random"},
        {{"advise", "--profile", H200, "--rounds", "2"},
         "--rounds has no effect without --validate"},
        {{"advise", "--profile", H200, "--random", "3"},
         "--random has no effect without --validate"},
        {{"advise", "--profile", H200, "--out", "d"}, "--out has no effect without --validate"},
        {{"advise", "--profile", H200, "--seconds-per-run", "1"},
         "--seconds-per-run has no effect without --validate"},
        {{"advise", "--profile", H200, "--frame-rate", "100"},
         "--frame-rate has no effect without --frame"},
        {{"advise", "--profile", H200, "--stream", STREAM},
         "--stream has no effect without --frame or --stream-check: add one, or drop --stream"},
        {{"advise", "--profile", H200, "--profile", H200},
         "--profile was given 2 times; it takes one value, give it once"},
        {{"advise", "--profile", H200, "--bytes", "4K", "--bytes", "8K"},
         "--bytes was given 2 times"},
        {{"advise", "--profile", H200, "--transfers", "1", "--transfers", "2"},
         "--transfers was given 2 times"},
        {{"report", "--title", "a", "--title", "b", "x.json"}, "--title was given 2 times"},
        {{"stream", "--mode", "cpu", "--protocol", "flag"},
         "--protocol has no effect without a mode on a ring: add zerocopy or hybrid to --mode"},
        {{"stream", "--mode", "cpu,graph", "--gpu-blocks", "4"},
         "--gpu-blocks has no effect without a mode on a ring"},
        {{"stream", "--mode", "cpu", "--cpu", "0", "--no-pin"},
         "--cpu and --no-pin exclude each other"},
        {{"stream", "--mode", "cpu", "--frames", "5", "--duration", "1"},
         "--frames and --duration exclude each other"},
        {{"stream", "--mode", "cpu", "--taps", "8", "--taps-file", "t"},
         "--taps and --taps-file exclude each other"},
        {{"stream", "--mode", "cpu", "--frames", "5", "--frames", "6"},
         "--frames was given 2 times"},
        {{"stream", "--mode", "cpu", "-o", "a.f32", "--output", "b.f32"},
         "--output was given 2 times"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(cases[i].args, cases[i].says);
    /* What stays allowed: a ring mode among others takes --protocol and --gpu-blocks, --stream
     * serves --stream-check, --seed serves --random, and --mode may repeat. */
    zc_test_expect_zc((const char *[]){"advise", "--profile", H200, "--stream-check", STREAM,
                                       "--stream", STREAM, NULL},
                      NO_GPU, 0, NULL, NULL);
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--mode", "cpu", "--frames", "1",
                                       "--warmup", "0", NULL},
                      NO_GPU, 0, NULL, NULL);
}

/* A workload far past any real one is priced in figures of bounded width: never a column of
 * hundreds of digits. */
static void test_huge_predictions_print_bounded(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"advise", "--profile", H200, "--transfers", "1000000000000000",
                                    "--accesses", "1e200", NULL},
                   NO_GPU, &r);
    assert_int_equal(r.exit_code, 0);
    size_t run = 0, longest = 0;
    for (const char *c = r.out; *c != '\0'; c++) {
        run = *c >= '0' && *c <= '9' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    if (longest > 16)
        fail_msg("a figure of %zu digits:\n%s", longest, r.out);
    zc_test_output_free(&r);
}

/* zc stream's outputs are refused together before any run: the taps are not written when the
 * command is refused, and --output and --save-taps naming one file (by any name) are refused. */
static void test_stream_outputs_refused_before_the_run(void **state)
{
    (void)state;
    const char *taps = in_dir("refused-taps.txt");
    zc_test_expect_zc((const char *[]){"stream", in_dir("no-such-input.f32"), "--mode", "cpu",
                                       "--save-taps", taps, NULL},
                      NO_GPU, 2, NULL, "no-such-input.f32");
    struct stat info;
    assert_int_not_equal(stat(taps, &info), 0);
    const char *out = in_dir("o.f32"), *other = in_dir("hard.f32");
    write_text(out, "old\n");
    assert_int_equal(link(out, other), 0);
    static const char says[] = "is named by two outputs of this command";
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--frames", "5", "--output", out,
                                       "--save-taps", out, "--force", NULL},
                      NO_GPU, 2, NULL, says);
    zc_test_expect_zc((const char *[]){"stream", "--mode", "cpu", "--frames", "5", "--output",
                                       other, "--save-taps", out, "--force", NULL},
                      NO_GPU, 2, NULL, says);
    size_t len = 0;
    char *text = zc_test_read_file(out, &len);
    assert_string_equal(text, "old\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_values_are_errors),
        cmocka_unit_test(test_transfer_counts_are_whole),
        cmocka_unit_test(test_huge_workloads_say_why),
        cmocka_unit_test(test_long_mode_lists_are_read),
        cmocka_unit_test(test_fractional_sizes_suggest_valid_spellings),
        cmocka_unit_test(test_refused_numbers_say_their_range),
        cmocka_unit_test(test_validate_refuses_stream_advice),
        cmocka_unit_test(test_unused_and_repeated_options_are_refused),
        cmocka_unit_test(test_huge_predictions_print_bounded),
        cmocka_unit_test(test_stream_outputs_refused_before_the_run),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
