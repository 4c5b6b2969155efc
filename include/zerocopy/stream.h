/* SPDX-License-Identifier: Apache-2.0 */
/* The streaming engine: samples in, filtered samples out, in order and none lost, through one of
 * the frame transports of filter.h on 1..N GPUs (or on the host), with the latency of every
 * frame, throughput, drops and checks against the reference measured on the way. */
#ifndef ZEROCOPY_STREAM_H
#define ZEROCOPY_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/export.h"
#include "zerocopy/filter.h"
#include "zerocopy/stats.h"
#include "zerocopy/status.h"

/*
 * How it works. zc_stream_push takes any number of samples (interleaved when channels is 2) and
 * cuts them into frames of frame_samples; each whole frame goes to the next lane (one zc_filter
 * per GPU listed, frames dealt round-robin) as soon as it is complete. zc_stream_pull hands back
 * the filtered samples in the order they were pushed. zc_stream_flush ends the input: the partial
 * last frame is padded with zeros, filtered, and only its real samples come back, so the output
 * has exactly as many samples as the input. The filter is causal: output n depends on inputs
 * n - ntaps + 1 .. n (a linear-phase design delays the signal by (ntaps - 1) / 2 samples).
 *
 * Threads: one producer thread (push, flush, frame_acquire/publish) and one consumer thread
 * (pull) may call at once; zc_stream_stats_get from either. One thread may also do both: a push
 * that needs room for its frame moves finished results into the output queue itself.
 */

/* Lanes at most (GPUs, or host lanes of the cpu mode). */
#define ZC_STREAM_MAX_LANES 64

/* Latency histogram: bin i >= 1 is [0.25 x 2^(i/4), 0.25 x 2^((i+1)/4)) us, four bins per octave;
 * bin 0 starts at 0 and the last one is open. */
#define ZC_STREAM_HISTO_BINS 96

/* The largest zc_fir_error a checked result may show. */
#define ZC_STREAM_VERIFY_TOLERANCE 1e-5

/* Which results are checked against the double-precision reference (zc_fir_reference). */
typedef enum zc_stream_verify {
    ZC_STREAM_VERIFY_NONE = 0,
    ZC_STREAM_VERIFY_SAMPLE = 1, /* warm-up frames as they come back (up to 1.5e9 multiply-adds)
                                    and an evenly spread sample of the rest, copied aside and
                                    checked by zc_stream_stats_get once the stream is finished,
                                    so that the reference never slows the measured stream */
    ZC_STREAM_VERIFY_ALL = 2     /* every frame as it comes back (slows the stream) */
} zc_stream_verify;

/* What push does with a NaN or infinite sample. */
typedef enum zc_stream_nonfinite {
    ZC_STREAM_NONFINITE_REJECT = 0, /* refuse it: ZC_ERR_PARSE naming the sample and its frame;
                                       the samples before it are taken */
    ZC_STREAM_NONFINITE_ZERO = 1    /* filter it as 0 and count it (zc_stream_stats.nonfinite) */
} zc_stream_nonfinite;

typedef struct zc_stream_config {
    zc_stream_mode mode;
    zc_ring_protocol protocol;  /* zerocopy: LL or FLAG */
    zc_ring_full_policy policy; /* a frame that finds its lane full: wait (never lost), or drop
                                   it (counted; its samples do not come back) */
    const float *taps;          /* ntaps coefficients, copied at create */
    size_t ntaps;
    size_t frame_samples; /* samples per channel per frame */
    size_t channels;      /* 1 real, 2 complex (I/Q interleaved) */
    uint32_t in_flight;   /* frames outstanding per lane, 1..1024 */
    uint32_t gpu_blocks;  /* zerocopy: persistent blocks per GPU (0: the filter's default) */
    const int *devices;   /* device_count GPU numbers, frames round-robin over them; NULL or
                             0 devices: GPU 0 alone. cpu mode: device_count host lanes (the
                             numbers are not used), which exercises the N-lane path anywhere */
    size_t device_count;
    uint64_t timeout_ns;     /* longest wait of any call for the GPU or the other thread */
    uint64_t watchdog_ns;    /* zerocopy: the kernel ends when the host is silent this long */
    zc_stream_verify verify; /* default SAMPLE */
    zc_stream_nonfinite nonfinite;
    uint64_t warmup_frames;   /* the first frames are not measured (still filtered and output) */
    uint64_t expected_frames; /* a hint for VERIFY_SAMPLE's spread (0: unknown) */
    int discard_output;       /* results are measured and checked, then dropped: pull gives
                                 none (a benchmark of the path alone) */
    size_t queue_max_bytes;   /* output queue limit (0: 256 MiB); a full queue makes push wait
                                 for pull, up to timeout_ns */
    uint64_t budget_frames;   /* zerocopy on one GPU: keep the time budget of the first
                                 budget_frames measured frames (zc_stream_budget_get); 0: none */
} zc_stream_config;

/* One lane: a GPU (or a host lane). Rates are over the stream's measured span. */
typedef struct zc_stream_lane_stats {
    int device;          /* -1 for a host lane */
    uint32_t gpu_blocks; /* persistent blocks, or the per-frame kernel's grid; 0 on the host */
    uint32_t buffers;    /* transport buffers that cycle (zc_filter_buffers) */
    uint64_t frames;     /* measured frames */
    zc_stats latency_us; /* count 0 when none was measured */
    double frames_per_s, gb_per_s;
} zc_stream_lane_stats;

typedef struct zc_stream_histo_bin {
    double lo_us, hi_us; /* hi_us is INFINITY for the last bin */
    uint64_t count;
} zc_stream_histo_bin;

