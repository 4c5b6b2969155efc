/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench's outputs from a result set built by hand: JSON against the documented schema, CSV
 * shape, and the human table with its comparison. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench_output.h"
#include "zerocopy/json.h"
#include "zerocopy/version.h"

typedef struct fixture {
    zc_bench_result results[5];
    zc_device_info info;
    size_t sizes[2];
    zc_bench_document report;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    double bw[] = {55.1, 55.4, 55.3, 55.2, 55.5};
    double lat[] = {2.2, 2.3, 2.25, 2.4, 9.0, 2.28};
    double small[] = {20.0, 21.0, 22.0};

    zc_bench_result *r = &f->results[0];
    assert_int_equal(zc_bench_result_init(r, "copy.h2d.pinned"), ZC_OK);
    assert_int_equal(zc_bench_result_add(r, "", 4096, NULL, 0, ZC_BENCH_BANDWIDTH, 1048576.0, 256.0,
                                         small, 3, 2, 1),
                     ZC_OK);
    assert_int_equal(zc_bench_result_add(r, "", 256u << 20, NULL, 0, ZC_BENCH_BANDWIDTH,
                                         4.0 * (256u << 20), 4.0, bw, 5, 2, 1),
                     ZC_OK);
    r->seconds = 1.5;

    r = &f->results[1];
    assert_int_equal(zc_bench_result_init(r, "latency.pingpong"), ZC_OK);
    assert_int_equal(
        zc_bench_result_add(r, "volatile", 4, NULL, 0, ZC_BENCH_LATENCY, 0.0, 1.0, lat, 6, 200, 1),
        ZC_OK);

    r = &f->results[2];
    assert_int_equal(zc_bench_result_init(r, "crossover.read_k"), ZC_OK);
    assert_int_equal(zc_bench_result_add(r, "zero-copy, \"fast\"", 65536, "k", 4.0,
                                         ZC_BENCH_DURATION, 65536.0, 1.0, small, 3, 1, 1),
                     ZC_OK);
    snprintf(r->reason, sizeof r->reason, "64 KiB: zero-copy wins up to k = 16");

    r = &f->results[3];
    assert_int_equal(zc_bench_result_init(r, "copy.h2d.registered"), ZC_OK);
    r->outcome = ZC_BENCH_SKIPPED;
    r->status = ZC_ERR_UNSUPPORTED;
    snprintf(r->reason, sizeof r->reason, "cudaHostRegister is not supported");

    r = &f->results[4];
    assert_int_equal(zc_bench_result_init(r, "zerocopy.read.16b"), ZC_OK);
    r->outcome = ZC_BENCH_FAIL;
    r->status = ZC_ERR_VERIFY;
    snprintf(r->reason, sizeof r->reason, "checksum 0x1 expected 0x2");

    snprintf(f->info.name, sizeof f->info.name, "Test GPU");
    f->info.cc_major = 9;
    f->info.sm_count = 132;
    f->info.numa_node = -1;
    f->info.can_map_host_memory = 1;
    f->sizes[0] = 4096;
    f->sizes[1] = 256u << 20;
    f->report.mode = ZC_BENCH_QUICK;
    f->report.device = 0;
    f->report.info = &f->info;
    f->report.sizes = f->sizes;
    f->report.size_count = 2;
    f->report.results = f->results;
    f->report.count = 5;
    f->report.wall_seconds = 12.5;
    snprintf(f->report.created_utc, sizeof f->report.created_utc, "2026-11-30T00:00:00Z");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (int i = 0; i < 5; i++)
        zc_bench_result_clear(&f->results[i]);
    free(f);
    return 0;
}

static const cJSON *field(const cJSON *obj, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (item == NULL)
        fail_msg("JSON field '%s' missing", name);
    return item;
}

static double num(const cJSON *obj, const char *name)
{
    const cJSON *item = field(obj, name);
    if (!cJSON_IsNumber(item))
        fail_msg("JSON field '%s' is not a number", name);
    return item->valuedouble;
}

static const char *str(const cJSON *obj, const char *name)
{
    const cJSON *item = field(obj, name);
    if (!cJSON_IsString(item))
        fail_msg("JSON field '%s' is not a string", name);
    return item->valuestring;
}

static const cJSON *case_by_key(const cJSON *doc, const char *key)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, field(doc, "cases"))
    {
        if (strcmp(str(c, "key"), key) == 0)
            return c;
    }
    fail_msg("case %s missing from JSON", key);
    return NULL;
}

