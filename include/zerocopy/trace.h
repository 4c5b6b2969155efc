/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's engine: the event log its injection library writes, read back, and the analysis of
 * a recorded run into per-path totals and the copy pitfalls, each with evidence and a fix. */
#ifndef ZEROCOPY_TRACE_H
#define ZEROCOPY_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

ZC_BEGIN_DECLS

/* Copy directions, in the order of the log's names ("h2d", "d2h", ...). */
typedef enum zc_trace_dir {
    ZC_TRACE_DIR_UNKNOWN,
    ZC_TRACE_DIR_H2D,
    ZC_TRACE_DIR_D2H,
    ZC_TRACE_DIR_H2A,
    ZC_TRACE_DIR_A2H,
    ZC_TRACE_DIR_A2A,
    ZC_TRACE_DIR_A2D,
    ZC_TRACE_DIR_D2A,
    ZC_TRACE_DIR_D2D,
    ZC_TRACE_DIR_H2H,
    ZC_TRACE_DIR_P2P,
    ZC_TRACE_DIR_COUNT
} zc_trace_dir;

/* Memory kinds as CUPTI names them. */
typedef enum zc_trace_mem {
    ZC_TRACE_MEM_UNKNOWN,
    ZC_TRACE_MEM_PAGEABLE,
    ZC_TRACE_MEM_PINNED,
    ZC_TRACE_MEM_DEVICE,
    ZC_TRACE_MEM_ARRAY,
    ZC_TRACE_MEM_MANAGED,
    ZC_TRACE_MEM_DEVICE_STATIC,
    ZC_TRACE_MEM_MANAGED_STATIC,
    ZC_TRACE_MEM_COUNT
} zc_trace_mem;

/* Unified-memory counters. */
typedef enum zc_trace_um_counter {
    ZC_TRACE_UM_UNKNOWN,
    ZC_TRACE_UM_BYTES_H2D,
    ZC_TRACE_UM_BYTES_D2H,
    ZC_TRACE_UM_CPU_FAULTS,
    ZC_TRACE_UM_GPU_FAULTS,
    ZC_TRACE_UM_THRASHING,
    ZC_TRACE_UM_THROTTLING,
    ZC_TRACE_UM_REMOTE_MAP,
    ZC_TRACE_UM_BYTES_D2D,
    ZC_TRACE_UM_COUNT
} zc_trace_um_counter;

/* Host-memory and managed-memory calls the injection library logs. */
typedef enum zc_trace_call {
    ZC_TRACE_CALL_HOSTALLOC,        /* cudaHostAlloc, cudaMallocHost, cuMemHostAlloc, ... */
    ZC_TRACE_CALL_HOSTREGISTER,     /* cudaHostRegister */
    ZC_TRACE_CALL_FREEHOST,         /* cudaFreeHost */
    ZC_TRACE_CALL_HOSTUNREGISTER,   /* cudaHostUnregister */
    ZC_TRACE_CALL_MALLOCMANAGED,    /* cudaMallocManaged */
    ZC_TRACE_CALL_HOSTGETDEVICEPTR, /* pointer: the host pointer asked about (log version 2) */
    ZC_TRACE_CALL_PREFETCH,         /* cudaMemPrefetchAsync; pointer and bytes from version 2 */
    ZC_TRACE_CALL_ADVISE,           /* cudaMemAdvise (version 2) */
    ZC_TRACE_CALL_HOSTCOPY,         /* a memcpy or memmove of the program of 1 MiB or more into
                                       or out of pinned memory it allocated (the flags below),
                                       whose pointer it gives; seen through the copy library
                                       that zc trace preloads (version 3) */
    ZC_TRACE_CALL_COUNT
} zc_trace_call;

/* The flags of a ZC_TRACE_CALL_HOSTCOPY record: the pinned memory was its destination, its
 * source, or both (the pointer is then the destination's). */
#define ZC_TRACE_HOSTCOPY_INTO   1u
#define ZC_TRACE_HOSTCOPY_OUT_OF 2u

