/* SPDX-License-Identifier: Apache-2.0 */
/* Persistent-kernel control on the host: start, liveness, stop, and what the kernel reported. */
#include "ring/ring_internal.h"

#include <time.h>

#include "device/cuda_check.h"
#include "zerocopy/clock.h"

ZC_EXTERN const char *zc_ring_exit_reason_str(uint32_t reason)
{
    switch (reason) {
    case ZC_RING_EXIT_NONE:
        return "running";
    case ZC_RING_EXIT_STOP:
        return "stop";
    case ZC_RING_EXIT_WATCHDOG:
        return "watchdog";
    case ZC_RING_EXIT_ERROR:
        return "error";
    default:
        return "unknown";
    }
}

/* Has the kernel's stream completed? A simulated (CPU-test) ring's kernel is running until it
 * writes an exit reason. */
static cudaError_t zc__ring_query(zc_ring *ring)
{
    if (ring->simulated)
        return __atomic_load_n(&ring->ctrl->exit_reason, __ATOMIC_ACQUIRE) ? cudaSuccess
                                                                           : cudaErrorNotReady;
    return cudaStreamQuery(ring->stream);
}

zc_status zc__ring_kernel_alive(zc_ring *ring, const char *fn)
{
    cudaError_t e = zc__ring_query(ring);
    if (e == cudaErrorNotReady)
        return ZC_OK;
    uint64_t started = __atomic_load_n(&ring->ctrl->started, __ATOMIC_ACQUIRE);
    uint64_t reason = __atomic_load_n(&ring->ctrl->exit_reason, __ATOMIC_ACQUIRE);
    uint64_t code = __atomic_load_n(&ring->ctrl->error_code, __ATOMIC_ACQUIRE);
    uint64_t detail = __atomic_load_n(&ring->ctrl->error_detail, __ATOMIC_ACQUIRE);
    if (e != cudaSuccess)
        return ZC_FAIL(ZC_ERR_KERNEL, "%s: the ring's kernel failed: %s (%s)", fn,
                       cudaGetErrorName(e), cudaGetErrorString(e));
    if (!started && code == ZC_RING_ERROR_GRID)
        return ZC_FAIL(ZC_ERR_KERNEL,
                       "%s: the kernel refused to run: its grid has %llu blocks, the ring %u "
                       "consumers (one block per consumer)",
                       fn, (unsigned long long)detail, ring->config.consumers);
    if (!started)
        return ZC_FAIL(ZC_ERR_KERNEL,
                       "%s: no kernel runs on the ring's stream (never launched, or it ended "
                       "before it began; error code %llu)",
                       fn, (unsigned long long)code);
    return ZC_FAIL(ZC_ERR_KERNEL,
                   "%s: the ring's kernel has ended (reason %s, error code %llu, detail %llu)", fn,
                   zc_ring_exit_reason_str((uint32_t)reason), (unsigned long long)code,
                   (unsigned long long)detail);
}

ZC_EXTERN zc_status zc_ring_wait_started(zc_ring *ring, uint64_t timeout_ns)
{
    ZC_REQUIRE_ARG(ring);
    ZC_CHECK(ring->simulated ? ZC_OK : ZC_CUDA(cudaGetLastError()));
    uint64_t start = zc_clock_ns();
    for (;;) {
        if (__atomic_load_n(&ring->ctrl->started, __ATOMIC_ACQUIRE) == ring->view.launch)
            return ZC_OK;
        ZC_CHECK(zc__ring_kernel_alive(ring, "zc_ring_wait_started"));
        if (zc_clock_ns() - start >= timeout_ns)
            return ZC_FAIL(ZC_ERR_TIMEOUT,
                           "zc_ring_wait_started: the kernel did not start within %.1f ms (is "
                           "another kernel holding the GPU, or too many blocks for it?)",
                           (double)timeout_ns / 1e6);
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
}

ZC_EXTERN zc_status zc_ring_stop(zc_ring *ring, uint64_t timeout_ns)
{
    ZC_REQUIRE_ARG(ring);
    ring->stop_requested = 1;
    __atomic_store_n(&ring->ctrl->stop, 1, __ATOMIC_RELEASE);
    uint64_t start = zc_clock_ns();
    for (;;) {
        cudaError_t e = zc__ring_query(ring);
        if (e == cudaSuccess)
            return ZC_OK;
        if (e != cudaErrorNotReady)
            return ZC_FAIL(ZC_ERR_KERNEL, "zc_ring_stop: the ring's kernel failed: %s (%s)",
                           cudaGetErrorName(e), cudaGetErrorString(e));
        if (zc_clock_ns() - start >= timeout_ns)
            return ZC_FAIL(ZC_ERR_TIMEOUT,
                           "zc_ring_stop: the kernel did not end within %.3f ms of the request",
                           (double)timeout_ns / 1e6);
        zc__ring_relax();
    }
}

ZC_EXTERN zc_status zc_ring_kernel_state_get(zc_ring *ring, zc_ring_kernel_state *state_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(state_p);
    zc_ring_kernel_state s;
    cudaError_t e = zc__ring_query(ring);
    if (e != cudaSuccess && e != cudaErrorNotReady)
        return ZC_FAIL(ZC_ERR_KERNEL, "zc_ring_kernel_state_get: the ring's kernel failed: %s (%s)",
                       cudaGetErrorName(e), cudaGetErrorString(e));
    s.running = e == cudaErrorNotReady;
    s.started = __atomic_load_n(&ring->ctrl->started, __ATOMIC_ACQUIRE) == ring->view.launch;
    s.exit_reason = (uint32_t)__atomic_load_n(&ring->ctrl->exit_reason, __ATOMIC_ACQUIRE);
    s.error_code = (uint32_t)__atomic_load_n(&ring->ctrl->error_code, __ATOMIC_ACQUIRE);
    s.error_detail = __atomic_load_n(&ring->ctrl->error_detail, __ATOMIC_ACQUIRE);
    *state_p = s;
    return ZC_OK;
}

cudaError_t zc__ring_stream_settle(cudaStream_t stream, uint64_t timeout_ns, long pause_ns)
{
    const uint64_t end = zc_clock_ns() + timeout_ns;
    cudaError_t e;
    while ((e = cudaStreamQuery(stream)) == cudaErrorNotReady && zc_clock_ns() < end) {
        struct timespec pause = {0, pause_ns};
        nanosleep(&pause, NULL);
    }
    return e;
}
