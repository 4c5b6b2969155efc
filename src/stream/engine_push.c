/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine's producer side: samples into frames, frames to their lanes (room made
 * by moving results out, or the frame dropped, as the policy says), and the end of input. */
#include "stream/engine_internal.h"

#include <string.h>

#include "core/backoff.h"
#include "core/checked_math.h"
#include "core/error.h"
#include "zerocopy/clock.h"

/*
 * Room on lane for one more frame. Results are moved out of the lanes into the output queue
 * while the lane is full: as a poll under the drop policy (a frame that still finds no room is
 * dropped: ZC_ERR_DROPPED without detail), waiting up to the timeout under the wait policy. When
 * the consumer thread is taking results itself, its takes make the room.
 */
static zc_status zc__make_room(zc_stream *s, zc__lane *lane, const char *fn)
{
    const zc_stream_config *c = &s->config;
    const int drop = c->policy == ZC_RING_FULL_DROP;
    uint64_t start = 0, outstanding = 0;
    int queue_full = 0;
    for (;;) {
        ZC_CHECK(zc__stream_failed(s, fn));
        zc_filter_outstanding(lane->f, &outstanding);
        if (outstanding < c->in_flight)
            return ZC_OK;
        uint64_t now = zc_clock_ns();
        if (start == 0) {
            start = now;
            if (!drop)
                s->full_waits++;
        }
        const uint64_t waited = now - start;
        if (waited >= c->timeout_ns && !drop)
            return ZC_FAIL(
                ZC_ERR_TIMEOUT,
                queue_full ? "%s: lane %s %d full for %.3f ms, and the output queue too: "
                             "pull the results (zc_stream_pull)"
                           : "%s: lane %s %d full for %.3f ms: its results did not "
                             "come",
                fn, lane->device < 0 ? "host" : "GPU", lane->device, (double)c->timeout_ns / 1e6);
        if (pthread_mutex_trylock(&s->take_lock) == 0) {
            zc_status st = zc__take_next(s, drop ? 0 : c->timeout_ns - waited);
            pthread_mutex_unlock(&s->take_lock);
            queue_full = st == ZC_ERR_NO_MEMORY;
            if (st == ZC_OK || st == ZC_ERR_NOT_FOUND)
                continue;
            if (st != ZC_ERR_TIMEOUT && st != ZC_ERR_NO_MEMORY)
                return st;
            if (st == ZC_ERR_TIMEOUT && !drop)
                return ZC_FAIL(ZC_ERR_TIMEOUT, "%s: %s", fn, zc_last_error());
        }
        if (drop)
            return ZC_ERR_DROPPED;
        zc__backoff(waited);
    }
}

/* Is the next frame measured? The measured span starts when the first measured frame is
 * offered. */
static int zc__offer_begin(zc_stream *s)
{
    const int measured = s->offered >= s->config.warmup_frames;
    if (measured && !s->measure_started) {
        s->measure_start_ns = zc_clock_ns();
        __atomic_store_n(&s->measure_started, 1, __ATOMIC_RELEASE);
    }
    return measured;
}

/* The frame offered went out or was dropped (a failure leaves it to be offered again). */
static void zc__offer_end(zc_stream *s, int measured)
{
    s->offered++;
    if (measured)
        s->measured_offered++;
}

static void zc__count_drop(zc_stream *s, int measured, size_t valid)
{
    zc__offer_end(s, measured);
    s->frames_dropped++;
    s->samples_dropped += valid;
    if (measured)
        s->measured_dropped++;
}

/* The last tail_len values of the stream once body is sent (the next frame's history), into
 * next_tail: made before the frame's clock starts, so that it costs the frame nothing. */
static void zc__tail_prepare(zc_stream *s, const float *body)
{
    if (s->words >= s->tail_len) {
        memcpy(s->next_tail, body + (s->words - s->tail_len), s->tail_len * sizeof(float));
    } else {
        memcpy(s->next_tail, s->tail + s->words, (s->tail_len - s->words) * sizeof(float));
        memcpy(s->next_tail + (s->tail_len - s->words), body, s->words * sizeof(float));
    }
}

/* The frame record of the next frame sent. */
static zc__frame_rec *zc__record(zc_stream *s, size_t valid, int measured, uint32_t *slot_p)
{
    *slot_p = (uint32_t)(s->sent % s->recs);
    zc__frame_rec *rec = &s->rec[*slot_p];
    rec->valid = valid;
    rec->measured = (uint8_t)measured;
    return rec;
}

/* Frame seq went out on lane: check its number, then make it visible to the result side. */
static zc_status zc__sent(zc_stream *s, zc__lane *lane, uint64_t seq, int measured, const char *fn)
{
    if (seq != lane->sent)
        return zc__stream_fail(
            s, ZC_FAIL(ZC_ERR_STATE, "%s: lane %d numbered its frame %llu, %llu was due", fn,
                       lane->device, (unsigned long long)seq, (unsigned long long)lane->sent));
    lane->sent++;
    zc__offer_end(s, measured);
    if (measured)
        s->measured_sent++;
    float *old = s->tail; /* the frame went out: its tail is the stream's now */
    s->tail = s->next_tail;
    s->next_tail = old;
    __atomic_store_n(&s->sent, s->sent + 1, __ATOMIC_RELEASE);
    return ZC_OK;
}