/* The flag bit that asks for mapped memory (cudaHostAllocMapped, cudaHostRegisterMapped). */
#define ZC_TRACE_FLAG_MAPPED 0x02u
/* Set by the injection library on a call zc run's interposition library made on its own account
 * (a cure's pin of one of the program's buffers, its staging buffers: traced through zc run):
 * not the program's pinning, and no allocation of the program's (log version 3). */
#define ZC_TRACE_FLAG_ZC_RUN 0x80000000u

typedef struct zc_trace_copy {
    zc_trace_dir dir;
    zc_trace_mem src;
    zc_trace_mem dst;
    uint64_t bytes;
    uint64_t start; /* ns, CUPTI's clock */
    uint64_t end;
    uint32_t stream;
    int async;   /* 1 when issued by an asynchronous call */
    int process; /* index of the process log it came from */
} zc_trace_copy;

typedef struct zc_trace_memset {
    zc_trace_mem kind;
    uint64_t bytes;
    uint64_t start;
    uint64_t end;
    uint32_t stream;
    int async;
    int process;
} zc_trace_memset;

typedef struct zc_trace_kernel {
    uint64_t start;
    uint64_t end;
    uint32_t stream;
    uint32_t correlation; /* joins it to its launch record; 0 when the log has none */
    int process;
} zc_trace_kernel;

typedef struct zc_trace_um {
    zc_trace_um_counter counter;
    uint64_t value;
    uint64_t start;
    uint64_t end;
    int process;
} zc_trace_um;

typedef struct zc_trace_api {
    zc_trace_call call;
    uint64_t bytes;
    unsigned flags;
    uint64_t pointer; /* host pointer the call returned or took; 0 when failed or none */
    uint64_t start;
    uint64_t end;
    int ok;
    int runtime; /* 1 when logged from the runtime API (the flags are the program's own) */
    int process; /* index of the process log it came from, to match frees to allocations */
} zc_trace_api;

/* Most allocations one launch record names, and the kernel name kept with it. */
#define ZC_TRACE_LAUNCH_RANGES 8
#define ZC_TRACE_LAUNCH_NAME   64

/* A kernel launch whose arguments pointed into pinned host or managed memory: which
 * allocations (by the host pointer their allocation call returned) it was given. */
typedef struct zc_trace_launch {
    uint64_t time; /* ns, when the launch was called */
    uint32_t correlation;
    int process;
    size_t range_count;
    uint64_t ranges[ZC_TRACE_LAUNCH_RANGES];
    char name[ZC_TRACE_LAUNCH_NAME];
} zc_trace_launch;

/* One process's log: its pid, whether it reached its end line, and how many launches its
 * injection library could inspect. */
typedef struct zc_trace_process {
    long pid;
    int complete;
    int launch_counts;           /* 1 when the log says how many launches it inspected */
    uint64_t launches_runtime;   /* kernel launches seen through the runtime API */
    uint64_t launches_inspected; /* launches whose arguments were read */
    uint64_t launches_failed;    /* launches whose arguments could not be read */
    uint64_t copies, kernels, api_calls;
} zc_trace_process;

#define ZC_TRACE_NOTE_MAX 16

/* Everything read from the logs of one traced run (one log per process that used CUDA). */
typedef struct zc_trace_log {
    zc_trace_copy *copies;
    size_t copy_count, copy_cap;
    zc_trace_memset *memsets;
    size_t memset_count, memset_cap;
    zc_trace_kernel *kernels;
    size_t kernel_count, kernel_cap;
    zc_trace_um *ums;
    size_t um_count, um_cap;
    zc_trace_api *apis;
    size_t api_count, api_cap;
    zc_trace_launch *launches;
    size_t launch_count, launch_cap;
    zc_trace_process *processes;
    size_t process_cap;
    size_t process_count;    /* logs read */
    size_t complete_count;   /* logs that reached their end line */
    uint64_t ram_bytes;      /* physical memory the traced program saw */
    uint64_t dropped;        /* records CUPTI dropped */
    int um_unavailable;      /* the driver refused unified-memory counters */
    char pcie_counters[200]; /* why the kernels' PCIe read counters were not read; "" if unsaid */
    char notes[ZC_TRACE_NOTE_MAX][272];
    size_t note_count;
    char error[320]; /* when a read fails: "<file>:<line>: what" */
} zc_trace_log;

