/* SPDX-License-Identifier: Apache-2.0 */
/* The stream-wait transport of a filter: no persistent kernel. Each frame's work is queued on a
 * stream ahead of time (wait on a word, kernel, write a word); the GPU's front end waits on the
 * word the CPU stores in mapped memory, so the GPU holds no SM while it has nothing to do. */
#include "stream/filter_internal.h"

#include <stdint.h>
#include <string.h>

#include "core/backoff.h"
#include "core/checked_math.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"

/*
 * Frames queued ahead per frame allowed in flight. The consumer queues frame k + slots when it
 * releases frame k, so the three calls that queue a frame (two driver memory operations and a
 * launch) are made while the GPU has other frames to start, never between the producer's store
 * and the GPU's start of that frame.
 */
#define ZC__WAIT_QUEUE_PER_IN_FLIGHT 2u

/* How many polls of the done word between two looks at the clock and the stream. */
#define ZC__WAIT_POLL_BATCH 256u

/* The control word of frame seq's slot in a control array (host address): one 64-byte line per
 * slot, one writer per line. */
static uint64_t *zc__ctrl_word(uint64_t *base, uint64_t seq, uint32_t slots)
{
    return base + (size_t)(seq % slots) * ZC_RING_WORD_STRIDE;
}

/* The same word's device address. */
static unsigned long long zc__ctrl_dev(unsigned long long base, uint64_t seq, uint32_t slots)
{
    return base + (unsigned long long)(seq % slots) * ZC_RING_WORD_STRIDE * sizeof(uint64_t);
}

/* Frame seq's work, on the filter's stream: wait until the CPU stores go >= seq + 1, filter the
 * frame in place in mapped memory, then store done = seq + 1 after the kernel's writes. */
static zc_status zc__wait_enqueue(zc_filter *f, uint64_t seq)
{
    const float *hist_in = f->d_hist + (seq % 2) * f->shape.halo;
    float *hist_out = f->d_hist + ((seq + 1) % 2) * f->shape.halo;
    ZC_CHECK(ZC_DRIVER(f->memops.wait64(f->stream, zc__ctrl_dev(f->d_go, seq, f->slots), seq + 1,
                                        ZC__WAIT_VALUE_GEQ)));
    ZC_CHECK(zc__fir_launch_frame(&f->shape, zc__filter_slot(f->d_in, f, seq),
                                  zc__filter_slot(f->d_out, f, seq), hist_in, hist_out, f->d_taps,
                                  f->stream, &f->blocks));
    ZC_CHECK(ZC_DRIVER(f->memops.write64(f->stream, zc__ctrl_dev(f->d_done, seq, f->slots), seq + 1,
                                         ZC__WRITE_VALUE_DEFAULT)));
    f->queued = seq + 1;
    return ZC_OK;
}

static zc_status zc__wait_setup(zc_filter *f)
{
    ZC_CHECK(zc__stream_memops_get(f->config.device, &f->memops));
    f->blocks = zc__fir_frame_blocks(&f->shape);
    f->slots = f->config.in_flight * ZC__WAIT_QUEUE_PER_IN_FLIGHT;
    size_t bytes, ctrl_bytes = (size_t)f->slots * ZC_RING_WORD_STRIDE * sizeof(uint64_t);
    if (!zc__size_mul(f->frame_bytes, f->slots, &bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_filter_create: frames x in_flight overflows");
    ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking));
    f->own_stream = 1;
    f->host_kind = ZC_BUFFER_MAPPED;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, bytes, (void **)&f->h_in));
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, bytes, (void **)&f->h_out));
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, ctrl_bytes, (void **)&f->h_go));
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, ctrl_bytes, (void **)&f->h_done));
    memset(f->h_go, 0, ctrl_bytes);
    memset(f->h_done, 0, ctrl_bytes);
    void *p;
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, f->h_in, (void **)&f->d_in));
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, f->h_out, (void **)&f->d_out));
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, f->h_go, &p));
    f->d_go = (unsigned long long)(uintptr_t)p;
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, f->h_done, &p));
    f->d_done = (unsigned long long)(uintptr_t)p;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, 2 * (f->shape.halo + 4) * sizeof(float),
                                 (void **)&f->d_hist));
    ZC_CUDA_RETURN(cudaMemset(f->d_hist, 0, 2 * (f->shape.halo + 4) * sizeof(float)));
    ZC_CUDA_RETURN(cudaDeviceSynchronize());
    /* The FIR kernel is loaded already (zc_filter_create): a first launch that loads it
     * lazily behind the waits queued here would never return. */
    for (uint64_t seq = 0; seq < f->slots; seq++)
        ZC_CHECK(zc__wait_enqueue(f, seq));
    return ZC_OK;
}

