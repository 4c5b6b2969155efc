/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --trace on the CPU: trace documents made by zc_trace_to_json from hand-written logs
 * and by hand, grouped and priced with a recorded profile; every technique priced as
 * zc_advise_predict prices the group's workload, the totals, the unpriced parts and their
 * reasons, bad documents refused, and the command's exit codes, table and document, the
 * same from a file, stdin, a pipe and a FIFO. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "advise_files.h"
#include "trace_log_text.h"
#include "zerocopy/json.h"

#define KiB  1024ull
#define MiB  (1024ull * KiB)
#define US   1000ull
#define H200 ZC_ADVISE_FIXTURES "/h200.profile.json"

static zc_profile profile;

static int load_profile(void **state)
{
    (void)state;
    return zc_test_profile_load(H200, &profile, NULL, NULL, 0) == ZC_OK ? 0 : -1;
}

/* n copies of bytes each, one every gap ns from *now, each lasting dur ns. */
static void copies(log_text *t, uint64_t *now, const char *dir, const char *src, const char *dst,
                   unsigned long long bytes, int n, uint64_t dur, int async)
{
    for (int i = 0; i < n; i++, *now += 2 * dur)
        fprintf(t->f, "copy %s %s %s %llu %llu %llu 7 %d 0\n", dir, src, dst, bytes,
                (unsigned long long)*now, (unsigned long long)(*now + dur), async);
}

/* The program of the first tests: small pageable copies in, two large pageable classes in,
 * pinned results out (asynchronous), and device-to-device copies. */
static cJSON *program_document(void)
{
    log_text t;
    log_open(&t, 2, 64ull << 30);
    uint64_t now = 1000000;
    copies(&t, &now, "h2d", "pageable", "device", 4 * KiB, 1000, 5 * US, 0);
    copies(&t, &now, "h2d", "pageable", "device", 3 * MiB, 10, 300 * US, 0);
    copies(&t, &now, "h2d", "pageable", "device", 5 * MiB, 10, 500 * US, 0);
    copies(&t, &now, "d2h", "device", "pinned", 64 * KiB, 150, 4 * US, 1);
    copies(&t, &now, "d2h", "device", "pinned", 100 * KiB, 50, 6 * US, 1);
    copies(&t, &now, "d2d", "device", "device", 1 * MiB, 5, 2 * US, 1);
    log_close(&t);
    zc_trace_log log;
    zc_trace_log_init(&log);
    assert_int_equal(zc_trace_log_read_text(&log, t.text, "program.log"), ZC_OK);
    free(t.text);
    zc_trace_params params = {50.0, "test", 0, NULL, NULL};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_OK);
    char *argv[] = {"./program", NULL};
    zc_trace_document d = {argv, 0, 0, 50.0, "test", NULL, &log, report};
    cJSON *doc = NULL;
    assert_int_equal(zc_trace_to_json(&d, &doc), ZC_OK);
    zc_trace_log_free(&log);
    free(report);
    return doc;
}

static const cJSON *item(const cJSON *o, const char *name)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    if (x == NULL)
        fail_msg("no \"%s\"", name);
    return x;
}

static double num(const cJSON *o, const char *name)
{
    return item(o, name)->valuedouble;
}

/* The document holds one class per direction, kinds and power-of-two size. */
static void test_document_classes(void **state)
{
    (void)state;
    cJSON *doc = program_document();
    const cJSON *classes = item(doc, "copy_classes");
    assert_int_equal(cJSON_GetArraySize(classes), 5); /* 64 and 100 KiB share [64, 128) KiB */
    const cJSON *first = cJSON_GetArrayItem(classes, 0);
    assert_string_equal(item(first, "direction")->valuestring, "h2d");
    assert_string_equal(item(first, "src_kind")->valuestring, "pageable");
    assert_int_equal((long long)num(first, "size_class"), 4096);
    assert_int_equal((long long)num(first, "count"), 1000);
    assert_int_equal((long long)num(first, "bytes"), 1000 * 4096);
    assert_int_equal((long long)num(first, "async_count"), 0);
    assert_double_equal(num(first, "time_s"), 1000 * 5e-6, 1e-12);
    const cJSON *out = cJSON_GetArrayItem(classes, 3);
    assert_string_equal(item(out, "direction")->valuestring, "d2h");
    assert_int_equal((long long)num(out, "count"), 200);
    assert_int_equal((long long)num(out, "bytes_min"), 64 * KiB);
    assert_int_equal((long long)num(out, "bytes_max"), 100 * KiB);
    assert_int_equal((long long)num(out, "async_count"), 200);
    cJSON_Delete(doc);
}

