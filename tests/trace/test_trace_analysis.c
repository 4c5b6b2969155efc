/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's analysis on hand-made event logs: each finding fires on its pattern, stays quiet
 * just below its threshold, and a clean run gets none. */
#include "test_support.h"

#include <string.h>

#include "trace_log_text.h"
#include "zerocopy/trace.h"

#define MiB (1024ull * 1024ull)
#define GiB (1024ull * MiB)
#define MS  1000000ull

/* A log being written by hand: the header, then records, then the end line. */
/* Parse and analyse; the caller frees the report. */
static zc_trace_report *analyze(const char *text, double ceiling, unsigned long long ram)
{
    return log_analyze(text, "hand-made.log", ceiling, ram);
}

static void expect_findings(const zc_trace_report *r, const char *const *keys)
{
    size_t count = 0;
    while (keys[count] != NULL)
        count++;
    for (size_t i = 0; i < r->finding_count; i++)
        fprintf(stderr, "  finding %s: %s\n", r->findings[i].key, r->findings[i].evidence);
    for (size_t i = 0; i < count; i++) {
        if (zc_trace_report_find(r, keys[i]) == NULL)
            fail_msg("expected finding '%s' is missing", keys[i]);
    }
    assert_int_equal(r->finding_count, count);
}

static const char *const none[] = {NULL};

/* A well-built pipeline: pinned buffers allocated once, async copies on two streams that
 * overlap kernels, a few large transfers. */
static void write_clean(log_text *t)
{
    uint64_t now = 1000000;
    fprintf(t->f, "api hostalloc %llu 0 7f0000000000 %llu %llu 1 rt\n", 64 * MiB,
            (unsigned long long)now, (unsigned long long)(now + 30 * MS));
    now += 40 * MS;
    for (int chunk = 0; chunk < 8; chunk++) {
        unsigned stream = 13 + (unsigned)(chunk % 2);
        uint64_t start = now + (uint64_t)chunk * 200000;
        fprintf(t->f, "copy h2d pinned device %llu %llu %llu %u 1 0\n", 8 * MiB,
                (unsigned long long)start, (unsigned long long)(start + 160000), stream);
        fprintf(t->f, "kernel %llu %llu %u scale\n", (unsigned long long)(start + 160000),
                (unsigned long long)(start + 400000), stream);
        fprintf(t->f, "copy d2h device pinned %llu %llu %llu %u 1 0\n", 8 * MiB,
                (unsigned long long)(start + 400000), (unsigned long long)(start + 560000), stream);
    }
    fprintf(t->f, "memset device %llu %llu %llu 13 1\n", 8 * MiB, (unsigned long long)now,
            (unsigned long long)(now + 10000));
    fprintf(t->f, "api freehost 0 0 7f0000000000 %llu %llu 1 rt\n",
            (unsigned long long)(now + 10 * MS), (unsigned long long)(now + 11 * MS));
}

static void test_clean_run_has_no_findings(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    write_clean(&t);
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    assert_int_equal(r->path_count, 2);
    assert_int_equal(r->copy_count, 16);
    assert_int_equal(r->kernel_count, 8);
    assert_int_equal(r->memset_count, 1);
    assert_int_equal(r->pin_calls, 1);
    assert_int_equal(r->peak_pinned_bytes, 64 * MiB);
    for (size_t i = 0; i < r->path_count; i++) {
        assert_int_equal(r->paths[i].count, 8);
        assert_int_equal(r->paths[i].sync_count, 0);
        assert_int_equal(r->paths[i].bytes, 64 * MiB);
        assert_int_equal(r->paths[i].time_ns, 8 * 160000);
    }
    free(r);
    free(t.text);
}

static void write_copies(log_text *t, int count, unsigned long long bytes, const char *dir,
                         const char *src, const char *dst, int async, uint64_t ns_each)
{
    uint64_t now = 5000000;
    for (int i = 0; i < count; i++, now += ns_each + 1000)
        fprintf(t->f, "copy %s %s %s %llu %llu %llu 7 %d 0\n", dir, src, dst, bytes,
                (unsigned long long)now, (unsigned long long)(now + ns_each), async);
}

/* Two copies of 2^63 bytes each: the path's total is the most a count holds, never a sum that
 * wrapped to 0. */
static void test_totals_saturate(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    write_copies(&t, 2, 9223372036854775808ull, "h2d", "pinned", "device", 1, 1000);
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    assert_int_equal(r->path_count, 1);
    assert_int_equal(r->paths[0].count, 2);
    assert_true(r->paths[0].bytes == UINT64_MAX);
    free(r);
    free(t.text);
}

