/* SPDX-License-Identifier: Apache-2.0 */
/* The zerocopy and hybrid transports of a filter: a mapped-memory ring sized for in_flight
 * frames plus the one kept as history, and the persistent FIR kernel running on it; hybrid's
 * results leave by the copy engine (ZC_RING_RESULTS_COPY). */
#include "stream/filter_internal.h"

#include "device/cuda_check.h"

static uint32_t zc__pow2_at_least(uint32_t n)
{
    uint32_t p = 2;
    while (p < n)
        p *= 2;
    return p;
}

static zc_status zc__ring_setup(zc_filter *f)
{
    const zc_filter_config *c = &f->config;
    int sms = 0;
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device));
    uint32_t blocks = c->gpu_blocks;
    if (blocks == 0) {
        /* At most half the SMs: 1 MiB FLAG frames, 16 in flight, moved 28.9 GB/s through 66
         * blocks and 18.0 through 132 on the H200 (bench/results/h200-20261202). */
        blocks = (f->shape.words + ZC__FIR_THREADS - 1) / ZC__FIR_THREADS;
        if (blocks > (uint32_t)(sms + 1) / 2)
            blocks = (uint32_t)(sms + 1) / 2;
    }
    zc_ring_config rc;
    zc_ring_config_init(&rc);
    rc.device = c->device;
    rc.slots = zc__pow2_at_least(c->in_flight + 1);
    rc.in_bytes = f->frame_bytes;
    rc.out_bytes = f->frame_bytes;
    rc.consumers = blocks;
    rc.protocol = c->protocol;
    rc.policy = c->policy;
    rc.watchdog_ns = c->watchdog_ns;
    rc.budget_frames = c->budget_frames;
    rc.results = zc_stream_mode_flags(c->mode) & ZC_STREAM_MODE_RESULTS_COPY
                     ? ZC_RING_RESULTS_COPY
                     : ZC_RING_RESULTS_MAPPED;
    ZC_CHECK(zc_ring_create(&rc, &f->ring));
    zc_ring_dev view;
    cudaStream_t stream;
    zc_ring_device_view(f->ring, &view);
    zc_ring_stream(f->ring, &stream);
    zc_status st = zc__fir_launch_persistent(&f->ring_shape, &view, f->d_taps, blocks, stream);
    if (st == ZC_OK)
        st = zc_ring_wait_started(f->ring, c->timeout_ns);
    if (st != ZC_OK)
        return st; /* teardown destroys the ring */
    f->blocks = blocks;
    f->ring_slots = rc.slots;
    return ZC_OK;
}

static zc_status zc__ring_acquire(zc_filter *f, float **frame_p)
{
    void *slot = NULL;
    uint64_t seq = 0;
    zc_status st = zc_ring_acquire(f->ring, f->config.timeout_ns, &slot, &seq);
    if (st == ZC_OK)
        *frame_p = slot;
    return st;
}

static zc_status zc__ring_publish(zc_filter *f)
{
    return zc_ring_publish(f->ring);
}

/* LL encodes straight from the caller's frame, without the staging copy. */
static zc_status zc__ring_submit(zc_filter *f, const float *frame)
{
    return zc_ring_push(f->ring, frame, f->frame_bytes, f->config.timeout_ns, NULL);
}

static zc_status zc__ring_wait(zc_filter *f, uint64_t timeout_ns, const float **result_p)
{
    const void *result = NULL;
    zc_status st = zc_ring_result_wait(f->ring, timeout_ns, &result, NULL);
    if (st == ZC_OK)
        *result_p = result;
    return st;
}

static zc_status zc__ring_release(zc_filter *f)
{
    return zc_ring_result_release(f->ring);
}

static uint32_t zc__ring_buffers(const zc_filter *f)
{
    return f->config.protocol == ZC_RING_PROTO_LL ? 1u : f->ring_slots;
}

static void zc__ring_teardown(zc_filter *f)
{
    if (f->ring == NULL)
        return;
    /* zc_ring_destroy copes with a kernel that did not stop. */
    ZC_CHECK_IGNORE(zc_ring_stop(f->ring, 1000000000ull));
    zc_ring_destroy(f->ring);
    f->ring = NULL;
}

const zc__filter_ops zc__filter_ring_ops = {
    .setup = zc__ring_setup,
    .acquire = zc__ring_acquire,
    .publish = zc__ring_publish,
    .submit = zc__ring_submit,
    .wait = zc__ring_wait,
    .release = zc__ring_release,
    .buffers = zc__ring_buffers,
    .teardown = zc__ring_teardown,
};
