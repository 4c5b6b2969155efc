/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the benchmark context, the case table and the helpers every case uses. */
#ifndef ZC_BENCH_INTERNAL_H
#define ZC_BENCH_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_bench)
#error "src/bench/ included from below bench: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "zerocopy/bench.h"
#include "zerocopy/buffer.h"
#include "zerocopy/device.h"

#define ZC__BENCH_STREAMS    4
#define ZC__BENCH_SIZES_MAX  64
#define ZC__BENCH_SLOTS      4096 /* checksum slots: one per sample of a point */
#define ZC__BENCH_HOST_SLOTS 2    /* buffers per host kind: a source and a destination */
/* At most this many copies or launches queued behind one gate per stream: well inside the
 * driver's queue, so that queuing never blocks the host while the gate holds the GPU. */
#define ZC__BENCH_QUEUE_MAX  128
/* The corruption hook's list of key patterns, in characters with its end: room for 16 keys. */
#define ZC__CORRUPT_LIST_MAX (ZC_BENCH_KEY_MAX * 16)

/* Memory the cases use: of a zc_buffer_kind, from the exact call a user would hand-roll
 * (src/mem/exact.h), kept for the next case that needs as much or less. */
typedef struct zc__buffer {
    void *ptr;
    size_t bytes;
} zc__buffer;

/* Words of mapped host memory shared with the gate and ping-pong kernels, each on its own
 * 128-byte line so that the CPU's and the GPU's single-writer words never share a line. */
typedef struct zc__shared_words {
    uint32_t gate_release; /* host writes: the sequence number the gate waits for */
    uint32_t pad0[31];
    uint32_t gate_status; /* GPU writes: 0 released, 1 timed out */
    uint32_t pad1[31];
} zc__shared_words;

struct zc_bench_ctx {
    zc_bench_config config;
    size_t sizes[ZC__BENCH_SIZES_MAX];
    size_t size_count; /* 0: each case's own defaults */
    char corrupt_key[ZC__CORRUPT_LIST_MAX];
    zc_bench_method method;
    zc_device_info info;
    cudaStream_t streams[ZC__BENCH_STREAMS];
    cudaEvent_t start[ZC__BENCH_STREAMS];
    cudaEvent_t stop[ZC__BENCH_STREAMS];
    zc__shared_words *shared;   /* registered mapped memory where the device can register,
                                   else cudaHostAllocMapped (shared_kind) */
    zc__shared_words *d_shared; /* the device's view of the same words */
    zc_buffer_kind shared_kind;
    uint32_t gate_seq;
    int gate_open;                /* 1 while a gate kernel may be waiting */
    uint32_t *d_slots;            /* device: ZC__BENCH_SLOTS checksum slots */
    unsigned long long *d_report; /* device: verification report (count, first bad) */
    zc__buffer host[ZC_BUFFER_KIND_COUNT][ZC__BENCH_HOST_SLOTS];
    zc__buffer device[2];
    uint64_t rng;
    size_t case_total;
    size_t case_done;
    const char *current_key;
    /* The multi-GPU cases' GPUs: config.devices, or config.device alone. */
    int devices[ZC_BENCH_DEVICES_MAX];
    size_t device_count;
};

/* One case: its catalogue entry, when it runs, why it cannot, and what it does. */
typedef struct zc__bench_case {
    zc_bench_case_info info;
    unsigned modes; /* bit (1 << mode) set when the mode runs it by default */
    int (*can_run)(const zc_bench_ctx *ctx, const struct zc__bench_case *self, char *reason,
                   size_t n);
    zc_status (*run)(zc_bench_ctx *ctx, const struct zc__bench_case *self, zc_bench_result *res);
    int arg; /* a case-specific parameter (direction, kind, pattern) */
    int arg2;
} zc__bench_case;

extern const zc__bench_case zc__bench_cases[];
extern const size_t zc__bench_case_total;

/* Sizes: the user's --sizes when given, else the mode's default list for this family. */
size_t zc__bench_sizes(const zc_bench_ctx *ctx, const size_t *quick, size_t nq, const size_t *deflt,
                       size_t nd, const size_t *full, size_t nf, const size_t **sizes_p);

/* A fresh non-zero seed for every verified run. */
uint32_t zc__bench_seed(zc_bench_ctx *ctx);

/* Whether the test hook asks this case to corrupt its data. */
int zc__bench_corrupt(const zc_bench_ctx *ctx, const char *key);

/* Progress within the current case: done of total steps. */
void zc__bench_tick(zc_bench_ctx *ctx, size_t done, size_t total);