static void test_pageable_transfers(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    write_copies(&t, 40, MiB, "h2d", "pageable", "device", 0, 150000); /* 7 GB/s */
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"pageable_transfers", NULL};
    expect_findings(r, keys);
    const zc_trace_finding *f = zc_trace_report_find(r, "pageable_transfers");
    assert_int_equal(f->count, 40);
    assert_int_equal(f->bytes, 40 * MiB);
    assert_double_equal(f->time_s, 40 * 150e-6, 1e-9);
    /* From pinned memory at 55 GB/s the same bytes take 0.76 ms instead of 6 ms. */
    assert_double_equal(f->saving_s, 40 * 150e-6 - 40.0 * MiB / 55e9, 1e-9);
    assert_non_null(strstr(f->fix, "cudaHostRegister"));
    free(r);

    /* Without a ceiling the saving is unknown, not invented. */
    r = analyze(t.text, 0.0, 0);
    assert_true(zc_trace_report_find(r, "pageable_transfers")->saving_s < 0);
    free(r);
    free(t.text);

    /* Just below both thresholds: a few tiny pageable copies are not reported. */
    log_open(&t, 1, 64 * GiB);
    write_copies(&t, ZC_TRACE_PAGEABLE_MIN_COUNT - 1, 1024, "d2h", "device", "pageable", 0, 5000);
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    free(r);
    free(t.text);
}

static void test_small_transfers(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    /* 2 KiB: under block_copies' smallest block, so small_transfers alone (4 KiB blocks fire
     * both: test_trace_block_copies.c). */
    write_copies(&t, 300, 2048, "h2d", "pinned", "device", 1, 2000);
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"small_transfers", NULL};
    expect_findings(r, keys);
    assert_int_equal(zc_trace_report_find(r, "small_transfers")->count, 300);
    assert_int_equal(zc_trace_report_find(r, "small_transfers")->bytes, 300 * 2048);
    free(r);
    free(t.text);

    log_open(&t, 1, 64 * GiB);
    write_copies(&t, ZC_TRACE_SMALL_MIN_COUNT - 1, 2048, "h2d", "pinned", "device", 1, 2000);
    write_copies(&t, 50, ZC_TRACE_SMALL_BYTES, "h2d", "pinned", "device", 1, 2000);
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    free(r);
    free(t.text);
}

/* copy-in, kernel, copy-out, one after the other; hidden: the copies run under a long kernel
 * on another stream instead. */
static void write_sync_loop(log_text *t, int iterations, int hidden)
{
    uint64_t now = 1000000;
    if (hidden)
        fprintf(t->f, "kernel %llu %llu 9 background\n", (unsigned long long)now,
                (unsigned long long)(now + (uint64_t)iterations * 3 * MS + MS));
    for (int i = 0; i < iterations; i++) {
        fprintf(t->f, "copy h2d pinned device %llu %llu %llu 7 0 0\n", 16 * MiB,
                (unsigned long long)now, (unsigned long long)(now + 300000));
        now += 300000;
        if (!hidden)
            fprintf(t->f, "kernel %llu %llu 7 work\n", (unsigned long long)now,
                    (unsigned long long)(now + 2 * MS));
        now += 2 * MS;
        fprintf(t->f, "copy d2h device pinned %llu %llu %llu 7 0 0\n", 16 * MiB,
                (unsigned long long)now, (unsigned long long)(now + 300000));
        now += 400000;
    }
}

static void test_sync_copies_serialize(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    write_sync_loop(&t, 10, 0);
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"sync_copies_serialize", NULL};
    expect_findings(r, keys);
    const zc_trace_finding *f = zc_trace_report_find(r, "sync_copies_serialize");
    assert_int_equal(f->count, 20);
    /* The copies (6 ms) are shorter than the kernels (20 ms): all of them could hide. */
    assert_double_equal(f->saving_s, 20 * 300e-6, 1e-9);
    free(r);
    free(t.text);

    /* The same copies, already overlapped by a kernel on another stream. */
    log_open(&t, 1, 64 * GiB);
    write_sync_loop(&t, 10, 1);
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    free(r);
    free(t.text);

    /* Synchronous copies with no kernels at all serialize with nothing. */
    log_open(&t, 1, 64 * GiB);
    write_copies(&t, 20, 16 * MiB, "h2d", "pinned", "device", 0, 300000);
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    free(r);
    free(t.text);
}

static void write_alloc_loop(log_text *t, int count, unsigned long long bytes, uint64_t ns)
{
    uint64_t now = 1000000;
    for (int i = 0; i < count; i++) {
        fprintf(t->f, "api hostalloc %llu 0 7f00000%05x %llu %llu 1 rt\n", bytes, i,
                (unsigned long long)now, (unsigned long long)(now + ns));
        now += ns + 1000;
        fprintf(t->f, "api freehost 0 0 7f00000%05x %llu %llu 1 rt\n", i, (unsigned long long)now,
                (unsigned long long)(now + 500000));
        now += 501000;
    }
}