/* Each group priced for every technique exactly as zc_advise_predict prices its workload. */
static void expect_priced_as_predicted(const zc_trace_group *g)
{
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        zc_prediction p;
        assert_int_equal(zc_advise_predict(&profile, &g->workload, (zc_technique)t, &p), ZC_OK);
        assert_int_equal(p.usable, g->predicted[t].usable);
        assert_double_equal(p.total_us, g->predicted[t].total_us, 1e-9 * p.total_us);
    }
    double best = INFINITY;
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        if (g->predicted[t].usable && g->predicted[t].total_us < best)
            best = g->predicted[t].total_us;
    assert_double_equal(g->now_us, g->predicted[g->current].total_us, 0.0);
    assert_double_equal(g->best_us, best, 0.0);
    assert_double_equal(g->saving_us, g->now_us - best, 1e-9 * g->now_us);
    assert_true(g->saving_us >= 0.0);
}

static void test_groups_priced(void **state)
{
    (void)state;
    cJSON *doc = program_document();
    zc_trace_advice *a = malloc(sizeof *a);
    assert_non_null(a);
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_OK);
    assert_true(a->sized);
    assert_int_equal(a->group_count, 4);
    /* h2d first, by size: 4 KiB, [2, 4) MiB, [4, 8) MiB; then d2h. */
    const zc_trace_group *small = &a->groups[0], *mid = &a->groups[1], *big = &a->groups[2];
    const zc_trace_group *out = &a->groups[3];
    assert_int_equal(small->count, 1000);
    assert_int_equal(small->bytes, 1000 * 4096);
    assert_int_equal(small->workload.bytes, 4096);
    assert_double_equal(small->workload.transfers, 1000.0, 0.0);
    assert_int_equal(small->workload.direction, ZC_DIR_H2D);
    assert_int_equal(small->host_kind, ZC_BUFFER_PAGEABLE);
    assert_int_equal(small->current, ZC_TECH_PAGEABLE);
    assert_double_equal(small->measured_us, 5000.0, 1e-6);
    assert_double_equal(small->rate_hz, 1000.0 / a->span_s, 1e-9 * small->rate_hz);
    assert_int_equal(small->reuse, -1);
    assert_string_equal(small->cure, ""); /* zc run leaves 4 KiB pageable copies as they are */
    assert_int_equal(mid->size_class, 2 * MiB);
    assert_int_equal(mid->count, 10);
    assert_string_equal(mid->cure, "pageable,register");
    assert_int_equal(big->size_class, 4 * MiB);
    assert_int_equal(big->workload.bytes, 5 * MiB);
    assert_int_equal(out->workload.direction, ZC_DIR_D2H);
    assert_int_equal(out->host_kind, ZC_BUFFER_PINNED);
    assert_int_equal(out->current, ZC_TECH_PINNED);
    assert_int_equal(out->count, 200);
    assert_int_equal(out->async_count, 200);
    assert_int_equal(out->workload.bytes, (150 * 64 * KiB + 50 * 100 * KiB + 100) / 200);
    assert_string_equal(out->cure, "");
    double measured = 0, now = 0, saving = 0;
    for (size_t i = 0; i < a->group_count; i++) {
        expect_priced_as_predicted(&a->groups[i]);
        measured += a->groups[i].measured_us;
        now += a->groups[i].now_us;
        saving += a->groups[i].saving_us;
    }
    assert_double_equal(a->measured_us, measured, 1e-9 * measured);
    assert_double_equal(a->now_us, now, 1e-9 * now);
    assert_double_equal(a->saving_us, saving, 1e-9 * now);
    assert_true(a->saving_us > 0.0); /* small pageable copies are not the fastest way */
    assert_int_equal(a->unpriced_count, 1);
    assert_string_equal(a->unpriced[0].what, "d2d device->device");
    assert_int_equal(a->unpriced[0].count, 5);
    assert_int_equal(a->unpriced[0].bytes, 5 * MiB);
    assert_non_null(strstr(a->unpriced[0].why, "device-to-device"));
    assert_string_equal(a->pinning_cure, "");
    free(a);
    cJSON_Delete(doc);
}