/* An empty log. */
ZC_EXTERN void zc_trace_log_init(zc_trace_log *log);

/* Free what the log holds and leave it empty. */
ZC_EXTERN void zc_trace_log_free(zc_trace_log *log);

/*
 * Append one process's log read from in (name is used in error messages). A malformed line
 * gives ZC_ERR_PARSE with log->error saying where; out of memory gives ZC_ERR_NO_MEMORY.
 */
ZC_EXTERN zc_status zc_trace_log_read(zc_trace_log *log, FILE *in, const char *name);

/* The same for a log held in a string (tests, hand-made logs). */
ZC_EXTERN zc_status zc_trace_log_read_text(zc_trace_log *log, const char *text, const char *name);

/* Append every "*.log" file of folder dir. */
ZC_EXTERN zc_status zc_trace_log_read_dir(zc_trace_log *log, const char *dir);

/* Names as the log and the JSON write them. */
ZC_EXTERN const char *zc_trace_dir_name(zc_trace_dir dir);
ZC_EXTERN const char *zc_trace_mem_name(zc_trace_mem mem);
ZC_EXTERN const char *zc_trace_call_name(zc_trace_call call);

/* When each finding fires (docs/pitfalls.md gives the reasons). */
#define ZC_TRACE_PAGEABLE_MIN_BYTES (1ull << 20) /* pageable bytes moved, or ... */
#define ZC_TRACE_PAGEABLE_MIN_COUNT 32           /* ... pageable copies made */
#define ZC_TRACE_SMALL_BYTES        (64u << 10)  /* a copy below this is small */
#define ZC_TRACE_SMALL_MIN_COUNT    256          /* small copies needed to report them */
#define ZC_TRACE_SYNC_MIN_COUNT     8            /* synchronous copies beside kernels */
#define ZC_TRACE_SYNC_MIN_SHARE     0.05         /* their time as a share of the run's GPU span */
#define ZC_TRACE_SYNC_MAX_OVERLAP   0.10         /* most of their time not hidden under kernels */
#define ZC_TRACE_PIN_LOOP_MIN_CALLS 8            /* repeated pinning calls, and ... */
#define ZC_TRACE_PIN_LOOP_MIN_NS    1000000ull   /* ... the time they took together */
#define ZC_TRACE_PIN_LATE_MIN_CALLS 16           /* pinning calls while GPU work runs, ... */
#define ZC_TRACE_PIN_LATE_MIN_SPAN  0.5          /* ... spread over this share of its span */
#define ZC_TRACE_SLOW_ALLOC_NS      250000000ull /* cudaHostAlloc time worth a cheaper way */
#define ZC_TRACE_OVERPIN_SHARE      0.5          /* peak pinned memory as a share of RAM */
#define ZC_TRACE_UM_MIN_FAULTS      16           /* fault records, or ... */
#define ZC_TRACE_UM_MIN_BYTES       (1ull << 20) /* ... bytes migrated on demand */
#define ZC_TRACE_MANAGED_MIN_BYTES  (1ull << 20) /* managed memory used without prefetch */
/* Block copies, KV-cache style traffic the block mover would do in one call: copies of one
 * size between pinned host memory and device memory, in one direction and one process, each
 * its own call, one after the other. The sizes are the range zc bench's block family measures
 * (and its fitted profile holds): from 4 KiB, where a copy's fixed cost is most of its time
 * (1.54 GB/s by a loop on the H100 against 5.95 GB/s by the mover's kernel), to 4 MiB, where a
 * loop is within 3% of the mover. 64 is the fewest blocks of one move the family measures;
 * fewer calls cost too little to be worth a change. The copies of one move follow each other
 * on the GPU within the gap: a loop of calls leaves a few microseconds between them (a 4 KiB
 * block every 2.7 us on the H100, a synchronous cudaMemcpy some 7 us); a longer gap is the CPU
 * working between copies (filling a staging buffer: a memcpy of 1 MiB takes tens of
 * microseconds) or a program's step (a kernel), and the blocks were not there to move at once. */
