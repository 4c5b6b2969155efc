/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine's checks against the double-precision reference: every frame, or the
 * warm-up frames and an evenly spread sample of the rest, deferred so that the reference's CPU
 * time never slows the measured stream. */
#include "stream/engine_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Reference multiply-adds spent on warm-up frames as they come back (VERIFY_SAMPLE). */
#define ZC__VERIFY_BUDGET    1.5e9
/* Deferred checks: at most this share of the frames when the stream's length is known, this
 * many records when it is not, and this much memory. */
#define ZC__DEFER_SHARE      0.002
#define ZC__DEFER_UNKNOWN    64u
#define ZC__DEFER_BYTES      ((double)(64u << 20))
/* A record larger than this is not kept at all (frames of hundreds of MiB). */
#define ZC__DEFER_RECORD_MAX ((size_t)256 << 20)

static double zc__abs(double x)
{
    return x < 0 ? -x : x;
}

/* Check one result body against the reference FIR of its input and history; keep the worst. */
static void zc__verify_check(zc_stream *s, const float *in, const float *hist, const float *res)
{
    const zc_stream_config *c = &s->config;
    zc_fir_reference(c->taps, c->ntaps, c->channels, hist, in, c->frame_samples, s->ref);
    double peak = 0.0;
    for (size_t i = 0; i < s->words; i++)
        peak = zc__abs(in[i]) > peak ? zc__abs(in[i]) : peak;
    for (size_t i = 0; i < s->halo; i++)
        peak = zc__abs(hist[i]) > peak ? zc__abs(hist[i]) : peak;
    double err = zc_fir_error(s->ref, res, s->words, c->taps, c->ntaps, peak);
    if (!(err <= s->max_err))
        s->max_err = err != err ? INFINITY : err;
    s->verified++;
}

zc_status zc__verify_setup(zc_stream *s)
{
    const zc_stream_config *c = &s->config;
    if (c->verify == ZC_STREAM_VERIFY_NONE)
        return ZC_OK;
    s->rec_in = malloc((size_t)s->recs * s->words * sizeof(float));
    s->rec_hist = malloc(((size_t)s->recs * s->halo + 1) * sizeof(float));
    s->ref = malloc(s->words * sizeof(double));
    if (s->rec_in == NULL || s->rec_hist == NULL || s->ref == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_stream_create: no memory for the checks");
    if (c->verify != ZC_STREAM_VERIFY_SAMPLE)
        return ZC_OK;
    const size_t record = (2 * s->words + s->halo) * sizeof(float);
    const double per_frame = (double)s->words * (double)c->ntaps;
    double k = ZC__DEFER_BYTES / (double)record;
    if (k > ZC__VERIFY_BUDGET / per_frame)
        k = ZC__VERIFY_BUDGET / per_frame;
    double limit = ZC__DEFER_UNKNOWN;
    if (c->expected_frames > 0) {
        limit = (double)c->expected_frames * ZC__DEFER_SHARE;
        if (limit < 2)
            limit = 2;
    }
    if (k > limit)
        k = limit;
    size_t cap = k >= 1 ? (size_t)k : (record <= ZC__DEFER_RECORD_MAX ? 1 : 0);
    s->deferred_stride = 1;
    if (c->expected_frames > 0 && cap > 0)
        s->deferred_stride = c->expected_frames / cap + 1; /* evenly over the expected run */
    if (cap == 0)
        return ZC_OK;
    s->deferred = calloc(cap, sizeof *s->deferred);
    s->deferred_mem = malloc(cap * record);
    if (s->deferred == NULL || s->deferred_mem == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_stream_create: no memory for %zu deferred checks",
                       cap);
    for (size_t i = 0; i < cap; i++) {
        zc__deferred *d = &s->deferred[i];
        d->in = s->deferred_mem + i * (record / sizeof(float));
        d->hist = d->in + s->words;
        d->res = d->hist + s->halo;
    }
    s->deferred_cap = cap;
    return ZC_OK;
}

/* A free record for measured frame m, thinning the kept ones to every other stride when all are
 * in use (a stream longer than expected, or of unknown length); -1 when m is not to be kept. */
static long zc__deferred_slot(zc_stream *s, uint64_t m)
{
    for (;;) {
        if (m % s->deferred_stride != 0)
            return -1;
        for (size_t i = 0; i < s->deferred_cap; i++)
            if (!s->deferred[i].used)
                return (long)i;
        s->deferred_stride *= 2;
        for (size_t i = 0; i < s->deferred_cap; i++)
            if (s->deferred[i].m % s->deferred_stride != 0)
                s->deferred[i].used = 0;
    }
}

void zc__verify_submit(zc_stream *s, zc__frame_rec *rec, uint32_t slot, const float *body)
{
    const zc_stream_config *c = &s->config;
    rec->check = 0;
    if (c->verify == ZC_STREAM_VERIFY_NONE)
        return;
    const float *hist = s->tail + (s->tail_len - s->halo);
    const size_t words_bytes = s->words * sizeof(float), halo_bytes = s->halo * sizeof(float);
    if (c->verify == ZC_STREAM_VERIFY_ALL ||
        (!rec->measured && s->inline_macs < ZC__VERIFY_BUDGET)) {
        rec->check = 1;
        memcpy(s->rec_in + (size_t)slot * s->words, body, words_bytes);
        memcpy(s->rec_hist + (size_t)slot * s->halo, hist, halo_bytes);
        s->inline_macs += (double)s->words * (double)c->ntaps;
        return;
    }
    if (!rec->measured || s->deferred_cap == 0)
        return;
    const uint64_t m = s->measured_sent;
    pthread_mutex_lock(&s->verify_lock);
    long i = zc__deferred_slot(s, m);
    if (i >= 0) {
        zc__deferred *d = &s->deferred[i];
        d->m = m;
        d->used = 1;
        d->has_result = 0;
        memcpy(d->in, body, words_bytes);
        memcpy(d->hist, hist, halo_bytes);
        rec->check = 2;
        rec->deferred = (size_t)i;
        rec->deferred_m = m;
    }
    pthread_mutex_unlock(&s->verify_lock);
}

void zc__verify_result(zc_stream *s, const zc__frame_rec *rec, uint32_t slot, const float *body)
{
    if (rec->check == 1) {
        zc__verify_check(s, s->rec_in + (size_t)slot * s->words,
                         s->rec_hist + (size_t)slot * s->halo, body);
    } else if (rec->check == 2) {
        pthread_mutex_lock(&s->verify_lock);
        zc__deferred *d = &s->deferred[rec->deferred];
        /* The record may have been given to a later frame by thinning: then skip. */
        if (d->used && d->m == rec->deferred_m && !d->has_result) {
            memcpy(d->res, body, s->words * sizeof(float));
            d->has_result = 1;
        }
        pthread_mutex_unlock(&s->verify_lock);
    }
}

void zc__verify_finish(zc_stream *s)
{
    if (s->deferred_done)
        return;
    s->deferred_done = 1;
    pthread_mutex_lock(&s->verify_lock);
    for (size_t i = 0; i < s->deferred_cap; i++) {
        zc__deferred *d = &s->deferred[i];
        if (d->used && d->has_result)
            zc__verify_check(s, d->in, d->hist, d->res);
    }
    pthread_mutex_unlock(&s->verify_lock);
}

void zc__verify_free(zc_stream *s)
{
    free(s->rec_in);
    free(s->rec_hist);
    free(s->ref);
    free(s->deferred);
    free(s->deferred_mem);
}
