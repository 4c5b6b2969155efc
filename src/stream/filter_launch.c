/* SPDX-License-Identifier: Apache-2.0 */
/* The per-frame launch transports of a filter: a launch per frame on mapped memory, pageable
 * and pinned copies around a launch, pinned copies overlapped over three streams, and a CUDA
 * graph of copy, kernel, copy. */
#include "stream/filter_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"

/*
 * What each launch mode does differently: its host buffers, where its per-frame work goes, and
 * the setup beyond the common one. The mode table (stream_modes.c) points each mode at its row.
 */
struct zc__launch_variant {
    zc_buffer_kind host_kind; /* of h_in and h_out, from the exact calls (mem/exact.h) */
    int legacy_stream;        /* the legacy stream, as plain cudaMemcpy code uses */
    int mapped_io;            /* the kernel reads and writes h_in and h_out: no device buffers */
    int even_slots;           /* a slot's history parity is the same every time it is used */
    /* Returns once frame seq's work is queued (or done, with synchronous). */
    zc_status (*publish)(zc_filter *f, uint64_t seq);
    int records_event; /* publish records the frame's event itself, on a stream of its own */
    int synchronous;   /* publish does the whole round trip: nothing to wait for */
    zc_status (*setup)(zc_filter *f); /* beyond the common setup; NULL when none */
};

/* The history buffers a frame reads and writes: they alternate with the frame's parity. */
static void zc__hist(const zc_filter *f, uint64_t seq, const float **in_p, float **out_p)
{
    *in_p = f->d_hist + (seq % 2) * f->shape.halo;
    *out_p = f->d_hist + ((seq + 1) % 2) * f->shape.halo;
}

/* Copy, kernel, copy for frame seq on the filter's stream (classic-pinned; graph capture). */
static zc_status zc__enqueue_copy_kernel_copy(zc_filter *f, uint64_t seq)
{
    const float *hist_in;
    float *hist_out;
    zc__hist(f, seq, &hist_in, &hist_out);
    ZC_CUDA_RETURN(cudaMemcpyAsync(zc__filter_slot(f->d_in, f, seq),
                                   zc__filter_slot(f->h_in, f, seq), f->frame_bytes,
                                   cudaMemcpyHostToDevice, f->stream));
    ZC_CHECK(zc__fir_launch_frame(&f->shape, zc__filter_slot(f->d_in, f, seq),
                                  zc__filter_slot(f->d_out, f, seq), hist_in, hist_out, f->d_taps,
                                  f->stream, &f->blocks));
    ZC_CUDA_RETURN(cudaMemcpyAsync(zc__filter_slot(f->h_out, f, seq),
                                   zc__filter_slot(f->d_out, f, seq), f->frame_bytes,
                                   cudaMemcpyDeviceToHost, f->stream));
    return ZC_OK;
}

/*
 * classic-overlap: frame seq's copy-in, kernel and copy-out on stream seq % 3, so that copying
 * one frame in overlaps the kernel of the one before and the copy-out of the one before that
 * (the copy engines run both directions at once). The kernels still run one after another, in
 * order: each carries the filter's history to the next (hist parity), so frame seq's kernel
 * waits for frame seq - 1's.
 */
static zc_status zc__enqueue_overlap(zc_filter *f, uint64_t seq)
{
    cudaStream_t s = f->overlap[seq % ZC__OVERLAP_STREAMS];
    const float *hist_in;
    float *hist_out;
    zc__hist(f, seq, &hist_in, &hist_out);
    ZC_CUDA_RETURN(cudaMemcpyAsync(zc__filter_slot(f->d_in, f, seq),
                                   zc__filter_slot(f->h_in, f, seq), f->frame_bytes,
                                   cudaMemcpyHostToDevice, s));
    if (seq > 0)
        ZC_CUDA_RETURN(cudaStreamWaitEvent(s, f->kernel_done[(seq - 1) % f->slots], 0));
    ZC_CHECK(zc__fir_launch_frame(&f->shape, zc__filter_slot(f->d_in, f, seq),
                                  zc__filter_slot(f->d_out, f, seq), hist_in, hist_out, f->d_taps,
                                  s, &f->blocks));
    ZC_CUDA_RETURN(cudaEventRecord(f->kernel_done[seq % f->slots], s));
    ZC_CUDA_RETURN(cudaMemcpyAsync(zc__filter_slot(f->h_out, f, seq),
                                   zc__filter_slot(f->d_out, f, seq), f->frame_bytes,
                                   cudaMemcpyDeviceToHost, s));
    return ZC_CUDA(cudaEventRecord(f->events[seq % f->slots], s));
}

static zc_status zc__overlap_setup(zc_filter *f)
{
    for (int i = 0; i < ZC__OVERLAP_STREAMS; i++)
        ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&f->overlap[i], cudaStreamNonBlocking));
    f->kernel_done = calloc(f->slots, sizeof *f->kernel_done);
    if (f->kernel_done == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_filter_create: no memory for events");
    for (uint32_t s = 0; s < f->slots; s++)
        ZC_CUDA_RETURN(cudaEventCreateWithFlags(&f->kernel_done[s], cudaEventDisableTiming));
    return ZC_OK;
}

