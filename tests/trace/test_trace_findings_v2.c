/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's findings that rest on kernel arguments (log version 2): start-up pinning is not a
 * loop, managed memory is judged per allocation, the mapped-memory note names what kernels were
 * given and claims nothing else; and the log's one writer and one reader agree on every field. */
#include "test_support.h"

#include <string.h>

#include "trace/trace_record.h"
#include "trace_log_text.h"
#include "zerocopy/trace.h"

#define MiB (1024ull * 1024ull)
#define GiB (1024ull * MiB)
#define MS  1000000ull

static void log_begin(log_text *t)
{
    log_open(t, 2, 64 * GiB);
}

/* The injection library's closing lines: how many launches it saw and read. */
static void log_end(log_text *t, unsigned launches)
{
    fprintf(t->f, "launches %u %u 0\n", launches, launches);
    log_close(t);
}

static zc_trace_report *analyze(const char *text)
{
    zc_trace_report *report = log_analyze(text, "v2.log", 50.0, 0);
    for (size_t i = 0; i < report->finding_count; i++)
        fprintf(stderr, "  finding %s: %s\n", report->findings[i].key,
                report->findings[i].evidence);
    return report;
}

static void test_startup_pinning_is_not_a_loop(void **state)
{
    (void)state;
    log_text t;
    log_begin(&t);
    /* Eight buffers pinned at start-up (2 ms each, 16 ms in all), used, freed at exit. */
    for (int i = 0; i < 8; i++)
        fprintf(t.f, "api hostalloc %llu 0 7f00%02d000000 %llu %llu 1 rt\n", 16 * MiB, i,
                (unsigned long long)(1000 + i * 2 * MS),
                (unsigned long long)(1000 + (i + 1) * 2 * MS));
    for (int i = 0; i < 64; i++) {
        uint64_t s = 20 * MS + (uint64_t)i * MS;
        fprintf(t.f, "copy h2d pinned device %llu %llu %llu 13 1 0\n", 16 * MiB,
                (unsigned long long)s, (unsigned long long)(s + 300000));
        fprintf(t.f, "kernel %llu %llu 13 work %d\n", (unsigned long long)(s + 300000),
                (unsigned long long)(s + 900000), i + 1);
    }
    for (int i = 0; i < 8; i++)
        fprintf(t.f, "api freehost 0 0 7f00%02d000000 %llu %llu 1 rt\n", i,
                (unsigned long long)(100 * MS + (uint64_t)i * 1000),
                (unsigned long long)(100 * MS + (uint64_t)i * 1000 + 500));
    log_end(&t, 64);
    zc_trace_report *r = analyze(t.text);
    assert_int_equal(r->pin_calls, 8);
    assert_true(r->launch_args_seen);
    assert_null(zc_trace_report_find(r, "pinned_alloc_in_loop"));
    assert_int_equal(r->finding_count, 0);
    free(r);
    free(t.text);
}

static void test_pinning_that_keeps_coming(void **state)
{
    (void)state;
    log_text t;
    log_begin(&t);
    /* A new buffer of a new size pinned before every one of 20 steps of GPU work, never freed:
     * no size repeats, but the pinning goes on while the program runs. */
    for (int i = 0; i < 20; i++) {
        uint64_t s = 10 * MS + (uint64_t)i * 5 * MS;
        fprintf(t.f, "api hostalloc %llu 0 7f00%02d000000 %llu %llu 1 rt\n",
                (unsigned long long)(MiB + (uint64_t)i * 4096), i, (unsigned long long)s,
                (unsigned long long)(s + MS));
        fprintf(t.f, "kernel %llu %llu 13 step %d\n", (unsigned long long)(s + 2 * MS),
                (unsigned long long)(s + 4 * MS), i + 1);
    }
    log_end(&t, 20);
    zc_trace_report *r = analyze(t.text);
    const zc_trace_finding *f = zc_trace_report_find(r, "pinned_alloc_in_loop");
    assert_non_null(f);
    assert_true(f->count >= ZC_TRACE_PIN_LATE_MIN_CALLS);
    assert_non_null(strstr(f->evidence, "while the GPU work ran"));
    free(r);
    free(t.text);
}