/* Send body (words values, valid real samples) to the next lane, copying it in. ZC_ERR_DROPPED
 * when the policy dropped it (counted). */
static zc_status zc__send_copy(zc_stream *s, const float *body, size_t valid, const char *fn)
{
    const int measured = zc__offer_begin(s);
    zc__lane *lane = &s->lane[s->sent % s->n];
    zc_status st = zc__lane_on(lane);
    if (st != ZC_OK)
        return zc__stream_fail(s, st);
    st = zc__make_room(s, lane, fn);
    if (st == ZC_ERR_DROPPED)
        zc__count_drop(s, measured, valid);
    ZC_CHECK(st);
    uint32_t slot;
    zc__frame_rec *rec = zc__record(s, valid, measured, &slot);
    zc__verify_submit(s, rec, slot, body); /* before the clock starts: not the path's cost */
    zc__tail_prepare(s, body);
    uint64_t seq = 0;
    rec->t0 = zc_clock_ns();
    if (s->lead == 0) {
        st = zc_filter_submit(lane->f, body, &seq);
    } else {
        float *buf = NULL;
        st = zc_filter_acquire(lane->f, &buf);
        if (st == ZC_OK) {
            memcpy(buf, s->tail + (s->tail_len - s->lead), s->lead * sizeof(float));
            memcpy(buf + s->lead, body, s->words * sizeof(float));
            st = zc_filter_publish(lane->f, &seq);
        }
    }
    if (st == ZC_ERR_DROPPED) { /* the ring was full under the drop policy */
        zc__count_drop(s, measured, valid);
        return st;
    }
    if (st != ZC_OK)
        return zc__stream_fail(s, st);
    return zc__sent(s, lane, seq, measured, fn);
}

/* Send the full stage; a dropped frame is gone (and counted), so either way it is empty after,
 * unless a failure left it for the next call to try again. */
static zc_status zc__send_stage(zc_stream *s, size_t valid, const char *fn)
{
    zc_status st = zc__send_copy(s, s->stage, valid, fn);
    if (st == ZC_OK || st == ZC_ERR_DROPPED) {
        s->staged = 0;
        return ZC_OK;
    }
    return st;
}

static int zc__finite(float v)
{
    return v - v == 0.0f; /* NaN and infinities give NaN */
}

/* Copy n values into the stage, applying the non-finite policy; *taken_p gets the values
 * taken (whole samples). ZC_ERR_PARSE at a refused value. */
static zc_status zc__stage_values(zc_stream *s, const float *src, size_t n, size_t *taken_p)
{
    float *dst = s->stage + s->staged;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        dst[i] = src[i];
        bad |= !zc__finite(src[i]);
    }
    if (bad) {
        const size_t ch = s->config.channels;
        for (size_t i = 0; i < n; i++) {
            if (zc__finite(src[i]))
                continue;
            /* samples_in already counts the values staged before src (whole samples): only
             * the offset into src is added. */
            const uint64_t sample = s->samples_in + i / ch;
            if (s->config.nonfinite == ZC_STREAM_NONFINITE_REJECT) {
                *taken_p = i / ch * ch;
                return ZC_FAIL(ZC_ERR_PARSE,
                               "zc_stream_push: sample %llu (frame %llu, channel %zu) is %s",
                               (unsigned long long)sample,
                               (unsigned long long)(sample / s->config.frame_samples), i % ch,
                               src[i] != src[i] ? "NaN" : "infinite");
            }
            if (s->nonfinite == 0)
                s->first_nonfinite = sample;
            s->nonfinite++;
            dst[i] = 0.0f;
        }
    }
    *taken_p = n;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_stream_push(zc_stream *s, const float *samples, size_t count,
                                   size_t *accepted_p)
{
    if (accepted_p != NULL)
        *accepted_p = 0;
    ZC_REQUIRE_ARG(s);
    if (count > 0)
        ZC_REQUIRE_ARG(samples);
    const size_t ch = s->config.channels;
    size_t values = 0;
    if (!zc__size_mul(count, ch, &values))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_stream_push: %zu samples x %zu channels overflow",
                       count, ch);
    pthread_mutex_lock(&s->produce_lock);
    zc_status st = zc__stream_failed(s, "zc_stream_push");
    if (st == ZC_OK && s->flushed)
        st = ZC_FAIL(ZC_ERR_STATE, "zc_stream_push: the stream was flushed (end of input)");
    if (st == ZC_OK && s->acquired)
        st = ZC_FAIL(ZC_ERR_STATE, "zc_stream_push: a frame is acquired and not published");
    size_t done = 0;
    /* A frame left full by a failure of the last call goes first. */
    if (st == ZC_OK && s->staged == s->words)
        st = zc__send_stage(s, s->config.frame_samples, "zc_stream_push");
    while (st == ZC_OK && done < values) {
        size_t n = s->words - s->staged, taken = 0;
        if (n > values - done)
            n = values - done;
        st = zc__stage_values(s, samples + done, n, &taken);
        s->staged += taken;
        done += taken;
        s->samples_in += taken / ch;
        if (st == ZC_OK && s->staged == s->words)
            st = zc__send_stage(s, s->config.frame_samples, "zc_stream_push");
    }
    pthread_mutex_unlock(&s->produce_lock);
    if (accepted_p != NULL)
        *accepted_p = done / ch;
    return st;
}

