/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine: configuration, its lanes' lifetime, failures and statistics. */
#include "stream/engine_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"

/* Latencies kept for the percentiles, in all and per lane (8 Mi doubles is 64 MiB). */
#define ZC__LATENCY_KEPT      ((size_t)8 << 20)
#define ZC__LANE_LATENCY_KEPT ((size_t)1 << 20)

#define ZC__QUEUE_MAX_DEFAULT ((size_t)256 << 20)

ZC_EXTERN void zc_stream_config_init(zc_stream_config *c)
{
    if (c == NULL)
        return;
    memset(c, 0, sizeof *c);
    c->mode = ZC_STREAM_ZEROCOPY;
    c->protocol = ZC_RING_PROTO_LL;
    c->policy = ZC_RING_FULL_WAIT;
    c->frame_samples = 1024;
    c->channels = 1;
    c->in_flight = 1;
    c->timeout_ns = 2000000000ull;
    c->watchdog_ns = 1000000000ull;
    c->verify = ZC_STREAM_VERIFY_SAMPLE;
    c->nonfinite = ZC_STREAM_NONFINITE_REJECT;
}

static size_t zc__lanes_of(const zc_stream_config *c)
{
    return c->device_count == 0 ? 1 : c->device_count;
}

/* The values of the previous frame sent before each frame: none for one lane, else the
 * filter's history rounded up to whole 16-byte groups, so that a lane's frame stays a multiple
 * of 4 values. */
static size_t zc__lead_of(const zc_stream_config *c)
{
    if (zc__lanes_of(c) == 1)
        return 0;
    return ((c->ntaps - 1) * c->channels + 3) / 4 * 4;
}

/* A lane's filter configuration (device set by the caller). */
static void zc__lane_config(const zc_stream_config *c, const float *taps, zc_filter_config *fc)
{
    zc_filter_config_init(fc);
    fc->mode = c->mode;
    fc->frame_samples = c->frame_samples + zc__lead_of(c) / c->channels;
    fc->channels = c->channels;
    fc->taps = taps;
    fc->ntaps = c->ntaps;
    fc->in_flight = c->in_flight;
    fc->protocol = c->protocol;
    fc->policy = c->policy;
    fc->gpu_blocks = c->gpu_blocks;
    fc->timeout_ns = c->timeout_ns;
    fc->watchdog_ns = c->watchdog_ns;
    /* The ring counts every frame; the budget's are the measured ones after the warm-up. */
    fc->budget_frames = c->budget_frames > 0 ? c->warmup_frames + c->budget_frames : 0;
}