static void write_managed(log_text *t, int prefetch_b)
{
    /* A: 64 MiB, prefetched before its kernel. B: 32 MiB, used by a kernel with no prefetch
     * (or, with prefetch_b, after an advice). */
    fprintf(t->f, "api mallocmanaged %llu 1 7f1000000000 1000 2000 1 rt\n", 64 * MiB);
    fprintf(t->f, "api mallocmanaged %llu 1 7f2000000000 3000 4000 1 rt\n", 32 * MiB);
    fprintf(t->f, "api prefetch %llu 0 7f1000000000 5000 6000 1 rt\n", 64 * MiB);
    if (prefetch_b)
        fprintf(t->f, "api advise %llu 0 7f2000000000 6500 6600 1 rt\n", 32 * MiB);
    fprintf(t->f, "launch 11 7000 scale_a 7f1000000000\n");
    fprintf(t->f, "kernel 8000 900000 7 scale_a 11\n");
    fprintf(t->f, "launch 12 950000 scale_b 7f2000000000\n");
    fprintf(t->f, "kernel 960000 5000000 7 scale_b 12\n");
}

static void test_managed_per_allocation(void **state)
{
    (void)state;
    log_text t;
    log_begin(&t);
    write_managed(&t, 0);
    log_end(&t, 2);
    zc_trace_report *r = analyze(t.text);
    const zc_trace_finding *f = zc_trace_report_find(r, "managed_faults");
    assert_non_null(f);
    assert_int_equal(f->count, 1);
    assert_int_equal(f->bytes, 32 * MiB);
    /* It names the unprefetched allocation and its kernel, and not the prefetched one. */
    assert_non_null(strstr(f->evidence, "0x7f2000000000"));
    assert_non_null(strstr(f->evidence, "scale_b"));
    assert_null(strstr(f->evidence, "0x7f1000000000"));
    assert_int_equal(r->finding_count, 1);
    free(r);
    free(t.text);

    /* With advice on B before its kernel, every allocation was prepared: nothing to say. */
    log_begin(&t);
    write_managed(&t, 1);
    log_end(&t, 2);
    r = analyze(t.text);
    assert_int_equal(r->finding_count, 0);
    free(r);
    free(t.text);
}

static void test_mapped_note_says_what_was_seen(void **state)
{
    (void)state;
    log_text t;
    /* Registered with the mapped flag, then only copied from: no kernel was given it. */
    log_begin(&t);
    fprintf(t.f, "api hostregister %llu 2 7f3000000000 1000 2000 1 rt\n", 4 * MiB);
    fprintf(t.f, "api hostgetdeviceptr 0 0 7f3000000000 2100 2200 1 rt\n");
    fprintf(t.f, "copy h2d pinned device %llu 10000 90000 7 1 0\n", 4 * MiB);
    fprintf(t.f, "kernel 100000 200000 7 consume 5\n");
    log_end(&t, 1);
    zc_trace_report *r = analyze(t.text);
    assert_null(zc_trace_report_find(r, "mapped_memory_reads"));
    free(r);
    free(t.text);

    /* cudaMallocHost memory (no mapped flag: mapped under unified addressing) handed to a
     * kernel: the note names the kernel and what it could reach, never "0 B ... mapped flag". */
    log_begin(&t);
    fprintf(t.f, "note pcie_counters_unavailable the driver lets only administrators read "
                 "GPU performance counters\n");
    fprintf(t.f, "api hostalloc %llu 0 7f4000000000 1000 2000 1 rt\n", 4 * MiB);
    fprintf(t.f, "launch 21 3000 reread 7f4000000000\n");
    fprintf(t.f, "kernel 4000 844000 7 reread 21\n");
    log_end(&t, 1);
    r = analyze(t.text);
    const zc_trace_finding *f = zc_trace_report_find(r, "mapped_memory_reads");
    assert_non_null(f);
    assert_int_equal(f->severity, ZC_TRACE_NOTE);
    assert_int_equal(f->bytes, 4 * MiB);
    assert_non_null(strstr(f->evidence, "reread"));
    assert_non_null(strstr(f->evidence, "administrators"));
    /* 4 MiB at 50 GB/s is 83.9 us; the kernel took 840 us: 10.0x. */
    assert_non_null(strstr(f->evidence, "10.0x"));
    assert_null(strstr(f->evidence, "0 B"));
    free(r);
    free(t.text);

    /* The same without launch inspection (version 1 logs): a device-pointer call on memory
     * without the mapped flag is said as such, not as "0 B pinned with the mapped flag". */
    log_begin(&t);
    fprintf(t.f, "api hostalloc %llu 0 7f4000000000 1000 2000 1 rt\n", 4 * MiB);
    fprintf(t.f, "api hostgetdeviceptr 0 0 7f4000000000 2100 2200 1 rt\n");
    fprintf(t.f, "kernel 4000 844000 7 reread\nend\n");
    assert_int_equal(fclose(t.f), 0);
    r = analyze(t.text);
    f = zc_trace_report_find(r, "mapped_memory_reads");
    assert_non_null(f);
    assert_null(strstr(f->evidence, "0 B"));
    assert_non_null(strstr(f->evidence, "not seen"));
    free(r);
    free(t.text);
}

