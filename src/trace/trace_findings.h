/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the trace findings as rows (trace_findings.c), each a key, a severity, a title, a
 * fix and the one function that decides it from the facts (trace_facts.h). The analysis
 * (trace_analyze.c) asks every row in order; a new finding is one row and its finder. */
#ifndef ZC_TRACE_FINDINGS_H
#define ZC_TRACE_FINDINGS_H

#if defined(ZC_PART) && !defined(ZC_SEES_trace)
#error "src/trace/ included from below trace: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include "trace_facts.h"

/* Decide one finding: fill ev when it fires, leave it unfound otherwise. Fails only with
 * ZC_ERR_NO_MEMORY, for scratch space. */
typedef zc_status (*zc__trace_finder)(const zc__trace_facts *facts, zc__trace_evidence *ev);

typedef struct zc__trace_finding_row {
    const char *key; /* stable, in the JSON and docs/pitfalls.md */
    zc_trace_severity severity;
    const char *title; /* one line; a finder with variants may name another */
    const char *fix;
    zc__trace_finder find;
} zc__trace_finding_row;

/* The rows, in the order their findings are reported. */
extern const zc__trace_finding_row zc__trace_finding_rows[];
extern const size_t zc__trace_finding_row_count;

/* The finders (trace_find_copies.c, _blocks.c, _pinning.c, _managed.c, _mapped.c, _staging.c). */
zc_status zc__trace_find_pageable(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_small(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_sync(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_blocks(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_pin_loop(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_slow_pin(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_over_pinning(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_managed(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_mapped_reads(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_mapped_rereads(const zc__trace_facts *facts, zc__trace_evidence *ev);
zc_status zc__trace_find_staging(const zc__trace_facts *facts, zc__trace_evidence *ev);

#endif