ZC_EXTERN zc_status zc_stream_config_check(const zc_stream_config *c)
{
    ZC_REQUIRE_ARG(c);
    ZC_REQUIRE_ARG(c->taps);
    if ((int)c->mode < 0 || (int)c->mode >= ZC_STREAM_MODE_COUNT)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_config_check: unknown mode %d", (int)c->mode);
    if (c->channels != 1 && c->channels != 2)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_stream_config_check: %zu channels (1 real or 2 complex)", c->channels);
    if (c->ntaps == 0 || c->ntaps > ZC_FIR_MAX_TAPS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_config_check: %zu taps not in 1..%d",
                       c->ntaps, ZC_FIR_MAX_TAPS);
    /* A NaN or infinite tap makes every output NaN (and the verification's bound with it):
     * refused here, whether the taps were designed or read from a file. */
    for (size_t k = 0; k < c->ntaps; k++)
        if (!isfinite(c->taps[k]))
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "zc_stream_config_check: tap %zu of %zu is %g, not a finite number", k,
                           c->ntaps, (double)c->taps[k]);
    if (c->device_count > ZC_STREAM_MAX_LANES)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_config_check: %zu devices, at most %d",
                       c->device_count, ZC_STREAM_MAX_LANES);
    if (c->device_count > 0 && c->devices == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_stream_config_check: device_count %zu with devices NULL",
                       c->device_count);
    const int on_gpu = (zc_stream_mode_flags(c->mode) & ZC_STREAM_MODE_ON_GPU) != 0;
    for (size_t i = 0; on_gpu && i < c->device_count; i++) {
        if (c->devices[i] < 0)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_config_check: device %d", c->devices[i]);
        for (size_t j = 0; j < i; j++)
            if (c->devices[j] == c->devices[i])
                return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_config_check: GPU %d is listed twice",
                               c->devices[i]);
    }
    if ((unsigned)c->verify > ZC_STREAM_VERIFY_ALL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_config_check: verify %d", (int)c->verify);
    if ((unsigned)c->nonfinite > ZC_STREAM_NONFINITE_ZERO)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_config_check: nonfinite %d",
                       (int)c->nonfinite);
    if (c->frame_samples == 0 || c->frame_samples > ((size_t)1 << 26))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_stream_config_check: %zu samples per frame not in 1..2^26",
                       c->frame_samples);
    size_t frame_bytes = c->frame_samples * c->channels * sizeof(float);
    if (c->queue_max_bytes != 0 && c->queue_max_bytes < frame_bytes)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_stream_config_check: an output queue of %zu bytes cannot hold one "
                       "frame (%zu bytes)",
                       c->queue_max_bytes, frame_bytes);
    if (c->budget_frames > 0 && c->device_count > 1)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "zc_stream_config_check: the time budget is kept for one GPU; %zu given",
                       c->device_count);
    if (c->budget_frames > UINT64_MAX - c->warmup_frames)
        return ZC_FAIL(ZC_ERR_OVERFLOW,
                       "zc_stream_config_check: warmup_frames + budget_frames overflows");
    /* The rest (frame shape, in_flight, timeout, the budget's mode and size) is the lanes'
     * filter's to say. */
    zc_filter_config fc;
    zc__lane_config(c, c->taps, &fc);
    return zc_filter_config_check(&fc);
}

zc_status zc__lane_on(const zc__lane *lane)
{
    if (lane->device < 0)
        return ZC_OK;
    int current = -1;
    ZC_CUDA_RETURN(cudaGetDevice(&current));
    if (current != lane->device)
        ZC_CUDA_RETURN(cudaSetDevice(lane->device));
    return ZC_OK;
}

zc_status zc__stream_fail(zc_stream *s, zc_status st)
{
    zc_status none = ZC_OK;
    /* The first failure wins; its detail is copied before the status is published. */
    if (__atomic_load_n(&s->failed, __ATOMIC_ACQUIRE) == ZC_OK) {
        pthread_mutex_lock(&s->queue_lock);
        if (s->failed == ZC_OK) {
            snprintf(s->failed_detail, sizeof s->failed_detail, "%s", zc_last_error());
            __atomic_compare_exchange_n(&s->failed, &none, st, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED);
        }
        pthread_mutex_unlock(&s->queue_lock);
    }
    return st;
}

zc_status zc__stream_failed(zc_stream *s, const char *fn)
{
    zc_status st = __atomic_load_n(&s->failed, __ATOMIC_ACQUIRE);
    if (st == ZC_OK)
        return ZC_OK;
    return ZC_FAIL(st, "%s: the stream failed earlier: %s", fn, s->failed_detail);
}

static void zc__stream_free(zc_stream *s)
{
    for (size_t i = s->n; i-- > 0;) {
        zc__lane *lane = &s->lane[i];
        if (lane->f != NULL && zc__lane_on(lane) != ZC_OK)
            zc_clear_error(); /* destroy anyway: it stops the kernel on its own stream */
        zc_filter_destroy(lane->f);
        zc__latency_free(&lane->latency);
    }
    zc__verify_free(s);
    zc__latency_free(&s->latency);
    free(s->rec);
    free(s->stage);
    free(s->tail);
    free(s->next_tail);
    free(s->q);
    pthread_mutex_destroy(&s->produce_lock);
    pthread_mutex_destroy(&s->take_lock);
    pthread_mutex_destroy(&s->verify_lock);
    pthread_mutex_destroy(&s->queue_lock);
    free(s);
}

