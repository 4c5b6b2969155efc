/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine's result side: results taken from the lanes in the stream's order,
 * measured and checked, their real samples queued, and handed out by pull. */
#include "stream/engine_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/backoff.h"
#include "core/error.h"
#include "zerocopy/clock.h"

/* Room in the queue for n more values, growing it up to its limit (queue_lock held). */
static int zc__queue_room(zc_stream *s, size_t n)
{
    if (s->q_cap - s->q_count >= n)
        return 1;
    if (s->q_count + n > s->q_max)
        return 0;
    size_t cap = s->q_cap * 2;
    if (cap < s->q_count + n)
        cap = s->q_count + n;
    if (cap > s->q_max)
        cap = s->q_max;
    float *grown = malloc(cap * sizeof(float));
    if (grown == NULL)
        return 0;
    /* Unwrap the ring into the new buffer. */
    size_t first = s->q_cap - s->q_head < s->q_count ? s->q_cap - s->q_head : s->q_count;
    memcpy(grown, s->q + s->q_head, first * sizeof(float));
    memcpy(grown + first, s->q, (s->q_count - first) * sizeof(float));
    free(s->q);
    s->q = grown;
    s->q_cap = cap;
    s->q_head = 0;
    return 1;
}

static void zc__queue_put(zc_stream *s, const float *v, size_t n)
{
    size_t at = (s->q_head + s->q_count) % s->q_cap;
    size_t first = s->q_cap - at < n ? s->q_cap - at : n;
    memcpy(s->q + at, v, first * sizeof(float));
    memcpy(s->q, v + first, (n - first) * sizeof(float));
    s->q_count += n;
}

static size_t zc__queue_get(zc_stream *s, float *out, size_t max)
{
    size_t n = s->q_count < max ? s->q_count : max;
    size_t first = s->q_cap - s->q_head < n ? s->q_cap - s->q_head : n;
    memcpy(out, s->q + s->q_head, first * sizeof(float));
    memcpy(out + first, s->q, (n - first) * sizeof(float));
    s->q_head = (s->q_head + n) % s->q_cap;
    s->q_count -= n;
    return n;
}

zc_status zc__take_next(zc_stream *s, uint64_t timeout_ns)
{
    const uint64_t k = s->taken;
    if (k == __atomic_load_n(&s->sent, __ATOMIC_ACQUIRE))
        return ZC_ERR_NOT_FOUND;
    zc__lane *lane = &s->lane[k % s->n];
    const uint32_t slot = (uint32_t)(k % s->recs);
    const zc__frame_rec *rec = &s->rec[slot];
    const size_t values = rec->valid * s->config.channels;
    if (!s->config.discard_output) {
        pthread_mutex_lock(&s->queue_lock);
        int room = zc__queue_room(s, values);
        pthread_mutex_unlock(&s->queue_lock);
        if (!room)
            return ZC_ERR_NO_MEMORY; /* pull first; no detail: the caller says what it means */
    }
    zc_status st = zc__lane_on(lane);
    if (st != ZC_OK)
        return zc__stream_fail(s, st);
    const float *res = NULL;
    uint64_t seq = 0;
    st = zc_filter_result_wait(lane->f, timeout_ns, &res, &seq);
    if (st == ZC_ERR_TIMEOUT)
        return st; /* not a failure: the caller decides how long to wait */
    if (st != ZC_OK)
        return zc__stream_fail(s, st);
    const uint64_t now = zc_clock_ns();
    if (seq != lane->taken)
        return zc__stream_fail(
            s, ZC_FAIL(ZC_ERR_STATE,
                       "lane %d returned its frame %llu where %llu (the stream's frame %llu) was "
                       "due: lost, repeated or out of order",
                       lane->device, (unsigned long long)seq, (unsigned long long)lane->taken,
                       (unsigned long long)k));
    const float *body = res + s->lead;
    if (rec->measured) {
        const double us = (double)(now - rec->t0) / 1e3;
        (void)zc__latency_add(&s->latency, us); /* out of memory: percentiles from fewer */
        if (s->n > 1)
            (void)zc__latency_add(&lane->latency, us);
        s->frames_measured++;
        s->measured_samples += rec->valid;
        s->last_result_ns = now;
    }
    zc__verify_result(s, rec, slot, body);
    pthread_mutex_lock(&s->queue_lock);
    if (s->config.discard_output)
        s->samples_out += rec->valid;
    else
        zc__queue_put(s, body, values);
    pthread_mutex_unlock(&s->queue_lock);
    st = zc_filter_result_release(lane->f);
    if (st != ZC_OK)
        return zc__stream_fail(s, st);
    lane->taken++;
    __atomic_store_n(&s->taken, k + 1, __ATOMIC_RELEASE);
    return ZC_OK;
}

