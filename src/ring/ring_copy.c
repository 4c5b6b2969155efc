/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Results by copy (ZC_RING_RESULTS_COPY): the kernel reads frames from mapped memory through
 * the SMs and writes its results into device memory; the last block stamps each one as under
 * FLAG, in a word of mapped memory of the copy's own; the copy engine moves every result into
 * pinned host memory on a stream of its own, queued ahead: wait until the slot's stamp says
 * result seq (cuStreamWaitValue64), copy, then store the same stamp in the mapped word the host
 * polls (cuStreamWriteValue64, ordered after the copy). The stamps the stream waits on are in
 * host memory, not device memory, so that the host can let every wait pass at teardown with a
 * store of its own: a GPU operation that did so queued behind the waits under compute-sanitizer,
 * which never ended. So the host takes results exactly as under FLAG, and the two directions ride
 * two engines: the SMs read while the copy engine writes, where with both on the SMs they share
 * what the SMs can move (on the H200, 70.7 GB/s both ways at once against 51.4 one way).
 * The calls that queue a copy are made when the slot's previous result is taken, never
 * between a frame's publish and its result (ring_internal.h).
 */
#include "ring/ring_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "device/cuda_check.h"
#include "device/stream_memops.h"
#include "mem/exact.h"

typedef struct zc__ring_copy {
    zc__stream_memops memops;
    cudaStream_t stream;     /* the copies' own, non-blocking */
    unsigned char *dev_out;  /* device memory: the kernel's result slots */
    uint64_t *stamp;         /* mapped memory: their stamps, one line each (host address) */
    uint64_t *dev_stamp;     /* the same, device address */
    unsigned char *host_out; /* pinned host memory: where each result lands */
    unsigned long long done; /* device address of the mapped out_stamp words */
    size_t stamp_bytes;
} zc__ring_copy;

static size_t zc__stamp_at(uint64_t seq, uint32_t slots)
{
    return (size_t)zc_ring_slot(seq, slots) * ZC_RING_WORD_STRIDE;
}

zc_status zc__ring_copy_queue(zc_ring *ring, uint64_t seq)
{
    zc__ring_copy *c = ring->copy;
    const uint32_t slots = ring->config.slots;
    const size_t at = (size_t)zc_ring_slot(seq, slots) * ring->out_stride;
    const unsigned long long stamp_dev =
        (unsigned long long)(uintptr_t)(c->dev_stamp + zc__stamp_at(seq, slots));
    ZC_CHECK(
        ZC_DRIVER(c->memops.wait64(c->stream, stamp_dev, zc_ring_stamp(seq), ZC__WAIT_VALUE_GEQ)));
    ZC_CUDA_RETURN(cudaMemcpyAsync(c->host_out + at, c->dev_out + at, ring->config.out_bytes,
                                   cudaMemcpyDeviceToHost, c->stream));
    return ZC_DRIVER(c->memops.write64(c->stream,
                                       c->done + zc__stamp_at(seq, slots) * sizeof(uint64_t),
                                       zc_ring_stamp(seq), ZC__WRITE_VALUE_DEFAULT));
}

zc_status zc__ring_copy_open(zc_ring *ring)
{
    zc__ring_copy *c = calloc(1, sizeof *c);
    if (c == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_ring_create: no memory for the results' copy");
    ring->copy = c;
    size_t out_bytes;
    c->stamp_bytes = (size_t)ring->config.slots * ZC_RING_WORD_STRIDE * sizeof(uint64_t);
    if (!zc__size_mul(ring->out_stride, ring->config.slots, &out_bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_ring_create: result slots overflow size_t");
    ZC_CHECK(zc__stream_memops_get(ring->config.device, &c->memops));
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, out_bytes, (void **)&c->dev_out));
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, c->stamp_bytes, (void **)&c->stamp));
    ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, c->stamp, (void **)&c->dev_stamp));
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_PINNED, out_bytes, (void **)&c->host_out));
    ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    memset(c->stamp, 0, c->stamp_bytes);
    zc__ring_stamps_init(c->stamp, ring->config.slots, ring->head);
    /* The kernel writes results in device memory and stamps them in the copy's words; the host
     * reads the pinned slots, and polls its mapped stamps, which the copy stream stores. */
    c->done = (unsigned long long)(uintptr_t)ring->view.out_stamp;
    ring->view.out = c->dev_out;
    ring->view.out_stamp = c->dev_stamp;
    ring->out = c->host_out;
    for (uint32_t i = 0; i < ring->config.slots; i++)
        ZC_CHECK(zc__ring_copy_queue(ring, ring->head + i));
    return ZC_OK;
}

void zc__ring_copy_close(zc_ring *ring, int leak)
{
    zc__ring_copy *c = ring->copy;
    if (c == NULL)
        return;
    if (!leak && c->stream != NULL && c->stamp != NULL) {
        /* Copies queued for frames never computed wait on stamps that will not come: a stamp
         * beyond every sequence number lets each wait pass, so the stream drains. */
        for (uint32_t i = 0; i < ring->config.slots; i++)
            __atomic_store_n(&c->stamp[(size_t)i * ZC_RING_WORD_STRIDE], UINT64_MAX / 2,
                             __ATOMIC_RELEASE);
        leak = zc__ring_stream_settle(c->stream, 1000000000ull, 100000) == cudaErrorNotReady;
    }
    if (!leak) {
        if (c->stream != NULL)
            ZC_CUDA_IGNORE(cudaStreamDestroy(c->stream));
        zc__mem_exact_free(ZC_BUFFER_DEVICE, c->dev_out);
        zc__mem_exact_free(ZC_BUFFER_MAPPED, c->stamp);
        zc__mem_exact_free(ZC_BUFFER_PINNED, c->host_out);
    }
    free(c);
    ring->copy = NULL;
}