typedef struct zc_stream_stats {
    /* Samples per channel. in = out + dropped once the stream is finished and pulled. */
    uint64_t samples_in;      /* taken by push */
    uint64_t samples_out;     /* handed out by pull (or discarded with discard_output) */
    uint64_t samples_dropped; /* in frames dropped by the policy */
    uint64_t samples_padded;  /* zeros added to the last frame by flush (never output) */
    uint64_t nonfinite;       /* NaN or infinite values filtered as 0 (NONFINITE_ZERO) */
    uint64_t first_nonfinite; /* the sample index of the first of them, if any */
    /* Frames, all of them. */
    uint64_t frames_submitted, frames_received, frames_dropped, full_waits;
    /* Frames after warm-up: offered (submitted or dropped), dropped, measured (received). */
    uint64_t measured_offered, measured_dropped, frames_measured;
    zc_stats latency_us;   /* from just before a frame enters its path (copy, encode or
                              compute) to its whole result seen by the CPU; count 0: none */
    uint64_t latency_kept; /* latencies behind the percentiles: all of them, or a uniform
                              sample of them past 8 Mi frames (min, max, mean: all) */
    zc_stream_histo_bin histogram[ZC_STREAM_HISTO_BINS]; /* every measured frame */
    double seconds; /* first measured frame offered to the last measured result */
    double frames_per_s, samples_per_s, gb_per_s; /* GB of input, 1e9 bytes */
    uint64_t verified;                            /* frames checked so far */
    double max_rel_error; /* zc_fir_error's measure, worst of them (INFINITY for NaN) */
    int verify_passed;    /* 1 when a check ran and every one so far is within the tolerance
                             (0 when none ran: see verified) */
    int finished;         /* flushed, and every result taken */
    size_t lead_values;   /* values of the previous frame sent before each frame (N lanes) */
    size_t lanes;
    zc_stream_lane_stats lane[ZC_STREAM_MAX_LANES];
} zc_stream_stats;

typedef struct zc_stream zc_stream;

ZC_BEGIN_DECLS

/* Defaults: zerocopy LL on GPU 0, 1024 samples, 1 channel, 1 in flight, wait when full,
 * timeout 2 s, watchdog 1 s, sampled verification, non-finite samples refused; taps NULL. */
ZC_EXTERN void zc_stream_config_init(zc_stream_config *config);

/* Check a configuration without touching a GPU. */
ZC_EXTERN zc_status zc_stream_config_check(const zc_stream_config *config);

/* Create every lane (its GPU's filter, ring and kernel, or the host filter). */
ZC_EXTERN zc_status zc_stream_create(const zc_stream_config *config, zc_stream **stream_p);

/* Stop the kernels, free everything. Results not pulled are lost. Accepts NULL. */
ZC_EXTERN void zc_stream_destroy(zc_stream *stream);

/*
 * Take count samples (count x channels values). Whole frames are submitted as they fill. On any
 * failure *accepted_p (may be NULL) says how many samples were taken: push the rest again.
 * ZC_ERR_PARSE: a non-finite sample under NONFINITE_REJECT (accepted stops before it).
 * ZC_ERR_TIMEOUT: a lane was full for timeout_ns and its results could not be moved out (the GPU
 * is behind, or the output queue is full and nobody pulls). ZC_ERR_STATE after flush.
 */
ZC_EXTERN zc_status zc_stream_push(zc_stream *stream, const float *samples, size_t count,
                                   size_t *accepted_p);

/*
 * End of input: the partial frame (if any) is padded, submitted, and its real samples only come
 * back. Pushing after it is ZC_ERR_STATE. Calling it twice is harmless.
 */
ZC_EXTERN zc_status zc_stream_flush(zc_stream *stream);

/*
 * Up to max filtered samples (max x channels values) into out, in order; *got_p how many. Waits
 * up to timeout_ns for at least one (0: a poll, ZC_ERR_TIMEOUT without detail when none is
 * ready). ZC_ERR_NOT_FOUND once the stream is flushed and every sample was pulled (got 0).
 * ZC_ERR_KERNEL, ZC_ERR_CUDA: a lane failed; the samples before the failure were all handed out.
 */
ZC_EXTERN zc_status zc_stream_pull(zc_stream *stream, float *out, size_t max, uint64_t timeout_ns,
                                   size_t *got_p);

/*
 * The zero-copy way to push one whole frame: *frame_p gets the next frame's transport buffer
 * (frame_samples x channels values: the mapped ring slot under zerocopy FLAG), to fill and then
 * zc_stream_frame_publish. Only between frames (no partial frame pushed). Latency counts from
 * the moment the lane has room for it. Frames written in place are not scanned for non-finite
 * values. Under the drop policy a full lane gives ZC_ERR_DROPPED (counted).
 */
ZC_EXTERN zc_status zc_stream_frame_acquire(zc_stream *stream, float **frame_p);
ZC_EXTERN zc_status zc_stream_frame_publish(zc_stream *stream);

/* Distinct transport buffers over all lanes: the k-th frame published through frame_acquire
 * gets buffer k mod count, which keeps what was written into it until it is written again. */
ZC_EXTERN zc_status zc_stream_buffers(const zc_stream *stream, uint32_t *count_p);

/*
 * The time budget (zerocopy/ring_budget.h) of the measured frames kept (budget_frames from the
 * first after warm-up), as far as their results were taken: call it once the stream is pulled
 * dry. ZC_ERR_UNSUPPORTED when the stream keeps no budget.
 */
ZC_EXTERN zc_status zc_stream_budget_get(zc_stream *stream, zc_ring_budget *budget_p);

/* Statistics so far. Once the stream is finished, it first runs the deferred checks of
 * VERIFY_SAMPLE (once). */
ZC_EXTERN zc_status zc_stream_stats_get(zc_stream *stream, zc_stream_stats *stats_p);

ZC_END_DECLS

#endif
