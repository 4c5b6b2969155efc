/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's output: the summary for people, and the run as the library's zerocopy.trace/1
 * document takes it (zerocopy/json.h, zc_trace_to_json). */
#ifndef ZC_TRACE_OUTPUT_H
#define ZC_TRACE_OUTPUT_H

#include <stdio.h>

#include "zerocopy/json.h"
#include "zerocopy/trace.h"

/* How the traced program ran, and what the trace could see of it. */
typedef struct zc_cli_trace_run {
    char *const *argv;   /* the program and its arguments, NULL-terminated */
    int exit_code;       /* what zc trace returns: the program's code, or 128 + signal */
    int signal;          /* the signal that ended it, or 0 */
    int traced;          /* 1 when the program ran with the injection library */
    int trace_failed;    /* 1 when the trace itself failed (an unreadable log) */
    int start_errno;     /* why the program could not be started (exec's errno), or 0 */
    char why_not[512];   /* when nothing was recorded: why, in one sentence */
    double ceiling_gbps; /* 0 when unknown */
    char ceiling_source[192];
} zc_cli_trace_run;

/* The summary: paths, kernels, host memory, ceiling, findings. log and report may be NULL when
 * nothing was recorded; then one line says why. A program that could not be started is said
 * in one line, "cannot run 'PROGRAM': why", and nothing else. */
void zc_cli_trace_print_summary(FILE *out, const zc_cli_trace_run *run, const zc_trace_log *log,
                                const zc_trace_report *report);

/* The run as its document takes it; log and report may be NULL (nothing recorded). */
zc_trace_document zc_cli_trace_document(const zc_cli_trace_run *run, const zc_trace_log *log,
                                        const zc_trace_report *report);

#endif
