/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pageable cure's row: a copy between pageable host memory and device memory goes through
 * this process's pinned staging (run_staging.c), host threads filling (or draining) one staging
 * buffer while the copy engine moves the one before, on the caller's stream, so that the
 * stream's order is kept (run_pipeline.c). It also stages a copy another row asked to have
 * staged (must_stage: the driver's own call would have waited where the program's would not).
 * Its staging goes with its context and at exit.
 */
#include "run_config.h"
#include "run_counts.h"
#include "run_copy.h"
#include "run_cures.h"
#include "run_staging.h"

static zc__plan zc__plan_copy(zc__run_copy *c)
{
    if (c->kind != ZC__COPY_HOST_DEVICE)
        return ZC__PASS;
    if (c->must_stage)
        return c->row <= zc__run_config_get()->chunk_bytes && zc__run_copy_device_ok(c) ? ZC__CURE
                                                                                        : ZC__PASS;
    if (c->host_where != ZC__PAGEABLE)
        return ZC__PASS;
    zc__plan verdict = zc__run_copy_eligible(c);
    /* Where staging has gone slower than the driver's own path for this size (a program whose
     * own threads keep every core busy), the copies go as they were. Host to device only: a
     * copy to the host waits inside it for the stream's earlier work, so its time, sampled or
     * staged, says more of the kernels before it than of the copy. */
    if (verdict == ZC__CURE && c->dir == ZC__RUN_H2D && zc__run_pageable_slower(c->dir, c->bytes)) {
        (void)zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_SLOWER, c->bytes);
        return ZC__PASS;
    }
    return verdict == ZC__CURE || verdict == ZC__SAMPLE ? verdict : ZC__PASS;
}

/* Run a staged copy; without staging (none could be made) the program's own call, waited for
 * when another row asked for staging. */
static CUresult zc__run_staged(zc__run_copy *c, zc__plan plan)
{
    if (plan == ZC__SAMPLE)
        return zc__run_copy_sample(c);
    /* The clock starts before the staging is had: the first copy of a context pays for making
     * it, and the report says so. */
    uint64_t start = zc__run_now_ns();
    zc__run_staging *s = zc__run_staging_acquire(c->ctx);
    if (s == NULL) {
        zc__run_copy_leave(ZC_RUN_COUNTER_PAGEABLE_UNSURE, c->bytes);
        CUresult r = c->call(c);
        return r == CUDA_SUCCESS && c->must_stage && c->async ? c->d->stream_synchronize(c->stream)
                                                              : r;
    }
    /* The pipeline's own queued copies, events and waits in relaxed capture mode: the program's
     * one call would be allowed while another thread captures, and so are they. */
    CUstreamCaptureMode mode = zc__run_relax(c->d);
    CUresult r = c->shape->stage(c, s);
    zc__run_unrelax(c->d, mode);
    zc__run_staging_release(s);
    if (r == CUDA_SUCCESS)
        zc__run_pageable_cured(ZC__RUN_STAGED, c->dir, c->bytes, zc__run_now_ns() - start);
    return r;
}

const zc__run_calls zc__cure_pageable_calls = {.plan_copy = zc__plan_copy,
                                               .run_copy = zc__run_staged};

/* ---- the lifecycle: only its staging, which is its own memory ---- */

ZC__RUN_IGNORES(pageable, HOST_ALLOC)
ZC__RUN_IGNORES(pageable, HOST_FREE)
ZC__RUN_IGNORES(pageable, HOST_RESIZE)
ZC__RUN_IGNORES(pageable, RANGE_UNMAPPED)
ZC__RUN_IGNORES(pageable, RANGE_REPLACED)
ZC__RUN_IGNORES(pageable, PAGES_DISCARDED)
ZC__RUN_IGNORES(pageable, RANGE_REPROTECTED)
ZC__RUN_IGNORES(pageable, RANGE_IN_GRAPH)
ZC__RUN_IGNORES(pageable, RANGE_REGISTERED)

zc__run_answer ZC__RUN_ON(pageable, CONTEXT_GONE)(const zc__run_event *e)
{
    zc__run_staging_forget(e->ctx, e->device);
    return ZC__EVENT_SEEN;
}

ZC__RUN_IGNORES(pageable, FORK_CALLED)
ZC__RUN_IGNORES(pageable, FORK_PREPARE)
ZC__RUN_IGNORES(pageable, FORK_PARENT)

zc__run_answer ZC__RUN_ON(pageable, FORK_CHILD)(const zc__run_event *e)
{
    (void)e;
    zc__run_staging_after_fork();
    return ZC__EVENT_SEEN;
}

zc__run_answer ZC__RUN_ON(pageable, EXIT)(const zc__run_event *e)
{
    (void)e;
    zc__run_staging_forget_idle();
    return ZC__EVENT_SEEN;
}
