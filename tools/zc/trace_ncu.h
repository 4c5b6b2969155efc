/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace --pcie-counters: the traced program run a second time under Nsight Compute, for the
 * bytes each kernel given mapped host memory really read over PCIe. */
#ifndef ZC_CLI_TRACE_NCU_H
#define ZC_CLI_TRACE_NCU_H

#include <stddef.h>

#include "zerocopy/trace.h"

/* The environment variable naming the ncu binary (else ncu on PATH, else the toolkit's). */
#define ZC_CLI_TRACE_NCU_ENV "ZC_NCU"

typedef struct zc_cli_trace_ncu {
    zc_trace_kernel_reads reads[ZC_TRACE_NCU_KERNELS];
    size_t count;
    char why[256]; /* when nothing was measured: why, in one phrase */
} zc_cli_trace_ncu;

/*
 * Run argv again under ncu, profiling pcie__read_bytes.sum of the kernels that launch records
 * in log name (the program's output goes nowhere). 1 with out->reads filled when something was
 * measured; 0 with out->why when not (no such kernel, no ncu, the driver refused the counters).
 */
int zc_cli_trace_ncu_measure(char *const *argv, const zc_trace_log *log, zc_cli_trace_ncu *out);

#endif
