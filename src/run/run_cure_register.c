/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register cure's row. A pageable buffer of the program's own that copies from its first
 * byte have moved twice its size over is pinned in place (cuMemHostRegister, run_register.c),
 * and its copies then go to the driver straight from it. The driver sees such a buffer as
 * page-locked, and so would copy asynchronously where CUDA promised the program a pageable
 * buffer's behaviour ("API synchronization behavior"): the source reusable, or the destination
 * filled, when the call returns. CUDA also allows a pageable copy to be synchronous, so this row
 * waits for the stream after the driver's own call; the one case where waiting would change what
 * the program sees is an asynchronous copy to the device on a busy stream (the driver's staging
 * would have returned at once), which it leaves to a row that stages, or waits for when none can.
 * Every event that releases or changes the buffer's memory takes its pin away first (never from
 * inside an allocation hook by a CUDA call: the deferred queue does it, run_deferred.h), and the
 * program's questions about it are answered as for pageable memory (run_pins_view.c).
 */
#include <sys/mman.h>
#include <unistd.h>

#include "core/host.h"
#include "run_config.h"
#include "run_copy.h"
#include "run_cures.h"
#include "run_deferred.h"
#include "run_register.h"
#include "run_track.h"

/* An asynchronous copy to the device that would wait in the pinned way on a busy stream. */
static int zc__would_wait(const zc__run_copy *c)
{
    return c->dir == ZC__RUN_H2D && c->async && c->d->stream_query(c->stream) != CUDA_SUCCESS;
}

/* A copy touching pins into a stream being captured: a graph may run it at any later time, so
 * the buffer must be what it was, pageable: its pins go for good. Gives 1 when it was so. */
static int zc__captured(const zc__run_copy *c, const void *host, size_t extent)
{
    if (!zc__run_stream_capturing(c->d, c->stream))
        return 0;
    zc__run_pins_take((uintptr_t)host, extent, ZC__NEVER_AGAIN, 1);
    return 1;
}

/* A copy only guarded: asynchronous and touching a pin, it is waited for. */
static zc__plan zc__plan_guard(zc__run_copy *c)
{
    for (int i = 0; i < ZC__GUARD_RANGES; i++) {
        const void *host = c->guard[i];
        size_t extent = c->guard_extent[i];
        if (host != NULL && c->async && zc__run_pins_touching((uintptr_t)host, extent) &&
            !zc__captured(c, host, extent))
            c->must_wait = 1;
    }
    return ZC__PASS;
}

/* A copy between host and device memory whose host side touches a pin: use the pin (inside one
 * of the current context's), have it staged (a busy stream), or wait for it. */
static zc__plan zc__plan_touching(zc__run_copy *c)
{
    if (c->d->ctx_get_current(&c->ctx) == CUDA_SUCCESS && c->ctx != NULL &&
        zc__run_pin_covers(c->host, c->host_extent, c->ctx, &c->pin)) {
        if (!zc__would_wait(c))
            return ZC__PINNED;
        zc__run_pin_done(&c->pin);
        c->must_stage = 1;
        return ZC__PASS;
    }
    return c->async ? ZC__WAIT : ZC__PASS;
}

static zc__plan zc__plan_copy(zc__run_copy *c)
{
    /* Pins taken away inside allocation hooks are unregistered before the driver is handed
     * any host pointer again. */
    zc__run_deferred_drain();
    if (c->kind == ZC__COPY_GUARD)
        return zc__plan_guard(c);
    if (zc__run_pins_touching((uintptr_t)c->host, c->host_extent) &&
        !zc__captured(c, c->host, c->host_extent))
        return zc__plan_touching(c);
    if (c->host_where != ZC__PAGEABLE)
        return ZC__PASS;
    zc__plan verdict = zc__run_copy_eligible(c);
    if (verdict != ZC__CURE)
        return verdict == ZC__SAMPLE ? ZC__SAMPLE : ZC__PASS;
    /* The buffer is pinned in place when copies that start at its first byte have moved twice
     * its size: the host extent is what a pitched copy moves through it. */
    if (!zc__run_pin_consider(c->d, c->host, c->host_extent, c->ctx, &c->pin, &c->pin_ns))
        return ZC__PASS;
    if (!zc__would_wait(c))
        return ZC__PINNED;
    zc__run_pin_done(&c->pin);
    c->must_stage = 1;
    return ZC__PASS;
}

/* The driver's own call on the pinned buffer, waited for when asynchronous, then counted with
 * the pinning it paid for. */
static CUresult zc__run_pinned(zc__run_copy *c, zc__plan plan)
{
    if (plan == ZC__SAMPLE)
        return zc__run_copy_sample(c);
    uint64_t start = zc__run_now_ns();
    CUresult r = c->call(c);
    if (r == CUDA_SUCCESS && c->async) {
        CUstreamCaptureMode mode = zc__run_relax(c->d);
        r = c->d->stream_synchronize(c->stream);
        zc__run_unrelax(c->d, mode);
    }
    zc__run_pin_done(&c->pin);
    if (r == CUDA_SUCCESS)
        zc__run_pageable_cured(ZC__RUN_PINNED, c->dir, c->bytes,
                               zc__run_now_ns() - start + c->pin_ns);
    return r;
}

