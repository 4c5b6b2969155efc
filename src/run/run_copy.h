/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the interposition library: a copy as the hooks describe it and the cures plan it
 * (run_cures.h). The hooks of plain copies (run_copy.c) and pitched ones (run_copy_pitched.c)
 * fill one zc__run_copy with the program's call and its sides; the rows of the cure table plan
 * it in turn; the dispatcher runs the plan.
 */
#ifndef ZC_RUN_COPY_H
#define ZC_RUN_COPY_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#include "run_counts.h"
#include "run_driver.h"
#include "run_register.h"
#include "run_staging.h"

/* What a pointer is, as far as the cures care. */
typedef enum zc__where { ZC__UNKNOWN, ZC__PAGEABLE, ZC__DEVICE, ZC__OTHER } zc__where;

zc__where zc__run_classify(const zc__run_driver *d, CUdeviceptr ptr);

/*
 * What to do with a copy: a row passes it on (not its own); or leave it as it was; time it as
 * it was (the sample that prices the cured ones); stage it (the pageable cure); give it to the
 * driver straight from its buffer pinned in place and wait for it (the register cure); or give
 * it to the driver as it was and wait for its stream (it touches a buffer pinned in place that
 * the driver would otherwise read or write after the call returned).
 */
typedef enum zc__plan {
    ZC__PASS,
    ZC__AS_IT_WAS,
    ZC__SAMPLE,
    ZC__CURE,
    ZC__PINNED,
    ZC__WAIT
} zc__plan;

/* How the hook could describe a copy: between host and device memory, its sides known; or only
 * the host ranges it touches (a copy between two host buffers, to or from an array, a peer or
 * batched copy), which a cure may have to guard but none stages. */
typedef enum zc__copy_kind { ZC__COPY_HOST_DEVICE, ZC__COPY_GUARD } zc__copy_kind;

struct zc__run_copy;
struct zc__run_cure;

/* How a staged copy of one shape (plain, pitched) runs through the staging buffers. */
typedef struct zc__run_shape {
    CUresult (*stage)(const struct zc__run_copy *c, zc__run_staging *s);
} zc__run_shape;

#define ZC__GUARD_RANGES 2

typedef struct zc__run_copy {
    /* The program's call: the driver's own entry point with the program's arguments. */
    CUresult (*call)(const struct zc__run_copy *c);
    const void *args;
    const zc__run_driver *d; /* NULL: no driver to ask, the call goes as it was */
    zc__copy_kind kind;
    /* ZC__COPY_HOST_DEVICE: the direction, each side's first byte and the bytes it spans, the
     * bytes moved, and what the host side is (ZC__PAGEABLE, or ZC__OTHER: page-locked). */
    zc__run_dir dir;
    char *host;
    size_t host_extent;
    CUdeviceptr device;
    size_t device_extent;
    size_t bytes;
    size_t row; /* a pitched copy's row, which a staging buffer must hold whole; 0 for plain */
    zc__where host_where;
    /* ZC__COPY_GUARD: the host ranges it may touch. */
    const void *guard[ZC__GUARD_RANGES];
    size_t guard_extent[ZC__GUARD_RANGES];
    CUstream stream; /* as the cures name it (CU_STREAM_PER_THREAD for a thread's own) */
    int async;
    const zc__run_shape *shape;
    /* Found while planning. */
    CUcontext ctx;
    zc__plan verdict;    /* zc__run_copy_eligible's, once asked (ZC__PASS before) */
    int must_stage;      /* the driver's own call would wait where the program's would not:
                            staged, or waited for when no row can stage it */
    int must_wait;       /* asynchronous and touching a buffer pinned in place: waited for */
    zc__run_pin_use pin; /* ZC__PINNED: the pin it holds */
    uint64_t pin_ns;     /* ZC__PINNED: the pinning this copy paid for */
    const struct zc__run_cure *by; /* the row that planned it */
} zc__run_copy;

/* A copy description with no sides yet: the call, the driver, the stream. */
void zc__run_copy_init(zc__run_copy *c, CUresult (*call)(const zc__run_copy *), const void *args,
                       CUstream stream, int per_thread, int async);

/* Plan c through the cure table and run the plan: the cure's own run, or the program's call
 * (waited for when the plan says so). Gives the program's result. */
CUresult zc__run_copy_dispatch(zc__run_copy *c);

/* The stream a copy goes on, as the cures name it: the per-thread forms' stream 0 is the
 * calling thread's default stream, which the legacy entry points the cures call reach as
 * CU_STREAM_PER_THREAD. */
CUstream zc__run_stream(CUstream s, int per_thread);

/* Whether host memory at p cannot be copied at all (the first page, NULL included): the
 * driver's own answer is the program's, so no cure reads or writes it. */
int zc__run_host_unusable(const void *p);

/* Whether a copy of bytes is below the size the cures pay for in its direction. */
int zc__run_copy_small(zc__run_dir dir, size_t bytes);

/* Count a copy left as it was, for the reason given; gives ZC__AS_IT_WAS. */
zc__plan zc__run_copy_leave(zc_run_counter why, size_t bytes);

/* Whether a copy's device side can be staged to: a current context (in c->ctx), and the
 * device range inside one allocation. */
int zc__run_copy_device_ok(zc__run_copy *c);

/*
 * Whether a pageable copy between host and device memory may be cured, asked once per copy
 * whichever row asks first: ZC__CURE when it may; ZC__SAMPLE when it is the copy each size
 * class leaves as it was to price the cured ones; ZC__AS_IT_WAS when it must go as it was (too
 * small, a range it cannot place, a stream being captured: counted once, with the reason).
 */
zc__plan zc__run_copy_eligible(zc__run_copy *c);

/* The program's call, timed as the sample of its size class. */
CUresult zc__run_copy_sample(const zc__run_copy *c);

/* Whether the stream is being captured into a graph (or cannot be asked). */
int zc__run_stream_capturing(const zc__run_driver *d, CUstream stream);

/* A 3D peer copy described by the host ranges it may touch, for the rows to guard; 0 when there
 * is nothing to ask. */
int zc__run_describe_peer(zc__run_copy *c, const CUDA_MEMCPY3D_PEER *p);

/* A graph's copy node names p's host sides: RANGE_IN_GRAPH raised for each (run_cures.h). */
void zc__run_pitched_in_graph(const CUDA_MEMCPY3D *p);

/* A copy is cut in chunks of about an eighth of it, from 256 KiB up to a staging buffer. */
size_t zc__run_chunk_for(const zc__run_staging *s, size_t bytes);

#endif
