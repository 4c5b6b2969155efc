/* SPDX-License-Identifier: Apache-2.0 */
/* The stand-in GPU: the device side of the ring protocol written with C11 atomics. */
#include "fake_gpu.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_support.h"
#include "zerocopy/clock.h"

/* No poll in these tests may take longer than this; a hang becomes a reported error. */
#define ZC_FAKE_POLL_LIMIT_NS 10000000000ull

static uint32_t zc__fake_word(uint32_t offer, size_t i)
{
    uint32_t x = offer * 2654435761u ^ (uint32_t)i * 40503u;
    return x ^ (x >> 13);
}

void zc_fake_fill(uint32_t *words, size_t n, uint64_t seq, uint32_t offer)
{
    words[0] = (uint32_t)seq;
    words[1] = (uint32_t)(seq >> 32);
    words[2] = offer;
    for (size_t i = 3; i + 1 < n; i++)
        words[i] = zc__fake_word(offer, i);
    uint32_t sum = ZC_RING_CHECKSUM_INIT;
    for (size_t i = 0; i + 1 < n; i++)
        sum = zc_ring_checksum_step(sum, words[i]);
    words[n - 1] = sum;
}

size_t zc_fake_check(const uint32_t *words, size_t n, uint64_t seq, uint32_t offer)
{
    uint32_t want[4096];
    assert_true(n <= 4096);
    zc_fake_fill(want, n, seq, offer);
    for (size_t i = 0; i < n; i++) {
        if (words[i] != (want[i] ^ ZC_FAKE_MASK))
            return i + 1;
    }
    return 0;
}