/* A document by hand: schema, traced, span and what is given in body. */
static cJSON *hand_document(const char *body)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"schema\": \"zerocopy.trace/1\", \"traced\": true, \"gpu_span_s\": 2.0, %s}", body);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    return doc;
}

#define CLASS(dir, src, dst, count, bytes, lo, hi)                                                 \
    "{\"direction\": \"" dir "\", \"src_kind\": \"" src "\", \"dst_kind\": \"" dst                 \
    "\", \"count\": " #count ", \"bytes\": " #bytes ", \"bytes_min\": " #lo                        \
    ", \"bytes_max\": " #hi ", \"time_s\": 0.001}"

static const char *find_why(const zc_trace_advice *a, const char *what)
{
    for (size_t i = 0; i < a->unpriced_count; i++)
        if (strcmp(a->unpriced[i].what, what) == 0)
            return a->unpriced[i].why;
    fail_msg("no unpriced line \"%s\"", what);
    return NULL;
}

/* Every part the model cannot price is listed with its reason, counted, never dropped. */
static void test_unpriced_reasons(void **state)
{
    (void)state;
    static const char body[] = "\"copy_classes\": ["
        /* */ CLASS("h2d", "managed", "device", 4, 4096, 1024, 1024) ", "
        /* */ CLASS("h2d", "pageable", "managed", 2, 2048, 1024, 1024) ", "
        /* */ CLASS("h2a", "pinned", "array", 3, 3072, 1024, 1024) ", "
        /* */ CLASS("p2p", "device", "device", 1, 1024, 1024, 1024) ", "
        /* */ CLASS("h2d", "unknown", "device", 6, 6144, 1024, 1024) ", "
        /* */ CLASS(
            "h2d", "pinned", "device", 8, 8192, 1024,
            1024) "],"
                  "\"unified_memory\": {\"migrated_bytes\": 2097152, \"fault_records\": 40},"
                  "\"host_memory\": {\"mapped_bytes\": 1048576},"
                  "\"findings\": [{\"key\": \"mapped_memory_reads\"}, {\"key\": "
                  "\"pinned_alloc_in_loop\", "
                  "\"count\": 12, \"time_s\": 0.5, \"saving_s\": 0.4}]";
    cJSON *doc = hand_document(body);
    zc_trace_advice *a = malloc(sizeof *a);
    assert_non_null(a);
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_OK);
    assert_int_equal(a->group_count, 1); /* only the pinned copies into device memory */
    assert_int_equal(a->groups[0].count, 8);
    assert_non_null(strstr(find_why(a, "h2d managed->device"), "managed memory"));
    assert_non_null(strstr(find_why(a, "h2d pageable->managed"), "GPU side"));
    assert_non_null(strstr(find_why(a, "h2a pinned->array"), "array"));
    assert_non_null(strstr(find_why(a, "p2p device->device"), "between GPUs"));
    assert_non_null(strstr(find_why(a, "h2d unknown->device"), "no copy curve"));
    assert_non_null(strstr(find_why(a, "managed memory migrated on demand"), "page faults"));
    assert_non_null(strstr(find_why(a, "kernels reading mapped host memory"), "pcie-counters"));
    assert_int_equal(a->unpriced_count, 7);
    uint64_t counted = 0;
    for (size_t i = 0; i < a->unpriced_count; i++)
        counted += a->unpriced[i].count;
    assert_int_equal(counted, 4 + 2 + 3 + 1 + 6 + 40);
    assert_string_equal(a->pinning_cure, "pinning");
    assert_double_equal(a->pinning_saving_s, 0.4, 0.0);
    free(a);
    cJSON_Delete(doc);

    /* A profile without the pageable curve cannot price pageable copies: said so. */
    zc_profile p = profile;
    memset(&p.copy[ZC_BUFFER_PAGEABLE][ZC_DIR_H2D], 0, sizeof(zc_curve));
    doc = hand_document(
        "\"copy_classes\": [" CLASS("h2d", "pageable", "device", 4, 4096, 1024, 1024) "]");
    a = malloc(sizeof *a);
    assert_int_equal(zc_advise_trace(&p, doc, a), ZC_OK);
    assert_int_equal(a->group_count, 0);
    assert_int_equal(a->unpriced_count, 1);
    assert_non_null(strstr(a->unpriced[0].why, "cannot price"));
    assert_int_equal(a->unpriced[0].count, 4);
    free(a);
    cJSON_Delete(doc);
}