#define ZC_TRACE_BLOCK_MIN_BYTES    (4u << 10) /* a block moves at least this, ... */
#define ZC_TRACE_BLOCK_MAX_BYTES    (4u << 20) /* ... and at most this */
#define ZC_TRACE_BLOCK_MIN_COUNT    64         /* blocks of one size in one move */
#define ZC_TRACE_BLOCK_MAX_GAP_NS   20000ull   /* GPU time between two copies of one move */
/* Host copies through the program's pinned buffers (a framework's staging), worth a finding
 * from this many bytes: a few arrays of tens of MiB, whose memcpy takes milliseconds. */
#define ZC_TRACE_STAGING_MIN_BYTES  (64ull << 20)

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
    char evidence[768];
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

/* Bytes one kernel read over PCIe, measured by a profiler (zc trace --pcie-counters runs the
 * program again under Nsight Compute for it): summed over the launches measured. */
typedef struct zc_trace_kernel_reads {
    char name[ZC_TRACE_LAUNCH_NAME]; /* as launch records name it (the mangled name) */
    uint64_t launches;
    uint64_t read_bytes;     /* summed over them */
    uint64_t max_read_bytes; /* the most one launch read (launches of the same kernel on device
                                memory read none: the most is the one that read host memory) */
} zc_trace_kernel_reads;

/* A kernel that reads the host memory it was given this many times over is re-reading it. */
#define ZC_TRACE_REREAD_MIN_RATIO 2.0

/* What zc trace measures the run against. */
typedef struct zc_trace_params {
    double ceiling_gbps;        /* bandwidth per direction host<->device; 0 when unknown */
    const char *ceiling_source; /* how it was obtained (shown with it) */
    uint64_t ram_bytes;         /* RAM to hold pinned memory against; 0: as the log says */
    /* The block mover's measured profile (zc_blocks_profile_from_bench, zerocopy/advise.h):
     * block_copies is priced with it. NULL, or a profile not measured (the placeholders): no
     * price. A profile zc_blocks_set_profile would refuse makes the analysis fail. */
    const struct zc_blocks_profile *blocks_profile;
    /* The ways of pinning as zc bench's pinning family measured them
     * (zc_pinning_curves_from_bench, zerocopy/advise.h): slow_pinned_alloc prices the fastpin
     * cure with zerocopy's curve. NULL, or curves without zerocopy's way: the fixed figure of
     * the finding's text alone. */
    const struct zc_pinning_curves *pinning_curves;
} zc_trace_params;

/* The kernels' PCIe reads measured beside the trace, or why they were asked for and not
 * measured (reads NULL, why set). */
typedef struct zc_trace_counters {
    const zc_trace_kernel_reads *reads;
    size_t count;
    const char *why;
} zc_trace_counters;

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
    uint64_t prefetch_calls;   /* cudaMemPrefetchAsync */
    uint64_t advise_calls;     /* cudaMemAdvise */
    uint64_t mapped_bytes;     /* pinned with the mapped flag by the program itself */
    uint64_t devptr_calls;     /* cudaHostGetDevicePointer */
    uint64_t zc_run_pin_calls; /* pinning calls zc run made on its own (ZC_TRACE_FLAG_ZC_RUN),
                                  in none of the figures above */
    /* The program's host copies of 1 MiB or more into or out of pinned or managed memory it
     * allocated (ZC_TRACE_CALL_HOSTCOPY; none when the copy library was not preloaded). */
    uint64_t host_copy_calls;
    uint64_t host_copy_bytes;
    uint64_t host_copy_ns;

    /* Kernel arguments: when the logs say launches were inspected, findings about managed and
     * mapped memory rest on which allocations each kernel was given. */
    int launch_args_seen; /* 1 when launch arguments were read in every process */
    uint64_t launches_inspected;
    uint64_t launches_failed;

    int um_counters;           /* 1 when unified-memory counters were recorded */
    uint64_t um_fault_records; /* GPU fault groups plus CPU faults */
    uint64_t um_bytes;         /* bytes migrated on demand, both ways */
    uint64_t um_ns;            /* time the GPU fault groups took */

    zc_trace_finding findings[ZC_TRACE_FINDING_MAX];
    size_t finding_count;
} zc_trace_report;