static void zc__fake_error(zc_fake_gpu *gpu, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void zc__fake_error(zc_fake_gpu *gpu, const char *fmt, ...)
{
    if (gpu->errors++ == 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(gpu->first_error, sizeof gpu->first_error, fmt, args);
        va_end(args);
    }
}

static int zc__fake_stopped(const zc_fake_gpu *gpu)
{
    return __atomic_load_n(&gpu->view.ctrl->stop, __ATOMIC_ACQUIRE) != 0;
}

/* Poll an input word (LL: until its flag says seq) or the slot's stamp (FLAG). 0: stop/limit. */
static int zc__fake_wait_word(zc_fake_gpu *gpu, const uint64_t *p, uint64_t seq, int ll,
                              uint64_t *word_p)
{
    uint64_t start = zc_clock_ns();
    for (uint32_t spins = 0;; spins++) {
        uint64_t w = __atomic_load_n(p, ll ? __ATOMIC_RELAXED : __ATOMIC_ACQUIRE);
        if (ll ? zc_ring_ll_ready(w, seq) : zc_ring_stamp_ready(w, seq)) {
            *word_p = w;
            return 1;
        }
        /* Test machines may have fewer cores than threads here, and other processes: after a
         * short spin, sleep a little (a yield alone gives the core back to nobody under load). */
        if ((spins & 255u) == 255u) {
            struct timespec nap = {0, 1000};
            nanosleep(&nap, NULL);
        }
        if ((spins & 1023u) == 1023u) {
            if (zc__fake_stopped(gpu))
                return 0;
            if (zc_clock_ns() - start > ZC_FAKE_POLL_LIMIT_NS) {
                zc__fake_error(gpu, "poll for frame %llu timed out (word %llx)",
                               (unsigned long long)seq, (unsigned long long)w);
                return 0;
            }
        }
    }
}

static void *zc__fake_main(void *arg)
{
    zc_fake_gpu *gpu = arg;
    const zc_ring_dev *v = &gpu->view;
    const int ll = v->protocol == ZC_RING_PROTO_LL;
    const int out_ll = v->out_protocol == ZC_RING_PROTO_LL;
    const size_t words = v->in_bytes / 4;
    uint64_t first, count;
    zc_ring_split(v->out_bytes / 4, v->consumers, gpu->block, &first, &count);
    uint32_t *in = calloc(words, 4);
    assert_non_null(in);
    for (uint64_t seq = gpu->first_seq;; seq++) {
        if (gpu->max_frames && seq - gpu->first_seq == gpu->max_frames)
            break;
        while (__atomic_load_n(&gpu->paused, __ATOMIC_ACQUIRE) && !zc__fake_stopped(gpu)) {
            struct timespec ms = {0, 100000};
            nanosleep(&ms, NULL);
        }
        uint32_t slot = zc_ring_slot(seq, v->slots);
        const unsigned char *src = v->in + (size_t)slot * v->in_stride;
        uint64_t w;
        if (!ll) {
            if (!zc__fake_wait_word(gpu, &v->in_stamp[(size_t)slot * ZC_RING_WORD_STRIDE], seq, 0,
                                    &w))
                break;
            for (size_t i = 0; i < words; i++)
                in[i] = __atomic_load_n((const uint32_t *)src + i, __ATOMIC_RELAXED);
        } else {
            /* Each consumer reads the whole frame to check it; on the GPU, only its share. */
            size_t i = 0;
            for (; i < words; i++) {
                if (!zc__fake_wait_word(gpu, (const uint64_t *)src + i, seq, 1, &w))
                    break;
                in[i] = zc_ring_ll_data(w);
            }
            if (i < words)
                break;
        }
        /* Lost, duplicated, reordered or torn frames show here. */
        uint64_t got = (uint64_t)in[0] | ((uint64_t)in[1] << 32);
        if (got != seq)
            zc__fake_error(gpu, "frame %llu carries sequence number %llu", (unsigned long long)seq,
                           (unsigned long long)got);
        uint32_t sum = ZC_RING_CHECKSUM_INIT;
        for (size_t i = 0; i + 1 < words; i++)
            sum = zc_ring_checksum_step(sum, in[i]);
        if (sum != in[words - 1])
            zc__fake_error(gpu, "frame %llu torn: checksum %x, frame says %x",
                           (unsigned long long)seq, sum, in[words - 1]);
        if (gpu->lag && seq > gpu->first_seq) {
            /* The previous frame must still be intact: this consumer has not released it. */
            const unsigned char *prev =
                v->in + (size_t)zc_ring_slot(seq - 1, v->slots) * v->in_stride;
            uint64_t prev_seq;
            if (ll) {
                uint64_t w0 = __atomic_load_n((const uint64_t *)prev, __ATOMIC_RELAXED);
                uint64_t w1 = __atomic_load_n((const uint64_t *)prev + 1, __ATOMIC_RELAXED);
                prev_seq = ((uint64_t)zc_ring_ll_data(w1) << 32) | zc_ring_ll_data(w0);
            } else {
                prev_seq =
                    (uint64_t)__atomic_load_n((const uint32_t *)prev, __ATOMIC_RELAXED) |
                    ((uint64_t)__atomic_load_n((const uint32_t *)prev + 1, __ATOMIC_RELAXED) << 32);
            }
            if (prev_seq != seq - 1)
                zc__fake_error(gpu, "frame %llu: previous slot overwritten (holds %llu)",
                               (unsigned long long)seq, (unsigned long long)prev_seq);
        }
        __atomic_store_n(&v->released[(size_t)gpu->block * ZC_RING_WORD_STRIDE],
                         gpu->lag ? seq : seq + 1, __ATOMIC_RELEASE);
        if (gpu->delay_ns) {
            struct timespec d = {(time_t)(gpu->delay_ns / 1000000000ull),
                                 (long)(gpu->delay_ns % 1000000000ull)};
            nanosleep(&d, NULL);
        }
        unsigned char *dst = v->out + (size_t)slot * v->out_stride;
        for (uint64_t k = 0; k < count; k++) {
            uint64_t i = first + (gpu->reverse_writes ? count - 1 - k : k);
            uint32_t value = (i < words ? in[i] : 0) ^ ZC_FAKE_MASK;
            if (out_ll)
                __atomic_store_n((uint64_t *)dst + i, zc_ring_ll_pack(value, zc_ring_ll_flag(seq)),
                                 __ATOMIC_RELAXED);
            else
                __atomic_store_n((uint32_t *)dst + i, value, __ATOMIC_RELAXED);
        }
        /* FLAG: count in; the last consumer of the frame stamps it, as on the GPU. */
        if (!out_ll &&
            zc_ring_last_arrival(__atomic_fetch_add(&v->arrivals[slot], 1, __ATOMIC_ACQ_REL),
                                 v->consumers))
            __atomic_store_n(&v->out_stamp[(size_t)slot * ZC_RING_WORD_STRIDE], zc_ring_stamp(seq),
                             __ATOMIC_RELEASE);
        __atomic_store_n(&gpu->processed, seq - gpu->first_seq + 1, __ATOMIC_RELEASE);
    }
    free(in);
    return NULL;
}

void zc_fake_start(zc_fake_gpu *gpu)
{
    assert_int_equal(pthread_create(&gpu->thread, NULL, zc__fake_main, gpu), 0);
}

void zc_fake_join(zc_fake_gpu *gpu)
{
    assert_int_equal(pthread_join(gpu->thread, NULL), 0);
}

zc_ring *zc_fake_ring(const zc_ring_config *config, uint64_t first_seq, void **memory_p)
{
    size_t bytes = 0;
    assert_int_equal(zc_ring_config_check(config), ZC_OK);
    assert_int_equal(zc__ring_bytes(config, &bytes), ZC_OK);
    /* The arrival counters (device memory on a GPU) after the ring, and results that go by copy
     * after those: where the copy engine would land them (the ring has no slots for them). */
    size_t ring_bytes = (bytes + 63) / 64 * 64;
    size_t results_at = ring_bytes + ((size_t)config->slots * sizeof(uint64_t) + 127) / 128 * 128;
    size_t out_stride = (config->out_bytes + 127) / 128 * 128;
    bytes = results_at + (config->results == ZC_RING_RESULTS_COPY ? config->slots * out_stride : 0);
    void *memory = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    assert_non_null(memory);
    zc_ring *ring = calloc(1, sizeof *ring);
    assert_non_null(ring);
    ring->simulated = 1;
    assert_int_equal(zc__ring_setup(ring, config, memory, memory, first_seq), ZC_OK);
    ring->arrivals = (uint64_t *)((unsigned char *)memory + ring_bytes);
    memset(ring->arrivals, 0, (size_t)config->slots * sizeof(uint64_t));
    ring->view.arrivals = ring->arrivals;
    if (config->results == ZC_RING_RESULTS_COPY) {
        assert_int_equal(ring->out_stride, out_stride);
        ring->out = (unsigned char *)memory + results_at;
        ring->view.out = ring->out;
    }
    *memory_p = memory;
    return ring;
}