/* A document written before copy classes: each path at its mean size. */
static void test_paths_fallback(void **state)
{
    (void)state;
    cJSON *doc = hand_document("\"paths\": [{\"direction\": \"h2d\", \"src_kind\": \"pageable\", "
                               "\"dst_kind\": \"device\", \"count\": 100, \"sync_count\": 40, "
                               "\"bytes\": 6553600, \"time_s\": 0.01}]");
    zc_trace_advice a;
    assert_int_equal(zc_advise_trace(&profile, doc, &a), ZC_OK);
    assert_false(a.sized);
    assert_int_equal(a.group_count, 1);
    assert_int_equal(a.groups[0].workload.bytes, 65536);
    assert_int_equal(a.groups[0].async_count, 60);
    assert_double_equal(a.groups[0].rate_hz, 50.0, 1e-9);
    expect_priced_as_predicted(&a.groups[0]);
    cJSON_Delete(doc);
}

/* More workloads than one advice holds: the rest counted as one unpriced line. */
static void test_groups_folded(void **state)
{
    (void)state;
    zc_traced_copies c[ZC_TRACE_GROUP_MAX + 6];
    memset(c, 0, sizeof c);
    for (size_t i = 0; i < ZC_TRACE_GROUP_MAX + 6; i++) {
        strcpy(c[i].direction, i % 2 ? "d2h" : "h2d");
        strcpy(c[i].src_kind, i % 2 ? "device" : "pinned");
        strcpy(c[i].dst_kind, i % 2 ? "pinned" : "device");
        c[i].count = 2;
        c[i].bytes_min = c[i].bytes_max = 1ull << (i / 2 + 2);
        c[i].bytes = 2 * c[i].bytes_min;
    }
    zc_traced_program p = {c, ZC_TRACE_GROUP_MAX + 6, 1.0, 1, 0, 0, 0, 0, 0, 0, 0.0, -1.0};
    zc_trace_advice *a = malloc(sizeof *a);
    assert_int_equal(zc_advise_traced(&profile, &p, a), ZC_OK);
    assert_int_equal(a->group_count, ZC_TRACE_GROUP_MAX);
    uint64_t counted = 0;
    for (size_t i = 0; i < a->group_count; i++)
        counted += a->groups[i].count;
    for (size_t i = 0; i < a->unpriced_count; i++) {
        assert_non_null(strstr(a->unpriced[i].why, "more workloads"));
        counted += a->unpriced[i].count;
    }
    assert_int_equal(counted, 2 * (ZC_TRACE_GROUP_MAX + 6));
    free(a);
}

/* Bad input refused with its status, the advice left as it was. */
static void test_bad_documents(void **state)
{
    (void)state;
    zc_trace_advice *a = malloc(sizeof *a);
    memset(a, 0xab, sizeof *a);
    unsigned char before = ((unsigned char *)a)[100];
    cJSON *doc = cJSON_Parse("{\"schema\": \"zerocopy.bench/1\"}");
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_ERR_PARSE);
    assert_non_null(strstr(zc_last_error(), "not a zc trace document"));
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"schema\": \"zerocopy.trace/1\", \"traced\": false, "
                      "\"why_not_traced\": \"it never used CUDA\"}");
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "it never used CUDA"));
    assert_int_equal(zc_trace_advice_check(doc), ZC_ERR_INVALID_ARG);
    cJSON_Delete(doc);
    doc = hand_document("\"copy_classes\": [{\"direction\": \"h2d\", \"src_kind\": \"pinned\", "
                        "\"dst_kind\": \"device\", \"count\": \"many\", \"bytes\": 1, "
                        "\"bytes_min\": 1, \"bytes_max\": 1, \"time_s\": 0}]");
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_ERR_PARSE);
    assert_non_null(strstr(zc_last_error(), "copy_classes[0]"));
    cJSON_Delete(doc);
    doc = hand_document(
        "\"copy_classes\": [" CLASS("h2d", "pinned", "device", 4, 100, 1024, 1024) "]");
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "do not agree"));
    cJSON_Delete(doc);
    doc = cJSON_Parse("{\"schema\": \"zerocopy.trace/1\", \"traced\": true, \"gpu_span_s\": -1, "
                      "\"paths\": []}");
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_ERR_PARSE);
    cJSON_Delete(doc);
    assert_int_equal(zc_advise_trace_text(&profile, "", 0, a), ZC_ERR_PARSE);
    assert_int_equal(zc_advise_trace_text(&profile, "not json", 8, a), ZC_ERR_PARSE);
    assert_int_equal(zc_advise_trace(NULL, NULL, a), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_advise_traced(&profile, NULL, a), ZC_ERR_INVALID_ARG);
    size_t pattern;
    memset(&pattern, 0xab, sizeof pattern);
    assert_int_equal(((unsigned char *)a)[100], before);
    assert_int_equal(a->group_count, pattern); /* untouched by every failure */
    free(a);
}

