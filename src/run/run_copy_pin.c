/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every copy cure does about the buffers the register cure pinned in place (run_copy.h):
 * use them, stage around them, or wait behind them. The driver sees such a buffer as
 * page-locked, and so copies it asynchronously where CUDA promised the program a pageable
 * buffer's behaviour ("API synchronization behavior"): the source reusable, or the destination
 * filled, when the call returns. CUDA also allows a pageable copy to be synchronous, so waiting
 * for the stream after the driver's own call keeps that promise; the one case where waiting
 * would change what the program sees is an asynchronous copy to the device on a busy stream
 * (the driver's staging would have returned at once), and that one is staged instead.
 */
#include "run_copy.h"

#include "run_config.h"

/* An asynchronous copy to the device that would wait in the pinned way on a busy stream. */
static int zc__would_wait(const zc__run_driver *d, zc__run_dir dir, CUstream stream, int async)
{
    return dir == ZC__RUN_H2D && async && d->stream_query(stream) != CUDA_SUCCESS;
}

/* A copy touching pins into a stream being captured: a graph may run it at any later time, so
 * the buffer must be what it was, pageable: its pins go for good. Gives 1 when it was so. */
static int zc__captured(const zc__run_driver *d, const void *host, size_t extent, CUstream stream)
{
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    if (d->stream_is_capturing(stream, &capture) == CUDA_SUCCESS &&
        capture == CU_STREAM_CAPTURE_STATUS_NONE)
        return 0;
    zc__run_pins_refuse((uintptr_t)host, extent);
    return 1;
}

zc__touch zc__run_copy_touch(const zc__run_driver *d, const void *host, size_t extent,
                             zc__run_dir dir, CUstream stream, int async, CUcontext *ctx_p,
                             zc__run_pin_use *use)
{
    use->slot = -1;
    if (!zc__run_pins_touching((uintptr_t)host, extent) || zc__captured(d, host, extent, stream))
        return ZC__TOUCH_NONE;
    if (d->ctx_get_current(ctx_p) == CUDA_SUCCESS && *ctx_p != NULL &&
        zc__run_pin_covers(host, extent, *ctx_p, use)) {
        if (!zc__would_wait(d, dir, stream, async))
            return ZC__TOUCH_USE;
        zc__run_pin_done(use);
        return ZC__TOUCH_STAGE;
    }
    return async ? ZC__TOUCH_WAIT : ZC__TOUCH_NONE;
}

zc__plan zc__run_copy_guard(const zc__run_driver *d, const void *host, size_t extent,
                            CUstream stream, int async)
{
    if (!async || !zc__run_pins_touching((uintptr_t)host, extent) ||
        zc__captured(d, host, extent, stream))
        return ZC__AS_IT_WAS;
    return ZC__WAIT;
}

zc__plan zc__run_copy_plan_forced(const zc__run_driver *d, CUdeviceptr device, size_t extent,
                                  CUcontext *ctx_p)
{
    return zc__run_fix_on(ZC_RUN_FIX_PAGEABLE) && zc__run_copy_device_ok(d, device, extent, ctx_p)
               ? ZC__CURE
               : ZC__WAIT;
}

zc__plan zc__run_copy_pin_plan(const zc__run_driver *d, zc__plan plan, zc__run_dir dir,
                               const void *host, size_t bytes, CUstream stream, int async,
                               CUcontext ctx, zc__run_pin_use *use, uint64_t *pin_ns)
{
    *pin_ns = 0;
    if (plan != ZC__CURE)
        return plan;
    const int staging = zc__run_fix_on(ZC_RUN_FIX_PAGEABLE);
    if (zc__run_pin_consider(d, host, bytes, ctx, use, pin_ns)) {
        if (!zc__would_wait(d, dir, stream, async))
            return ZC__PINNED;
        zc__run_pin_done(use);
        return staging ? ZC__CURE : ZC__WAIT;
    }
    return staging ? ZC__CURE : ZC__AS_IT_WAS;
}

CUresult zc__run_copy_finish(const zc__run_copy_end *e, CUresult r)
{
    const zc__run_driver *d = zc__run_driver_get();
    switch (e->plan) {
    case ZC__PINNED:
        if (r == CUDA_SUCCESS && e->async)
            r = d->stream_synchronize(e->stream);
        zc__run_pin_done(e->pin);
        if (r == CUDA_SUCCESS)
            zc__run_pageable_cured(ZC__RUN_PINNED, e->dir, e->bytes,
                                   zc__run_now_ns() - e->start + e->pin_ns);
        return r;
    case ZC__SAMPLE:
        if (r == CUDA_SUCCESS)
            zc__run_pageable_sampled(e->dir, e->bytes, zc__run_now_ns() - e->start);
        return r;
    case ZC__WAIT:
    case ZC__CURE:
        if (r == CUDA_SUCCESS && e->async &&
            (e->plan == ZC__WAIT || zc__run_pins_touching((uintptr_t)e->host, e->host_extent)))
            return d->stream_synchronize(e->stream);
        return r;
    case ZC__AS_IT_WAS:
        break;
    }
    return r;
}