/* Graph mode: one instantiated graph per slot; slots is even, so a slot's history parity is
 * the same every time it is used. */
static zc_status zc__build_graphs(zc_filter *f)
{
    f->graphs = calloc(f->slots, sizeof *f->graphs);
    if (f->graphs == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_filter_create: no memory for graphs");
    for (uint32_t s = 0; s < f->slots; s++) {
        cudaGraph_t graph = NULL;
        ZC_CUDA_RETURN(cudaStreamBeginCapture(f->stream, cudaStreamCaptureModeThreadLocal));
        zc_status st = zc__enqueue_copy_kernel_copy(f, s);
        zc_status end = ZC_CUDA(cudaStreamEndCapture(f->stream, &graph));
        if (st == ZC_OK)
            st = end;
        if (st == ZC_OK)
            st = ZC_CUDA(cudaGraphInstantiate(&f->graphs[s], graph, 0));
        if (graph != NULL)
            ZC_CUDA_IGNORE(cudaGraphDestroy(graph));
        ZC_CHECK(st);
    }
    return ZC_OK;
}

static zc_status zc__launch_setup(zc_filter *f)
{
    const zc__launch_variant *v = f->launch;
    /* Known before the first launch, so that zc_filter_gpu_blocks answers from the start. */
    f->blocks = zc__fir_frame_blocks(&f->shape);
    f->slots = f->config.in_flight;
    if (v->even_slots)
        f->slots += f->slots % 2;
    size_t bytes;
    if (!zc__size_mul(f->frame_bytes, f->slots, &bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_filter_create: frames x in_flight overflows");
    /* The buffers a program written this way would have, from the exact calls (mem/exact.h). */
    f->host_kind = v->host_kind;
    if (v->legacy_stream) {
        f->stream = 0;
    } else {
        ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking));
        f->own_stream = 1;
    }
    ZC_CHECK(zc__mem_exact_alloc(f->host_kind, bytes, (void **)&f->h_in));
    ZC_CHECK(zc__mem_exact_alloc(f->host_kind, bytes, (void **)&f->h_out));
    if (v->mapped_io) {
        ZC_CHECK(zc__mem_exact_device_ptr(f->host_kind, f->h_in, (void **)&f->d_in));
        ZC_CHECK(zc__mem_exact_device_ptr(f->host_kind, f->h_out, (void **)&f->d_out));
    } else {
        ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, bytes, (void **)&f->d_in));
        ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, bytes, (void **)&f->d_out));
    }
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, 2 * (f->shape.halo + 4) * sizeof(float),
                                 (void **)&f->d_hist));
    ZC_CUDA_RETURN(cudaMemset(f->d_hist, 0, 2 * (f->shape.halo + 4) * sizeof(float)));
    f->events = calloc(f->slots, sizeof *f->events);
    if (f->events == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_filter_create: no memory for events");
    for (uint32_t s = 0; s < f->slots; s++)
        ZC_CUDA_RETURN(cudaEventCreateWithFlags(&f->events[s], cudaEventDisableTiming));
    if (v->setup != NULL)
        ZC_CHECK(v->setup(f));
    return ZC_CUDA(cudaDeviceSynchronize());
}

/* classic-pageable: the whole round trip happens here, synchronous copies from and to pageable
 * memory on the legacy stream. */
static zc_status zc__publish_pageable(zc_filter *f, uint64_t seq)
{
    const float *hist_in;
    float *hist_out;
    zc__hist(f, seq, &hist_in, &hist_out);
    ZC_CUDA_RETURN(cudaMemcpy(zc__filter_slot(f->d_in, f, seq), zc__filter_slot(f->h_in, f, seq),
                              f->frame_bytes, cudaMemcpyHostToDevice));
    ZC_CHECK(zc__fir_launch_frame(&f->shape, zc__filter_slot(f->d_in, f, seq),
                                  zc__filter_slot(f->d_out, f, seq), hist_in, hist_out, f->d_taps,
                                  0, &f->blocks));
    return ZC_CUDA(cudaMemcpy(zc__filter_slot(f->h_out, f, seq), zc__filter_slot(f->d_out, f, seq),
                              f->frame_bytes, cudaMemcpyDeviceToHost));
}

static zc_status zc__publish_graph(zc_filter *f, uint64_t seq)
{
    return ZC_CUDA(cudaGraphLaunch(f->graphs[seq % f->slots], f->stream));
}

/* mapped-launch: the kernel reads and writes the mapped host buffers themselves. */
static zc_status zc__publish_mapped(zc_filter *f, uint64_t seq)
{
    const float *hist_in;
    float *hist_out;
    zc__hist(f, seq, &hist_in, &hist_out);
    return zc__fir_launch_frame(&f->shape, zc__filter_slot(f->d_in, f, seq),
                                zc__filter_slot(f->d_out, f, seq), hist_in, hist_out, f->d_taps,
                                f->stream, &f->blocks);
}

