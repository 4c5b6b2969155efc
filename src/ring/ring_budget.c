/* SPDX-License-Identifier: Apache-2.0 */
/* A ring's frame time budget: its stamps' memory, the clock measurements, the summary. */
#include "ring/ring_budget_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"

/* Bytes of the kernel's stamps for frames frames of consumers blocks. */
static size_t zc__budget_device_bytes(uint64_t frames, uint32_t consumers)
{
    return (size_t)frames * consumers * ZC_RING_STAMPS * 2u * sizeof(uint64_t);
}

zc_status zc__ring_budget_check(const zc_ring_config *c)
{
    if (c->budget_frames == 0)
        return ZC_OK;
    const uint64_t per_frame = zc__budget_device_bytes(1, c->consumers);
    if (c->budget_frames > ZC__BUDGET_MAX_DEVICE_BYTES / per_frame)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_ring_config_check: budget_frames %llu of %u consumer blocks would "
                       "take %.0f MiB of GPU memory; at most %llu frames (256 MiB)",
                       (unsigned long long)c->budget_frames, c->consumers,
                       (double)c->budget_frames * (double)per_frame / 1048576.0,
                       (unsigned long long)(ZC__BUDGET_MAX_DEVICE_BYTES / per_frame));
    return ZC_OK;
}

zc_status zc__ring_budget_open(zc_ring *ring)
{
    const zc_ring_config *c = &ring->config;
    struct zc__ring_budget *b = calloc(1, sizeof *b);
    if (b == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_ring_create: no memory for the budget's record");
    zc_status st = ZC_OK;
    const size_t host_bytes = (size_t)c->budget_frames * ZC__BUDGET_HOST_MARKS * sizeof(uint64_t);
    const size_t dev_bytes = zc__budget_device_bytes(c->budget_frames, c->consumers);
    b->frames = c->budget_frames;
    b->host = malloc(host_bytes);
    if (b->host == NULL) {
        st = ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_ring_create: no memory for %llu frames' host stamps",
                     (unsigned long long)b->frames);
        goto fail_record;
    }
    memset(b->host, 0, host_bytes);
    ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, dev_bytes, (void **)&b->dev), st,
                  fail_host);
    ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_PINNED, dev_bytes, (void **)&b->staged), st,
                  fail_dev);
    ZC_CHECK_GOTO(zc__clock_sync_open(c->device, &b->sync), st, fail_staged);
    /* On the measurement's own stream and waited for there: a device-wide wait would hang
     * behind another ring's persistent kernel. */
    ZC_CUDA_GOTO(cudaMemsetAsync(b->dev, 0, dev_bytes, b->sync.stream), st, fail_sync);
    ZC_CUDA_GOTO(cudaStreamSynchronize(b->sync.stream), st, fail_sync);
    ZC_CHECK_GOTO(zc__clock_sync_measure(&b->sync, ZC__BUDGET_ROUND_TRIPS, &b->before), st,
                  fail_sync);
    ring->view.stamps = b->dev;
    ring->view.stamp_frames = b->frames;
    ring->budget = b;
    return ZC_OK;

fail_sync:
    zc__clock_sync_close(&b->sync);
fail_staged:
    zc__mem_exact_free(ZC_BUFFER_PINNED, b->staged);
fail_dev:
    zc__mem_exact_free(ZC_BUFFER_DEVICE, b->dev);
fail_host:
    free(b->host);
fail_record:
    free(b);
    return st;
}

void zc__ring_budget_close(zc_ring *ring, int leak)
{
    struct zc__ring_budget *b = ring->budget;
    if (b == NULL)
        return;
    ring->budget = NULL;
    if (!leak) {
        zc__clock_sync_close(&b->sync);
        zc__mem_exact_free(ZC_BUFFER_DEVICE, b->dev);
    }
    if (!leak && !b->copy_stuck)
        zc__mem_exact_free(ZC_BUFFER_PINNED, b->staged);
    free(b->host);
    free(b);
}

/* The kernel's stamps of frames [first, first + n), copied into the pinned staging on a stream
 * of their own (the ring's never ends while the kernel runs), within a bounded wait: where
 * kernels are serialized the copy waits behind the ring's kernel, and the staging is then left
 * to it. */
