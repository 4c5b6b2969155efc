/* The event log that the zc trace injection library writes, read back for analysis. */
#ifndef ZC_TRACE_LOG_H
#define ZC_TRACE_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zerocopy/status.h"

/* Copy directions, in the order of trace_log.c's names ("h2d", "d2h", ...). */
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

/* Host-memory calls the library logs. */
typedef enum zc_trace_call {
    ZC_TRACE_CALL_HOSTALLOC,      /* cudaHostAlloc, cudaMallocHost, cuMemHostAlloc, ... */
    ZC_TRACE_CALL_HOSTREGISTER,   /* cudaHostRegister */
    ZC_TRACE_CALL_FREEHOST,       /* cudaFreeHost */
    ZC_TRACE_CALL_HOSTUNREGISTER, /* cudaHostUnregister */
    ZC_TRACE_CALL_MALLOCMANAGED,  /* cudaMallocManaged */
    ZC_TRACE_CALL_HOSTGETDEVICEPTR,
    ZC_TRACE_CALL_PREFETCH, /* cudaMemPrefetchAsync */
    ZC_TRACE_CALL_COUNT
} zc_trace_call;

/* The flag bit that asks for mapped memory (cudaHostAllocMapped, cudaHostRegisterMapped). */
#define ZC_TRACE_FLAG_MAPPED 0x02u

typedef struct zc_trace_copy {
    zc_trace_dir dir;
    zc_trace_mem src;
    zc_trace_mem dst;
    uint64_t bytes;
    uint64_t start; /* ns, CUPTI's clock */
    uint64_t end;
    uint32_t stream;
    int async; /* 1 when issued by an asynchronous call */
} zc_trace_copy;

typedef struct zc_trace_memset {
    zc_trace_mem kind;
    uint64_t bytes;
    uint64_t start;
    uint64_t end;
    uint32_t stream;
    int async;
} zc_trace_memset;

typedef struct zc_trace_kernel {
    uint64_t start;
    uint64_t end;
    uint32_t stream;
} zc_trace_kernel;

typedef struct zc_trace_um {
    zc_trace_um_counter counter;
    uint64_t value;
    uint64_t start;
    uint64_t end;
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
    size_t process_count;  /* logs read */
    size_t complete_count; /* logs that reached their end line */
    uint64_t ram_bytes;    /* physical memory the traced program saw */
    uint64_t dropped;      /* records CUPTI dropped */
    int um_unavailable;    /* the driver refused unified-memory counters */
    char notes[ZC_TRACE_NOTE_MAX][256];
    size_t note_count;
    char error[320]; /* when a read fails: "<file>:<line>: what" */
} zc_trace_log;

/* An empty log. */
void zc_trace_log_init(zc_trace_log *log);

/* Free what the log holds and leave it empty. */
void zc_trace_log_free(zc_trace_log *log);

/*
 * Append one process's log read from in (name is used in error messages). A malformed line
 * gives ZC_ERR_PARSE with log->error saying where; out of memory gives ZC_ERR_NO_MEMORY.
 */
zc_status zc_trace_log_read(zc_trace_log *log, FILE *in, const char *name);

/* The same for a log held in a string (tests, hand-made logs). */
zc_status zc_trace_log_read_text(zc_trace_log *log, const char *text, const char *name);

/* Append every "*.log" file of folder dir. */
zc_status zc_trace_log_read_dir(zc_trace_log *log, const char *dir);

/* Names as the log and the JSON write them. */
const char *zc_trace_dir_name(zc_trace_dir dir);
const char *zc_trace_mem_name(zc_trace_mem mem);
const char *zc_trace_call_name(zc_trace_call call);

#endif
