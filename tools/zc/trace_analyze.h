/* zc trace's analysis: per-path totals and the copy pitfalls found in a recorded run. */
#ifndef ZC_TRACE_ANALYZE_H
#define ZC_TRACE_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "trace_log.h"

/* When each finding fires (docs/pitfalls.md gives the reasons). */
#define ZC_TRACE_PAGEABLE_MIN_BYTES (1ull << 20) /* pageable bytes moved, or ... */
#define ZC_TRACE_PAGEABLE_MIN_COUNT 32           /* ... pageable copies made */
#define ZC_TRACE_SMALL_BYTES        (64u << 10)  /* a copy below this is small */
#define ZC_TRACE_SMALL_MIN_COUNT    256          /* small copies needed to report them */
#define ZC_TRACE_SYNC_MIN_COUNT     8            /* synchronous copies beside kernels */
#define ZC_TRACE_SYNC_MIN_SHARE     0.05         /* their time as a share of the run's GPU span */
#define ZC_TRACE_SYNC_MAX_OVERLAP   0.10         /* most of their time not hidden under kernels */
#define ZC_TRACE_PIN_LOOP_MIN_CALLS 8            /* pinning calls, and ... */
#define ZC_TRACE_PIN_LOOP_MIN_NS    1000000ull   /* ... the time they took together */
#define ZC_TRACE_SLOW_ALLOC_NS      250000000ull /* cudaHostAlloc time worth a cheaper way */
#define ZC_TRACE_OVERPIN_SHARE      0.5          /* peak pinned memory as a share of RAM */
#define ZC_TRACE_UM_MIN_FAULTS      16           /* fault records, or ... */
#define ZC_TRACE_UM_MIN_BYTES       (1ull << 20) /* ... bytes migrated on demand */
#define ZC_TRACE_MANAGED_MIN_BYTES  (1ull << 20) /* managed memory used without prefetch */

typedef enum zc_trace_severity {
    ZC_TRACE_NOTE = 0,   /* worth knowing; the trace could not measure its cost */
    ZC_TRACE_WARNING = 1 /* a pitfall measured in this run */
} zc_trace_severity;

/* One pitfall found, with the evidence and the fix. */
typedef struct zc_trace_finding {
    const char *key;   /* stable: "pageable_transfers", "small_transfers", ... */
    const char *title; /* one line */
    zc_trace_severity severity;
    uint64_t count;  /* the calls or records it rests on */
    uint64_t bytes;  /* the bytes they moved or pinned */
    double time_s;   /* the time they took */
    double saving_s; /* the time the fix would save at most; negative when not known */
    char evidence[512];
    char fix[512];
} zc_trace_finding;

/* Totals of one copy path (direction, source kind, destination kind), or one memset kind. */
typedef struct zc_trace_path {
    zc_trace_dir dir; /* ZC_TRACE_DIR_UNKNOWN for memsets */
    zc_trace_mem src; /* memsets: the memory set */
    zc_trace_mem dst;
    uint64_t count;
    uint64_t sync_count;
    uint64_t bytes;
    uint64_t time_ns;
} zc_trace_path;

#define ZC_TRACE_PATH_MAX    64
#define ZC_TRACE_FINDING_MAX 16

/* What zc trace measures the run against. */
typedef struct zc_trace_params {
    double ceiling_gbps;        /* bandwidth per direction host<->device; 0 when unknown */
    const char *ceiling_source; /* how it was obtained (shown with it) */
    uint64_t ram_bytes;         /* RAM to hold pinned memory against; 0: as the log says */
} zc_trace_params;

typedef struct zc_trace_report {
    zc_trace_path paths[ZC_TRACE_PATH_MAX];
    size_t path_count;
    zc_trace_path memsets[ZC_TRACE_MEM_COUNT];
    size_t memset_count;
    uint64_t copy_count;
    uint64_t kernel_count;
    uint64_t kernel_ns;
    uint64_t span_ns; /* first GPU activity start to last end */

    uint64_t pin_calls;   /* successful cudaHostAlloc/cudaMallocHost/cudaHostRegister */
    uint64_t pin_bytes;   /* bytes they pinned */
    uint64_t pin_ns;      /* time they took */
    uint64_t alloc_calls; /* of which allocations (not registrations) */
    uint64_t alloc_ns;
    uint64_t alloc_bytes;
    uint64_t peak_pinned_bytes; /* most pinned at once (summed over processes) */
    uint64_t ram_bytes;
    uint64_t managed_calls;
    uint64_t managed_bytes;
    uint64_t prefetch_calls;
    uint64_t mapped_bytes; /* pinned with the mapped flag */
    uint64_t devptr_calls; /* cudaHostGetDevicePointer */

    int um_counters;           /* 1 when unified-memory counters were recorded */
    uint64_t um_fault_records; /* GPU fault groups plus CPU faults */
    uint64_t um_bytes;         /* bytes migrated on demand, both ways */
    uint64_t um_ns;            /* time the GPU fault groups took */

    zc_trace_finding findings[ZC_TRACE_FINDING_MAX];
    size_t finding_count;
} zc_trace_report;

/*
 * Analyse a recorded run into *report_p: totals per path, host-memory figures and findings.
 * Fails with ZC_ERR_INVALID_ARG on NULL, ZC_ERR_NO_MEMORY when scratch space is lacking.
 */
zc_status zc_trace_analyze(const zc_trace_log *log, const zc_trace_params *params,
                           zc_trace_report *report_p);

/* The finding with this key, or NULL. */
const zc_trace_finding *zc_trace_report_find(const zc_trace_report *report, const char *key);

/* "64.0 MiB", "512 B" into out; gives out. */
const char *zc_trace_format_bytes(uint64_t bytes, char *out, size_t size);

/* "12.3 ms", "850 us", "1.20 s" into out; gives out. */
const char *zc_trace_format_time(double seconds, char *out, size_t size);

/* True for copies between host and device memory (the ones the PCIe ceiling applies to). */
int zc_trace_dir_crosses_pcie(zc_trace_dir dir);

#endif