ZC_EXTERN zc_status zc_stream_flush(zc_stream *s)
{
    ZC_REQUIRE_ARG(s);
    pthread_mutex_lock(&s->produce_lock);
    zc_status st = zc__stream_failed(s, "zc_stream_flush");
    if (st == ZC_OK && s->acquired)
        st = ZC_FAIL(ZC_ERR_STATE, "zc_stream_flush: a frame is acquired and not published");
    if (st == ZC_OK && !s->flushed && s->staged > 0) {
        /* The partial frame is filtered whole, padded with zeros; only its real samples come
         * back (a causal filter's outputs before the padding do not depend on it). */
        const size_t valid = s->staged / s->config.channels;
        memset(s->stage + s->staged, 0, (s->words - s->staged) * sizeof(float));
        const size_t padded = s->config.frame_samples - valid;
        s->staged = s->words;
        st = zc__send_stage(s, valid, "zc_stream_flush");
        if (st == ZC_OK)
            s->samples_padded += padded;
        else
            s->staged = valid * s->config.channels; /* as it was: flush may be called again */
    }
    if (st == ZC_OK)
        __atomic_store_n(&s->flushed, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->produce_lock);
    return st;
}

ZC_EXTERN zc_status zc_stream_frame_acquire(zc_stream *s, float **frame_p)
{
    ZC_REQUIRE_ARG(s);
    ZC_REQUIRE_ARG(frame_p);
    const char *fn = "zc_stream_frame_acquire";
    pthread_mutex_lock(&s->produce_lock);
    zc_status st = zc__stream_failed(s, fn);
    if (st == ZC_OK && (s->flushed || s->acquired || s->staged != 0))
        st = ZC_FAIL(ZC_ERR_STATE, "%s: %s", fn,
                     s->flushed    ? "the stream was flushed (end of input)"
                     : s->acquired ? "a frame is already acquired"
                                   : "a partial frame was pushed: push the rest first");
    if (st != ZC_OK) {
        pthread_mutex_unlock(&s->produce_lock);
        return st;
    }
    const int measured = zc__offer_begin(s);
    zc__lane *lane = &s->lane[s->sent % s->n];
    float *buf = NULL;
    uint64_t t0 = 0;
    st = zc__lane_on(lane);
    if (st != ZC_OK)
        st = zc__stream_fail(s, st);
    if (st == ZC_OK)
        st = zc__make_room(s, lane, fn);
    if (st == ZC_OK) {
        t0 = zc_clock_ns(); /* the frame enters its path here: waiting for room is not in it */
        st = zc_filter_acquire(lane->f, &buf);
        if (st != ZC_OK && st != ZC_ERR_DROPPED)
            st = zc__stream_fail(s, st);
    }
    if (st == ZC_ERR_DROPPED)
        zc__count_drop(s, measured, s->config.frame_samples);
    if (st == ZC_OK) {
        s->acquired = 1 + measured; /* 2: measured */
        s->acquired_buf = buf;
        s->acquired_t0 = t0;
        *frame_p = buf + s->lead;
    }
    pthread_mutex_unlock(&s->produce_lock);
    return st;
}

ZC_EXTERN zc_status zc_stream_frame_publish(zc_stream *s)
{
    ZC_REQUIRE_ARG(s);
    const char *fn = "zc_stream_frame_publish";
    pthread_mutex_lock(&s->produce_lock);
    zc_status st = zc__stream_failed(s, fn);
    if (st == ZC_OK && !s->acquired)
        st = ZC_FAIL(ZC_ERR_STATE, "%s: no frame acquired", fn);
    if (st != ZC_OK) {
        pthread_mutex_unlock(&s->produce_lock);
        return st;
    }
    const int measured = s->acquired == 2;
    zc__lane *lane = &s->lane[s->sent % s->n];
    float *buf = s->acquired_buf, *body = buf + s->lead;
    uint32_t slot;
    zc__frame_rec *rec = zc__record(s, s->config.frame_samples, measured, &slot);
    rec->t0 = s->acquired_t0;
    zc__verify_submit(s, rec, slot, body);
    zc__tail_prepare(s, body);
    if (s->lead > 0)
        memcpy(buf, s->tail + (s->tail_len - s->lead), s->lead * sizeof(float));
    uint64_t seq = 0;
    st = zc__lane_on(lane);
    if (st == ZC_OK)
        st = zc_filter_publish(lane->f, &seq);
    if (st == ZC_OK) {
        s->acquired = 0;
        s->samples_in += s->config.frame_samples;
        st = zc__sent(s, lane, seq, measured, fn);
    } else {
        st = zc__stream_fail(s, st);
    }
    pthread_mutex_unlock(&s->produce_lock);
    return st;
}