static void test_json_round_trip(void **state)
{
    fixture *f = *state;
    cJSON *built = NULL;
    assert_int_equal(zc_bench_to_json(&f->report, &built), ZC_OK);
    assert_non_null(built);
    char *text = cJSON_PrintUnformatted(built);
    cJSON_Delete(built);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);

    assert_string_equal(str(doc, "schema"), "zerocopy.bench/1");
    assert_string_equal(str(doc, "zerocopy_version"), zc_version_string());
    assert_string_equal(str(doc, "created_utc"), "2026-11-30T00:00:00Z");
    assert_string_equal(str(doc, "mode"), "quick");
    assert_int_equal((int)num(doc, "device"), 0);
    assert_double_equal(num(doc, "wall_seconds"), 12.5, 1e-9);
    const cJSON *machine = field(doc, "machine");
    assert_string_equal(str(machine, "schema"), "zerocopy.info/1");
    const cJSON *dev0 = cJSON_GetArrayItem(field(machine, "devices"), 0);
    assert_string_equal(str(dev0, "name"), "Test GPU");

    const cJSON *method = field(doc, "method");
    assert_string_equal(str(method, "text"), zc_bench_method_text());
    zc_bench_method m;
    assert_int_equal(zc_bench_method_get(ZC_BENCH_QUICK, &m), ZC_OK);
    assert_double_equal(num(method, "gb_bytes"), 1e9, 0);
    assert_int_equal((size_t)num(method, "warmups"), m.warmups);
    assert_int_equal((size_t)num(method, "min_samples"), m.min_samples);
    assert_int_equal((size_t)num(method, "max_samples"), m.max_samples);
    assert_double_equal(num(method, "cov_target"), m.cov_target, 1e-12);
    assert_double_equal(num(method, "point_cap_s"), m.point_cap_s, 1e-12);
    assert_int_equal((size_t)num(method, "latency_samples"), m.latency_samples);
    assert_int_equal((size_t)num(method, "pingpong_samples"), m.pingpong_samples);
    assert_double_equal(num(method, "gate_timeout_s"), m.gate_timeout_s, 1e-12);
    str(method, "queued_timing");
    str(method, "synchronous_timing");
    assert_string_equal(str(method, "statistic"), "median");

    const cJSON *sizes = field(doc, "sizes");
    assert_int_equal(cJSON_GetArraySize(sizes), 2);
    assert_double_equal(cJSON_GetArrayItem(sizes, 1)->valuedouble, (double)(256u << 20), 0);

    const cJSON *summary = field(doc, "summary");
    assert_int_equal((int)num(summary, "cases"), 5);
    assert_int_equal((int)num(summary, "ok"), 3);
    assert_int_equal((int)num(summary, "skipped"), 1);
    assert_int_equal((int)num(summary, "fail"), 1);
    assert_int_equal((int)num(summary, "error"), 0);
    assert_int_equal(cJSON_GetArraySize(field(doc, "cases")), 5);

    /* An OK case with every field of its points. */
    const cJSON *c = case_by_key(doc, "copy.h2d.pinned");
    assert_string_equal(str(c, "group"), "copy");
    assert_string_equal(str(c, "technique"), "pinned");
    assert_string_equal(str(c, "direction"), "h2d");
    str(c, "title");
    assert_string_equal(str(c, "outcome"), "ok");
    assert_string_equal(str(c, "status"), "OK");
    assert_string_equal(str(c, "reason"), "");
    assert_double_equal(num(c, "seconds"), 1.5, 1e-12);
    const cJSON *points = field(c, "points");
    assert_int_equal(cJSON_GetArraySize(points), 2);
    const cJSON *p = cJSON_GetArrayItem(points, 1);
    assert_string_equal(str(p, "variant"), "");
    assert_double_equal(num(p, "bytes"), (double)(256u << 20), 0);
    assert_true(cJSON_IsNull(field(p, "param_name")));
    assert_true(cJSON_IsNull(field(p, "param")));
    assert_string_equal(str(p, "metric"), "bandwidth");
    assert_string_equal(str(p, "unit"), "GB/s");
    assert_double_equal(num(p, "bytes_per_sample"), 4.0 * (256u << 20), 0);
    assert_double_equal(num(p, "ops_per_sample"), 4.0, 0);
    assert_int_equal((int)num(p, "warmups"), 2);
    assert_true(cJSON_IsTrue(field(p, "verified")));
    const cJSON *st = field(p, "stats");
    const zc_stats *want = &f->results[0].points[1].stats;
    assert_int_equal((size_t)num(st, "count"), want->count);
    assert_double_equal(num(st, "median"), want->median, 1e-12);
    assert_double_equal(num(st, "p50"), want->median, 1e-12); /* the one shape: both names */
    assert_double_equal(num(st, "min"), want->min, 1e-12);
    assert_double_equal(num(st, "max"), want->max, 1e-12);
    assert_double_equal(num(st, "mean"), want->mean, 1e-12);
    assert_double_equal(num(st, "stddev"), want->stddev, 1e-12);
    assert_double_equal(num(st, "cov"), want->cov, 1e-12);
    assert_double_equal(num(st, "p90"), want->p90, 1e-12);
    assert_double_equal(num(st, "p99"), want->p99, 1e-12);
    assert_double_equal(num(st, "p999"), want->p999, 1e-12);
    const cJSON *samples = field(p, "samples");
    assert_int_equal(cJSON_GetArraySize(samples), 5);
    assert_double_equal(cJSON_GetArrayItem(samples, 0)->valuedouble, 55.1, 1e-12);

    /* Latency points carry percentiles; parameters round-trip. */
    c = case_by_key(doc, "latency.pingpong");
    p = cJSON_GetArrayItem(field(c, "points"), 0);
    assert_string_equal(str(p, "unit"), "us");
    assert_string_equal(str(p, "metric"), "latency");
    assert_double_equal(num(field(p, "stats"), "p999"), 9.0, 1e-12);
    c = case_by_key(doc, "crossover.read_k");
    p = cJSON_GetArrayItem(field(c, "points"), 0);
    assert_string_equal(str(p, "param_name"), "k");
    assert_double_equal(num(p, "param"), 4.0, 0);
    assert_string_equal(str(p, "variant"), "zero-copy, \"fast\"");
    assert_string_equal(str(p, "metric"), "duration");
    assert_string_equal(str(c, "reason"), "64 KiB: zero-copy wins up to k = 16");

    /* Skipped and FAIL: a reason, never a number. */
    c = case_by_key(doc, "copy.h2d.registered");
    assert_string_equal(str(c, "outcome"), "skipped");
    assert_string_equal(str(c, "status"), "ERR_UNSUPPORTED");
    assert_true(strlen(str(c, "reason")) > 0);
    assert_int_equal(cJSON_GetArraySize(field(c, "points")), 0);
    c = case_by_key(doc, "zerocopy.read.16b");
    assert_string_equal(str(c, "outcome"), "FAIL");
    assert_string_equal(str(c, "status"), "ERR_VERIFY");
    assert_int_equal(cJSON_GetArraySize(field(c, "points")), 0);

    /* The comparison table: every technique, measured figures where measured, null elsewhere. */
    const cJSON *cmp = field(doc, "comparison");
    assert_int_equal(cJSON_GetArraySize(cmp), ZC_BENCH_COMPARE_ROWS);
    const cJSON *row;
    int seen_pinned = 0, seen_mapped = 0;
    cJSON_ArrayForEach(row, cmp)
    {
        const char *t = str(row, "technique");
        str(row, "title");
        str(row, "needs_copy");
        field(row, "h2d_gbps");
        field(row, "d2h_gbps");
        field(row, "access_read_gbps");
        field(row, "access_write_gbps");
        str(row, "access_where");
        field(row, "latency_us");
        str(row, "latency_what");
        str(row, "best_use");
        if (strcmp(t, "pinned") == 0) {
            seen_pinned = 1;
            assert_string_equal(str(row, "needs_copy"), "yes");
            assert_double_equal(num(row, "h2d_gbps"), want->median, 1e-12); /* largest size */
            assert_true(cJSON_IsNull(field(row, "d2h_gbps")));
        }
        if (strcmp(t, "mapped") == 0) {
            seen_mapped = 1;
            assert_string_equal(str(row, "needs_copy"), "no");
            assert_double_equal(num(row, "latency_us"), f->results[1].points[0].stats.median,
                                1e-12);
            assert_non_null(strstr(str(row, "best_use"), "zero-copy wins up to k = 16"));
            /* The zero-copy read case failed: its figure must not appear. */
            assert_true(cJSON_IsNull(field(row, "access_read_gbps")));
        }
    }
    assert_true(seen_pinned && seen_mapped);
    cJSON_Delete(doc);
}