/* The frame's input is in its mapped slot: one release store lets the queued wait pass. */
static zc_status zc__wait_publish(zc_filter *f)
{
    __atomic_store_n(zc__ctrl_word(f->h_go, f->head, f->slots), f->head + 1, __ATOMIC_RELEASE);
    return ZC_OK;
}

static zc_status zc__wait_wait(zc_filter *f, uint64_t timeout_ns, const float **result_p)
{
    const uint64_t seq = f->tail;
    const uint64_t *done = zc__ctrl_word(f->h_done, seq, f->slots);
    uint64_t start = 0;
    for (uint32_t polls = 1; __atomic_load_n(done, __ATOMIC_ACQUIRE) != seq + 1; polls++) {
        if (timeout_ns == 0)
            return ZC_ERR_TIMEOUT; /* a poll: no detail */
        if (polls % ZC__WAIT_POLL_BATCH != 0) {
            zc__backoff(0);
            continue;
        }
        uint64_t now = zc_clock_ns();
        if (start == 0)
            start = now;
        /* A failed kernel or memory operation never stores done: the stream says so. */
        cudaError_t e = cudaStreamQuery(f->stream);
        if (e != cudaSuccess && e != cudaErrorNotReady)
            return ZC_CUDA(e);
        if (now - start >= timeout_ns)
            return ZC_FAIL(ZC_ERR_TIMEOUT,
                           "zc_filter_result_wait: frame %llu not done after %.3f ms (stream-wait)",
                           (unsigned long long)seq, (double)timeout_ns / 1e6);
        zc__backoff(now - start);
    }
    *result_p = zc__filter_slot(f->h_out, f, seq);
    return ZC_OK;
}

/* Result tail is taken: its slot's next frame can be queued. */
static zc_status zc__wait_release(zc_filter *f)
{
    return zc__wait_enqueue(f, f->tail + f->slots);
}

static void zc__wait_teardown(zc_filter *f)
{
    if (f->stream != NULL && f->h_go != NULL) {
        /* Frames queued and never published still wait on their go words: let every one of
         * them pass (on stale input) so that the stream drains. */
        for (uint32_t s = 0; s < f->slots; s++)
            __atomic_store_n(f->h_go + (size_t)s * ZC_RING_WORD_STRIDE, f->queued,
                             __ATOMIC_RELEASE);
    }
    if (f->own_stream) {
        ZC_CUDA_IGNORE(cudaStreamSynchronize(f->stream));
        ZC_CUDA_IGNORE(cudaStreamDestroy(f->stream));
    }
    zc__mem_exact_free(ZC_BUFFER_DEVICE, f->d_hist);
    zc__mem_exact_free(ZC_BUFFER_MAPPED, f->h_in);
    zc__mem_exact_free(ZC_BUFFER_MAPPED, f->h_out);
    zc__mem_exact_free(ZC_BUFFER_MAPPED, f->h_go);
    zc__mem_exact_free(ZC_BUFFER_MAPPED, f->h_done);
}

const zc__filter_ops zc__filter_wait_ops = {
    .setup = zc__wait_setup,
    .acquire = zc__filter_acquire_host_slot,
    .publish = zc__wait_publish,
    .submit = NULL,
    .wait = zc__wait_wait,
    .release = zc__wait_release,
    .buffers = zc__filter_host_slots,
    .teardown = zc__wait_teardown,
};