/*
 * Analyse a recorded run into *report_p: totals per path, host-memory figures and findings.
 * Fails with ZC_ERR_INVALID_ARG on NULL, on a params->blocks_profile with a cost negative or
 * not finite, a bandwidth of 0 or batch_max 0, or on params->pinning_curves whose zerocopy curve
 * does not ascend in size with finite positive times; ZC_ERR_NO_MEMORY when scratch space is
 * lacking.
 */
ZC_EXTERN zc_status zc_trace_analyze(const zc_trace_log *log, const zc_trace_params *params,
                                     zc_trace_report *report_p);

/* The same, with the kernels' PCIe reads measured beside the trace (counters may be NULL): the
 * mapped-memory note gives them, and a kernel that read its host memory
 * ZC_TRACE_REREAD_MIN_RATIO times or more over is the warning mapped_memory_rereads. */
ZC_EXTERN zc_status zc_trace_analyze_measured(const zc_trace_log *log,
                                              const zc_trace_params *params,
                                              const zc_trace_counters *counters,
                                              zc_trace_report *report_p);

/* The finding with this key, or NULL. */
ZC_EXTERN const zc_trace_finding *zc_trace_report_find(const zc_trace_report *report,
                                                       const char *key);

/* "12.3 ms", "850 us", "1.20 s" into out; gives out. */
ZC_EXTERN const char *zc_trace_format_time(double seconds, char *out, size_t size);

/* True for copies between host and device memory (the ones the PCIe ceiling applies to). */
ZC_EXTERN int zc_trace_dir_crosses_pcie(zc_trace_dir dir);

/* The theoretical PCIe figure of GPU device, with its description in source; 0 and the reason
 * in source when there is no GPU or the link cannot be read. */
ZC_EXTERN double zc_trace_ceiling_from_link(int device, char *source, size_t source_size);

/* Nsight Compute's name for the bytes a kernel read over PCIe, and the most kernels asked for. */
#define ZC_TRACE_NCU_METRIC  "pcie__read_bytes.sum"
#define ZC_TRACE_NCU_KERNELS 16

/*
 * The kernels that launch records in log name, as one ncu --kernel-name argument
 * ("regex:^(a|b)"), into out (size bytes); *kernels_p says how many (at most
 * ZC_TRACE_NCU_KERNELS). ZC_ERR_NOT_FOUND when no kernel given host memory has a usable name;
 * ZC_ERR_INVALID_ARG when out is too small or an argument NULL.
 */
ZC_EXTERN zc_status zc_trace_ncu_kernel_filter(const zc_trace_log *log, char *out, size_t size,
                                               size_t *kernels_p);

/*
 * The per-kernel sums of ZC_TRACE_NCU_METRIC in csv, an `ncu --csv --page details --print-units
 * base` report (its ==PROF== lines and other metrics skipped, thousands separators read), into
 * reads[0 .. max-1], one per kernel name; *count_p of them. A report with no such rows gives
 * 0 kernels, not a failure.
 */
ZC_EXTERN zc_status zc_trace_ncu_parse(const char *csv, zc_trace_kernel_reads *reads, size_t max,
                                       size_t *count_p);

/* Why ncu measured nothing, in one phrase into why, from its report or stderr (text, may be
 * NULL) and its exit code: the driver's refusal of the counters, ncu's first ==ERROR== line, or
 * the code. */
ZC_EXTERN void zc_trace_ncu_why(const char *text, int code, char *why, size_t size);

ZC_END_DECLS

#endif
