/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's documents written by the library (zc_stream_to_json, zc_stream_multi_to_json)
 * from records of fixed numbers, held to the texts committed in tests/json/golden/: every
 * field, its order, its number and its null as zc stream --json writes them (cJSON_Print and a
 * line feed), the version aside. ZC_GOLDEN_UPDATE=1 writes the texts instead, for a change of
 * the documents that is meant (docs/json.md says what changed). */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "zerocopy/json.h"

#ifndef ZC_GOLDEN_DIR
#error "ZC_GOLDEN_DIR: the folder of the expected texts"
#endif

/* A summary whose figures follow from base, all exact in binary. */
static zc_stats stats_of(double base, size_t count)
{
    zc_stats s = {.count = count, .min = base, .max = base * 4, .mean = base * 1.5};
    s.median = base * 1.25;
    s.stddev = base / 4;
    s.cov = 0.125;
    s.p90 = base * 2;
    s.p99 = base * 3;
    s.p999 = base * 3.5;
    return s;
}

/* A run that measured frames, with every figure set. */
static void measured(zc_stream_stats *s, double p50_base, uint64_t frames)
{
    memset(s, 0, sizeof *s);
    s->samples_in = frames * 1024 + 300;
    s->samples_out = frames * 1024 + 300;
    s->samples_padded = 724;
    s->frames_submitted = s->frames_received = frames + 200;
    s->measured_offered = s->frames_measured = frames;
    s->full_waits = 3;
    s->latency_us = stats_of(p50_base, frames);
    s->histogram[0] = (zc_stream_histo_bin){.lo_us = 0, .hi_us = 0.25, .count = 0};
    s->histogram[20] = (zc_stream_histo_bin){.lo_us = 8, .hi_us = 9.5, .count = frames - 2};
    s->histogram[21] = (zc_stream_histo_bin){.lo_us = 9.5, .hi_us = 11.25, .count = 1};
    s->histogram[ZC_STREAM_HISTO_BINS - 1] =
        (zc_stream_histo_bin){.lo_us = 65536, .hi_us = INFINITY, .count = 1};
    s->seconds = 0.5;
    s->frames_per_s = (double)frames * 2;
    s->samples_per_s = s->frames_per_s * 1024;
    s->gb_per_s = s->samples_per_s * 4 / 1e9;
    s->verified = 64;
    s->max_rel_error = 0x1p-24;
    s->verify_passed = 1;
    s->finished = 1;
    s->lanes = 1;
    s->lane[0] = (zc_stream_lane_stats){.device = 0, .gpu_blocks = 4, .buffers = 2};
}

static zc_stream_doc_config config_of(void)
{
    zc_stream_doc_config c = {.frame_samples = 1024, .channels = 1, .ntaps = 64};
    c.cutoff_hz = 125000;
    c.sample_rate = 1e6;
    c.in_flight = 1;
    c.warmup = 200;
    c.frames = 1000;
    c.source = "synth";
    c.format = "f32";
    c.output_format = "f32";
    c.policy = ZC_RING_FULL_WAIT;
    c.nonfinite = ZC_STREAM_NONFINITE_REJECT;
    c.verify = ZC_STREAM_VERIFY_SAMPLE;
    return c;
}

static zc_stream_doc_host host_of(int cpu)
{
    zc_stream_doc_host h = {.cpu = cpu, .cpus_online = 16, .cpu_mhz = 2100};
    h.pinning = cpu >= 0 ? "a core of the GPU's NUMA node" : "not pinned (--no-pin)";
    h.governor = "performance";
    h.loadavg_1min = 0.25;
    h.procs_running = 2;
    return h;
}

/* The printed document, as zc writes it, against the expected text (or into it). */
static void check_golden(cJSON *doc, const char *name)
{
    assert_non_null(doc);
    /* The version changes with every release; the expected texts hold a stand-in. */
    assert_true(cJSON_IsString(cJSON_GetObjectItem(doc, "zerocopy_version")));
    cJSON_ReplaceItemInObject(doc, "zerocopy_version", cJSON_CreateString("VERSION"));
    assert_int_equal(zc_json_sanitize(doc, NULL), ZC_OK);
    char *text = cJSON_Print(doc);
    assert_non_null(text);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ZC_GOLDEN_DIR, name);
    const char *update = getenv("ZC_GOLDEN_UPDATE");
    if (update != NULL && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "%s\n", text);
        assert_int_equal(fclose(f), 0);
    }
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fail_msg("%s: cannot read it (ZC_GOLDEN_UPDATE=1 writes it)", path);
    static char expected[1 << 16];
    size_t n = fread(expected, 1, sizeof expected - 1, f);
    fclose(f);
    expected[n] = '\0';
    size_t len = strlen(text);
    int same = n == len + 1 && memcmp(expected, text, len) == 0 && expected[len] == '\n';
    if (!same) {
        size_t at = 0;
        while (at < len && at < n && expected[at] == text[at])
            at++;
        fail_msg("%s differs from the document from byte %zu: expected \"%.60s\", made \"%.60s\"",
                 path, at, expected + at, text + at);
    }
    free(text);
}

