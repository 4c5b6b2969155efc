/* SPDX-License-Identifier: Apache-2.0 */
/* The clock measurement's kernel: one thread answers each ping with its %globaltimer. */
#include "ring/clock_sync.h"

#include "device/cuda_check.h"
#include "zerocopy/ring_device.cuh"

/* How many polls of the ping between two looks at the quit word: each look is a read across
 * PCIe that would otherwise delay seeing the ping. */
#define ZC__SYNC_QUIT_EVERY 64u

__global__ void zc__clock_sync_kernel(uint64_t *w, uint64_t silence_ns)
{
    /* The timer's step: the smallest change over 16 changes, or a bounded number of reads. */
    uint64_t prev = zc_ring_dev_now_ns(), tick = ~0ull;
    for (uint32_t i = 0, changes = 0; i < 1000000u && changes < 16u; i++) {
        uint64_t t = zc_ring_dev_now_ns();
        if (t != prev) {
            tick = t - prev < tick ? t - prev : tick;
            prev = t;
            changes++;
        }
    }
    zc_ring_dev_st_volatile(&w[ZC__SYNC_TICK], tick == ~0ull ? 0 : tick);
    __threadfence_system();
    zc_ring_dev_st_volatile(&w[ZC__SYNC_READY], 1);
    uint64_t answered = 0, quiet_since = zc_ring_dev_now_ns();
    for (uint32_t polls = 1;; polls++) {
        uint64_t ping = zc_ring_dev_ld_volatile(&w[ZC__SYNC_PING]);
        if (ping != answered) {
            uint64_t t = zc_ring_dev_now_ns();
            zc_ring_dev_st_volatile(&w[ZC__SYNC_TIMER], t);
            __threadfence_system(); /* the timer before the answer that says it is there */
            zc_ring_dev_st_volatile(&w[ZC__SYNC_PONG], ping);
            answered = ping;
            quiet_since = t;
            continue;
        }
        if (polls % ZC__SYNC_QUIT_EVERY == 0 && (zc_ring_dev_ld_volatile(&w[ZC__SYNC_QUIT]) != 0 ||
                                                 zc_ring_dev_now_ns() - quiet_since > silence_ns))
            return;
    }
}

extern "C" zc_status zc__clock_sync_launch(zc__clock_sync *sync)
{
    zc__clock_sync_kernel<<<1, 1, 0, sync->stream>>>(sync->words_dev, ZC__SYNC_SILENCE_NS);
    return ZC_CUDA_LAUNCH_CHECK("zc__clock_sync_kernel");
}