static void test_pinned_alloc_in_loop(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    write_alloc_loop(&t, 32, 4 * MiB, 2 * MS);
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"pinned_alloc_in_loop", NULL};
    expect_findings(r, keys);
    assert_int_equal(zc_trace_report_find(r, "pinned_alloc_in_loop")->count, 32);
    /* Each allocation is freed before the next: never more than one buffer pinned. */
    assert_int_equal(r->peak_pinned_bytes, 4 * MiB);
    free(r);
    free(t.text);

    log_open(&t, 1, 64 * GiB);
    write_alloc_loop(&t, ZC_TRACE_PIN_LOOP_MIN_CALLS - 1, 4 * MiB, 2 * MS);
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    free(r);
    free(t.text);
}

static void test_slow_pinned_alloc(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    write_alloc_loop(&t, 1, GiB, 600 * MS);
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"slow_pinned_alloc", NULL};
    expect_findings(r, keys);
    assert_non_null(strstr(zc_trace_report_find(r, "slow_pinned_alloc")->evidence, "600 ms"));
    free(r);
    free(t.text);
}

static void test_over_pinning(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 4 * GiB);
    fprintf(t.f, "api hostregister %llu 0 7f0000000000 1000 55001000 1 rt\n", 3 * GiB);
    fprintf(t.f, "api hostunregister 0 0 7f0000000000 60000000 80000000 1 rt\n");
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"over_pinning", NULL};
    expect_findings(r, keys);
    assert_int_equal(zc_trace_report_find(r, "over_pinning")->bytes, 3 * GiB);
    free(r);
    /* Held against a larger RAM (--ram), the same pinning is fine. */
    r = analyze(t.text, 55.0, 64 * GiB);
    expect_findings(r, none);
    free(r);
    free(t.text);

    /* Two 1.5 GiB buffers one after the other: the peak is one of them, 37% of RAM. */
    log_open(&t, 1, 4 * GiB);
    fprintf(t.f, "api hostregister %llu 0 7f0000000000 1000 2000 1 rt\n", 3 * GiB / 2);
    fprintf(t.f, "api hostunregister 0 0 7f0000000000 3000 4000 1 rt\n");
    fprintf(t.f, "api hostregister %llu 0 7f1000000000 5000 6000 1 rt\n", 3 * GiB / 2);
    fprintf(t.f, "api hostunregister 0 0 7f1000000000 7000 8000 1 rt\n");
    /* A failed call pins nothing. */
    fprintf(t.f, "api hostregister %llu 0 0 9000 9500 0 rt\n", 3 * GiB);
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    assert_int_equal(r->peak_pinned_bytes, 3 * GiB / 2);
    free(r);
    free(t.text);
}

static void test_managed_faults(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    fprintf(t.f, "api mallocmanaged %llu 1 7f0000000000 1000 2000 1 rt\n", 64 * MiB);
    fprintf(t.f, "kernel 10000 5000000 7 touch\n");
    for (int i = 0; i < 20; i++)
        fprintf(t.f, "um gpu_faults 32 %d %d\n", 10000 + i * 1000, 10500 + i * 1000);
    fprintf(t.f, "um bytes_h2d %llu 20000 900000\n", 64 * MiB);
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"managed_faults", NULL};
    expect_findings(r, keys);
    assert_int_equal(r->um_bytes, 64 * MiB);
    assert_int_equal(r->um_fault_records, 20);
    free(r);
    free(t.text);

    /* No counters (the driver refused them): managed memory used without prefetch. */
    log_open(&t, 1, 64 * GiB);
    fprintf(t.f, "note um_counters_unavailable cuptiActivityConfigureUnifiedMemoryCounter: "
                 "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED\n");
    fprintf(t.f, "api mallocmanaged %llu 1 7f0000000000 1000 2000 1 rt\n", 64 * MiB);
    fprintf(t.f, "kernel 10000 5000000 7 touch\n");
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, keys);
    assert_non_null(strstr(zc_trace_report_find(r, "managed_faults")->evidence, "refused"));
    free(r);
    free(t.text);

    /* The same with a prefetch: nothing to report. */
    log_open(&t, 1, 64 * GiB);
    fprintf(t.f, "note um_counters_unavailable refused\n");
    fprintf(t.f, "api mallocmanaged %llu 1 7f0000000000 1000 2000 1 rt\n", 64 * MiB);
    fprintf(t.f, "api prefetch 0 0 0 3000 4000 1 rt\n");
    fprintf(t.f, "kernel 10000 5000000 7 touch\n");
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    free(r);
    free(t.text);
}

