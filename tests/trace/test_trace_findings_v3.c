/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's log version 3: the program's host copies through pinned memory it allocated make
 * host_staging_copies (not those into managed memory, nor into memory freed, nor below the
 * threshold), and the pinning calls zc run made on its own account (ZC_TRACE_FLAG_ZC_RUN) are
 * none of the program's: no pinning finding, no allocation a kernel or a host copy is given. */
#include "test_support.h"

#include <string.h>

#include "trace_log_text.h"
#include "zerocopy/trace.h"

#define MiB (1024ull * 1024ull)
#define GiB (1024ull * MiB)
#define MS  1000000ull

static zc_trace_report *analyze(log_text *t, unsigned launches)
{
    fprintf(t->f, "launches %u %u 0\n", launches, launches);
    log_close(t);
    zc_trace_report *report = log_analyze(t->text, "v3.log", 50.0, 0);
    for (size_t i = 0; i < report->finding_count; i++)
        fprintf(stderr, "  finding %s: %s\n", report->findings[i].key,
                report->findings[i].evidence);
    return report;
}

/* count host copies of bytes each, ms apart, starting at start ms, each taking ms_each. */
static void host_copies(log_text *t, unsigned count, unsigned flags, const char *pointer,
                        unsigned long long bytes, uint64_t start, uint64_t ms_each)
{
    for (unsigned i = 0; i < count; i++) {
        uint64_t s = (start + i * (ms_each + 1)) * MS;
        fprintf(t->f, "api hostcopy %llu %u %s %llu %llu 1 drv\n", bytes, flags, pointer,
                (unsigned long long)s, (unsigned long long)(s + ms_each * MS));
    }
}

static void test_staging_through_pinned_buffers(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 3, 64 * GiB);
    fprintf(t.f, "api hostalloc %llu 0 7f0000000000 1000 2000 1 rt\n", 64 * MiB);
    fprintf(t.f, "api mallocmanaged %llu 1 7e0000000000 3000 4000 1 rt\n", 512 * MiB);
    fprintf(t.f, "api hostalloc %llu 0 7d0000000000 5000 6000 1 rt\n", 64 * MiB);
    fprintf(t.f, "api freehost 0 0 7d0000000000 7000 8000 1 rt\n");
    /* Into the pinned buffer before each upload (4 ms each), out of it after each download. */
    host_copies(&t, 8, ZC_TRACE_HOSTCOPY_INTO, "7f0000000000", 16 * MiB, 10, 4);
    host_copies(&t, 8, ZC_TRACE_HOSTCOPY_OUT_OF, "7f0000000000", 16 * MiB, 100, 8);
    /* Managed memory, and a buffer already freed: not the staging this finding is about. */
    host_copies(&t, 2, ZC_TRACE_HOSTCOPY_INTO, "7e0000000000", 256 * MiB, 200, 20);
    host_copies(&t, 1, ZC_TRACE_HOSTCOPY_INTO, "7d0000000000", 64 * MiB, 300, 5);
    zc_trace_report *r = analyze(&t, 0);
    assert_int_equal(r->host_copy_calls, 19);
    assert_int_equal(r->host_copy_bytes, 256 * MiB + 512 * MiB + 64 * MiB);
    const zc_trace_finding *f = zc_trace_report_find(r, "host_staging_copies");
    assert_non_null(f);
    assert_int_equal(f->count, 16);
    assert_int_equal(f->bytes, 256 * MiB);
    assert_double_equal(f->time_s, 0.096, 1e-9);
    assert_true(f->saving_s < 0); /* not priced */
    assert_non_null(strstr(f->evidence, "8 host copies (memcpy) moved 128 MiB into pinned memory "
                                        "the program allocated, in 32.0 ms (4.2 GB/s); 8 host "
                                        "copies (memcpy) moved 128 MiB out of pinned memory the "
                                        "program allocated, in 64.0 ms (2.1 GB/s), timed in"));
    assert_non_null(strstr(f->evidence, "the link moves pinned memory at 50.0 GB/s"));
    assert_non_null(strstr(f->fix, "zc run --fix hostcopy"));
    free(r);
    free(t.text);
}