/* With the kernel's PCIe reads measured beside the trace: 8 times the host memory it was given
 * is the warning mapped_memory_rereads; once is only said in the note. */
static void test_measured_rereads(void **state)
{
    (void)state;
    log_text t;
    log_begin(&t);
    fprintf(t.f, "api hostalloc %llu 2 7f4000000000 1000 2000 1 rt\n", 4 * MiB);
    fprintf(t.f, "launch 21 3000 _Z6rereadPKfPfji 7f4000000000\n");
    fprintf(t.f, "kernel 4000 844000 7 _Z6rereadPKfPfji 21\n");
    log_end(&t, 1);
    zc_trace_log log;
    zc_trace_log_init(&log);
    assert_int_equal(zc_trace_log_read_text(&log, t.text, "m.log"), ZC_OK);
    zc_trace_params params = {50.0, "test", 0, NULL, NULL};
    zc_trace_kernel_reads reads = {"_Z6rereadPKfPfji", 1, 32 * MiB, 32 * MiB};
    zc_trace_counters counters = {&reads, 1, NULL};
    zc_trace_report *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(zc_trace_analyze_measured(&log, &params, &counters, r), ZC_OK);
    const zc_trace_finding *f = zc_trace_report_find(r, "mapped_memory_rereads");
    assert_non_null(f);
    assert_int_equal(f->severity, ZC_TRACE_WARNING);
    assert_int_equal(f->bytes, 32 * MiB);
    assert_non_null(strstr(f->evidence, "8.0x"));
    assert_non_null(strstr(zc_trace_report_find(r, "mapped_memory_reads")->evidence,
                           "measured by Nsight Compute"));

    /* Read once: no warning; the note gives the measurement. */
    reads.read_bytes = reads.max_read_bytes = 4 * MiB;
    assert_int_equal(zc_trace_analyze_measured(&log, &params, &counters, r), ZC_OK);
    assert_null(zc_trace_report_find(r, "mapped_memory_rereads"));
    assert_non_null(strstr(zc_trace_report_find(r, "mapped_memory_reads")->evidence, "1.0x"));

    /* Asked for and refused: the note says why. */
    zc_trace_counters refused = {NULL, 0, "ncu: ERR_NVGPUCTRPERM"};
    assert_int_equal(zc_trace_analyze_measured(&log, &params, &refused, r), ZC_OK);
    assert_null(zc_trace_report_find(r, "mapped_memory_rereads"));
    assert_non_null(
        strstr(zc_trace_report_find(r, "mapped_memory_reads")->evidence, "ERR_NVGPUCTRPERM"));
    free(r);
    zc_trace_log_free(&log);
    free(t.text);
}

