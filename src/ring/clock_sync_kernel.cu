/* SPDX-License-Identifier: Apache-2.0 */
/* The clock measurement's kernel: one thread answers each ping with its %globaltimer. */
#include "ring/clock_sync.h"

#include "device/cuda_check.h"

__device__ __forceinline__ uint64_t zc__sync_now(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ uint64_t zc__sync_load(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void zc__sync_store(uint64_t *p, uint64_t v)
{
    asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* How many polls of the ping between two looks at the quit word: each look is a read across
 * PCIe that would otherwise delay seeing the ping. */
#define ZC__SYNC_QUIT_EVERY 64u

__global__ void zc__clock_sync_kernel(uint64_t *w, uint64_t silence_ns)
{
    /* The timer's step: the smallest change over 16 changes, or a bounded number of reads. */
    uint64_t prev = zc__sync_now(), tick = ~0ull;
    for (uint32_t i = 0, changes = 0; i < 1000000u && changes < 16u; i++) {
        uint64_t t = zc__sync_now();
        if (t != prev) {
            tick = t - prev < tick ? t - prev : tick;
            prev = t;
            changes++;
        }
    }
    zc__sync_store(&w[ZC__SYNC_TICK], tick == ~0ull ? 0 : tick);
    __threadfence_system();
    zc__sync_store(&w[ZC__SYNC_READY], 1);
    uint64_t answered = 0, quiet_since = zc__sync_now();
    for (uint32_t polls = 1;; polls++) {
        uint64_t ping = zc__sync_load(&w[ZC__SYNC_PING]);
        if (ping != answered) {
            uint64_t t = zc__sync_now();
            zc__sync_store(&w[ZC__SYNC_TIMER], t);
            __threadfence_system(); /* the timer before the answer that says it is there */
            zc__sync_store(&w[ZC__SYNC_PONG], ping);
            answered = ping;
            quiet_since = t;
            continue;
        }
        if (polls % ZC__SYNC_QUIT_EVERY == 0 &&
            (zc__sync_load(&w[ZC__SYNC_QUIT]) != 0 || zc__sync_now() - quiet_since > silence_ns))
            return;
    }
}

extern "C" zc_status zc__clock_sync_launch(zc__clock_sync *sync)
{
    zc__clock_sync_kernel<<<1, 1, 0, sync->stream>>>(sync->words_dev, ZC__SYNC_SILENCE_NS);
    return ZC_CUDA_LAUNCH_CHECK("zc__clock_sync_kernel");
}
