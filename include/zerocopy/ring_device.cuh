/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU side of a zerocopy frame ring: block-collective calls to wait for a frame, read it,
 * release it and publish a result, for users who write their own persistent kernels. */
#ifndef ZEROCOPY_RING_DEVICE_CUH
#define ZEROCOPY_RING_DEVICE_CUH

#include <stdint.h>

#include "zerocopy/ring_protocol.h"

/*
 * How to use (one block per consumer; every call is made by all threads of the block, and
 * every block waits for every frame in order: under FLAG, block 0's wait is what passes the
 * frame's stamp on to the others):
 *
 *   __global__ void my_kernel(zc_ring_dev ring) {
 *       zc_ring_dev_watch watch;
 *       uint32_t why = zc_ring_dev_begin(&ring, &watch);         // grid = consumers
 *       for (uint64_t seq = 0; why == ZC_RING_EXIT_NONE; seq++) {
 *           why = zc_ring_dev_wait(&ring, seq, &watch);            // FLAG: stamp; LL: no-op
 *           if (why == ZC_RING_EXIT_NONE)
 *               why = zc_ring_dev_read(&ring, seq, first, n, smem, &watch);
 *           if (why != ZC_RING_EXIT_NONE) break;
 *           zc_ring_dev_release(&ring, seq + 1);                  // input slot reusable
 *           ... compute into smem ...
 *           zc_ring_dev_write(&ring, seq, first, n, smem);
 *           zc_ring_dev_publish(&ring, seq);
 *       }
 *       zc_ring_dev_end(&ring, why);
 *   }
 *
 * Memory ordering (docs/architecture.md): host-written words are read with ld.acquire.sys (stamps,
 * control) or ld.volatile (LL words, which validate themselves); FLAG payloads are read with
 * plain loads after the stamp's acquire and a barrier, and written with plain stores before a
 * barrier and the stamp's st.release.sys (one per frame: blocks count themselves in on a device
 * memory counter, the last one stamps); release words are relaxed stores after a barrier;
 * nothing here uses __ldg or ld.global.nc, and no word is read-modify-written by both sides.
 * Every poll loop checks the stop word and the host's heartbeat every poll_check_ns, so no wait
 * is unbounded: a host that stops heartbeating for watchdog_ns makes the kernel end by itself.
 */

/* Thread 0's bookkeeping for the watchdog. */
typedef struct zc_ring_dev_watch {
    uint64_t heartbeat;    /* last value seen */
    uint64_t heartbeat_ns; /* %globaltimer when it last moved */
    uint64_t next_check_ns;
    uint64_t seen_seq; /* every thread: the last frame whose budget "seen" it stamped (LL) */
} zc_ring_dev_watch;

