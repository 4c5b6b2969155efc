/* SPDX-License-Identifier: Apache-2.0 */
/* Trace logs written by hand for the analysis tests: a log in memory, its header and end line,
 * and the log parsed and analysed (the caller frees the report). */
#ifndef ZC_TEST_TRACE_LOG_TEXT_H
#define ZC_TEST_TRACE_LOG_TEXT_H

#include <stdio.h>
#include <stdlib.h>

#include "test_support.h"
#include "zerocopy/trace.h"

typedef struct log_text {
    FILE *f;
    char *text;
    size_t size;
} log_text;

/* Start a log of the given format version for a machine with ram bytes. */
static inline void log_open(log_text *t, int version, unsigned long long ram)
{
    t->text = NULL;
    t->size = 0;
    t->f = open_memstream(&t->text, &t->size);
    assert_non_null(t->f);
    fprintf(t->f, "zctrace %d pid=42 ram=%llu\n", version, ram);
}

/* The end line, and the text complete in t->text. */
static inline void log_close(log_text *t)
{
    fputs("end\n", t->f);
    assert_int_equal(fclose(t->f), 0);
}

static inline zc_trace_report *log_analyze(const char *text, const char *name, double ceiling,
                                           unsigned long long ram)
{
    zc_trace_log log;
    zc_trace_log_init(&log);
    if (zc_trace_log_read_text(&log, text, name) != ZC_OK)
        fail_msg("parse failed: %s", log.error);
    zc_trace_params params = {ceiling, "test", ram, NULL, NULL};
    zc_trace_report *report = malloc(sizeof *report);
    assert_non_null(report);
    assert_int_equal(zc_trace_analyze(&log, &params, report), ZC_OK);
    zc_trace_log_free(&log);
    return report;
}

#endif
