/* SPDX-License-Identifier: Apache-2.0 */
/* The last lenient readings of the library's documents, each refused with a detail naming the
 * document, the field and the fault: a key twice in an object (every reader), a NUL inside a
 * string, a number where a string is written, a bench size that is negative or fractional, a
 * schema version this build does not know, a trace document whose figures disagree or lie
 * outside what a clock measures, a stream document with a negative frame count or a budget
 * that is a string; and a trace's copy classes whose bytes add past 2^64, which stop there
 * instead of wrapping to 0. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#include "trace_log_text.h"
#include "zerocopy/json.h"
#include "zerocopy/report.h"

static cJSON *parse(const char *text)
{
    cJSON *doc = cJSON_Parse(text);
    if (doc == NULL)
        fail_msg("the test's document is not JSON: %s", text);
    return doc;
}

/* The last error holds every one of the words (NULL-terminated). */
static void detail_has(const char *const *words)
{
    for (; *words != NULL; words++)
        if (strstr(zc_last_error(), *words) == NULL)
            fail_msg("'%s' not in the detail: %s", *words, zc_last_error());
}

#define DETAIL_HAS(...) detail_has((const char *const[]){__VA_ARGS__, NULL})

static const char *const profile_dup = "{\"schema\": \"zerocopy.profile/2\", \"device_name\": "
                                       "\"A\", \"launch_sync_us\": 8, \"launch_sync_us\": 80}";

static void test_keys_twice(void **state)
{
    (void)state;
    zc_profile p;
    cJSON *doc = parse(profile_dup);
    assert_int_equal(zc_profile_from_json(doc, &p), ZC_ERR_PARSE);
    DETAIL_HAS("profile", "launch_sync_us", "twice");
    assert_int_equal(zc_profile_from_document(doc, "mine.json", &p, NULL, NULL, 0), ZC_ERR_PARSE);
    DETAIL_HAS("mine.json", "launch_sync_us", "twice");
    cJSON_Delete(doc);

    /* Deep in a bench document: the place is named. */
    doc = parse("{\"schema\": \"zerocopy.bench/1\", \"cases\": [{\"key\": \"copy.h2d.pinned\", "
                "\"outcome\": \"ok\", \"points\": [{\"bytes\": 4096, \"bytes\": 8192}]}]}");
    assert_int_equal(zc_profile_from_bench_json(doc, &p, NULL, 0), ZC_ERR_PARSE);
    DETAIL_HAS("bench document", "cases[0].points[0]", "\"bytes\" twice");
    double gbps = 0;
    assert_int_equal(zc_bench_copy_ceiling_from_json(doc, &gbps), ZC_ERR_PARSE);
    cJSON_Delete(doc);

    zc_workload w;
    memset(&w, 0, sizeof w);
    doc = parse("{\"bytes\": 4096, \"direction\": \"h2d\", \"direction\": \"d2h\"}");
    assert_int_equal(zc_workload_from_json(doc, &w), ZC_ERR_PARSE);
    DETAIL_HAS("workload", "direction", "twice");
    cJSON_Delete(doc);

    zc_profile_init(&p);
    doc = parse("{\"schema\": \"zerocopy.stream/1\", \"config\": {\"frame_bytes\": 4096, "
                "\"frame_bytes\": 8}, \"runs\": []}");
    assert_int_equal(zc_profile_add_stream_json(&p, doc, "s.json", NULL), ZC_ERR_PARSE);
    DETAIL_HAS("s.json", "config", "frame_bytes", "twice");
    cJSON_Delete(doc);

    doc = parse("{\"schema\": \"zerocopy.trace/1\", \"traced\": true, \"traced\": false}");
    assert_int_equal(zc_trace_advice_check(doc), ZC_ERR_PARSE);
    DETAIL_HAS("trace document", "traced", "twice");
    cJSON_Delete(doc);

    /* An object of many keys (sorted, not compared pairwise) and the report. */
    char big[4096] = "{\"schema\": \"zerocopy.info/1\"";
    for (int i = 0; i < 100; i++)
        snprintf(big + strlen(big), sizeof big - strlen(big), ", \"k%d\": %d", i % 99, i);
    strcat(big, "}");
    doc = parse(big);
    zc_report_input in;
    zc_report_bad bad;
    assert_int_equal(zc_report_input_init(&in, &bad), ZC_OK);
    assert_int_equal(zc_report_input_add(&in, "info.json", doc), ZC_ERR_PARSE);
    DETAIL_HAS("info.json", "\"k0\" twice");
    cJSON_Delete(doc);
}

