/* SPDX-License-Identifier: Apache-2.0 */
/* The kernels' PCIe reads as Nsight Compute reports them (src/trace/trace_ncu.c): the kernel
 * filter from a log's launch records, the CSV report into per-kernel sums, and the reason when
 * ncu measured nothing. Text in, text out: no GPU, no ncu. */
#include "test_support.h"

#include <string.h>

#include "zerocopy/trace.h"

static const char zc__log[] = "zctrace 2 pid=7 ram=68719476736\n"
                              "launch 11 5000 _Z6rereadPKfPfji 7f1000000000\n"
                              "launch 12 6000 _Z6rereadPKfPfji 7f1000000000\n"
                              "launch 13 7000 ? 7f1000000000\n"
                              "launch 14 8000 _Z4copyPfS_ 7f2000000000\n"
                              "launches 4 4 0\n"
                              "end\n";

static void test_kernel_filter(void **state)
{
    (void)state;
    zc_trace_log log;
    zc_trace_log_init(&log);
    assert_int_equal(zc_trace_log_read_text(&log, zc__log, "test"), ZC_OK);
    char filter[256];
    size_t kernels = 0;
    assert_int_equal(zc_trace_ncu_kernel_filter(&log, filter, sizeof filter, &kernels), ZC_OK);
    /* Each name once, the unnamed one left out. */
    assert_string_equal(filter, "regex:^(_Z6rereadPKfPfji|_Z4copyPfS_)");
    assert_int_equal(kernels, 2);
    char tiny[12];
    assert_int_equal(zc_trace_ncu_kernel_filter(&log, tiny, sizeof tiny, &kernels),
                     ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "too few"));
    zc_trace_log_free(&log);

    zc_trace_log none;
    zc_trace_log_init(&none);
    assert_int_equal(zc_trace_ncu_kernel_filter(&none, filter, sizeof filter, &kernels),
                     ZC_ERR_NOT_FOUND);
    assert_int_equal(zc_trace_ncu_kernel_filter(NULL, filter, sizeof filter, &kernels),
                     ZC_ERR_INVALID_ARG);
    zc_trace_log_free(&none);
}

static void test_parse(void **state)
{
    (void)state;
    const char csv[] =
        "==PROF== Connected to process 4242\n"
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"4242\",\"_Z6rereadPKfPfji\",\"pcie__read_bytes.sum\",\"byte\",\"36,700,160\"\n"
        "\"1\",\"4242\",\"_Z6rereadPKfPfji\",\"pcie__read_bytes.sum\",\"byte\",\"1,024\"\n"
        "\"1\",\"4242\",\"_Z6rereadPKfPfji\",\"dram__bytes.sum\",\"byte\",\"99\"\n"
        "\"2\",\"4242\",\"_Z4copyPfS_\",\"pcie__read_bytes.sum\",\"byte\",\"4194304\"\n"
        "\"3\",\"4242\",\"_Z4copyPfS_\",\"pcie__read_bytes.sum\",\"byte\",\"n/a\"\n"
        "==PROF== Disconnected from process 4242\n";
    zc_trace_kernel_reads reads[ZC_TRACE_NCU_KERNELS];
    size_t count = 99;
    assert_int_equal(zc_trace_ncu_parse(csv, reads, ZC_TRACE_NCU_KERNELS, &count), ZC_OK);
    assert_int_equal(count, 2);
    assert_string_equal(reads[0].name, "_Z6rereadPKfPfji");
    assert_int_equal(reads[0].launches, 2);
    assert_int_equal(reads[0].read_bytes,
                     36700160u + 1024u); /* separators read, other metric skipped */
    assert_int_equal(reads[0].max_read_bytes, 36700160u);
    assert_int_equal(reads[1].launches, 1); /* "n/a" is not a figure */
    assert_int_equal(reads[1].read_bytes, 4194304u);
    /* Room for one kernel: the second is left out, not written past the end. */
    assert_int_equal(zc_trace_ncu_parse(csv, reads, 1, &count), ZC_OK);
    assert_int_equal(count, 1);
    /* No report rows: none measured, not a failure. */
    assert_int_equal(zc_trace_ncu_parse("==PROF== nothing\n", reads, 4, &count), ZC_OK);
    assert_int_equal(count, 0);
    assert_int_equal(zc_trace_ncu_parse(NULL, reads, 4, &count), ZC_ERR_INVALID_ARG);
}

static void test_why(void **state)
{
    (void)state;
    char why[256];
    zc_trace_ncu_why("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission", 1, why,
                     sizeof why);
    assert_non_null(strstr(why, "refused the performance counters"));
    zc_trace_ncu_why("==PROF== x\n==ERROR== Failed to prepare kernel for profiling\nmore", 1, why,
                     sizeof why);
    assert_string_equal(why, "ncu: ==ERROR== Failed to prepare kernel for profiling");
    zc_trace_ncu_why(NULL, 3, why, sizeof why);
    assert_non_null(strstr(why, "exited with code 3"));
    zc_trace_ncu_why("x", 3, NULL, 0); /* nowhere to write: nothing written */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_filter),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
