/* SPDX-License-Identifier: Apache-2.0 */
/* A frame ring in mapped pinned host memory between a host thread and a persistent GPU kernel:
 * input frames host to GPU, results GPU to host, with the kernel's control words. */
#ifndef ZEROCOPY_RING_H
#define ZEROCOPY_RING_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "zerocopy/export.h"
#include "zerocopy/ring_protocol.h"
#include "zerocopy/status.h"

/* What the producer does when every slot is in flight. */
typedef enum zc_ring_full_policy {
    ZC_RING_FULL_WAIT = 0, /* wait for a free slot, up to the call's timeout (ZC_ERR_TIMEOUT) */
    ZC_RING_FULL_DROP = 1  /* refuse the frame at once (ZC_ERR_DROPPED) and count it dropped */
} zc_ring_full_policy;

/* Where the kernel's results go. */
typedef enum zc_ring_results {
    ZC_RING_RESULTS_MAPPED = 0, /* the SMs write them into mapped host memory, in the ring's
                                   protocol: both directions on the SMs */
    ZC_RING_RESULTS_COPY = 1    /* the SMs write them into device memory and stamp them there;
                                   the copy engine moves each into pinned host memory, queued
                                   ahead behind a stream wait on its stamp
                                   (cuStreamWaitValue64): frames in by the SMs, results out by
                                   the copy engine, two engines instead of one. Results are in
                                   the FLAG form whatever the input's protocol.
                                   ZC_ERR_UNSUPPORTED where the device lacks 64-bit stream
                                   memory operations */
} zc_ring_results;

typedef struct zc_ring_config {
    int device;                 /* CUDA device number */
    uint32_t slots;             /* slots per direction, a power of two, 2..65536 */
    size_t in_bytes;            /* payload bytes per input frame, a multiple of 16 */
    size_t out_bytes;           /* payload bytes per result, a multiple of 16 */
    uint32_t consumers;         /* GPU blocks of the kernel; each releases and stamps its part */
    zc_ring_protocol protocol;  /* FLAG or LL, both directions */
    zc_ring_full_policy policy; /* when the ring is full */
    uint64_t watchdog_ns;       /* kernel exits when the heartbeat stalls this long (>= 10 ms) */
    uint64_t poll_check_ns;     /* a waiting kernel reads stop and heartbeat this often */
    uint64_t budget_frames;     /* keep the time budget of frames 0..budget_frames-1
                                   (zerocopy/ring_budget.h); 0: none */
    zc_ring_results results;    /* where results go (default: mapped) */
} zc_ring_config;

/* Counters of one ring since creation. Nothing is dropped without being counted here. */
typedef struct zc_ring_counters {
    uint64_t published;  /* frames handed to the GPU */
    uint64_t dropped;    /* frames refused under ZC_RING_FULL_DROP */
    uint64_t full_waits; /* times the producer found the ring full and had to wait */
    uint64_t results;    /* results taken by the host */
} zc_ring_counters;

/* What the kernel reported in its control words. */
typedef struct zc_ring_kernel_state {
    int started;           /* 1 once the kernel has begun */
    int running;           /* 1 while its stream has not completed */
    uint32_t exit_reason;  /* ZC_RING_EXIT_* */
    uint32_t error_code;   /* ZC_RING_ERROR_* */
    uint64_t error_detail; /* the value the kernel gave with its error */
} zc_ring_kernel_state;

typedef struct zc_ring zc_ring;

ZC_BEGIN_DECLS

/* Defaults: device 0, 8 slots, 4 KiB frames and results, 1 consumer, LL, wait when full,
 * watchdog 1 s, stop and heartbeat read every 200 us while waiting. */
ZC_EXTERN void zc_ring_config_init(zc_ring_config *config);

/* Check a configuration without touching a GPU. */
ZC_EXTERN zc_status zc_ring_config_check(const zc_ring_config *config);

/* Allocate the ring (mapped pinned memory), its non-blocking stream and its heartbeat thread. */
ZC_EXTERN zc_status zc_ring_create(const zc_ring_config *config, zc_ring **ring_p);