static void test_nul_in_strings(void **state)
{
    (void)state;
    const char *value = "{\"device_name\": \"GPU\\u0000x\"}";
    assert_int_equal(zc_json_check_limits(value, strlen(value), "p.json", NULL), ZC_ERR_PARSE);
    DETAIL_HAS("p.json", "device_name", "NUL");
    const char *key = "{\"dev\\u0000ice\": 1}";
    assert_int_equal(zc_json_check_limits(key, strlen(key), "p.json", NULL), ZC_ERR_PARSE);
    DETAIL_HAS("p.json", "the key \"dev...\"", "NUL");
    const char raw[] = "[\"a\0b\"]";
    assert_int_equal(zc_json_check_limits(raw, sizeof raw - 1, NULL, NULL), ZC_ERR_PARSE);
    DETAIL_HAS("the document", "NUL");
    /* A backslash written out, then u0000, is six characters and no NUL. */
    const char *fine = "{\"path\": \"C:\\\\u0000\"}";
    assert_int_equal(zc_json_check_limits(fine, strlen(fine), "p.json", NULL), ZC_OK);
    zc_profile p;
    const char *trace = "{\"schema\": \"zerocopy.trace/1\", \"why_not_traced\": \"a\\u0000\"}";
    assert_int_equal(zc_advise_trace_text(&p, trace, strlen(trace), &(zc_trace_advice){0}),
                     ZC_ERR_PARSE);
    DETAIL_HAS("trace document", "why_not_traced", "NUL");
}

static void test_wrong_types(void **state)
{
    (void)state;
    zc_profile p;
    cJSON *doc = parse("{\"schema\": \"zerocopy.profile/2\", \"device_name\": 5}");
    assert_int_equal(zc_profile_from_json(doc, &p), ZC_ERR_PARSE);
    DETAIL_HAS("profile", "\"device_name\" is 5", "not a string");
    cJSON_Delete(doc);
    doc = parse("{\"schema\": \"zerocopy.profile/2\", \"source\": [\"x\"]}");
    assert_int_equal(zc_profile_from_json(doc, &p), ZC_ERR_PARSE);
    DETAIL_HAS("\"source\" is an array", "not a string");
    cJSON_Delete(doc);
    doc = parse("{\"schema\": \"zerocopy.bench/1\", \"machine\": {\"devices\": [{\"name\": 5}]}, "
                "\"cases\": []}");
    assert_int_equal(zc_profile_from_bench_json(doc, &p, NULL, 0), ZC_ERR_PARSE);
    DETAIL_HAS("bench document", "machine.devices[0]", "\"name\" is 5");
    cJSON_Delete(doc);
    doc = parse("{\"schema\": \"zerocopy.bench/1\", \"cases\": [{\"key\": 7, \"points\": []}]}");
    assert_int_equal(zc_profile_from_bench_json(doc, &p, NULL, 0), ZC_ERR_PARSE);
    DETAIL_HAS("cases[0]", "\"key\" is 7");
    cJSON_Delete(doc);
}

static void test_bench_sizes(void **state)
{
    (void)state;
    static const char *const bad[] = {"-4096", "4096.5", "1e300", "\"4K\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"schema\": \"zerocopy.bench/1\", \"cases\": [{\"key\": \"copy.h2d.pinned\", "
                 "\"outcome\": \"ok\", \"points\": [{\"bytes\": %s, \"metric\": \"bandwidth\", "
                 "\"stats\": {\"median\": 1}}]}]}",
                 bad[i]);
        cJSON *doc = parse(text);
        zc_profile p;
        assert_int_equal(zc_profile_from_document(doc, "b.json", &p, NULL, NULL, 0), ZC_ERR_PARSE);
        DETAIL_HAS("case copy.h2d.pinned, point 0", "\"bytes\"", "whole number");
        cJSON_Delete(doc);
    }
}

