/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: what the trace findings decide on, built once per analysis (trace_analyze.c) and
 * read by every finder (trace_find_*.c): the run's totals in the report, the kernels merged in
 * time, the host-memory calls in time order, the allocations and what kernels did with them,
 * the readers of pinned host memory; and the evidence a finder gives back. Nothing here knows a
 * finding: the dependency runs dispatcher -> findings table -> finders -> these facts. */
#ifndef ZC_TRACE_FACTS_H
#define ZC_TRACE_FACTS_H

#if defined(ZC_PART) && !defined(ZC_SEES_trace)
#error "src/trace/ included from below trace: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>

#include "zerocopy/size.h"
#include "zerocopy/trace.h"

static inline double zc__trace_seconds(uint64_t ns)
{
    return (double)ns * 1e-9;
}

/* What a finder found: the figures and the evidence of one finding (its key, severity and fix
 * are its row's). found stays 0 when the finding does not fire. */
typedef struct zc__trace_evidence {
    int found;
    const char *title; /* NULL: the row's; a finder with variants names its own */
    uint64_t count;    /* the calls or records it rests on */
    uint64_t bytes;
    double time_s;
    double saving_s; /* negative when not known */
    char text[sizeof(((zc_trace_finding *)0)->evidence)];
} zc__trace_evidence;

/* Mark ev found with these figures and the evidence formatted from fmt. */
__attribute__((format(printf, 7, 8))) void
zc__trace_evidence_set(zc__trace_evidence *ev, uint64_t count, uint64_t bytes, double time_s,
                       double saving_s, const char *title, const char *fmt, ...);

/* One host-memory call in time order, with what it undid: a free or unregistration that
 * matched a pin live in its process gives that pin's bytes. */
typedef struct zc__trace_step {
    const zc_trace_api *call;
    int undoes;      /* 1 when it freed or unregistered a live pin */
    uint64_t undone; /* that pin's bytes */
} zc__trace_step;

/* Every call of the log by process, then by start time. */
typedef struct zc__trace_calls {
    zc__trace_step *steps;
    size_t count;
} zc__trace_calls;

/* 1 for a successful pinning call (cudaHostAlloc and the like, cudaHostRegister). */
int zc__trace_is_pin(const zc_trace_api *a);

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

/* The allocation of process that held pointer at time t, or NULL. */
zc__trace_alloc *zc__trace_allocs_at(const zc__trace_allocs *allocs, int process, uint64_t pointer,
                                     uint64_t t);

/* Kernel intervals merged into disjoint sorted ones, for the time copies overlap them. */
typedef struct zc__trace_busy {
    zc_trace_kernel *merged;
    size_t count;
} zc__trace_busy;

/* Time of [start, end) that some kernel ran. */
uint64_t zc__trace_busy_covered(const zc__trace_busy *busy, uint64_t start, uint64_t end);

/* One kernel (by name) given pinned host memory. */
typedef struct zc__trace_reader {
    char name[ZC_TRACE_LAUNCH_NAME];
    uint64_t launches;
    uint64_t reach;       /* the most pinned host bytes one launch could reach */
    uint64_t gpu_ns;      /* time of its launches on the GPU (those joined to a kernel record) */
    uint64_t timed_reach; /* reach summed over the launches that were timed */
} zc__trace_reader;

/* The kernels given pinned host memory, the busiest on the GPU first; empty unless launch
 * arguments were seen (report->launch_args_seen). */
typedef struct zc__trace_readers {
    zc__trace_reader *items;
    size_t count;
    uint64_t launches; /* launches given pinned host memory */
    uint64_t reached;  /* pinned bytes some launch reached, each allocation once */
} zc__trace_readers;

/* Everything a finder reads. */
typedef struct zc__trace_facts {
    const zc_trace_log *log;
    const zc_trace_params *params;
    const zc_trace_counters *counters; /* never NULL: none measured is {NULL, 0, NULL} */
    const zc_trace_report *report;     /* the totals: paths, kernels, host and managed memory */
    zc__trace_busy busy;
    zc__trace_calls calls;
    zc__trace_allocs allocs;
    zc__trace_readers readers;
} zc__trace_facts;

/* Fill report's totals and build the facts over it; ZC_ERR_NO_MEMORY (nothing to free then). */
zc_status zc__trace_facts_build(const zc_trace_log *log, const zc_trace_params *params,
                                const zc_trace_counters *counters, zc_trace_report *report,
                                zc__trace_facts *facts_p);
void zc__trace_facts_free(zc__trace_facts *facts);

/* The pieces facts_build calls (trace_calls.c, trace_allocs.c, trace_readers.c). */
zc_status zc__trace_calls_build(const zc_trace_log *log, zc_trace_report *report,
                                zc__trace_calls *calls_p);
zc_status zc__trace_allocs_build(const zc_trace_log *log, const zc__trace_calls *calls,
                                 zc__trace_allocs *allocs);
void zc__trace_allocs_free(zc__trace_allocs *allocs);
zc_status zc__trace_readers_build(const zc_trace_log *log, const zc__trace_allocs *allocs,
                                  zc__trace_readers *readers_p);

#endif
