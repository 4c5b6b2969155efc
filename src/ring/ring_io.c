/* SPDX-License-Identifier: Apache-2.0 */
/* The frame ring's data path on the host: acquire, publish, results, LL encoding. */
#include "ring/ring_internal.h"
#include "ring/ring_budget_internal.h"

#include <string.h>

#include "core/backoff.h"
#include "core/error.h"
#include "zerocopy/clock.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* How many polls between two looks at the clock and the kernel's stream. */
#define ZC__RING_POLL_BATCH 256u

/* How often a waiting host asks the driver whether the kernel still runs (cudaStreamQuery costs
 * about a microsecond, so a wait that is going to succeed within microseconds never asks). */
#define ZC__RING_ALIVE_EVERY_NS 50000ull

/* Every ZC__RING_POLL_BATCH polls: is the kernel alive (asked at most every
 * ZC__RING_ALIVE_EVERY_NS, and always before giving up), has the wait run out? */
static zc_status zc__ring_wait_step(zc_ring *ring, uint64_t start, uint64_t timeout_ns,
                                    uint64_t *next_alive_p, int *expired_p, const char *fn)
{
    uint64_t now = zc_clock_ns(), waited = now - start;
    *expired_p = waited >= timeout_ns;
    if (*expired_p || (waited >= ZC__RING_ALIVE_EVERY_NS && now >= *next_alive_p)) {
        *next_alive_p = now + ZC__RING_ALIVE_EVERY_NS;
        ZC_CHECK(zc__ring_kernel_alive(ring, fn));
    }
    if (waited >= ZC__BACKOFF_SPIN_NS)
        zc__backoff(waited); /* a long wait gives the core up (core/backoff.h) */
    return ZC_OK;
}

void zc__ring_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void zc__ring_ll_encode(uint64_t *dst, const uint32_t *src, size_t words, uint64_t seq)
{
    uint32_t flag = zc_ring_ll_flag(seq);
    size_t i = 0;
#if defined(__SSE2__)
    /* Two LL words per 16-byte aligned store: each 8-byte half is written whole, which is all
     * the protocol needs (the reader checks every word's flag). Ordinary stores, not
     * non-temporal ones: those (with a decoder that waits for the frame's last word) helped
     * large frames (64 KiB: 69 -> 40 us) and made no gain or cost up to 0.9 us at 4 KiB, the
     * size LL is for (bench/results/h200-20261202/explore-2, and an earlier call). */
    if (((uintptr_t)dst & 15u) == 0) {
        for (; i + 2 <= words; i += 2) {
            uint32_t a, b;
            memcpy(&a, src + i, 4);
            memcpy(&b, src + i + 1, 4);
            _mm_store_si128((__m128i *)(dst + i),
                            _mm_set_epi32((int)flag, (int)b, (int)flag, (int)a));
        }
    }
#endif
    for (; i < words; i++) {
        uint32_t a;
        memcpy(&a, src + i, 4);
        __atomic_store_n(dst + i, zc_ring_ll_pack(a, flag), __ATOMIC_RELAXED);
    }
}

size_t zc__ring_ll_decode(uint32_t *dst, const uint64_t *src, size_t words, uint64_t seq,
                          size_t start)
{
    uint32_t flag = zc_ring_ll_flag(seq);
    size_t i = start;
#if defined(__SSE2__)
    /* Two words per 16-byte load, both flags compared at once: the host's share of the round
     * trip is this loop and the encoding, so it is kept short. Each 8-byte half is read whole,
     * which is all the protocol needs; the compiler barrier makes every pass load afresh. */
    if (((uintptr_t)(src + i) & 15u) == 0) {
        const __m128i mask = _mm_set_epi32(-1, 0, -1, 0);
        const __m128i want = _mm_set_epi32((int)flag, 0, (int)flag, 0);
        for (; i + 2 <= words; i += 2) {
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            __m128i v = _mm_load_si128((const __m128i *)(src + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(v, mask), want)) != 0xffff)
                break;
            dst[i] = (uint32_t)_mm_cvtsi128_si32(v);
            dst[i + 1] = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(v, 8));
        }
    }