static void test_unknown_versions(void **state)
{
    (void)state;
    static const char *const schemas[] = {"zerocopy.bench/2", "zerocopy.stream/9",
                                          "zerocopy.trace/2", "zerocopy.profile/3"};
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"schema\": \"%s\"}", schemas[i]);
        cJSON *doc = parse(text);
        zc_report_input in;
        zc_report_bad bad;
        assert_int_equal(zc_report_input_init(&in, &bad), ZC_OK);
        assert_int_equal(zc_report_input_add(&in, "x.json", doc), ZC_ERR_PARSE);
        DETAIL_HAS("x.json", schemas[i], "version this build does not read", "it reads");
        cJSON_Delete(doc);
    }
    cJSON *doc = parse("{\"schema\": \"zerocopy.bench/2\"}");
    zc_report_input in;
    zc_report_bad bad;
    assert_int_equal(zc_report_input_init(&in, &bad), ZC_OK);
    assert_int_equal(zc_report_input_add(&in, "x.json", doc), ZC_ERR_PARSE);
    DETAIL_HAS("it reads zerocopy.bench/1");
    cJSON_Delete(doc);
    doc = parse("{\"schema\": \"zerocopy.stream/2\", \"config\": {}, \"runs\": []}");
    zc_profile p;
    zc_profile_init(&p);
    assert_int_equal(zc_profile_add_stream_json(&p, doc, "s.json", NULL), ZC_ERR_PARSE);
    DETAIL_HAS("s.json", "zerocopy.stream/2", "it reads zerocopy.stream/1");
    cJSON_Delete(doc);
}

/* A trace document of one copy class, its numbers as given. Figures that disagree are
 * ZC_ERR_INVALID_ARG, as zc_advise_traced says of them; a value out of range ZC_ERR_PARSE; the
 * report refuses both as ZC_ERR_PARSE. */
static cJSON *trace_doc(const char *span, const char *klass, const char *finding)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schema\": \"zerocopy.trace/1\", \"traced\": true, \"gpu_span_s\": %s, "
             "\"copy_classes\": [{\"direction\": \"h2d\", \"src_kind\": \"pageable\", "
             "\"dst_kind\": \"device\", %s}], \"findings\": [%s]}",
             span, klass, finding);
    return parse(text);
}

static void check_trace(const char *span, const char *klass, const char *finding, zc_status want,
                        const char *word)
{
    cJSON *doc = trace_doc(span, klass, finding);
    zc_status got = zc_trace_advice_check(doc);
    if (got != want)
        fail_msg("span %s, class {%s}, finding [%s]: %s (%s)", span, klass, finding,
                 zc_status_name(got), zc_last_error());
    if (want != ZC_OK) {
        DETAIL_HAS("trace document", word);
        zc_report_input in;
        zc_report_bad bad;
        assert_int_equal(zc_report_input_init(&in, &bad), ZC_OK);
        assert_int_equal(zc_report_input_add(&in, "t.json", doc), ZC_ERR_PARSE);
        DETAIL_HAS("t.json", word);
    }
    cJSON_Delete(doc);
}

