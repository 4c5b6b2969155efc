/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the streaming engine's state, shared by its producer side (engine_push.c), its
 * result side (engine_take.c), its checks (engine_verify.c) and its latency records. */
#ifndef ZC_STREAM_ENGINE_INTERNAL_H
#define ZC_STREAM_ENGINE_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_stream)
#error "src/stream/ included from below stream: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <pthread.h>

#include "zerocopy/stream.h"

/* Latencies of one set of frames: exact min, max and sum; the histogram of all; the values
 * themselves up to a cap, then a uniform sample of them (reservoir), for the percentiles. */
typedef struct zc__latency {
    double *kept;
    size_t kept_count, kept_cap, kept_max;
    uint64_t seen;
    uint64_t rng;
    double min, max, sum;
    uint64_t histo[ZC_STREAM_HISTO_BINS];
} zc__latency;

void zc__latency_init(zc__latency *l, size_t kept_max, uint64_t seed);
/* Room for n values (at most kept_max) now, so that no realloc pauses a measured stream. */
void zc__latency_reserve(zc__latency *l, uint64_t n);
/* 0 when memory for the kept values ran out (the value still counts in the histogram). */
int zc__latency_add(zc__latency *l, double us);
/* Summarise into *stats_p (count 0 when nothing was seen). */
void zc__latency_stats(const zc__latency *l, zc_stats *stats_p);
void zc__latency_histogram(const zc__latency *l, zc_stream_histo_bin *bins);
void zc__latency_free(zc__latency *l);

/* One lane: a GPU's filter, or a host filter. */
typedef struct zc__lane {
    zc_filter *f;
    int device; /* -1: the host */
    uint32_t buffers, blocks;
    uint64_t sent;  /* frames given to it (producer) */
    uint64_t taken; /* its results taken (result side) */
    zc__latency latency;
} zc__lane;

/* What the engine remembers of a frame between its submission and its result. */
typedef struct zc__frame_rec {
    uint64_t t0;      /* clock when it entered its path */
    size_t valid;     /* real samples in it (frame_samples but for the last) */
    uint8_t measured; /* after warm-up */
    uint8_t check;    /* 0 none, 1 checked when it comes back, 2 a deferred record */
    size_t deferred;  /* check 2: the record's index */
    uint64_t deferred_m;
} zc__frame_rec;

/* A deferred check of VERIFY_SAMPLE: input, history and (once back) the result. */
typedef struct zc__deferred {
    uint64_t m; /* the frame's number among measured frames */
    int used, has_result;
    float *in, *hist, *res;
} zc__deferred;

struct zc_stream {
    zc_stream_config config;
    float taps[ZC_FIR_MAX_TAPS];
    int devices[ZC_STREAM_MAX_LANES];
    size_t n;
    zc__lane lane[ZC_STREAM_MAX_LANES];
    size_t words;      /* values of a frame: frame_samples x channels */
    size_t halo;       /* values of history the filter needs: (ntaps - 1) x channels */
    size_t lead;       /* values of the previous frame sent before each frame (0 for one lane) */
    size_t tail_len;   /* values kept of the stream's end: max(lead, halo) */
    size_t lane_words; /* values of a lane's frame: lead + words */
    uint32_t recs;     /* frame records: lanes x (in_flight + 1) */
    zc__frame_rec *rec;
    float *rec_in, *rec_hist; /* inline checks: recs x words, recs x halo */
    double *ref;              /* a frame of the reference */

    /* Lock order: produce, then take, then verify, then queue. Nothing waits for the GPU or
     * the other thread while holding verify or queue. */
    pthread_mutex_t produce_lock, take_lock, verify_lock, queue_lock;

    /* Producer side (produce_lock). */
    float *stage;     /* the frame being filled */
    size_t staged;    /* values in it */
    float *tail;      /* the last tail_len values of the frames sent (zeros before the first) */
    float *next_tail; /* the same once the frame being sent is out: made before its clock
                         starts, swapped in when it went out */
    uint64_t sent;    /* frames sent (atomic: read by the result side) */
    uint64_t offered;
    int flushed; /* atomic */
    int acquired;
    float *acquired_buf;
    uint64_t acquired_t0;
    uint64_t samples_in, samples_dropped, samples_padded, nonfinite, first_nonfinite;
    uint64_t frames_dropped, measured_offered, measured_dropped, full_waits;
    uint64_t measure_start_ns;
    int measure_started; /* atomic */
    uint64_t measured_sent;
    double inline_macs; /* VERIFY_SAMPLE: reference work planned for warm-up frames */

    /* Deferred checks of VERIFY_SAMPLE (verify_lock): filled by the producer, completed by the
     * result side, checked once the stream is finished. */
    zc__deferred *deferred;
    float *deferred_mem;
    size_t deferred_cap;
    uint64_t deferred_stride; /* every stride-th measured frame gets a record */
    int deferred_done;

    /* Result side (take_lock). */
    uint64_t taken; /* atomic: read by the producer and by pull */
    uint64_t last_result_ns;
    uint64_t frames_measured, measured_samples;
    zc__latency latency;
    uint64_t verified;
    double max_err;

    /* A lane that failed ends the stream; the other thread reports it too. */
    zc_status failed; /* atomic */
    char failed_detail[512];

    /* Output queue (queue_lock): whole samples, in order. */
    float *q;
    size_t q_cap, q_head, q_count, q_max; /* values */
    uint64_t samples_out;
};

/* Make the lane's GPU current on the calling thread (a no-op on the host). */
zc_status zc__lane_on(const zc__lane *lane);

/* Remember st (with the thread's last error) as the stream's failure, once; returns st. */
zc_status zc__stream_fail(zc_stream *s, zc_status st);
/* The stream's failure, re-raised on this thread with its detail; ZC_OK when none. */
zc_status zc__stream_failed(zc_stream *s, const char *fn);

/*
 * Take the stream's next result if it comes within timeout_ns (result side: take_lock held):
 * measure it, check it, queue its real samples. ZC_ERR_TIMEOUT without detail when it did not
 * come; ZC_ERR_NOT_FOUND when nothing is outstanding; ZC_ERR_NO_MEMORY without detail when the
 * queue has no room for it (nothing is taken: pull first).
 */
zc_status zc__take_next(zc_stream *s, uint64_t timeout_ns);

/* Checks (engine_verify.c). Set up the records' memory and budgets. */
zc_status zc__verify_setup(zc_stream *s);
/* At submission: decide how frame rec is checked and copy what the check needs (its input
 * body and the history before it, which is still in s->tail). */
void zc__verify_submit(zc_stream *s, zc__frame_rec *rec, uint32_t slot, const float *body);
/* When it comes back: check it now or keep its result for later. */
void zc__verify_result(zc_stream *s, const zc__frame_rec *rec, uint32_t slot, const float *body);
/* Once the stream is finished: the deferred checks (once). */
void zc__verify_finish(zc_stream *s);
void zc__verify_free(zc_stream *s);

#endif