#endif
    for (; i < words; i++) {
        uint64_t w = __atomic_load_n(src + i, __ATOMIC_ACQUIRE);
        if (zc_ring_ll_word_flag(w) != flag)
            break;
        dst[i] = zc_ring_ll_data(w);
    }
    return i;
}

uint64_t zc__ring_read_released(zc_ring *ring)
{
    uint64_t values[ZC_RING_MAX_CONSUMERS];
    uint32_t n = ring->config.consumers;
    for (uint32_t i = 0; i < n; i++)
        values[i] =
            __atomic_load_n(&ring->released[(size_t)i * ZC_RING_WORD_STRIDE], __ATOMIC_ACQUIRE);
    return zc_ring_released_min(values, n, ring->head);
}

/* The producer's and the result-taker's positions: they may be two host threads, so each reads
 * the other's with acquire and writes its own with release. */
static uint64_t zc__ring_head(const zc_ring *ring)
{
    return __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
}

static uint64_t zc__ring_tail(const zc_ring *ring)
{
    return __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
}

/* Is there a result slot free (the host took the result that used it) and an input slot free
 * (the GPU released it)? Reads the GPU's release words only when the cached point says full. */
static int zc__ring_has_room(zc_ring *ring, int *results_full_p)
{
    *results_full_p = ring->head - zc__ring_tail(ring) >= ring->config.slots;
    if (*results_full_p)
        return 0;
    if (zc_ring_can_publish(ring->head, ring->released_seen, ring->config.slots))
        return 1;
    ring->released_seen = zc__ring_read_released(ring);
    return zc_ring_can_publish(ring->head, ring->released_seen, ring->config.slots);
}

/* Wait for room; the frame is counted dropped when the policy says so. */
static zc_status zc__ring_wait_room(zc_ring *ring, uint64_t timeout_ns, const char *fn)
{
    if (ring->stop_requested)
        return ZC_FAIL(ZC_ERR_STATE, "%s: the ring's kernel was asked to stop", fn);
    if (ring->acquired)
        return ZC_FAIL(ZC_ERR_STATE, "%s: a frame is already acquired and not published", fn);
    int results_full = 0;
    if (zc__ring_has_room(ring, &results_full))
        return ZC_OK;
    if (ring->config.policy == ZC_RING_FULL_DROP) {
        ring->counters.dropped++;
        return ZC_ERR_DROPPED; /* no detail: dropping is the policy working, not a failure */
    }
    ring->counters.full_waits++;
    uint64_t start = zc_clock_ns(), next_alive = 0;
    for (uint32_t polls = 1;; polls++) {
        if (zc__ring_has_room(ring, &results_full))
            return ZC_OK;
        zc__ring_relax();
        if (polls % ZC__RING_POLL_BATCH == 0) {
            int expired = 0;
            ZC_CHECK(zc__ring_wait_step(ring, start, timeout_ns, &next_alive, &expired, fn));
            if (!expired)
                continue;
            if (results_full)
                return ZC_FAIL(ZC_ERR_TIMEOUT,
                               "%s: waited %.3f ms: all %u result slots hold results not taken "
                               "(zc_ring_result_wait or zc_ring_pop frees them)",
                               fn, (double)timeout_ns / 1e6, ring->config.slots);
            return ZC_FAIL(ZC_ERR_TIMEOUT,
                           "%s: ring full for %.3f ms (%u slots, %llu published, GPU released "
                           "up to %llu): the kernel is not keeping up",
                           fn, (double)timeout_ns / 1e6, ring->config.slots,
                           (unsigned long long)ring->head, (unsigned long long)ring->released_seen);
        }
    }
}