static void test_trace_numbers(void **state)
{
    (void)state;
    const char *good = "\"count\": 2, \"bytes\": 8192, \"bytes_min\": 4096, \"bytes_max\": 4096, "
                       "\"time_s\": 0.001";
    const char *pin = "{\"key\": \"pinned_alloc_in_loop\", \"count\": 3, \"time_s\": 0.5, "
                      "\"saving_s\": 0.4}";
    check_trace("0.5", good, pin, ZC_OK, NULL);
    check_trace("0.5",
                "\"count\": 2, \"bytes\": 8388608, \"bytes_min\": 0, \"bytes_max\": 0, "
                "\"time_s\": 0.001",
                "", ZC_ERR_INVALID_ARG, "bytes_max 0");
    check_trace("0.5",
                "\"count\": 2, \"bytes\": 8192, \"bytes_min\": 8192, \"bytes_max\": 4096, "
                "\"time_s\": 0.001",
                "", ZC_ERR_INVALID_ARG, "do not agree");
    check_trace("0.5",
                "\"count\": 2, \"bytes\": 0, \"bytes_min\": 0, \"bytes_max\": 0, "
                "\"time_s\": 0.001",
                "", ZC_ERR_INVALID_ARG, "copies need bytes");
    check_trace("0.5",
                "\"count\": 2, \"async_count\": 3, \"bytes\": 8192, \"bytes_min\": 4096, "
                "\"bytes_max\": 4096, \"time_s\": 0.001",
                "", ZC_ERR_INVALID_ARG, "asynchronous");
    check_trace("1e-300", good, "", ZC_ERR_PARSE, "\"gpu_span_s\" is 1e-300 s");
    check_trace("1e300", good, "", ZC_ERR_PARSE, "\"gpu_span_s\"");
    check_trace("0.5", good,
                "{\"key\": \"pinned_alloc_in_loop\", \"count\": 3, \"time_s\": 0.5, "
                "\"saving_s\": 1e300}",
                ZC_ERR_PARSE, "\"saving_s\" is 1e+300 s");
    check_trace("0.5", good, "{\"key\": \"pinned_alloc_in_loop\", \"saving_s\": null}", ZC_OK,
                NULL);
    check_trace("0.5",
                "\"count\": 2, \"bytes\": 8192, \"bytes_min\": 4096, \"bytes_max\": 4096, "
                "\"time_s\": -1",
                "", ZC_ERR_PARSE, "\"time_s\"");
}

static void test_stream_documents(void **state)
{
    (void)state;
    static const char *const runs[] = {"\"frames\": -1", "\"budget\": \"fast\"", "\"name\": 12"};
    static const char *const words[] = {"\"frames\" is -1", "\"budget\" is a string",
                                        "\"name\" is 12"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"schema\": \"zerocopy.stream/1\", \"device\": null, \"runs\": [{\"ok\": "
                 "true, %s}]}",
                 runs[i]);
        cJSON *doc = parse(text);
        zc_report_input in;
        zc_report_bad bad;
        assert_int_equal(zc_report_input_init(&in, &bad), ZC_OK);
        assert_int_equal(zc_report_input_add(&in, "s.json", doc), ZC_ERR_PARSE);
        DETAIL_HAS("s.json", "runs[0]", words[i]);
        assert_int_equal(in.stream_count, 0);
        cJSON_Delete(doc);
    }
}

/* Two copies of 2^63 bytes: the class's total stops at 2^64 - 1 instead of wrapping to 0. */
static void test_trace_bytes_saturate(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 2, 64ull << 30);
    for (int i = 0; i < 2; i++)
        fprintf(t.f, "copy h2d pinned device %llu %d %d 7 0 0\n", 1ull << 63, 1000 + 100 * i,
                1050 + 100 * i);
    log_close(&t);
    zc_trace_log log;
    zc_trace_log_init(&log);
    if (zc_trace_log_read_text(&log, t.text, "big.log") != ZC_OK)
        fail_msg("log refused: %s", log.error);
    free(t.text);
    zc_trace_params params = {50.0, "test", 0, NULL, NULL};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_OK);
    char *argv[] = {"./program", NULL};
    zc_trace_document d = {argv, 0, 0, 50.0, "test", NULL, &log, report};
    cJSON *doc = NULL;
    assert_int_equal(zc_trace_to_json(&d, &doc), ZC_OK);
    const cJSON *klass =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "copy_classes"), 0);
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(klass, "bytes");
    assert_non_null(bytes);
    if (!(bytes->valuedouble >= 1.8e19))
        fail_msg("2 x 2^63 bytes summed to %.17g", bytes->valuedouble);
    cJSON_Delete(doc);
    zc_trace_log_free(&log);
    free(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_twice),       cmocka_unit_test(test_nul_in_strings),
        cmocka_unit_test(test_wrong_types),      cmocka_unit_test(test_bench_sizes),
        cmocka_unit_test(test_unknown_versions), cmocka_unit_test(test_trace_numbers),
        cmocka_unit_test(test_stream_documents), cmocka_unit_test(test_trace_bytes_saturate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