/* The document: its schema, each group's fields and techniques, the totals, the unpriced. */
static void test_advice_document(void **state)
{
    (void)state;
    cJSON *doc = program_document();
    zc_trace_advice *a = malloc(sizeof *a);
    assert_int_equal(zc_advise_trace(&profile, doc, a), ZC_OK);
    cJSON_Delete(doc);
    cJSON *out = NULL;
    assert_int_equal(zc_trace_advice_to_json(&profile, "assumed x\n", a, &out), ZC_OK);
    assert_string_equal(item(out, "schema")->valuestring, ZC_ADVISE_TRACE_SCHEMA);
    const cJSON *groups = item(out, "groups");
    assert_int_equal(cJSON_GetArraySize(groups), 4);
    const cJSON *g = cJSON_GetArrayItem(groups, 0);
    assert_string_equal(item(g, "direction")->valuestring, "h2d");
    assert_string_equal(item(g, "host_kind")->valuestring, "pageable");
    assert_string_equal(item(g, "current")->valuestring, "pageable");
    assert_int_equal((long long)num(g, "count"), 1000);
    assert_true(cJSON_IsNull(item(g, "reuse")));
    assert_true(cJSON_IsNull(item(g, "cure")));
    assert_double_equal(num(g, "now_us"), a->groups[0].now_us, 0.0);
    assert_string_equal(item(g, "best")->valuestring, zc_technique_key(a->groups[0].best));
    assert_int_equal(cJSON_GetArraySize(item(g, "techniques")), ZC_TECH_COUNT);
    assert_string_equal(item(cJSON_GetArrayItem(groups, 1), "cure")->valuestring,
                        "pageable,register");
    assert_double_equal(num(item(out, "total"), "saving_us"), a->saving_us, 0.0);
    const cJSON *unpriced = item(out, "unpriced");
    assert_int_equal(cJSON_GetArraySize(unpriced), 1);
    assert_string_equal(item(cJSON_GetArrayItem(unpriced, 0), "what")->valuestring,
                        "d2d device->device");
    assert_true(cJSON_IsNull(item(item(out, "pinning"), "cure")));
    cJSON_Delete(out);
    free(a);
}

/* The document of program_document in a file; the caller unlinks path. */
static void write_program(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    cJSON *doc = program_document();
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    free(text);
    close(fd);
}

