/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the pieces of the trace analysis (trace_analyze.c calls each in turn). */
#ifndef ZC_TRACE_ANALYZE_INTERNAL_H
#define ZC_TRACE_ANALYZE_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_trace)
#error "src/trace/ included from below trace: DESIGN.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>

#include "zerocopy/size.h"
#include "zerocopy/trace.h"

static inline double zc__trace_seconds(uint64_t ns)
{
    return (double)ns * 1e-9;
}

/* Add a finding (the evidence is a printf format); 0 when the report is full. */
__attribute__((format(printf, 9, 10))) int
zc__trace_finding(zc_trace_report *report, const char *key, const char *title,
                  zc_trace_severity severity, uint64_t count, uint64_t bytes, double time_s,
                  double saving_s, const char *evidence, ...);

/* Set the fix of the finding just added. */
void zc__trace_fix(zc_trace_report *report, const char *fix);

/* One allocation of pinned host or managed memory, with what the run did to it. */
typedef struct zc__trace_alloc {
    int process;
    zc_trace_call call; /* ZC_TRACE_CALL_HOSTALLOC, _HOSTREGISTER or _MALLOCMANAGED */
    unsigned flags;
    int runtime;
    uint64_t pointer;
    uint64_t bytes;
    uint64_t born, died; /* ns: the call that made it, the one that undid it (UINT64_MAX) */
    uint64_t prepared;   /* first prefetch or advice on it (UINT64_MAX: none) */
    uint64_t first_use;  /* first launch given a pointer into it (UINT64_MAX: none) */
    uint64_t launches;   /* launches given a pointer into it */
    char first_kernel[ZC_TRACE_LAUNCH_NAME];
} zc__trace_alloc;

typedef struct zc__trace_allocs {
    zc__trace_alloc *items;
    size_t count;
} zc__trace_allocs;

/* Every allocation in the log, with its prefetches, advice and launches; ZC_ERR_NO_MEMORY. */
zc_status zc__trace_allocs_build(const zc_trace_log *log, zc__trace_allocs *allocs);
void zc__trace_allocs_free(zc__trace_allocs *allocs);

/* The allocation of process that held pointer at time t, or NULL. */
zc__trace_alloc *zc__trace_allocs_at(const zc__trace_allocs *allocs, int process, uint64_t pointer,
                                     uint64_t t);

/* Kernel intervals merged into disjoint sorted ones, for the time copies overlap them. */
typedef struct zc__trace_busy {
    const zc_trace_kernel *merged;
    size_t count;
} zc__trace_busy;

void zc__trace_find_copies(const zc_trace_log *log, const zc_trace_params *params,
                           zc_trace_report *r, zc__trace_busy busy);
zc_status zc__trace_find_pinning(const zc_trace_log *log, const zc_trace_params *params,
                                 zc_trace_report *r);
void zc__trace_find_managed(const zc_trace_log *log, const zc__trace_allocs *allocs,
                            zc_trace_report *r);
zc_status zc__trace_find_mapped(const zc_trace_log *log, const zc_trace_params *params,
                                const zc_trace_counters *counters, const zc__trace_allocs *allocs,
                                zc_trace_report *r);

#endif