ZC_EXTERN zc_status zc_ring_acquire(zc_ring *ring, uint64_t timeout_ns, void **frame_p,
                                    uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(frame_p);
    ZC_REQUIRE_ARG(seq_p);
    ZC_CHECK(zc__ring_wait_room(ring, timeout_ns, "zc_ring_acquire"));
    zc__ring_budget_mark(ring, ring->head, ZC__BUDGET_HOST_WRITE); /* the caller fills it now */
    ring->acquired = 1;
    if (ring->config.protocol == ZC_RING_PROTO_LL)
        *frame_p = ring->in_stage;
    else
        *frame_p =
            ring->in + (size_t)zc_ring_slot(ring->head, ring->config.slots) * ring->in_stride;
    *seq_p = ring->head;
    return ZC_OK;
}

/* Make frame head visible to the GPU: the stamp (FLAG) or the flagged words (LL). */
static void zc__ring_commit(zc_ring *ring, const void *ll_src)
{
    uint32_t slot = zc_ring_slot(ring->head, ring->config.slots);
    if (ring->config.protocol == ZC_RING_PROTO_LL)
        zc__ring_ll_encode((uint64_t *)(ring->in + (size_t)slot * ring->in_stride), ll_src,
                           ring->in_words, ring->head);
    else
        __atomic_store_n(&ring->in_stamp[(size_t)slot * ZC_RING_WORD_STRIDE],
                         zc_ring_stamp(ring->head), __ATOMIC_RELEASE);
    zc__ring_budget_mark(ring, ring->head, ZC__BUDGET_HOST_PUBLISH);
    __atomic_store_n(&ring->head, ring->head + 1, __ATOMIC_RELEASE);
    ring->counters.published++;
}

ZC_EXTERN zc_status zc_ring_publish(zc_ring *ring)
{
    ZC_REQUIRE_ARG(ring);
    if (!ring->acquired)
        return ZC_FAIL(ZC_ERR_STATE, "zc_ring_publish: no frame acquired");
    ring->acquired = 0;
    zc__ring_commit(ring, ring->in_stage);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_ring_push(zc_ring *ring, const void *data, size_t bytes, uint64_t timeout_ns,
                                 uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(data);
    if (bytes != ring->config.in_bytes)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_push: %zu bytes, the ring's frames hold %zu",
                       bytes, ring->config.in_bytes);
    ZC_CHECK(zc__ring_wait_room(ring, timeout_ns, "zc_ring_push"));
    uint64_t seq = ring->head;
    zc__ring_budget_mark(ring, seq, ZC__BUDGET_HOST_WRITE);
    if (ring->config.protocol == ZC_RING_PROTO_FLAG) {
        uint32_t slot = zc_ring_slot(seq, ring->config.slots);
        memcpy(ring->in + (size_t)slot * ring->in_stride, data, bytes);
    }
    zc__ring_commit(ring, data);
    if (seq_p != NULL)
        *seq_p = seq;
    return ZC_OK;
}

/* Is result seq's stamp there (FLAG)? The last of the consumers to finish its part stores it. */
static int zc__ring_stamp_ready(zc_ring *ring, uint64_t seq)
{
    const uint64_t *stamp =
        ring->out_stamp + (size_t)zc_ring_slot(seq, ring->config.slots) * ZC_RING_WORD_STRIDE;
    return zc_ring_stamp_ready(__atomic_load_n(stamp, __ATOMIC_ACQUIRE), seq);
}

