/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the host-side state of a frame ring, shared by the ring's source files and tests. */
#ifndef ZC_RING_RING_INTERNAL_H
#define ZC_RING_RING_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_ring)
#error "src/ring/ included from below ring: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "zerocopy/ring.h"

struct zc_ring {
    zc_ring_config config;
    size_t in_words; /* 32-bit payload words per frame */
    size_t out_words;
    unsigned char *base; /* the one mapped pinned allocation (host address) */
    size_t base_bytes;
    zc_ring_ctrl *ctrl; /* host addresses of the parts of base */
    uint64_t *released;
    uint64_t *in_stamp;
    uint64_t *out_stamp;
    unsigned char *in;
    unsigned char *out;
    size_t in_stride;
    size_t out_stride;
    unsigned char *in_stage;  /* LL: the frame zc_ring_acquire hands out */
    unsigned char *out_stage; /* LL: the decoded result zc_ring_result_wait hands out */
    uint64_t *arrivals;       /* device memory: FLAG results' arrival counters (view.arrivals) */
    zc_ring_dev view;         /* device addresses */
    struct zc__ring_budget *budget; /* the frame time budget's stamps; NULL when not kept */
    struct zc__ring_copy *copy;     /* results by copy (ring_copy.c); NULL when mapped */
    cudaStream_t stream;

    uint64_t head;          /* next sequence number to publish */
    uint64_t tail;          /* next result to take */
    uint64_t released_seen; /* the last release point read from the GPU's words */
    int acquired;           /* a frame is between acquire and publish */
    int result_held;        /* a result is between wait and release */
    int stop_requested;
    zc_ring_counters counters;

    pthread_t heartbeat_thread;
    int heartbeat_running;
    int heartbeat_quit;   /* atomic: ask the thread to end */
    int heartbeat_paused; /* atomic: tests stop the heartbeat to trip the watchdog */
    uint64_t heartbeat_period_ns;
    cpu_set_t creator_cpus; /* the creating thread's affinity, which the heartbeat avoids */
    int simulated; /* CPU tests: no CUDA stream; the kernel "ends" when ctrl->exit_reason is set */
};

/* Bytes of mapped memory a ring of this configuration needs. */
zc_status zc__ring_bytes(const zc_ring_config *config, size_t *bytes_p);

/* Lay a ring out on host memory (host addresses) whose device addresses start at dev, with the
 * first frame numbered first_seq (tests start near 2^32 to cross the LL flag's wrap). Allocates
 * the staging frames; the caller owns the memory. */
zc_status zc__ring_setup(zc_ring *ring, const zc_ring_config *config, unsigned char *host,
                         unsigned char *dev, uint64_t first_seq);

/* Stamps (one per slot, a line apart) as their slots' previous occupants left them, so that any
 * first_seq works, even one whose stamp is 0 after the 64-bit wrap. */
void zc__ring_stamps_init(uint64_t *words, uint32_t slots, uint64_t first_seq);

/* ZC_OK while the kernel's stream still runs; ZC_ERR_KERNEL (with the kernel's exit reason in
 * the detail) once it has ended or failed. fn names the caller in the detail. */
zc_status zc__ring_kernel_alive(zc_ring *ring, const char *fn);

/* Wait up to timeout_ns for stream's work to end, asking the driver every pause_ns (sleeping
 * between): its last answer, cudaErrorNotReady when the work still runs. */
cudaError_t zc__ring_stream_settle(cudaStream_t stream, uint64_t timeout_ns, long pause_ns);

/* Spin-wait hint for loops that may wait long. */
void zc__ring_relax(void);

/*
 * Results by copy (ZC_RING_RESULTS_COPY, ring_copy.c). open: device result slots, the stamps
 * the copy stream waits on (mapped memory), pinned host result slots, the copy stream, and each
 * slot's first copy queued (the kernel then writes results into device memory and stamps them
 * in those words; ring->out becomes the pinned slots, and the ring's own mapped out_stamp words
 * are stored by the copy stream once each result has landed, so the host waits for results as
 * under FLAG). queue: result seq's copy, behind a wait on its stamp;
 * a slot's next copy is queued when its result is taken. close: lets every queued wait pass,
 * waits (bounded) for the stream, frees; leak leaves the memory the kernel may still touch.
 */
zc_status zc__ring_copy_open(zc_ring *ring);
zc_status zc__ring_copy_queue(zc_ring *ring, uint64_t seq);
void zc__ring_copy_close(zc_ring *ring, int leak);

/* The results' protocol (the form zc_ring_result_wait reads): the input's, or FLAG. */
static inline zc_ring_protocol zc__ring_results_protocol(const zc_ring *ring)
{
    return (zc_ring_protocol)ring->view.out_protocol;
}

/* Tests: stop (1) or resume (0) the heartbeat without ending the thread. */
void zc__ring_heartbeat_pause(zc_ring *ring, int paused);

/* The release point of the GPU's consumers, read now with acquire loads. */
uint64_t zc__ring_read_released(zc_ring *ring);

/* Encode payload bytes into LL words for frame seq; decode LL words, waiting for their flags. */
void zc__ring_ll_encode(uint64_t *dst, const uint32_t *src, size_t words, uint64_t seq);

/* Decode LL words of frame seq into dst; gives how many words were ready (all: words). Stops at
 * the first word whose flag does not match. */
size_t zc__ring_ll_decode(uint32_t *dst, const uint64_t *src, size_t words, uint64_t seq,
                          size_t start);

#endif