/* Stop the kernel if it still runs (bounded wait), then free everything. Accepts NULL. */
ZC_EXTERN void zc_ring_destroy(zc_ring *ring);

/* The view a persistent kernel takes by value (ring_device.cuh). */
ZC_EXTERN zc_status zc_ring_device_view(const zc_ring *ring, zc_ring_dev *view_p);

/* The non-blocking stream the persistent kernel must be launched on. */
ZC_EXTERN zc_status zc_ring_stream(const zc_ring *ring, cudaStream_t *stream_p);

/*
 * After launching the kernel on zc_ring_stream: check the launch and wait until the kernel
 * reports that it started. ZC_ERR_TIMEOUT when it did not within timeout_ns (another kernel
 * holds the GPU), ZC_ERR_KERNEL when it ended or failed.
 */
ZC_EXTERN zc_status zc_ring_wait_started(zc_ring *ring, uint64_t timeout_ns);

/*
 * Take the next input slot: *frame_p gets in_bytes of host memory to fill, *seq_p its sequence
 * number. Under FLAG it is the mapped slot itself; under LL a host staging area that
 * zc_ring_publish encodes. When the ring is full: waits up to timeout_ns (ZC_ERR_TIMEOUT) or,
 * under the drop policy, returns ZC_ERR_DROPPED at once and counts the frame. A kernel that
 * has ended gives ZC_ERR_KERNEL.
 */
ZC_EXTERN zc_status zc_ring_acquire(zc_ring *ring, uint64_t timeout_ns, void **frame_p,
                                    uint64_t *seq_p);

/* Hand the acquired frame to the GPU. */
ZC_EXTERN zc_status zc_ring_publish(zc_ring *ring);

/* Acquire, copy bytes (== in_bytes) from data and publish in one call (LL: encoded directly). */
ZC_EXTERN zc_status zc_ring_push(zc_ring *ring, const void *data, size_t bytes, uint64_t timeout_ns,
                                 uint64_t *seq_p);

/*
 * Wait up to timeout_ns for the next result, in order. *result_p points at out_bytes that stay
 * valid until zc_ring_result_release. ZC_ERR_TIMEOUT when none came and the kernel still runs;
 * ZC_ERR_KERNEL when the kernel ended or failed (the detail says why); ZC_ERR_STATE when no
 * frame is outstanding.
 */
ZC_EXTERN zc_status zc_ring_result_wait(zc_ring *ring, uint64_t timeout_ns, const void **result_p,
                                        uint64_t *seq_p);

/* Give the result slot back. */
ZC_EXTERN zc_status zc_ring_result_release(zc_ring *ring);

/* Wait for, copy out (LL: decoded directly) and release the next result. On failure data may
 * hold part of the result. */
ZC_EXTERN zc_status zc_ring_pop(zc_ring *ring, void *data, size_t bytes, uint64_t timeout_ns,
                                uint64_t *seq_p);

/* Frames published and not yet taken as results. */
ZC_EXTERN zc_status zc_ring_outstanding(const zc_ring *ring, uint64_t *count_p);

/* Ask the kernel to stop and wait up to timeout_ns for its stream to complete. ZC_OK when it
 * ended on request, ZC_ERR_TIMEOUT when it did not end in time. Calling it twice is harmless. */
ZC_EXTERN zc_status zc_ring_stop(zc_ring *ring, uint64_t timeout_ns);

/* The counters. */
ZC_EXTERN zc_status zc_ring_counters_get(const zc_ring *ring, zc_ring_counters *counters_p);

/* What the kernel reports, and whether its stream still runs. */
ZC_EXTERN zc_status zc_ring_kernel_state_get(zc_ring *ring, zc_ring_kernel_state *state_p);

/* A word for ZC_RING_EXIT_* ("running", "stop", "watchdog", "error"). */
ZC_EXTERN const char *zc_ring_exit_reason_str(uint32_t reason);

ZC_END_DECLS

#endif