static void test_little_staging_is_no_finding(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 3, 64 * GiB);
    fprintf(t.f, "api hostregister %llu 0 7f0000000000 1000 2000 1 rt\n", 64 * MiB);
    host_copies(&t, 3, ZC_TRACE_HOSTCOPY_INTO, "7f0000000000", 16 * MiB, 10, 4); /* 48 MiB */
    zc_trace_report *r = analyze(&t, 0);
    assert_int_equal(r->host_copy_calls, 3);
    assert_null(zc_trace_report_find(r, "host_staging_copies"));
    free(r);
    free(t.text);
}

/* 24 pins and unpins of four 16 MiB buffers while the GPU works, a copy and a kernel given the
 * buffer between each, all with flags (ZC_TRACE_FLAG_ZC_RUN: zc run's register cure at work). */
static void pin_cycles(log_text *t, unsigned flags)
{
    for (int i = 0; i < 24; i++) {
        uint64_t s = 10 * MS + (uint64_t)i * 4 * MS;
        fprintf(t->f, "api hostregister %llu %u 7f00%02d000000 %llu %llu 1 drv\n", 16 * MiB, flags,
                i % 4, (unsigned long long)s, (unsigned long long)(s + MS));
        fprintf(t->f, "copy h2d pinned device %llu %llu %llu 13 1 0\n", 16 * MiB,
                (unsigned long long)(s + MS), (unsigned long long)(s + 2 * MS));
        fprintf(t->f, "kernel %llu %llu 13 work %d\n", (unsigned long long)(s + 2 * MS),
                (unsigned long long)(s + 3 * MS), i + 1);
        fprintf(t->f, "launch %d %llu work 7f00%02d000000\n", i + 1,
                (unsigned long long)(s + 2 * MS), i % 4);
        fprintf(t->f, "api hostunregister 0 %u 7f00%02d000000 %llu %llu 1 drv\n", flags, i % 4,
                (unsigned long long)(s + 3 * MS), (unsigned long long)(s + 3 * MS + 1000));
    }
    fprintf(t->f, "api hostregister %llu %u 7f0000000000 %llu %llu 1 drv\n", 16 * MiB, flags,
            150 * MS, 151 * MS);
    host_copies(t, 8, ZC_TRACE_HOSTCOPY_INTO, "7f0000000000", 16 * MiB, 200, 4);
}

/* Traced through zc run: its register cure pins and unpins the program's buffers again and again
 * while the GPU works, sizes repeating; kernels are given them (the program's pageable buffers,
 * as it sees them) and host copies go into one. None of it is the program's. */
static void test_zc_run_pins_are_not_the_programs(void **state)
{
    (void)state;
    log_text t;
    log_open(&t, 3, 64 * GiB);
    pin_cycles(&t, ZC_TRACE_FLAG_ZC_RUN);
    zc_trace_report *r = analyze(&t, 24);
    assert_int_equal(r->pin_calls, 0);
    assert_int_equal(r->peak_pinned_bytes, 0);
    assert_int_equal(r->zc_run_pin_calls, 25);
    assert_null(zc_trace_report_find(r, "pinned_alloc_in_loop"));
    assert_null(zc_trace_report_find(r, "mapped_memory_reads"));
    assert_null(zc_trace_report_find(r, "host_staging_copies"));
    free(r);
    free(t.text);

    /* The same calls as the program's own: the findings this test expects absent are there. */
    log_open(&t, 3, 64 * GiB);
    pin_cycles(&t, 0);
    r = analyze(&t, 24);
    assert_int_equal(r->pin_calls, 25);
    assert_int_equal(r->zc_run_pin_calls, 0);
    assert_non_null(zc_trace_report_find(r, "pinned_alloc_in_loop"));
    assert_non_null(zc_trace_report_find(r, "mapped_memory_reads"));
    assert_non_null(zc_trace_report_find(r, "host_staging_copies"));
    free(r);
    free(t.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staging_through_pinned_buffers),
        cmocka_unit_test(test_little_staging_is_no_finding),
        cmocka_unit_test(test_zc_run_pins_are_not_the_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
