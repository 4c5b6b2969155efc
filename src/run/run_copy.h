/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: what the plain (run_copy.c) and the 2D
 * (run_copy_2d.c) pageable-copy cures share. */
#ifndef ZC_RUN_COPY_H
#define ZC_RUN_COPY_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: DESIGN.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <stddef.h>

#include "run_counts.h"
#include "run_driver.h"
#include "run_register.h"
#include "run_staging.h"

/* What a pointer is, as far as the copy cure cares. */
typedef enum zc__where { ZC__UNKNOWN, ZC__PAGEABLE, ZC__DEVICE, ZC__OTHER } zc__where;

zc__where zc__run_classify(const zc__run_driver *d, CUdeviceptr ptr);

/* What to do with a copy: leave it, time it as it was (the sample), stage it, pass it to the
 * driver straight from its buffer pinned in place and wait for it (the register cure), or pass
 * it as it was and wait for its stream (it touches a buffer pinned in place that the driver
 * would otherwise read or write after the call returned). */
typedef enum zc__plan { ZC__AS_IT_WAS, ZC__SAMPLE, ZC__CURE, ZC__PINNED, ZC__WAIT } zc__plan;

/* The stream a copy goes on, as the cures name it: the per-thread forms' stream 0 is the
 * calling thread's default stream, which the legacy entry points the cures call reach as
 * CU_STREAM_PER_THREAD. */
CUstream zc__run_stream(CUstream s, int per_thread);

/* Whether either cure of pageable copies (staging, pinning in place) is on. */
int zc__run_copy_cures_on(void);

/*
 * What a copy whose host side spans [host, host + extent) must do about the buffers of the
 * program that the register cure pinned in place. The driver sees those as page-locked, so a
 * call that touches one must never reach it as it was: an asynchronous one would return before
 * the copy is done, where CUDA promised a pageable buffer reusable (to the device) or filled (to
 * the host) at return.
 */
typedef enum zc__touch {
    ZC__TOUCH_NONE,  /* touches no pin (or the stream is being captured: those pins are
                        dropped for good, so that the graph reads pageable memory) */
    ZC__TOUCH_USE,   /* inside a pin of the current context, now held in *use */
    ZC__TOUCH_STAGE, /* inside a pin, but an asynchronous copy to the device on a busy stream,
                        which the driver would not have made wait: staged instead */
    ZC__TOUCH_WAIT   /* touches a pin otherwise: asynchronous, so waited for */
} zc__touch;

zc__touch zc__run_copy_touch(const zc__run_driver *d, const void *host, size_t extent,
                             zc__run_dir dir, CUstream stream, int async, CUcontext *ctx_p,
                             zc__run_pin_use *use);

/* The plan of a copy no cure takes: ZC__WAIT when it is asynchronous and touches a pin. */
zc__plan zc__run_copy_guard(const zc__run_driver *d, const void *host, size_t extent,
                            CUstream stream, int async);

/* Whether a copy's device side can be staged to: a current context (in *ctx_p), and
 * [device, device + extent) inside one allocation. */
int zc__run_copy_device_ok(const zc__run_driver *d, CUdeviceptr device, size_t extent,
                           CUcontext *ctx_p);

/* A copy that must be staged whatever its size (ZC__TOUCH_STAGE): ZC__CURE when staging can
 * take it (zc__run_copy_device_ok), else ZC__WAIT. */
zc__plan zc__run_copy_plan_forced(const zc__run_driver *d, CUdeviceptr device, size_t extent,
                                  CUcontext *ctx_p);

/*
 * The register cure's part of a cure-eligible plan: ZC__CURE becomes ZC__PINNED when the copy's
 * buffer is pinned now (held in *use, the time that took in *pin_ns; an asynchronous copy to
 * the device on a busy stream is staged, or waited for when staging is off), and ZC__AS_IT_WAS
 * when the staging cure is off. Other plans are given back as they are.
 */
zc__plan zc__run_copy_pin_plan(const zc__run_driver *d, zc__plan plan, zc__run_dir dir,
                               const void *host, size_t bytes, CUstream stream, int async,
                               CUcontext ctx, zc__run_pin_use *use, uint64_t *pin_ns);

/* A copy that went to the driver's own entry point (every plan but a cure that ran), as its end
 * needs it. */
typedef struct zc__run_copy_end {
    zc__plan plan;
    zc__run_dir dir;
    size_t bytes;     /* moved */
    const void *host; /* the host side's first byte, and the bytes it spans */
    size_t host_extent;
    CUstream stream; /* as the cures name it (CU_STREAM_PER_THREAD for a thread's own) */
    int async;
    zc__run_pin_use *pin; /* ZC__PINNED: the pin it holds */
    uint64_t pin_ns;      /* ZC__PINNED: the pinning this copy paid for */
    uint64_t start;       /* when the driver's call began */
} zc__run_copy_end;

/*
 * After the driver's own call r: ZC__PINNED waits for an asynchronous copy, lets the pin go and
 * counts the copy with its pinning; ZC__SAMPLE counts the copy's time as the sample;
 * ZC__WAIT, and ZC__CURE that found no staging, wait for the stream when the copy is
 * asynchronous and touches a pin. Gives the call's result, or the wait's.
 */
CUresult zc__run_copy_finish(const zc__run_copy_end *e, CUresult r);

/* The pitched copies' host sides, for the hooks that only guard (run_guards.c): a 3D peer copy
 * (asynchronous) touching a pin waits; a graph's copy (any time later) unpins for good. */
zc__plan zc__run_pitched_guard_peer(const zc__run_driver *d, const CUDA_MEMCPY3D_PEER *p,
                                    CUstream stream);
void zc__run_pitched_refuse_3d(const CUDA_MEMCPY3D *p);

/* Whether a copy of bytes is below the size the cure pays for in its direction. */
int zc__run_copy_small(zc__run_dir dir, size_t bytes);

/* Count a copy left as it was, for the reason given; gives ZC__AS_IT_WAS. */
zc__plan zc__run_copy_leave(zc_run_counter why, size_t bytes);

/*
 * The checks every cured copy passes once its host side is known to be pageable and its device
 * side device memory, [device, device + extent) the device bytes it touches: big enough, a
 * current context (in *ctx_p), the device range inside one allocation, the stream not being
 * captured. Gives the plan, counting a copy left.
 */
zc__plan zc__run_copy_plan(const zc__run_driver *d, zc__run_dir dir, size_t bytes,
                           CUdeviceptr device, size_t extent, CUstream stream, CUcontext *ctx_p);

/* A copy is cut in chunks of about an eighth of it, from 256 KiB up to a staging buffer. */
size_t zc__run_chunk_for(const zc__run_staging *s, size_t bytes);

#endif