/* One GPU, every run shape: measured with a budget, a budget that could not be taken, a
 * skipped mode, a failure with nothing measured, a mode off the ring, and the comparison. */
static void test_stream_gpu(void **state)
{
    (void)state;
    static zc_stream_stats ll, flag, pinned, wait, hybrid;
    measured(&ll, 8, 1000);
    measured(&flag, 10, 1000);
    measured(&pinned, 20, 1000);
    pinned.lane[0].gpu_blocks = 4;
    pinned.lane[0].buffers = 1;
    pinned.max_rel_error = INFINITY; /* a NaN in a result: written as -1 */
    pinned.verify_passed = 0;
    memset(&wait, 0, sizeof wait);
    measured(&hybrid, 12, 40);
    hybrid.verified = 0; /* not checked: passed is null */
    hybrid.nonfinite = 3;
    hybrid.first_nonfinite = 4097;
    static zc_ring_budget budget;
    memset(&budget, 0, sizeof budget);
    budget.first_seq = 200;
    budget.frames_asked = budget.frames = 1000;
    for (int k = 0; k < ZC_RING_STEP_COUNT; k++)
        budget.step_us[k] = stats_of(0.5 + k, 1000);
    budget.total_us = stats_of(8, 1000);
    budget.before = (zc_ring_clock_sync){.round_trips = 2000, .uncertainty_ns = 1040};
    budget.drift_ppm = 2.5;
    budget.gpu_clock_mhz = 1980;
    const zc_stream_doc_run runs[] = {
        {.mode = ZC_STREAM_ZEROCOPY,
         .protocol = ZC_RING_PROTO_LL,
         .stats = &ll,
         .budget_asked = 1,
         .budget = &budget},
        {.mode = ZC_STREAM_ZEROCOPY,
         .protocol = ZC_RING_PROTO_FLAG,
         .stats = &flag,
         .budget_asked = 1,
         .budget_status = ZC_ERR_UNSUPPORTED,
         .budget_error = "the stream keeps no budget"},
        {.mode = ZC_STREAM_CLASSIC_PINNED,
         .stats = &pinned,
         .samples_written = 1024300,
         .clipped_values = 12},
        {.mode = ZC_STREAM_STREAM_WAIT,
         .status = ZC_ERR_UNSUPPORTED,
         .stats = &wait,
         .error = "stream-wait needs 64-bit stream memory operations"},
        {.mode = ZC_STREAM_HYBRID,
         .protocol = ZC_RING_PROTO_FLAG,
         .status = ZC_ERR_VERIFY,
         .error = "a result differs from the reference",
         .stats = &hybrid},
    };
    zc_device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "NVIDIA H200");
    snprintf(dev.pci_bus_id, sizeof dev.pci_bus_id, "0000:1b:00.0");
    dev.numa_node = -1;
    zc_stream_document doc = {.command = "zc stream --mode all --budget --json -", .device = &dev};
    doc.host = host_of(15);
    doc.config = config_of();
    doc.config.output_format = "s16";
    doc.runs = runs;
    doc.run_count = sizeof runs / sizeof runs[0];
    cJSON *json = NULL;
    assert_int_equal(zc_stream_to_json(&doc, &json), ZC_OK);
    /* The library's own reader takes the three runs that succeeded, and only them. */
    zc_profile profile;
    assert_int_equal(zc_profile_init(&profile), ZC_OK);
    size_t added = 0;
    assert_int_equal(zc_profile_add_stream_json(&profile, json, "golden", &added), ZC_OK);
    assert_int_equal(added, 3);
    check_golden(json, "stream_gpu.json");
    cJSON_Delete(json);
}

/* The cpu mode alone: no device, not pinned, taps from a file, paced for a duration, dropping;
 * then a run over the whole input, which measured nothing. */