static void test_json_without_machine_or_sizes(void **state)
{
    fixture *f = *state;
    zc_bench_document r = f->report;
    r.info = NULL;
    r.sizes = NULL;
    r.size_count = 0;
    cJSON *doc = NULL;
    assert_int_equal(zc_bench_to_json(&r, &doc), ZC_OK);
    assert_non_null(doc);
    assert_true(cJSON_IsNull(field(doc, "machine")));
    assert_true(cJSON_IsNull(field(doc, "sizes")));
    cJSON_Delete(doc);
}

/* Split one CSV line into fields (RFC 4180 quoting); returns the count. */
static int csv_fields(const char *line, char fields[][128], int max)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        char *out = fields[n];
        size_t len = 0;
        if (*p == '"') {
            p++;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                if (len < 127)
                    out[len++] = *p;
                p++;
            }
            if (*p == '"')
                p++;
        } else {
            while (*p && *p != ',' && *p != '\n') {
                if (len < 127)
                    out[len++] = *p;
                p++;
            }
        }
        out[len] = '\0';
        n++;
        if (*p != ',' || n == max)
            return n;
        p++;
    }
}

/* The one serializer of a zc_stats (bench, stream and multi-GPU documents): every field, the
 * median under both names, a figure that is not finite as null. */
static void test_stats_shape(void **state)
{
    (void)state;
    zc_stats s = {.count = 3,
                  .min = 1.0,
                  .max = 4.0,
                  .mean = 2.0,
                  .stddev = 1.5,
                  .cov = NAN,
                  .median = 1.5,
                  .p90 = 4.0,
                  .p99 = 4.0,
                  .p999 = INFINITY};
    cJSON *o = NULL;
    assert_int_equal(zc_stats_to_json(&s, &o), ZC_OK);
    assert_non_null(o);
    static const char *const keys[] = {"count",  "min", "max", "mean", "stddev", "cov",
                                       "median", "p50", "p90", "p99",  "p999"};
    assert_int_equal(cJSON_GetArraySize(o), sizeof keys / sizeof keys[0]);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_non_null(cJSON_GetObjectItemCaseSensitive(o, keys[i]));
    assert_double_equal(num(o, "median"), 1.5, 0);
    assert_double_equal(num(o, "p50"), 1.5, 0);
    assert_double_equal(num(o, "count"), 3, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "cov")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "p999")));
    cJSON_Delete(o);
}