/* Every record written by the injection library's writers reads back field for field. */
static void test_writer_and_reader_agree(void **state)
{
    (void)state;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    zc__trace_write_header(f, 77, 1024);
    zc_trace_copy copy = {
        ZC_TRACE_DIR_D2H, ZC_TRACE_MEM_DEVICE, ZC_TRACE_MEM_PAGEABLE, 4096, 10, 20, 7, 1, 0};
    zc__trace_write_copy(f, &copy, 0);
    zc_trace_memset ms = {ZC_TRACE_MEM_MANAGED, 512, 30, 40, 8, 0, 0};
    zc__trace_write_memset(f, &ms);
    zc_trace_kernel kernel = {50, 60, 9, 1234, 0};
    zc__trace_write_kernel(f, &kernel, "void k<int>(float *, int)");
    zc_trace_um um = {ZC_TRACE_UM_GPU_FAULTS, 3, 70, 80, 0};
    zc__trace_write_um(f, &um);
    zc_trace_api api = {ZC_TRACE_CALL_ADVISE, 65536, 0, 0x7f0012340000ull, 90, 95, 1, 1, 0};
    zc__trace_write_api(f, &api);
    zc_trace_launch launch = {.time = 55,
                              .correlation = 1234,
                              .range_count = 2,
                              .ranges = {0x7f0012340000ull, 0x7f0099990000ull}};
    snprintf(launch.name, sizeof launch.name, "k");
    zc__trace_write_launch(f, &launch);
    zc__trace_write_note(f, "some_key", "line one\nline two");
    zc__trace_write_dropped(f, 5);
    zc__trace_write_launches(f, 3, 2, 1);
    zc__trace_write_end(f);
    assert_int_equal(fclose(f), 0);

    zc_trace_log log;
    zc_trace_log_init(&log);
    if (zc_trace_log_read_text(&log, text, "round.log") != ZC_OK)
        fail_msg("%s\n%s", log.error, text);
    assert_int_equal(log.process_count, 1);
    assert_int_equal(log.complete_count, 1);
    assert_int_equal(log.processes[0].pid, 77);
    assert_int_equal(log.ram_bytes, 1024);
    assert_int_equal(log.copy_count, 1);
    assert_int_equal(log.copies[0].dir, ZC_TRACE_DIR_D2H);
    assert_int_equal(log.copies[0].dst, ZC_TRACE_MEM_PAGEABLE);
    assert_int_equal(log.copies[0].bytes, 4096);
    assert_int_equal(log.copies[0].async, 1);
    assert_int_equal(log.memsets[0].kind, ZC_TRACE_MEM_MANAGED);
    assert_int_equal(log.memsets[0].stream, 8);
    assert_int_equal(log.kernels[0].correlation, 1234);
    assert_int_equal(log.kernels[0].stream, 9);
    assert_int_equal(log.ums[0].counter, ZC_TRACE_UM_GPU_FAULTS);
    assert_int_equal(log.ums[0].value, 3);
    assert_int_equal(log.apis[0].call, ZC_TRACE_CALL_ADVISE);
    assert_int_equal(log.apis[0].pointer, 0x7f0012340000ull);
    assert_int_equal(log.apis[0].runtime, 1);
    assert_int_equal(log.launch_count, 1);
    assert_int_equal(log.launches[0].range_count, 2);
    assert_int_equal(log.launches[0].ranges[1], 0x7f0099990000ull);
    assert_string_equal(log.launches[0].name, "k");
    assert_int_equal(log.note_count, 1);
    assert_string_equal(log.notes[0], "some_key: line one line two");
    assert_int_equal(log.dropped, 5);
    assert_int_equal(log.processes[0].launches_runtime, 3);
    assert_int_equal(log.processes[0].launches_inspected, 2);
    assert_int_equal(log.processes[0].launches_failed, 1);
    zc_trace_log_free(&log);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_startup_pinning_is_not_a_loop),
        cmocka_unit_test(test_pinning_that_keeps_coming),
        cmocka_unit_test(test_managed_per_allocation),
        cmocka_unit_test(test_mapped_note_says_what_was_seen),
        cmocka_unit_test(test_measured_rereads),
        cmocka_unit_test(test_writer_and_reader_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