/* A host buffer of a kind, at least bytes long, kept by the context for the whole run. */
zc_status zc__bench_host(zc_bench_ctx *ctx, zc_buffer_kind kind, int slot, size_t bytes,
                         void **ptr_p);

/* Gives back every host buffer the context keeps (the next zc__bench_host allocates again), so
 * that a case can time allocations with none of its own pinned memory alive. */
void zc__bench_host_release(zc_bench_ctx *ctx);

/* A device buffer (slot 0 or 1), kept by the context. */
zc_status zc__bench_device(zc_bench_ctx *ctx, int slot, size_t bytes, void **ptr_p);

/* --- timing --- */

/*
 * A gated sample: zero the checksum slot (when slot_ptr is not NULL), launch a gate kernel on
 * each of the first nstreams streams, then record a start event on each. The caller queues its
 * work, then calls zc__gate_finish, which records the stop events, releases the gate, waits and
 * gives the span from the earliest start to the latest stop, in seconds.
 */
zc_status zc__gate_begin(zc_bench_ctx *ctx, int nstreams, uint32_t *slot_ptr);
zc_status zc__gate_finish(zc_bench_ctx *ctx, int nstreams, double *seconds_p);

/* Release any gate still waiting and wait for the device (after a failure). */
void zc__gate_abandon(zc_bench_ctx *ctx);

/* One sample of a point: seconds for what the sample does. slot numbers samples from 0. */
typedef zc_status (*zc__sample_fn)(zc_bench_ctx *ctx, void *arg, size_t slot, double *seconds_p);

/*
 * Take samples: the method's warm-ups, then repeats until the CoV settles, a cap on count or
 * on time (fixed == 0), or exactly fixed samples. *seconds_p (malloc'd, caller frees) holds the
 * kept samples; slots used run from 0 to warmups + count - 1.
 */
zc_status zc__measure(zc_bench_ctx *ctx, zc__sample_fn fn, void *arg, size_t fixed,
                      double **seconds_p, size_t *count_p, size_t *warmups_p);

/* Add a point from samples in seconds, converting to the metric's unit. */
zc_status zc__add_seconds(zc_bench_result *res, const char *variant, size_t bytes,
                          const char *param_name, double param, zc_bench_metric metric,
                          double bytes_per_sample, double ops_per_sample, const double *seconds,
                          size_t count, size_t warmups);

/* --- verification on the CPU (pattern.c) --- */

void zc__pattern_fill(void *p, size_t bytes, uint32_t seed);
/* 1 when p holds the pattern (each word plus delta when delta != 0, sizes multiple of 4);
 * else 0 and *bad_p is the first wrong byte offset. */
int zc__pattern_check(const void *p, size_t bytes, uint32_t seed, uint32_t delta, size_t *bad_p);
/* Sum mod 2^32 of the pattern's words 0, stride, 2*stride, ... below bytes / 4. */
uint32_t zc__pattern_sum(size_t bytes, uint32_t seed, size_t stride_words);

/* Fail a case with ZC_ERR_VERIFY and a message that says where the data was wrong. */
zc_status zc__verify_fail_host(const char *key, const char *what, size_t bytes, const void *p,
                               size_t bad, uint32_t seed);

/* Check a device-visible buffer on the GPU (report through ctx->d_report). */
zc_status zc__verify_device(zc_bench_ctx *ctx, const char *key, const char *what,
                            const void *dev_ptr, size_t bytes, uint32_t seed);

/* The same for a buffer whose every word is the pattern's plus delta (a kernel's output). */
zc_status zc__verify_device_delta(zc_bench_ctx *ctx, const char *key, const char *what,
                                  const void *dev_ptr, size_t bytes, uint32_t seed, uint32_t delta);

/* Fill a device buffer with the poison byte 0xA5 on the run's stream, and wait. */
zc_status zc__poison_device(zc_bench_ctx *ctx, void *p, size_t bytes);

/* Check the checksum slots 0..n-1 all equal expected. */
zc_status zc__verify_slots(zc_bench_ctx *ctx, const char *key, const char *what, size_t n,
                           uint32_t expected);

/* Flip one byte in the middle of a host or device buffer (the corruption test hook). */
zc_status zc__corrupt_host(void *p, size_t bytes);
zc_status zc__corrupt_device(void *p, size_t bytes);

/* "256 MiB", "4 KiB", "12 B" into buf. */
const char *zc__bench_size_str(size_t bytes, char *buf, size_t n);

#endif