static void test_csv_shape(void **state)
{
    fixture *f = *state;
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    assert_non_null(mem);
    assert_int_equal(zc_cli_bench_write_csv(mem, &f->report), 0);
    fclose(mem);
    char fields[32][128];
    char *save = NULL;
    char *line = strtok_r(buf, "\n", &save);
    assert_non_null(line);
    int header = csv_fields(line, fields, 32);
    assert_int_equal(header, 22);
    assert_string_equal(fields[0], "key");
    assert_string_equal(fields[12], "median");
    assert_string_equal(fields[21], "verified");
    int rows = 0, fail_rows = 0, quoted = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        int n = csv_fields(line, fields, 32);
        if (n != header)
            fail_msg("row %d has %d fields, the header %d: %s", rows + 1, n, header, line);
        if (strcmp(fields[4], "FAIL") == 0) {
            fail_rows++;
            assert_string_equal(fields[12], ""); /* no number for wrong data */
        }
        if (strcmp(fields[5], "zero-copy, \"fast\"") == 0) {
            quoted++;
            assert_string_equal(fields[7], "k");
            assert_string_equal(fields[8], "4");
        }
        if (strcmp(fields[0], "copy.h2d.pinned") == 0 && strcmp(fields[6], "268435456") == 0) {
            assert_string_equal(fields[10], "GB/s");
            assert_string_equal(fields[11], "5");
            assert_string_equal(fields[21], "1");
        }
        rows++;
    }
    /* 2 + 1 + 1 points, plus one row each for the skipped and the failed case. */
    assert_int_equal(rows, 6);
    assert_int_equal(fail_rows, 1);
    assert_int_equal(quoted, 1);
    free(buf);
}

static void test_table(void **state)
{
    fixture *f = *state;
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    assert_non_null(mem);
    zc_cli_bench_print_table(mem, &f->report);
    fclose(mem);
    assert_non_null(strstr(buf, "copy.h2d.pinned"));
    assert_non_null(strstr(buf, "256 MiB"));
    assert_non_null(strstr(buf, "GB/s"));
    assert_non_null(strstr(buf, "skipped: cudaHostRegister is not supported"));
    assert_non_null(strstr(buf, "FAIL: checksum 0x1 expected 0x2"));
    assert_non_null(strstr(buf, "The chapter's comparison"));
    assert_non_null(strstr(buf, "Mapped pinned (zero-copy)"));
    assert_non_null(strstr(buf, "p99.9"));
    assert_non_null(strstr(buf, "Method"));
    assert_non_null(strstr(buf, "5 case(s): 3 ok, 1 skipped, 1 FAIL, 0 error"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_json_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_without_machine_or_sizes, setup, teardown),
        cmocka_unit_test(test_stats_shape),
        cmocka_unit_test_setup_teardown(test_csv_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