/* Asked from driver entry points' hooks only: the pins taken away are unregistered first, so
 * that the driver's answers are about memory as it is now. */
static int zc__changed_view(uintptr_t start, size_t length)
{
    zc__run_deferred_drain();
    return zc__run_pins_touching(start, length);
}

/* Allocations are heard from the smallest copy either direction cures. */
static size_t zc__watch_host(void)
{
    const zc__run_config *c = zc__run_config_get();
    return c->min_bytes < c->min_d2h_bytes ? c->min_bytes : c->min_d2h_bytes;
}

const zc__run_calls zc__cure_register_calls = {.plan_copy = zc__plan_copy,
                                               .run_copy = zc__run_pinned,
                                               .changed_view = zc__changed_view,
                                               .watch_host = zc__watch_host};

/* ---- the lifecycle ---- */

/* The range's pins taken away (unpinned now where CUDA may be called); with a release handed
 * over, made after the unpins: the memory goes back only once it is no longer registered. */
static zc__run_answer zc__take(const zc__run_event *e, uintptr_t start, size_t length,
                               zc__after_drop after)
{
    if (zc__run_pins_take(start, length, after, e->may_call_cuda) == 0)
        return ZC__EVENT_SEEN;
    if (e->release == NULL)
        return ZC__EVENT_SEEN;
    zc__run_deferred_release_later(e->release, (void *)e->start, e->length);
    return ZC__EVENT_DEFERRED;
}

zc__run_answer ZC__RUN_ON(register, HOST_ALLOC)(const zc__run_event *e)
{
    size_t stale = zc__run_track_add((void *)e->start, e->length);
    if (stale != 0)
        zc__run_pins_take(e->start, stale, ZC__GONE_WITH_IT, 0);
    return ZC__EVENT_SEEN;
}

zc__run_answer ZC__RUN_ON(register, HOST_FREE)(const zc__run_event *e)
{
    size_t size = zc__run_track_release((void *)e->start);
    return size != 0 ? zc__take(e, e->start, size, ZC__GONE_WITH_IT) : ZC__EVENT_SEEN;
}

zc__run_answer ZC__RUN_ON(register, HOST_RESIZE)(const zc__run_event *e)
{
    return zc__run_track_held((void *)e->start) ? ZC__EVENT_DEFERRED : ZC__EVENT_SEEN;
}

zc__run_answer ZC__RUN_ON(register, RANGE_UNMAPPED)(const zc__run_event *e)
{
    zc__run_track_release_range(e->start, e->length);
    return zc__take(e, e->start, e->length, ZC__GONE_WITH_IT);
}

zc__run_answer ZC__RUN_ON(register, RANGE_REPLACED)(const zc__run_event *e)
{
    zc__run_track_release_range(e->start, e->length);
    return zc__take(e, e->start, e->length, ZC__GONE_WITH_IT);
}

/* The allocation lives on with fresh pages: it may be pinned again. */
zc__run_answer ZC__RUN_ON(register, PAGES_DISCARDED)(const zc__run_event *e)
{
    return zc__take(e, e->start, e->length, ZC__PIN_AGAIN);
}

/* The DMA ignores the pages' protection: a buffer the program protects goes back to the driver's
 * own path, which honours it, for good. */
zc__run_answer ZC__RUN_ON(register, RANGE_REPROTECTED)(const zc__run_event *e)
{
    return zc__take(e, e->start, e->length, ZC__NEVER_AGAIN);
}

zc__run_answer ZC__RUN_ON(register, RANGE_IN_GRAPH)(const zc__run_event *e)
{
    return zc__take(e, e->start, e->length, ZC__NEVER_AGAIN);
}

/* The driver registers whole pages: a pin that shares a page with the program's range would
 * make its registration fail, so the range is widened to its pages. */
zc__run_answer ZC__RUN_ON(register, RANGE_REGISTERED)(const zc__run_event *e)
{
    zc__run_deferred_drain();
    uintptr_t page = (uintptr_t)zc__page_size();
    uintptr_t first = e->start / page * page;
    uintptr_t end = zc__run_range_end(e->start, e->length);
    uintptr_t last = end > UINTPTR_MAX - (page - 1) ? UINTPTR_MAX : (end + page - 1) / page * page;
    return zc__take(e, first, last - first, ZC__NEVER_AGAIN);
}

zc__run_answer ZC__RUN_ON(register, CONTEXT_GONE)(const zc__run_event *e)
{
    zc__run_deferred_drain();
    zc__run_pins_forget(e->ctx, e->device);
    return ZC__EVENT_SEEN;
}

ZC__RUN_IGNORES(register, FORK_CALLED)
ZC__RUN_IGNORES(register, FORK_PREPARE)
ZC__RUN_IGNORES(register, FORK_PARENT)

zc__run_answer ZC__RUN_ON(register, FORK_CHILD)(const zc__run_event *e)
{
    (void)e;
    zc__run_pins_after_fork();
    zc__run_track_after_fork();
    zc__run_deferred_after_fork();
    return ZC__EVENT_SEEN;
}

zc__run_answer ZC__RUN_ON(register, EXIT)(const zc__run_event *e)
{
    (void)e;
    zc__run_deferred_drain();
    zc__run_pins_forget_all();
    return ZC__EVENT_SEEN;
}