/* Wait until result tail is complete; LL decodes into dst as the words arrive. */
static zc_status zc__ring_wait_result(zc_ring *ring, uint64_t timeout_ns, uint32_t *ll_dst,
                                      const char *fn)
{
    if (ring->result_held)
        return ZC_FAIL(ZC_ERR_STATE, "%s: the previous result was not released", fn);
    if (ring->tail == zc__ring_head(ring))
        return ZC_FAIL(ZC_ERR_STATE, "%s: no frame outstanding (all %llu results taken)", fn,
                       (unsigned long long)ring->tail);
    uint64_t seq = ring->tail;
    const int ll = zc__ring_results_protocol(ring) == ZC_RING_PROTO_LL;
    const uint64_t *words =
        (const uint64_t *)(ring->out +
                           (size_t)zc_ring_slot(seq, ring->config.slots) * ring->out_stride);
    size_t done = 0;
    uint64_t start = 0, next_alive = 0;
    for (uint32_t polls = 1;; polls++) {
        if (ll) {
            done = zc__ring_ll_decode(ll_dst, words, ring->out_words, seq, done);
            if (done > 0)
                zc__ring_budget_mark_first(ring, seq, ZC__BUDGET_HOST_SEEN);
            if (done == ring->out_words) {
                zc__ring_budget_mark(ring, seq, ZC__BUDGET_HOST_READ);
                return ZC_OK;
            }
        } else if (zc__ring_stamp_ready(ring, seq)) {
            /* A FLAG result is read in place after this: zc_ring_pop marks its copy's end. */
            zc__ring_budget_mark(ring, seq, ZC__BUDGET_HOST_SEEN);
            zc__ring_budget_mark(ring, seq, ZC__BUDGET_HOST_READ);
            return ZC_OK;
        }
        if (timeout_ns == 0)
            return ZC_ERR_TIMEOUT; /* a poll: no detail, it is the expected answer */
        if (polls % ZC__RING_POLL_BATCH == 0) {
            if (start == 0)
                start = zc_clock_ns();
            int expired = 0;
            ZC_CHECK(zc__ring_wait_step(ring, start, timeout_ns, &next_alive, &expired, fn));
            if (expired)
                return ZC_FAIL(ZC_ERR_TIMEOUT,
                               "%s: result %llu not complete after %.3f ms (%zu of %zu words "
                               "there); the kernel still runs",
                               fn, (unsigned long long)seq, (double)timeout_ns / 1e6, done,
                               ll ? ring->out_words : (size_t)0);
        }
    }
}

ZC_EXTERN zc_status zc_ring_result_wait(zc_ring *ring, uint64_t timeout_ns, const void **result_p,
                                        uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(result_p);
    ZC_CHECK(
        zc__ring_wait_result(ring, timeout_ns, (uint32_t *)ring->out_stage, "zc_ring_result_wait"));
    ring->result_held = 1;
    if (zc__ring_results_protocol(ring) == ZC_RING_PROTO_LL)
        *result_p = ring->out_stage;
    else
        *result_p =
            ring->out + (size_t)zc_ring_slot(ring->tail, ring->config.slots) * ring->out_stride;
    if (seq_p != NULL)
        *seq_p = ring->tail;
    return ZC_OK;
}

/* Result tail is taken: its slot may be reused. Results by copy queue the slot's next copy
 * first, so that it is in the stream before the producer can publish the frame it serves. */
static zc_status zc__ring_taken(zc_ring *ring)
{
    zc_status st =
        ring->copy != NULL ? zc__ring_copy_queue(ring, ring->tail + ring->config.slots) : ZC_OK;
    __atomic_store_n(&ring->tail, ring->tail + 1, __ATOMIC_RELEASE);
    ring->counters.results++;
    return st;
}

ZC_EXTERN zc_status zc_ring_result_release(zc_ring *ring)
{
    ZC_REQUIRE_ARG(ring);
    if (!ring->result_held)
        return ZC_FAIL(ZC_ERR_STATE, "zc_ring_result_release: no result held");
    ring->result_held = 0;
    return zc__ring_taken(ring);
}

ZC_EXTERN zc_status zc_ring_pop(zc_ring *ring, void *data, size_t bytes, uint64_t timeout_ns,
                                uint64_t *seq_p)
{
    ZC_REQUIRE_ARG(ring);
    ZC_REQUIRE_ARG(data);
    if (bytes != ring->config.out_bytes)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_ring_pop: %zu bytes, the ring's results hold %zu",
                       bytes, ring->config.out_bytes);
    ZC_CHECK(zc__ring_wait_result(ring, timeout_ns, data, "zc_ring_pop"));
    if (zc__ring_results_protocol(ring) == ZC_RING_PROTO_FLAG)
        memcpy(data,
               ring->out + (size_t)zc_ring_slot(ring->tail, ring->config.slots) * ring->out_stride,
               bytes);
    zc__ring_budget_mark(ring, ring->tail, ZC__BUDGET_HOST_READ);
    if (seq_p != NULL)
        *seq_p = ring->tail;
    return zc__ring_taken(ring);
}