static void test_mapped_memory_note(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 1, 64 * GiB);
    fprintf(t.f, "api hostalloc %llu 2 7f0000000000 1000 2000 1 rt\n", 4 * MiB);
    fprintf(t.f, "api hostgetdeviceptr 0 0 0 3000 3100 1 rt\n");
    fprintf(t.f, "kernel 10000 20000 7 reread\n");
    log_close(&t);
    zc_trace_report *r = analyze(t.text, 55.0, 0);
    const char *const keys[] = {"mapped_memory_reads", NULL};
    expect_findings(r, keys);
    assert_int_equal(zc_trace_report_find(r, "mapped_memory_reads")->severity, ZC_TRACE_NOTE);
    free(r);
    free(t.text);

    /* The runtime asking the driver for mapped memory by itself is not the program's doing. */
    log_open(&t, 1, 64 * GiB);
    fprintf(t.f, "api hostalloc %llu 2 7f0000000000 1000 2000 1 drv\n", 4 * MiB);
    fprintf(t.f, "api hostgetdeviceptr 0 0 0 2100 2200 1 drv\n");
    fprintf(t.f, "kernel 10000 20000 7 work\n");
    log_close(&t);
    r = analyze(t.text, 55.0, 0);
    expect_findings(r, none);
    free(r);
    free(t.text);
}

static void test_parser_rejects_malformed_logs(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *where;
    } bad[] = {
        {"not a log\n", ":1:"},
        {"zctrace 4 pid=1 ram=1\n", "version"}, /* newer than this reader */
        {"zctrace 1 pid=1 ram=1\ncopy h2d pinned device 10 5 4 7 1 0\n", ":2:"},
        {"zctrace 1 pid=1 ram=1\ncopy sideways pinned device 10 1 4 7 1 0\n", ":2:"},
        {"zctrace 1 pid=1 ram=1\nkernel 1\n", ":2:"},
        {"zctrace 1 pid=1 ram=1\napi teleport 1 0 0 1 2 1\n", "teleport"},
        {"zctrace 1 pid=1 ram=1\nfrobnicate\n", "unknown record"},
        {"zctrace 1 pid=1 ram=1\nend\nkernel 1 2 3 k\n", "after the end"},
        {"", "empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zc_trace_log log;
        zc_trace_log_init(&log);
        zc_status status = zc_trace_log_read_text(&log, bad[i].text, "bad.log");
        if (status != ZC_ERR_PARSE || strstr(log.error, bad[i].where) == NULL)
            fail_msg("case %zu: status %d, error '%s', expected '%s'", i, status, log.error,
                     bad[i].where);
        zc_trace_log_free(&log);
    }
}

static void test_parser_counts_processes_and_truncation(void **state)
{
    (void)state;
    zc_trace_log log;
    zc_trace_log_init(&log);
    /* A process that died before its end line, its last line cut in half. */
    assert_int_equal(
        zc_trace_log_read_text(
            &log, "zctrace 1 pid=1 ram=1000\nkernel 1 2 3 k\nnote x said y\ncopy h2", "a.log"),
        ZC_OK);
    assert_int_equal(
        zc_trace_log_read_text(&log, "zctrace 1 pid=2 ram=2000\ndropped 5\nend\n", "b.log"), ZC_OK);
    assert_int_equal(log.process_count, 2);
    assert_int_equal(log.complete_count, 1);
    assert_int_equal(log.kernel_count, 1);
    assert_int_equal(log.copy_count, 0);
    assert_int_equal(log.dropped, 5);
    assert_int_equal(log.ram_bytes, 2000);
    assert_int_equal(log.note_count, 1);
    assert_string_equal(log.notes[0], "x: said y");
    zc_trace_log_free(&log);
    assert_int_equal(zc_trace_log_read_text(NULL, "x", "n"), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_run_has_no_findings),
        cmocka_unit_test(test_pageable_transfers),
        cmocka_unit_test(test_small_transfers),
        cmocka_unit_test(test_sync_copies_serialize),
        cmocka_unit_test(test_pinned_alloc_in_loop),
        cmocka_unit_test(test_slow_pinned_alloc),
        cmocka_unit_test(test_over_pinning),
        cmocka_unit_test(test_managed_faults),
        cmocka_unit_test(test_mapped_memory_note),
        cmocka_unit_test(test_totals_saturate),
        cmocka_unit_test(test_parser_rejects_malformed_logs),
        cmocka_unit_test(test_parser_counts_processes_and_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
