/* SPDX-License-Identifier: Apache-2.0 */
/* The staged pipeline (run_pipeline.h). */
#include "run_pipeline.h"

/* Queue piece k in buffer i behind the work of its last use, and mark the buffer in flight. */
static CUresult zc__queue(const zc__run_driver *d, zc__run_staging *s, const zc__run_pipeline *p,
                          size_t k, unsigned i)
{
    CUresult r = zc__run_staging_wait(s, i);
    if (r == CUDA_SUCCESS && p->dir == ZC__RUN_H2D)
        p->host_side(p->copy, k, s->buffers[i]);
    if (r == CUDA_SUCCESS)
        r = p->device_side(d, p->copy, k, s->buffers[i], p->stream);
    if (r == CUDA_SUCCESS)
        r = d->event_record(s->events[i], p->stream);
    if (r == CUDA_SUCCESS)
        s->pending[i] = 1;
    return r;
}

/*
 * A synchronous copy to the device from pageable memory: CUDA performs a stream sync before the
 * copy starts, so that work queued before it which writes the source (a host function, a kernel
 * writing mapped memory) is done before the source is read. An event recorded on the stream and
 * waited for is that sync; on the legacy stream it also waits for the blocking streams' work, as
 * the legacy stream's own operations do.
 */
static CUresult zc__stream_sync_first(const zc__run_driver *d, zc__run_staging *s, CUstream stream)
{
    unsigned i = s->next;
    CUresult r = zc__run_staging_wait(s, i);
    if (r == CUDA_SUCCESS)
        r = d->event_record(s->events[i], stream);
    if (r == CUDA_SUCCESS) {
        s->pending[i] = 1;
        r = zc__run_staging_wait(s, i);
    }
    return r;
}

static CUresult zc__to_device(const zc__run_driver *d, zc__run_staging *s,
                              const zc__run_pipeline *p)
{
    CUresult r = p->async ? CUDA_SUCCESS : zc__stream_sync_first(d, s, p->stream);
    unsigned last = 0;
    for (size_t k = 0; k < p->pieces && r == CUDA_SUCCESS; k++) {
        last = s->next;
        s->next = (s->next + 1) % s->count;
        r = zc__queue(d, s, p, k, last);
    }
    if (r == CUDA_SUCCESS && !p->async)
        r = zc__run_staging_wait(s, last);
    return r;
}

static CUresult zc__from_device(const zc__run_driver *d, zc__run_staging *s,
                                const zc__run_pipeline *p)
{
    const unsigned first = s->next;
    size_t queued = 0;
    CUresult r = CUDA_SUCCESS;
    for (size_t k = 0; k < p->pieces && r == CUDA_SUCCESS; k++) {
        /* Keep every buffer busy: queue pieces up to count ahead of the one drained next. */
        for (; r == CUDA_SUCCESS && queued < p->pieces && queued < k + s->count; queued++)
            r = zc__queue(d, s, p, queued, (first + (unsigned)(queued % s->count)) % s->count);
        unsigned i = (first + (unsigned)(k % s->count)) % s->count;
        if (r == CUDA_SUCCESS)
            r = zc__run_staging_wait(s, i);
        if (r == CUDA_SUCCESS)
            p->host_side(p->copy, k, s->buffers[i]);
    }
    s->next = (first + (unsigned)(p->pieces % s->count)) % s->count;
    return r;
}

CUresult zc__run_pipeline_run(const zc__run_driver *d, zc__run_staging *s,
                              const zc__run_pipeline *p)
{
    return p->dir == ZC__RUN_H2D ? zc__to_device(d, s, p) : zc__from_device(d, s, p);
}