static void test_cli(void **state)
{
    (void)state;
    char path[] = "/tmp/zc-advise-trace-XXXXXX";
    write_program(path);
    zc_test_expect_zc((const char *[]){"advise", "--trace", path, "--profile", H200, NULL}, NULL, 0,
                      "pageable,register", NULL);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"advise", "--trace", path, "--profile", H200, NULL}, NULL, &r);
    assert_non_null(strstr(r.out, "4 workloads"));
    assert_non_null(strstr(r.out, "measured ms"));
    assert_non_null(strstr(r.out, "d2d device->device"));
    assert_non_null(strstr(r.out, "to save"));
    zc_test_output_free(&r);
    zc_test_run_zc(
        (const char *[]){"advise", "--trace", path, "--profile", H200, "--json", "-", NULL}, NULL,
        &r);
    assert_int_equal(r.exit_code, 0);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_string_equal(item(doc, "schema")->valuestring, "zerocopy.advise-trace/1");
    assert_int_equal(cJSON_GetArraySize(item(doc, "groups")), 4);
    cJSON_Delete(doc);
    zc_test_output_free(&r);
    /* Without a profile on a machine without a GPU: exit 3, said so (the document was good). */
    zc_test_expect_zc((const char *[]){"advise", "--trace", path, NULL}, zc_test_no_gpu_env, 3,
                      NULL, "measuring a profile");
    /* Options of the other forms, and a profile and a trace both on stdin: usage. */
    zc_test_expect_zc((const char *[]){"advise", "--trace", path, "--bytes", "4K", NULL}, NULL, 2,
                      NULL, "--trace");
    zc_test_expect_zc((const char *[]){"advise", "--trace", "-", "--profile", "-", NULL}, NULL, 2,
                      NULL, "stdin");
    unlink(path);
    /* Not a trace document, checked before any profile is measured (no GPU needed): 2. */
    zc_test_expect_zc((const char *[]){"advise", "--trace", H200, NULL}, zc_test_no_gpu_env, 2,
                      NULL, "not a zc trace document");
    zc_test_expect_zc((const char *[]){"advise", "--trace", "/nonexistent/trace.json", NULL},
                      zc_test_no_gpu_env, 2, NULL, "cannot read");
}

/* zc advise --trace's document the same whichever way the trace arrives: a file, stdin from the
 * file, stdin through a pipe in small pieces, a FIFO; a cut document refused with exit 2. */
static void test_cli_inputs(void **state)
{
    (void)state;
    char path[] = "/tmp/zc-advise-trace-XXXXXX";
    write_program(path);
    zc_test_output want, got;
    zc_test_run_zc(
        (const char *[]){"advise", "--trace", path, "--profile", H200, "--json", "-", NULL}, NULL,
        &want);
    assert_int_equal(want.exit_code, 0);
    const char *stdin_args[] = {"advise", "--trace", "-", "--profile", H200, "--json", "-", NULL};
    for (int piped = 0; piped < 2; piped++) {
        zc_test_run_opts opts = {path, piped, 0, 0};
        zc_test_run_zc_bounded(stdin_args, NULL, &opts, &got);
        assert_int_equal(got.exit_code, 0);
        assert_string_equal(got.out, want.out);
        zc_test_output_free(&got);
    }
    char fifo[] = "/tmp/zc-advise-fifo-XXXXXX";
    int fd = mkstemp(fifo);
    assert_true(fd >= 0);
    close(fd);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t writer = fork();
    assert_true(writer >= 0);
    if (writer == 0) {
        size_t len = 0;
        char *text = zc_test_read_file(path, &len);
        int out = open(fifo, O_WRONLY);
        _exit(out >= 0 && write(out, text, len) == (ssize_t)len ? 0 : 1);
    }
    zc_test_run_zc_bounded(
        (const char *[]){"advise", "--trace", fifo, "--profile", H200, "--json", "-", NULL}, NULL,
        NULL, &got);
    int st = 0;
    assert_int_equal(waitpid(writer, &st, 0), writer);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(got.exit_code, 0);
    assert_string_equal(got.out, want.out);
    zc_test_output_free(&got);
    unlink(fifo);
    /* The first 100 bytes of the trace document only: not JSON, exit 2. */
    char cut[] = "/tmp/zc-advise-cut-XXXXXX";
    fd = mkstemp(cut);
    assert_true(fd >= 0);
    char *trace = zc_test_read_file(path, NULL);
    assert_int_equal(write(fd, trace, 100), 100);
    free(trace);
    close(fd);
    zc_test_run_opts opts = {cut, 1, 0, 0};
    zc_test_run_zc_bounded(stdin_args, NULL, &opts, &got);
    assert_int_equal(got.exit_code, 2);
    assert_non_null(strstr(got.err, "not JSON"));
    zc_test_output_free(&got);
    zc_test_output_free(&want);
    unlink(cut);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document_classes), cmocka_unit_test(test_groups_priced),
        cmocka_unit_test(test_unpriced_reasons), cmocka_unit_test(test_paths_fallback),
        cmocka_unit_test(test_groups_folded),    cmocka_unit_test(test_bad_documents),
        cmocka_unit_test(test_advice_document),  cmocka_unit_test(test_cli),
        cmocka_unit_test(test_cli_inputs),
    };
    return cmocka_run_group_tests(tests, load_profile, NULL);
}
