/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the clock measurement: pings, their answers, the offset they bound. */
#include "ring/clock_sync.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "ring/budget_math.h"
#include "ring/ring_internal.h"
#include "zerocopy/clock.h"

/* How long the kernel may take to start polling (a sanitizer's first launch takes seconds), and
 * to end once told to. */
#define ZC__SYNC_START_NS 5000000000ull
#define ZC__SYNC_END_NS   2000000000ull

zc_status zc__clock_sync_open(int device, zc__clock_sync *sync)
{
    memset(sync, 0, sizeof *sync);
    sync->device = device;
    void *host = NULL, *dev = NULL;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, ZC__SYNC_WORDS * sizeof(uint64_t), &host));
    zc_status st;
    ZC_CHECK_GOTO(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, host, &dev), st, fail_words);
    ZC_CUDA_GOTO(cudaStreamCreateWithFlags(&sync->stream, cudaStreamNonBlocking), st, fail_words);
    sync->words = host;
    sync->words_dev = dev;
    return ZC_OK;

fail_words:
    zc__mem_exact_free(ZC_BUFFER_MAPPED, host);
    return st;
}

void zc__clock_sync_close(zc__clock_sync *sync)
{
    if (sync->words == NULL || sync->abandoned)
        return; /* a kernel that never started may still start and poll the words */
    ZC_CUDA_IGNORE(cudaStreamDestroy(sync->stream));
    zc__mem_exact_free(ZC_BUFFER_MAPPED, sync->words);
    memset(sync, 0, sizeof *sync);
}

static uint64_t zc__sync_get(const zc__clock_sync *sync, unsigned word)
{
    return __atomic_load_n(&sync->words[word], __ATOMIC_ACQUIRE);
}

static void zc__sync_set(zc__clock_sync *sync, unsigned word, uint64_t v)
{
    __atomic_store_n(&sync->words[word], v, __ATOMIC_RELEASE);
}

/* Poll word until it holds want, for at most limit_ns; 0 when it did not. */
static int zc__sync_await(const zc__clock_sync *sync, unsigned word, uint64_t want,
                          uint64_t limit_ns)
{
    uint64_t start = 0;
    for (uint32_t polls = 1;; polls++) {
        if (zc__sync_get(sync, word) == want)
            return 1;
        zc__ring_relax();
        if (polls % 64u == 0) {
            uint64_t now = zc_clock_ns();
            if (start == 0)
                start = now;
            else if (now - start > limit_ns)
                return 0;
        }
    }
}

/* Tell the kernel to end and wait for it (bounded); abandon the words if it does not. */
static void zc__sync_finish(zc__clock_sync *sync)
{
    zc__sync_set(sync, ZC__SYNC_QUIT, 1);
    if (zc__ring_stream_settle(sync->stream, ZC__SYNC_END_NS, 100000) == cudaErrorNotReady)
        sync->abandoned = 1;
}

/* The pings themselves: send[i], back[i] and gpu[i] of round trip i + 1. */
static zc_status zc__sync_ping(zc__clock_sync *sync, uint32_t n, uint64_t *send, uint64_t *back,
                               uint64_t *gpu)
{
    for (uint32_t i = 0; i < n; i++) {
        send[i] = zc_clock_ns();
        zc__sync_set(sync, ZC__SYNC_PING, i + 1u);
        if (!zc__sync_await(sync, ZC__SYNC_PONG, i + 1u, ZC__SYNC_PING_NS))
            return ZC_FAIL(ZC_ERR_TIMEOUT,
                           "zc_ring_budget: the clock measurement's kernel did not answer ping "
                           "%u of %u within %.0f ms",
                           i + 1u, n, (double)ZC__SYNC_PING_NS / 1e6);
        back[i] = zc_clock_ns();
        gpu[i] = zc__sync_get(sync, ZC__SYNC_TIMER);
    }
    return ZC_OK;
}

zc_status zc__clock_sync_measure(zc__clock_sync *sync, uint32_t n, zc_ring_clock_sync *out)
{
    if (sync == NULL || sync->words == NULL || out == NULL || n == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__clock_sync_measure: not opened, or no pings");
    if (sync->abandoned)
        return ZC_FAIL(ZC_ERR_STATE, "zc_ring_budget: an earlier clock measurement's kernel "
                                     "never started; its words are left to it");
    memset(sync->words, 0, ZC__SYNC_WORDS * sizeof(uint64_t)); /* no kernel polls them now */
    ZC_CUDA_RETURN(cudaSetDevice(sync->device));
    ZC_CHECK(zc__clock_sync_launch(sync));
    if (!zc__sync_await(sync, ZC__SYNC_READY, 1, ZC__SYNC_START_NS)) {
        zc__sync_finish(sync);
        return ZC_FAIL(ZC_ERR_TIMEOUT,
                       "zc_ring_budget: the clock measurement's one-thread kernel did not start "
                       "within %.0f ms (no room on the GPU beside the ring's kernel?)",
                       (double)ZC__SYNC_START_NS / 1e6);
    }
    uint64_t *t = malloc((size_t)n * 3 * sizeof *t);
    if (t == NULL) {
        zc__sync_finish(sync);
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_ring_budget: no memory for %u round trips", n);
    }
    uint64_t *send = t, *back = t + n, *gpu = t + 2 * (size_t)n;
    double tick = (double)zc__sync_get(sync, ZC__SYNC_TICK);
    zc_status st = zc__sync_ping(sync, n, send, back, gpu);
    zc__sync_finish(sync);
    if (st == ZC_OK && !sync->abandoned) /* ended: this gives the kernel's own status at once */
        st = ZC_CUDA(cudaStreamSynchronize(sync->stream));
    if (st == ZC_OK)
        st = zc__clock_offset_solve(send, back, gpu, n, tick, out);
    if (st == ZC_OK)
        out->host_ns = send[0] + (back[n - 1] - send[0]) / 2;
    free(t);
    return st;
}
