/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the pieces of the zc trace injection library. The log it writes is defined, with
 * its one writer per record, in trace_record.h. */
#ifndef ZC_TRACE_INJECT_H
#define ZC_TRACE_INJECT_H

#if defined(ZC_PART) && !defined(ZC_SEES_trace)
#error "src/trace/ included from below trace: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>
#include <stdio.h>

#include <cupti.h>

#include "trace_record.h"

/* Open "<dir>/<pid>.log" and write the header; 0 on success, -1 with a message on stderr. */
int zc__trace_writer_open(const char *dir);

/* The log, locked for one whole record (NULL when closed); always pair with unlock. Records
 * arrive from CUPTI's buffer thread and from every application thread that calls CUDA. */
FILE *zc__trace_writer_lock(void);
void zc__trace_writer_unlock(void);

/* The same without waiting: *locked_p is 1 when the lock was taken (then pair with unlock), 0
 * when another holds it. For callers that may have interrupted the holder (a copy observed
 * inside a signal handler). */
FILE *zc__trace_writer_trylock(int *locked_p);

/* Write the launch counts and the end line, and close the log. */
void zc__trace_writer_close(void);

/* A note line: "note <key> <text>". */
void zc__trace_note(const char *key, const char *text);

/* Log a CUPTI failure as a note line: "note <key> <call>: <CUPTI error text>". */
void zc__trace_note_cupti(const char *key, const char *call, CUptiResult result);

/* Enable the activity kinds and register the buffer callbacks; notes what is unavailable. */
void zc__trace_activity_start(void);

/* Deliver every buffered record to the log (cuptiActivityFlushAll) and note dropped records. */
void zc__trace_activity_flush(void);

/* Subscribe to the runtime and driver calls that allocate, pin and map host memory, prefetch
 * and advise managed memory, and launch kernels. */
void zc__trace_callbacks_start(void);

/* The allocations kernel arguments are matched against (trace_ranges.c). */
void zc__trace_ranges_add(uint64_t base, uint64_t bytes, uint64_t host);
void zc__trace_ranges_remove(uint64_t host);
int zc__trace_ranges_host_of(uint64_t host, uint64_t *base_p, uint64_t *bytes_p);
size_t zc__trace_ranges_match(const uint64_t *words, size_t count, uint64_t *hosts, size_t max);
/* The host pointer of the allocation holding address without waiting for the lock: 1 found, 0
 * not one of them, -1 the lock was held. */
int zc__trace_ranges_try_holder(uint64_t address, uint64_t *host_p);

/* The program's large host copies into or out of its pinned memory, heard through the copy
 * library when zc trace preloaded it (trace_host_copies.c); notes why not when it did not. At
 * exit: a note of those that could not be logged. */
void zc__trace_host_copies_start(void);
void zc__trace_host_copies_note(void);

/* Kernel launches (trace_launch.c): one seen through the runtime; reading one launch's
 * arguments at the driver (params or extra as cuLaunchKernel takes them), or at a runtime
 * launch's exit through the program's shared CUDA runtime (cudaGetFuncBySymbol) when the driver
 * could not say: each returns 1 when the arguments were read. Each launch is then counted once,
 * read or not; the counts, and a note naming what the driver answered when it refused. */
void zc__trace_launch_runtime(void);
int zc__trace_launch_inspect(CUfunction f, void **params, void **extra, uint32_t correlation);
int zc__trace_launch_inspect_runtime(const void *func, void **params, uint32_t correlation);
void zc__trace_launch_done(int inspected);
void zc__trace_launch_counts(uint64_t *runtime_p, uint64_t *inspected_p, uint64_t *failed_p);
void zc__trace_launch_refusals_note(void);

/* Why the kernels' PCIe read counters are not read, as a note (trace_counters.c). */
void zc__trace_counters_note(void);

#endif