static void test_stream_cpu(void **state)
{
    (void)state;
    static zc_stream_stats cpu;
    measured(&cpu, 30, 500);
    cpu.lane[0] = (zc_stream_lane_stats){.device = -1, .buffers = 1};
    cpu.measured_offered = 520;
    cpu.measured_dropped = 20;
    cpu.samples_dropped = 20480;
    const zc_stream_doc_run run = {.mode = ZC_STREAM_CPU, .stats = &cpu};
    zc_stream_document doc = {.command = "zc stream --mode cpu --paced 2e6 --duration 0.25"};
    doc.host = host_of(-1);
    doc.config = config_of();
    doc.config.channels = 2;
    doc.config.ntaps = 33;
    doc.config.taps_file = "taps.txt";
    doc.config.frames = 0;
    doc.config.duration_s = 0.25;
    doc.config.paced_rate = 2e6;
    doc.config.source = "in.cs16";
    doc.config.format = "cs16";
    doc.config.output_format = "cf32";
    doc.config.policy = ZC_RING_FULL_DROP;
    doc.config.nonfinite = ZC_STREAM_NONFINITE_ZERO;
    doc.config.reuse = 1;
    doc.config.verify = ZC_STREAM_VERIFY_ALL;
    doc.runs = &run;
    doc.run_count = 1;
    cJSON *json = NULL;
    assert_int_equal(zc_stream_to_json(&doc, &json), ZC_OK);
    check_golden(json, "stream_cpu.json");
    cJSON_Delete(json);

    static zc_stream_stats none;
    memset(&none, 0, sizeof none);
    const zc_stream_doc_run failed = {.mode = ZC_STREAM_CPU,
                                      .status = ZC_ERR_PARSE,
                                      .error = "sample 3000 of frame 5 is not finite",
                                      .stats = &none};
    doc.config.duration_s = 0;
    doc.config.paced_rate = 0;
    doc.config.verify = ZC_STREAM_VERIFY_NONE;
    doc.runs = &failed;
    assert_int_equal(zc_stream_to_json(&doc, &json), ZC_OK);
    check_golden(json, "stream_cpu_failed.json");
    cJSON_Delete(json);
}

/* One mode over two GPUs, and over host lanes that measured nothing and came out of order. */
static void test_stream_multi(void **state)
{
    (void)state;
    static zc_stream_stats s;
    measured(&s, 9, 2000);
    s.lead_values = 63;
    s.lanes = 2;
    for (int i = 0; i < 2; i++)
        s.lane[i] = (zc_stream_lane_stats){.device = i,
                                           .gpu_blocks = 66,
                                           .buffers = 17,
                                           .frames = 1000,
                                           .latency_us = stats_of(9 + i, 1000),
                                           .frames_per_s = 2000,
                                           .gb_per_s = 8.25};
    const char *const names[] = {"NVIDIA H200", "NVIDIA H200"};
    zc_stream_multi_document multi = {.config = config_of(), .host_cpu = 15, .lane_names = names};
    multi.config.in_flight = 16;
    multi.config.reuse = 1;
    multi.run = (zc_stream_doc_run){
        .mode = ZC_STREAM_ZEROCOPY, .protocol = ZC_RING_PROTO_FLAG, .stats = &s};
    cJSON *json = NULL;
    assert_int_equal(zc_stream_multi_to_json(&multi, &json), ZC_OK);
    check_golden(json, "stream_multi.json");
    cJSON_Delete(json);

    memset(&s, 0, sizeof s);
    s.lanes = 3;
    for (int i = 0; i < 3; i++)
        s.lane[i].device = -1;
    const char *const host[] = {"host", "host", "host"};
    multi.host_cpu = -1;
    multi.lane_names = host;
    multi.config.verify = ZC_STREAM_VERIFY_NONE;
    multi.run = (zc_stream_doc_run){.mode = ZC_STREAM_CPU,
                                    .status = ZC_ERR_STATE,
                                    .error = "a result came from the wrong frame",
                                    .stats = &s};
    assert_int_equal(zc_stream_multi_to_json(&multi, &json), ZC_OK);
    check_golden(json, "stream_multi_cpu.json");
    cJSON_Delete(json);
}

static void test_stream_doc_args(void **state)
{
    (void)state;
    cJSON *json = NULL;
    zc_stream_document doc = {.run_count = 1};
    assert_int_equal(zc_stream_to_json(NULL, &json), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_stream_to_json(&doc, &json), ZC_ERR_INVALID_ARG); /* runs missing */
    const zc_stream_doc_run run = {.mode = ZC_STREAM_CPU};
    doc.runs = &run;
    assert_int_equal(zc_stream_to_json(&doc, &json), ZC_ERR_INVALID_ARG); /* no statistics */
    assert_null(json);
    zc_stream_multi_document multi = {.config = config_of()};
    assert_int_equal(zc_stream_multi_to_json(&multi, &json), ZC_ERR_INVALID_ARG);
    assert_null(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_gpu),
        cmocka_unit_test(test_stream_cpu),
        cmocka_unit_test(test_stream_multi),
        cmocka_unit_test(test_stream_doc_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