/* Whole samples from the queue into out; how many. */
static size_t zc__pull_queued(zc_stream *s, float *out, size_t max)
{
    const size_t ch = s->config.channels;
    pthread_mutex_lock(&s->queue_lock);
    size_t n = s->q_count == 0 ? 0 : zc__queue_get(s, out, max * ch) / ch;
    s->samples_out += n;
    pthread_mutex_unlock(&s->queue_lock);
    return n;
}

ZC_EXTERN zc_status zc_stream_pull(zc_stream *s, float *out, size_t max, uint64_t timeout_ns,
                                   size_t *got_p)
{
    ZC_REQUIRE_ARG(s);
    ZC_REQUIRE_ARG(got_p);
    *got_p = 0;
    const int discard = s->config.discard_output;
    if (!discard)
        ZC_REQUIRE_ARG(out);
    if (!discard && max == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_pull: room for 0 samples");
    const uint64_t start = zc_clock_ns();
    for (;;) {
        size_t got = discard ? 0 : zc__pull_queued(s, out, max);
        if (got > 0) {
            *got_p = got;
            return ZC_OK;
        }
        ZC_CHECK(zc__stream_failed(s, "zc_stream_pull"));
        /* flushed first: once it is set, sent is final. */
        const int flushed = __atomic_load_n(&s->flushed, __ATOMIC_ACQUIRE);
        const uint64_t sent = __atomic_load_n(&s->sent, __ATOMIC_ACQUIRE);
        const uint64_t taken = __atomic_load_n(&s->taken, __ATOMIC_ACQUIRE);
        const uint64_t now = zc_clock_ns(), waited = now - start;
        const uint64_t left = waited < timeout_ns ? timeout_ns - waited : 0;
        if (taken < sent) {
            pthread_mutex_lock(&s->take_lock);
            zc_status st = zc__take_next(s, left);
            pthread_mutex_unlock(&s->take_lock);
            if (st == ZC_OK && discard)
                return ZC_OK;
            if (st == ZC_OK || st == ZC_ERR_NOT_FOUND || st == ZC_ERR_NO_MEMORY)
                continue; /* queued, or the producer took it, or filled the queue: look again */
            if (st == ZC_ERR_TIMEOUT && timeout_ns == 0)
                return st; /* a poll: no detail */
            if (st == ZC_ERR_TIMEOUT)
                return ZC_FAIL(ZC_ERR_TIMEOUT, "zc_stream_pull: waited %.3f ms for frame %llu: %s",
                               (double)timeout_ns / 1e6, (unsigned long long)taken,
                               left > 0 ? zc_last_error() : "its result is not there yet");
            return st;
        }
        if (flushed && taken == sent)
            return ZC_FAIL(ZC_ERR_NOT_FOUND,
                           "zc_stream_pull: end of the stream: its %llu frames were all pulled",
                           (unsigned long long)sent);
        if (left == 0) {
            if (timeout_ns == 0)
                return ZC_ERR_TIMEOUT;
            return ZC_FAIL(ZC_ERR_TIMEOUT,
                           "zc_stream_pull: no samples within %.3f ms: every frame pushed (%llu) "
                           "was pulled; a partial frame waits for more samples or a flush",
                           (double)timeout_ns / 1e6, (unsigned long long)sent);
        }
        zc__backoff(waited);
    }
}