__device__ __forceinline__ uint64_t zc_ring_dev_now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ uint64_t zc_ring_dev_ld_acquire(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void zc_ring_dev_st_release(uint64_t *p, uint64_t v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ void zc_ring_dev_st_relaxed(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* Count one arrival (device memory, GPU scope, acquire and release); gives the count before. */
__device__ __forceinline__ uint64_t zc_ring_dev_arrive(uint64_t *counter)
{
    uint64_t before;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;"
                 : "=l"(before)
                 : "l"(counter)
                 : "memory");
    return before;
}

__device__ __forceinline__ uint64_t zc_ring_dev_ld_volatile(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ ulonglong2 zc_ring_dev_ld_volatile_pair(const ulonglong2 *p)
{
    ulonglong2 v;
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(v.x), "=l"(v.y)
                 : "l"(p)
                 : "memory");
    return v;
}

__device__ __forceinline__ void zc_ring_dev_st_volatile_pair(ulonglong2 *p, uint64_t a, uint64_t b)
{
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

__device__ __forceinline__ void zc_ring_dev_st_volatile(uint64_t *p, uint64_t v)
{
    asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/*
 * The time budget (zerocopy/ring_budget.h): the calling thread records when this block reached
 * step (ZC_RING_STAMP_*) of frame seq, as the SM's clock64 and %globaltimer read together (the
 * host fits one to the other: %globaltimer ticks coarsely, clock64 finely but per SM). A no-op
 * when the ring keeps no budget or seq is past the frames it keeps. ZC_RING_STAMP_SEEN keeps the
 * last stamp of a frame; zc_ring_dev_read stamps "seen" on a frame's first tile only. Stores
 * only, into device memory: stamping neither waits on a load nor touches the link it measures.
 */
__device__ __forceinline__ void zc_ring_dev_stamp(const zc_ring_dev *ring, uint64_t seq,
                                                  uint32_t step)
{
    if (ring->stamps == NULL || seq >= ring->stamp_frames)
        return;
    uint64_t *p = ring->stamps + zc_ring_stamp_index(seq, ring->consumers, blockIdx.x, step);
    uint64_t clock = (uint64_t)clock64();
    p[0] = clock;
    p[1] = zc_ring_dev_now_ns();
}

/*
 * Thread 0 only: read the stop word and the heartbeat if poll_check_ns has passed since the
 * last look. Gives ZC_RING_EXIT_STOP, ZC_RING_EXIT_WATCHDOG or ZC_RING_EXIT_NONE. Reading the
 * host's words costs a PCIe round trip, which delays this thread's own polling, hence the time
 * gate and one 16-byte load for both words (they share an aligned pair; no payload depends on
 * them, so the load needs no acquire).
 */
__device__ __forceinline__ uint32_t zc_ring_dev_check(const zc_ring_dev *ring,
                                                      zc_ring_dev_watch *watch)
{
    uint64_t now = zc_ring_dev_now_ns();
    if (now < watch->next_check_ns)
        return ZC_RING_EXIT_NONE;
    watch->next_check_ns = now + ring->poll_check_ns;
    uint64_t stop, beat;
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(stop), "=l"(beat)
                 : "l"(&ring->ctrl->stop)
                 : "memory");
    if (stop != 0)
        return ZC_RING_EXIT_STOP;
    if (beat != watch->heartbeat) {
        watch->heartbeat = beat;
        watch->heartbeat_ns = now;
    } else if (now - watch->heartbeat_ns > ring->watchdog_ns) {
        return ZC_RING_EXIT_WATCHDOG;
    }
    return ZC_RING_EXIT_NONE;
}

/* Start of a persistent kernel: block 0 says it is running; every block arms its watchdog.
 * Gives ZC_RING_EXIT_ERROR (and records ZC_RING_ERROR_GRID) when the grid is not one block per
 * consumer: release words and result stamps are per block, so the kernel must not run. */
__device__ __forceinline__ uint32_t zc_ring_dev_begin(const zc_ring_dev *ring,
                                                      zc_ring_dev_watch *watch)
{
    if (gridDim.x != ring->consumers) {
        if (threadIdx.x == 0 && blockIdx.x == 0) {
            zc_ring_dev_st_release(&ring->ctrl->error_detail, gridDim.x);
            zc_ring_dev_st_release(&ring->ctrl->error_code, ZC_RING_ERROR_GRID);
        }
        return ZC_RING_EXIT_ERROR;
    }
    watch->seen_seq = ~0ull;
    if (threadIdx.x == 0) {
        uint64_t now = zc_ring_dev_now_ns();
        watch->heartbeat = zc_ring_dev_ld_acquire(&ring->ctrl->heartbeat);
        watch->heartbeat_ns = now;
        watch->next_check_ns = now;
        if (blockIdx.x == 0)
            zc_ring_dev_st_release(&ring->ctrl->started, ring->launch);
    }
    __syncthreads();
    return ZC_RING_EXIT_NONE;
}

/*
 * End of a persistent kernel: record why. Any block may end first (they all watch the same
 * words); the last store wins, and all of them say the same thing unless an error occurred.
 */
__device__ __forceinline__ void zc_ring_dev_end(const zc_ring_dev *ring, uint32_t why)
{
    __syncthreads();
    if (threadIdx.x == 0 && (blockIdx.x == 0 || why == ZC_RING_EXIT_ERROR)) {
        zc_ring_dev_st_release(&ring->ctrl->exit_time_ns, zc_ring_dev_now_ns());
        zc_ring_dev_st_release(&ring->ctrl->exit_reason, why);
    }
}

/* Report a protocol or user error (the kernel should then end with ZC_RING_EXIT_ERROR). */
__device__ __forceinline__ void zc_ring_dev_error(const zc_ring_dev *ring, uint32_t code,
                                                  uint64_t detail)
{
    zc_ring_dev_st_release(&ring->ctrl->error_detail, detail);
    zc_ring_dev_st_release(&ring->ctrl->error_code, code);
}

__device__ __forceinline__ uint64_t zc_ring_dev_ld_acquire_gpu(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void zc_ring_dev_st_release_gpu(uint64_t *p, uint64_t v)
{
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/*
 * Wait until input frame seq has been published. FLAG: block 0's thread 0 polls the slot's stamp
 * in host memory with acquire and passes it on through device memory (seen), where the other
 * blocks' thread 0 polls it with a GPU-scope acquire; then the block synchronises, which makes
 * the payload visible to every thread (the host's release, block 0's acquire and release, and
 * the other block's acquire chain the payload's stores to its loads). Not every block polling
 * the host's word: the wait grew by about a microsecond per polling block, as if reads of one
 * host address from many SMs were served one after another. On the H200, one frame in flight,
 * p50: 4 KiB through 8 blocks 21.2 us when all polled, 7.6 us relayed; 64 KiB through 64 blocks
 * 187 us and 14.6 us (bench/results/h200-20261202). LL: returns at once; zc_ring_dev_read polls
 * the words themselves.
 */
__device__ __forceinline__ uint32_t zc_ring_dev_wait(const zc_ring_dev *ring, uint64_t seq,
                                                     zc_ring_dev_watch *watch)
{
    if (ring->protocol == ZC_RING_PROTO_LL)
        return ZC_RING_EXIT_NONE;
    __shared__ uint32_t zc__wait_why;
    if (threadIdx.x == 0) {
        const uint32_t slot = zc_ring_slot(seq, ring->slots);
        const int relay = ring->consumers > 1u && ring->seen != NULL;
        const int from_host = blockIdx.x == 0 || !relay;
        const uint64_t *stamp =
            from_host ? &ring->in_stamp[(uint64_t)slot * ZC_RING_WORD_STRIDE] : &ring->seen[slot];
        uint32_t why = ZC_RING_EXIT_NONE;
        for (uint32_t spins = 0;; spins++) {
            uint64_t v =
                from_host ? zc_ring_dev_ld_acquire(stamp) : zc_ring_dev_ld_acquire_gpu(stamp);
            if (zc_ring_stamp_ready(v, seq))
                break;
            if ((spins & 15u) == 15u && (why = zc_ring_dev_check(ring, watch)) != 0)
                break;
        }
        if (why == ZC_RING_EXIT_NONE && from_host && relay)
            zc_ring_dev_st_release_gpu(&ring->seen[slot], zc_ring_stamp(seq));
        if (why == ZC_RING_EXIT_NONE)
            zc_ring_dev_stamp(ring, seq, ZC_RING_STAMP_SEEN);
        zc__wait_why = why;
    }
    __syncthreads();
    return zc__wait_why;
}

/*
 * Read 32-bit payload words [first, first + count) of input frame seq into dst (shared or
 * device memory). A negative first reaches back into frame seq - 1's tail, which is how a
 * streaming filter reads the samples before its frame: the kernel must not have released seq - 1
 * yet (release seq, not seq + 1, after reading). For seq 0 those words read as 0.
 * FLAG: the caller has waited for seq. LL: each thread polls its own words until their flags
 * match, so the data arrives in one PCIe trip; thread 0 also watches stop and heartbeat and
 * stops everyone when either says so.
 */
__device__ __forceinline__ uint32_t zc_ring_dev_read(const zc_ring_dev *ring, uint64_t seq,
                                                     int64_t first, uint32_t count, uint32_t *dst,
                                                     zc_ring_dev_watch *watch)
{
    const int64_t words = (int64_t)(ring->in_bytes / 4u);
    const unsigned char *cur =
        ring->in + (uint64_t)zc_ring_slot(seq, ring->slots) * ring->in_stride;
    const unsigned char *prev =
        ring->in + (uint64_t)zc_ring_slot(seq - 1u, ring->slots) * ring->in_stride;
    if (ring->protocol != ZC_RING_PROTO_LL) {
        /* Plain loads: thread 0's ld.acquire.sys of the stamp (which also invalidates the SM's
         * L1) and the barrier after it order these loads after the host's release, so they
         * need no volatile; plain loads coalesce a warp's requests into whole lines, volatile
         * ones may not, and the link's read requests are the scarce thing here. */
        const uint32_t *cw = (const uint32_t *)cur, *pw = (const uint32_t *)prev;
        /* The part before the frame, from the previous frame's tail (or zeros). */
        uint32_t neg = first < 0 ? (uint32_t)(-first < (int64_t)count ? -first : count) : 0u;
        for (uint32_t i = threadIdx.x; i < neg; i += blockDim.x)
            dst[i] = seq > 0 ? pw[words + first + (int64_t)i] : 0u;
        const uint32_t *src = cw + (first + (int64_t)neg);
        uint32_t *out = dst + neg, n = count - neg;
        if ((((uintptr_t)src | (uintptr_t)out) & 15u) == 0 && (n & 3u) == 0) {
            /* 16-byte loads, four in flight per thread: the link is used best by wide, many
             * requests. */
            const uint4 *s4 = (const uint4 *)src;
            uint4 *d4 = (uint4 *)out;
            const uint32_t n4 = n / 4u, step = blockDim.x;
            for (uint32_t i = threadIdx.x; i < n4; i += 4u * step) {
                uint4 v[4];
#pragma unroll
                for (uint32_t u = 0; u < 4u; u++)
                    if (i + u * step < n4)
                        v[u] = s4[i + u * step];
#pragma unroll
                for (uint32_t u = 0; u < 4u; u++)
                    if (i + u * step < n4)
                        d4[i + u * step] = v[u];
            }
        } else {
            for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
                out[i] = src[i];
        }
        __syncthreads();
        return ZC_RING_EXIT_NONE;
    }

    __shared__ uint32_t zc__read_done;
    __shared__ volatile uint32_t zc__read_abort;
    if (threadIdx.x == 0) {
        zc__read_done = 0;
        zc__read_abort = 0;
    }
    __syncthreads();
    const uint64_t *cl = (const uint64_t *)cur, *pl = (const uint64_t *)prev;
    const uint32_t step = blockDim.x;
    uint32_t spins = 0;
    /* The index of the first word (or pair) of frame seq itself in this tile, whose thread
     * stamps the budget's "seen" when it arrives (earlier ones are the previous frame's tail,
     * there already), on the block's first tile of the frame only. */
    const int64_t own = first < 0 ? -first : 0;
    if ((first & 1) == 0 && (count & 1u) == 0) {
        /* Two LL words per 16-byte load: half the requests, still one trip. Pairs never
         * straddle the frame's start (it is at an even index). */
        const uint32_t pairs = count / 2u;
        for (uint32_t i = threadIdx.x; i < pairs; i += 4u * step) {
            ulonglong2 word[4];
            const ulonglong2 *ptr[4];
            uint64_t want[4] = {0, 0, 0, 0};
#pragma unroll
            for (uint32_t u = 0; u < 4u; u++) {
                uint32_t k = i + u * step;
                int64_t w = first + 2 * (int64_t)k;
                ptr[u] = 0;
                word[u] = make_ulonglong2(0, 0);
                if (k >= pairs)
                    continue;
                if (w < 0 && seq == 0) {
                    dst[2u * k] = 0;
                    dst[2u * k + 1u] = 0;
                    continue;
                }
                ptr[u] = (const ulonglong2 *)(w >= 0 ? cl + w : pl + (words + w));
                want[u] = w >= 0 ? seq : seq - 1u;
                word[u] = zc_ring_dev_ld_volatile_pair(ptr[u]);
            }
#pragma unroll
            for (uint32_t u = 0; u < 4u; u++) {
                if (ptr[u] == 0)
                    continue;
                while (!zc_ring_ll_ready(word[u].x, want[u]) ||
                       !zc_ring_ll_ready(word[u].y, want[u])) {
                    if ((++spins & 31u) == 0) {
                        if (zc__read_abort != 0)
                            goto out;
                        if (threadIdx.x == 0) {
                            uint32_t why = zc_ring_dev_check(ring, watch);
                            if (why != 0) {
                                zc__read_abort = why;
                                goto out;
                            }
                        }
                    }
                    word[u] = zc_ring_dev_ld_volatile_pair(ptr[u]);
                }
                uint32_t k = i + u * step;
                dst[2u * k] = zc_ring_ll_data(word[u].x);
                dst[2u * k + 1u] = zc_ring_ll_data(word[u].y);
                if (2 * (int64_t)k == own && watch->seen_seq != seq) {
                    zc_ring_dev_stamp(ring, seq, ZC_RING_STAMP_SEEN);
                    watch->seen_seq = seq;
                }
            }
        }
    } else {
        for (uint32_t i = threadIdx.x; i < count; i += 4u * step) {
            /* Issue up to four loads before looking at any, so that they travel together. */
            uint64_t word[4] = {0, 0, 0, 0}, want[4] = {0, 0, 0, 0};
            const uint64_t *ptr[4];
#pragma unroll
            for (uint32_t u = 0; u < 4u; u++) {
                uint32_t k = i + u * step;
                int64_t w = first + (int64_t)k;
                ptr[u] = 0;
                if (k >= count)
                    continue;
                if (w < 0 && seq == 0) {
                    dst[k] = 0;
                    continue;
                }
                ptr[u] = w >= 0 ? cl + w : pl + (words + w);
                want[u] = w >= 0 ? seq : seq - 1u;
                word[u] = zc_ring_dev_ld_volatile(ptr[u]);
            }
#pragma unroll
            for (uint32_t u = 0; u < 4u; u++) {
                if (ptr[u] == 0)
                    continue;
                while (!zc_ring_ll_ready(word[u], want[u])) {
                    if ((++spins & 31u) == 0) {
                        if (zc__read_abort != 0)
                            goto out;
                        if (threadIdx.x == 0) {
                            uint32_t why = zc_ring_dev_check(ring, watch);
                            if (why != 0) {
                                zc__read_abort = why;
                                goto out;
                            }
                        }
                    }
                    word[u] = zc_ring_dev_ld_volatile(ptr[u]);
                }
                dst[i + u * step] = zc_ring_ll_data(word[u]);
                if ((int64_t)(i + u * step) == own && watch->seen_seq != seq) {
                    zc_ring_dev_stamp(ring, seq, ZC_RING_STAMP_SEEN);
                    watch->seen_seq = seq;
                }
            }
        }
    }
    atomicAdd(&zc__read_done, 1u);
    if (threadIdx.x == 0) {
        /* Thread 0 keeps watching the host until every thread has its words. */
        while (*(volatile uint32_t *)&zc__read_done < blockDim.x && zc__read_abort == 0) {
            uint32_t why = zc_ring_dev_check(ring, watch);
            if (why != 0)
                zc__read_abort = why;
        }
    }
out:
    __syncthreads();
    return zc__read_abort;
}

/*
 * Tell the host that this block no longer needs input frames below seq_end. A relaxed store,
 * not a release: the only thing it must not overtake are the block's reads of those frames,
 * and every one of them has returned its value before the barrier (the values went to dst).
 * A system-scope release would cost a system-scope fence per block and frame.
 */
__device__ __forceinline__ void zc_ring_dev_release(const zc_ring_dev *ring, uint64_t seq_end)
{
    __syncthreads();
    if (threadIdx.x == 0)
        zc_ring_dev_st_relaxed(&ring->released[(uint64_t)blockIdx.x * ZC_RING_WORD_STRIDE],
                               seq_end);
}

/*
 * Write 32-bit result words [first, first + count) of result seq from src, in the results'
 * protocol (out_protocol). LL: each word goes out with its flag in one 8-byte store and is
 * complete by itself. FLAG: plain stores, made visible by zc_ring_dev_publish.
 */
__device__ __forceinline__ void zc_ring_dev_write(const zc_ring_dev *ring, uint64_t seq,
                                                  uint64_t first, uint32_t count,
                                                  const uint32_t *src)
{
    unsigned char *slot = ring->out + (uint64_t)zc_ring_slot(seq, ring->slots) * ring->out_stride;
    if (ring->out_protocol == ZC_RING_PROTO_LL) {
        uint64_t *dst = (uint64_t *)slot + first;
        uint32_t flag = zc_ring_ll_flag(seq);
        if ((first & 1u) == 0 && (count & 1u) == 0) {
            /* Two words per 16-byte store; each 8-byte half is whole by itself. */
            for (uint32_t i = threadIdx.x; i < count / 2u; i += blockDim.x)
                zc_ring_dev_st_volatile_pair((ulonglong2 *)dst + i,
                                             zc_ring_ll_pack(src[2u * i], flag),
                                             zc_ring_ll_pack(src[2u * i + 1u], flag));
        } else {
            for (uint32_t i = threadIdx.x; i < count; i += blockDim.x)
                zc_ring_dev_st_volatile(dst + i, zc_ring_ll_pack(src[i], flag));
        }
        return;
    }
    /* Plain stores: zc_ring_dev_publish's barrier and st.release.sys make them visible to the
     * host before the stamp, and plain stores may be merged into whole lines on the way. */
    uint32_t *dst = (uint32_t *)slot + first;
    if ((first & 3u) == 0 && (count & 3u) == 0 && ((uintptr_t)src & 15u) == 0) {
        for (uint32_t i = threadIdx.x; i < count / 4u; i += blockDim.x)
            ((uint4 *)dst)[i] = ((const uint4 *)src)[i];
    } else {
        for (uint32_t i = threadIdx.x; i < count; i += blockDim.x)
            dst[i] = src[i];
    }
}

/*
 * This block's part of result seq is written (every block calls this once per frame, in order).
 * LL: nothing to do, the words carry their flags. FLAG: after the barrier, thread 0 counts the
 * block into the slot's arrivals with a GPU-scope acquire-release atomic, which carries the
 * block's stores with it; the last block to arrive stores the frame's one stamp with
 * st.release.sys, which makes every block's stores visible to the host before it. One
 * system-scope fence per frame instead of one per block: with one per block, 1 MiB frames
 * through 132 blocks ran at a third of the speed (docs/stream.md).
 */
__device__ __forceinline__ void zc_ring_dev_publish(const zc_ring_dev *ring, uint64_t seq)
{
    if (ring->out_protocol == ZC_RING_PROTO_LL)
        return;
    __syncthreads();
    if (threadIdx.x == 0) {
        const uint32_t slot = zc_ring_slot(seq, ring->slots);
        if (ring->consumers == 1u ||
            zc_ring_last_arrival(zc_ring_dev_arrive(&ring->arrivals[slot]), ring->consumers))
            zc_ring_dev_st_release(&ring->out_stamp[(uint64_t)slot * ZC_RING_WORD_STRIDE],
                                   zc_ring_stamp(seq));
    }
}

#endif