static zc_status zc__budget_copy_stamps(zc_ring *ring, uint64_t first, uint64_t n,
                                        const uint64_t **stamps_p)
{
    struct zc__ring_budget *b = ring->budget;
    if (b->copy_stuck)
        return ZC_FAIL(ZC_ERR_STATE, "zc_ring_budget_get: an earlier copy of the stamps never "
                                     "finished");
    const size_t bytes = zc__budget_device_bytes(n, ring->config.consumers);
    const size_t at = zc_ring_stamp_index(first, ring->config.consumers, 0, 0);
    cudaStream_t copy;
    ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    zc_status st =
        ZC_CUDA(cudaMemcpyAsync(b->staged + at, b->dev + at, bytes, cudaMemcpyDeviceToHost, copy));
    const cudaError_t e =
        st == ZC_OK ? zc__ring_stream_settle(copy, ZC__BUDGET_COPY_NS, 100000) : cudaSuccess;
    if (st == ZC_OK && e == cudaErrorNotReady) {
        b->copy_stuck = 1;
        st = ZC_FAIL(ZC_ERR_TIMEOUT,
                     "zc_ring_budget_get: the stamps' copy waited %.0f s behind the ring's "
                     "kernel (kernels run one at a time here, as under compute-sanitizer): "
                     "take the budget once the kernel has stopped",
                     (double)ZC__BUDGET_COPY_NS / 1e9);
    } else if (st == ZC_OK) {
        st = ZC_CUDA(e);
    }
    if (!b->copy_stuck)
        ZC_CUDA_IGNORE(cudaStreamDestroy(copy));
    if (st == ZC_OK)
        *stamps_p = b->staged + at;
    return st;
}

ZC_EXTERN zc_status zc_ring_budget_get(zc_ring *ring, uint64_t first_seq, uint64_t count,
                                       zc_ring_budget *budget_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(budget_p);
    struct zc__ring_budget *b = ring->budget;
    if (b == NULL)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "zc_ring_budget_get: the ring keeps no budget "
                                           "(zc_ring_config.budget_frames is 0)");
    if (count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_budget_get: count is 0");
    /* Only frames kept and whose results were taken have all their host marks. */
    uint64_t end = first_seq + count < first_seq ? UINT64_MAX : first_seq + count;
    uint64_t taken = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    end = end < b->frames ? end : b->frames;
    end = end < taken ? end : taken;
    if (first_seq >= end)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_ring_budget_get: no frame from %llu: the budget keeps frames 0..%llu "
                       "and %llu results were taken",
                       (unsigned long long)first_seq, (unsigned long long)b->frames - 1,
                       (unsigned long long)taken);
    zc_ring_budget r;
    memset(&r, 0, sizeof r);
    r.first_seq = first_seq;
    r.frames_asked = end - first_seq;
    r.before = b->before;
    /* The second measurement can fail for want of room beside the ring's kernel; the first
     * alone then places the GPU's moments (after.round_trips stays 0). */
    if (zc__clock_sync_measure(&b->sync, ZC__BUDGET_ROUND_TRIPS, &r.after) != ZC_OK)
        memset(&r.after, 0, sizeof r.after);
    const uint64_t *stamps = NULL;
    ZC_CHECK(zc__budget_copy_stamps(ring, first_seq, r.frames_asked, &stamps));
    zc__budget_input in = {r.frames_asked,
                           ring->config.consumers,
                           b->host + first_seq * ZC__BUDGET_HOST_MARKS,
                           stamps,
                           r.before,
                           r.after};
    ZC_CHECK(zc__budget_compute(&in, &r));
    *budget_p = r;
    return ZC_OK;
}

ZC_EXTERN const char *zc_ring_step_name(zc_ring_step step)
{
    static const char *const names[ZC_RING_STEP_COUNT] = {
        "host-write", "to-gpu", "gpu-read", "gpu-compute", "gpu-write", "to-host", "host-read"};
    if ((unsigned)step >= ZC_RING_STEP_COUNT)
        return "unknown";
    return names[step];
}