const zc__launch_variant zc__launch_pageable = {
    .host_kind = ZC_BUFFER_PAGEABLE,
    .legacy_stream = 1,
    .publish = zc__publish_pageable,
    .synchronous = 1,
};
const zc__launch_variant zc__launch_pinned = {
    .host_kind = ZC_BUFFER_PINNED,
    .publish = zc__enqueue_copy_kernel_copy,
};
const zc__launch_variant zc__launch_overlap = {
    .host_kind = ZC_BUFFER_PINNED,
    .publish = zc__enqueue_overlap,
    .records_event = 1,
    .setup = zc__overlap_setup,
};
const zc__launch_variant zc__launch_graph = {
    .host_kind = ZC_BUFFER_PINNED,
    .even_slots = 1,
    .publish = zc__publish_graph,
    .setup = zc__build_graphs,
};
const zc__launch_variant zc__launch_mapped = {
    .host_kind = ZC_BUFFER_MAPPED,
    .mapped_io = 1,
    .publish = zc__publish_mapped,
};

static zc_status zc__launch_publish(zc_filter *f)
{
    const uint64_t seq = f->head;
    ZC_CHECK(f->launch->publish(f, seq));
    if (f->launch->records_event || f->launch->synchronous)
        return ZC_OK;
    return ZC_CUDA(cudaEventRecord(f->events[seq % f->slots], f->stream));
}

static zc_status zc__launch_wait(zc_filter *f, uint64_t timeout_ns, const float **result_p)
{
    const uint64_t seq = f->tail;
    if (!f->launch->synchronous) {
        /* Spin on the event, as cudaEventSynchronize does in its default (spin) mode, but with
         * a bound. */
        cudaEvent_t ev = f->events[seq % f->slots];
        uint64_t start = zc_clock_ns();
        for (;;) {
            cudaError_t e = cudaEventQuery(ev);
            if (e == cudaSuccess)
                break;
            if (e != cudaErrorNotReady)
                return ZC_CUDA(e);
            if (timeout_ns == 0)
                return ZC_ERR_TIMEOUT; /* a poll: no detail */
            if (zc_clock_ns() - start >= timeout_ns)
                return ZC_FAIL(ZC_ERR_TIMEOUT,
                               "zc_filter_result_wait: frame %llu not done after %.3f ms (%s)",
                               (unsigned long long)seq, (double)timeout_ns / 1e6,
                               zc_stream_mode_name(f->config.mode));
        }
    }
    *result_p = zc__filter_slot(f->h_out, f, seq);
    return ZC_OK;
}

static void zc__launch_teardown(zc_filter *f)
{
    if (f->own_stream)
        ZC_CUDA_IGNORE(cudaStreamSynchronize(f->stream));
    for (int i = 0; i < ZC__OVERLAP_STREAMS; i++) {
        if (f->overlap[i] != NULL) {
            ZC_CUDA_IGNORE(cudaStreamSynchronize(f->overlap[i]));
            ZC_CUDA_IGNORE(cudaStreamDestroy(f->overlap[i]));
        }
    }
    for (uint32_t s = 0; f->kernel_done != NULL && s < f->slots; s++) {
        if (f->kernel_done[s] != NULL)
            ZC_CUDA_IGNORE(cudaEventDestroy(f->kernel_done[s]));
    }
    free(f->kernel_done);
    for (uint32_t s = 0; f->graphs != NULL && s < f->slots; s++) {
        if (f->graphs[s] != NULL)
            ZC_CUDA_IGNORE(cudaGraphExecDestroy(f->graphs[s]));
    }
    free(f->graphs);
    for (uint32_t s = 0; f->events != NULL && s < f->slots; s++) {
        if (f->events[s] != NULL)
            ZC_CUDA_IGNORE(cudaEventDestroy(f->events[s]));
    }
    free(f->events);
    zc__mem_exact_free(ZC_BUFFER_DEVICE, f->d_hist);
    if (!f->launch->mapped_io) {
        zc__mem_exact_free(ZC_BUFFER_DEVICE, f->d_in);
        zc__mem_exact_free(ZC_BUFFER_DEVICE, f->d_out);
    }
    zc__mem_exact_free(f->host_kind, f->h_in);
    zc__mem_exact_free(f->host_kind, f->h_out);
    if (f->own_stream)
        ZC_CUDA_IGNORE(cudaStreamDestroy(f->stream));
}

const zc__filter_ops zc__filter_launch_ops = {
    .setup = zc__launch_setup,
    .acquire = zc__filter_acquire_host_slot,
    .publish = zc__launch_publish,
    .submit = NULL,
    .wait = zc__launch_wait,
    .release = NULL,
    .buffers = zc__filter_host_slots,
    .teardown = zc__launch_teardown,
};