/* Memory of the producer and result sides; the lanes come after. */
static zc_status zc__stream_alloc(zc_stream *s)
{
    const zc_stream_config *c = &s->config;
    s->stage = calloc(s->words, sizeof(float));
    s->tail = calloc(s->tail_len + 1, sizeof(float));
    s->next_tail = calloc(s->tail_len + 1, sizeof(float));
    s->rec = calloc(s->recs, sizeof *s->rec);
    s->q_max = (c->queue_max_bytes ? c->queue_max_bytes : ZC__QUEUE_MAX_DEFAULT) / sizeof(float);
    if (s->q_max < s->words)
        s->q_max = s->words;
    s->q_cap = s->words * 4 < s->q_max ? s->words * 4 : s->q_max;
    s->q = c->discard_output ? NULL : malloc(s->q_cap * sizeof(float));
    if (s->stage == NULL || s->tail == NULL || s->next_tail == NULL || s->rec == NULL ||
        (!c->discard_output && s->q == NULL))
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_stream_create: no memory for %zu-value frames",
                       s->words);
    return zc__verify_setup(s);
}

static zc_status zc__stream_lanes(zc_stream *s)
{
    const zc_stream_config *c = &s->config;
    zc_filter_config fc;
    zc__lane_config(c, s->taps, &fc);
    for (size_t i = 0; i < s->n; i++) {
        zc__lane *lane = &s->lane[i];
        lane->device = zc_stream_mode_flags(c->mode) & ZC_STREAM_MODE_ON_GPU ? s->devices[i] : -1;
        zc__latency_init(&lane->latency, ZC__LANE_LATENCY_KEPT, 0x9e3779b97f4a7c15ull + i);
        if (s->n > 1)
            zc__latency_reserve(&lane->latency, c->expected_frames / s->n + 1);
        fc.device = lane->device < 0 ? 0 : lane->device;
        zc_status st = zc_filter_create(&fc, &lane->f);
        if (st != ZC_OK) {
            if (s->n > 1)
                return ZC_FAIL(st, "zc_stream_create: lane %zu (%s %d): %s", i,
                               lane->device < 0 ? "host" : "GPU", lane->device, zc_last_error());
            return st;
        }
        zc_filter_buffers(lane->f, &lane->buffers);
        zc_filter_gpu_blocks(lane->f, &lane->blocks);
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_stream_create(const zc_stream_config *config, zc_stream **stream_p)
{
    ZC_REQUIRE_ARG(config);
    ZC_REQUIRE_ARG(stream_p);
    ZC_CHECK(zc_stream_config_check(config));
    zc_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_stream_create: no memory for the stream");
    pthread_mutex_init(&s->produce_lock, NULL);
    pthread_mutex_init(&s->take_lock, NULL);
    pthread_mutex_init(&s->verify_lock, NULL);
    pthread_mutex_init(&s->queue_lock, NULL);
    s->config = *config;
    memcpy(s->taps, config->taps, config->ntaps * sizeof(float));
    s->config.taps = s->taps;
    s->n = zc__lanes_of(config);
    for (size_t i = 0; i < s->n; i++)
        s->devices[i] = config->device_count ? config->devices[i] : 0;
    s->config.devices = s->devices;
    s->words = config->frame_samples * config->channels;
    s->halo = (config->ntaps - 1) * config->channels;
    s->lead = zc__lead_of(config);
    s->tail_len = s->lead > s->halo ? s->lead : s->halo;
    s->lane_words = s->lead + s->words;
    s->recs = (uint32_t)(s->n * (config->in_flight + 1u));
    zc__latency_init(&s->latency, ZC__LATENCY_KEPT, 0x2545f4914f6cdd1dull);
    /* A stream of known length keeps every latency without growing its record while measured
     * (each doubling copied the record between two frames: a pause in the tail). */
    zc__latency_reserve(&s->latency, config->expected_frames);
    zc_status st = zc__stream_alloc(s);
    if (st == ZC_OK)
        st = zc__stream_lanes(s);
    if (st != ZC_OK) {
        zc_status keep = st;
        char detail[512];
        snprintf(detail, sizeof detail, "%s", zc_last_error());
        zc__stream_free(s);
        return ZC_FAIL(keep, "%s", detail);
    }
    *stream_p = s;
    return ZC_OK;
}

ZC_EXTERN void zc_stream_destroy(zc_stream *s)
{
    if (s == NULL)
        return;
    zc__stream_free(s);
}

ZC_EXTERN zc_status zc_stream_buffers(const zc_stream *s, uint32_t *count_p)
{
    ZC_REQUIRE_ARG(s);
    ZC_REQUIRE_ARG(count_p);
    *count_p = (uint32_t)s->n * s->lane[0].buffers;
    return ZC_OK;
}

static void zc__rates(double frames, double seconds, size_t words, double *fps_p, double *gbs_p)
{
    *fps_p = seconds > 0 ? frames / seconds : 0.0;
    *gbs_p = *fps_p * (double)words * sizeof(float) / 1e9;
}

ZC_EXTERN zc_status zc_stream_stats_get(zc_stream *s, zc_stream_stats *st)
{
    ZC_REQUIRE_ARG(s);
    ZC_REQUIRE_ARG(st);
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&s->produce_lock);
    pthread_mutex_lock(&s->take_lock);
    const int finished = s->flushed && s->staged == 0 && s->taken == s->sent;
    if (finished)
        zc__verify_finish(s);
    st->finished = finished;
    st->samples_in = s->samples_in;
    st->samples_dropped = s->samples_dropped;
    st->samples_padded = s->samples_padded;
    st->nonfinite = s->nonfinite;
    st->first_nonfinite = s->first_nonfinite;
    st->frames_submitted = s->sent;
    st->frames_received = s->taken;
    st->frames_dropped = s->frames_dropped;
    st->full_waits = s->full_waits;
    st->measured_offered = s->measured_offered;
    st->measured_dropped = s->measured_dropped;
    st->frames_measured = s->frames_measured;
    zc__latency_stats(&s->latency, &st->latency_us);
    st->latency_kept = s->latency.kept_count;
    zc__latency_histogram(&s->latency, st->histogram);
    if (s->frames_measured > 0 && s->last_result_ns > s->measure_start_ns)
        st->seconds = (double)(s->last_result_ns - s->measure_start_ns) / 1e9;
    if (st->seconds > 0) {
        st->frames_per_s = (double)s->frames_measured / st->seconds;
        st->samples_per_s = (double)s->measured_samples / st->seconds;
        st->gb_per_s = st->samples_per_s * (double)s->config.channels * sizeof(float) / 1e9;
    }
    st->verified = s->verified;
    st->max_rel_error = s->max_err;
    /* A stream that checked nothing has not passed a check: verified says which it is. */
    st->verify_passed = s->verified > 0 && s->max_err <= ZC_STREAM_VERIFY_TOLERANCE;
    st->lead_values = s->lead;
    st->lanes = s->n;
    for (size_t i = 0; i < s->n; i++) {
        const zc__lane *lane = &s->lane[i];
        zc_stream_lane_stats *ls = &st->lane[i];
        ls->device = lane->device;
        ls->gpu_blocks = lane->blocks;
        ls->buffers = lane->buffers;
        /* One lane is the whole stream: its figures are the stream's, recorded once. */
        const zc__latency *lat = s->n == 1 ? &s->latency : &lane->latency;
        ls->frames = lat->seen;
        zc__latency_stats(lat, &ls->latency_us);
        zc__rates((double)ls->frames, st->seconds, s->words, &ls->frames_per_s, &ls->gb_per_s);
    }
    pthread_mutex_unlock(&s->take_lock);
    pthread_mutex_unlock(&s->produce_lock);
    pthread_mutex_lock(&s->queue_lock);
    st->samples_out = s->samples_out;
    pthread_mutex_unlock(&s->queue_lock);
    return ZC_OK;
}
