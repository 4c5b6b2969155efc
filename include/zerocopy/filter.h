/* SPDX-License-Identifier: Apache-2.0 */
/* One frame transport of a streaming FIR filter (zc_filter: eight ways of moving frames through
 * the filter, one frame at a time), and the FIR pieces around it: design, the double-precision
 * reference, the error measure and a synthetic signal. zc_stream (stream.h) builds on it. */
#ifndef ZEROCOPY_FILTER_H
#define ZEROCOPY_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/export.h"
#include "zerocopy/ring.h"
#include "zerocopy/ring_budget.h"
#include "zerocopy/status.h"

/* How frames reach the GPU and results come back (or, for cpu, stay on the host). */
typedef enum zc_stream_mode {
    ZC_STREAM_ZEROCOPY = 0,         /* persistent kernel polling a mapped-memory ring */
    ZC_STREAM_MAPPED_LAUNCH = 1,    /* one kernel launch per frame, reading and writing mapped
                                       memory, then an event synchronisation */
    ZC_STREAM_CLASSIC_PAGEABLE = 2, /* malloc + cudaMemcpy + launch + cudaMemcpy */
    ZC_STREAM_CLASSIC_PINNED = 3,   /* pinned + cudaMemcpyAsync + launch + cudaMemcpyAsync + sync */
    ZC_STREAM_GRAPH = 4,            /* a CUDA graph of copy, kernel, copy, launched per frame */
    ZC_STREAM_CPU = 5,              /* the filter on the host: no GPU, the pipeline's baseline */
    ZC_STREAM_CLASSIC_OVERLAP = 6,  /* pinned copies and kernels of consecutive frames on three
                                       streams, so that copy-in, kernel and copy-out overlap */
    ZC_STREAM_STREAM_WAIT = 7,      /* no persistent kernel: each frame's kernel is queued ahead
                                       behind a stream wait on a word the CPU stores in mapped
                                       memory (cuStreamWaitValue64); ZC_ERR_UNSUPPORTED where
                                       the device lacks 64-bit stream memory operations */
    ZC_STREAM_HYBRID = 8,           /* the zerocopy mode's persistent kernel reads frames from
                                       the mapped ring through the SMs; its results leave by the
                                       copy engine into pinned memory (ZC_RING_RESULTS_COPY), so
                                       the two directions ride two engines; ZC_ERR_UNSUPPORTED
                                       where the device lacks 64-bit stream memory operations */
#ifdef ZC_PLANT_STREAM_MODE
    ZC_STREAM_PLANTED, /* tests/stream: a mode without its row in src/stream must not build */
#endif
    ZC_STREAM_MODE_END /* one past the last mode */
} zc_stream_mode;

/* Every mode has one row in the library's table (src/stream/stream_modes.c), which the name,
 * help, transport and properties of a mode come from; a mode added here without its row fails
 * to build. */
#define ZC_STREAM_MODE_COUNT ((int)ZC_STREAM_MODE_END)

/* A mode's properties (zc_stream_mode_flags). */
#define ZC_STREAM_MODE_ON_GPU 0x1u /* runs on a GPU (every mode but cpu) */
#define ZC_STREAM_MODE_ON_RING                                                                     \
    0x2u                                 /* a persistent kernel on a frame ring: takes a ring      \
                                            protocol and can keep a time budget */
#define ZC_STREAM_MODE_RESULTS_COPY 0x4u /* results leave by the copy engine (hybrid) */
#define ZC_STREAM_MODE_MEMOPS                                                                      \
    0x8u /* needs 64-bit stream memory operations: refused with                                    \
            ZC_ERR_UNSUPPORTED where the device lacks them */

/* The most taps a filter may have. */
#define ZC_FIR_MAX_TAPS 1024

typedef struct zc_filter_config {
    int device; /* CUDA device number (cpu: not used) */
    zc_stream_mode mode;
    size_t frame_samples;       /* samples per channel per frame */
    size_t channels;            /* 1: real; 2: complex (I and Q interleaved), filtered apart */
    const float *taps;          /* ntaps coefficients, copied at create */
    size_t ntaps;               /* 1..ZC_FIR_MAX_TAPS, and ntaps - 1 <= frame_samples */
    uint32_t in_flight;         /* frames submitted and not yet received, at most (1..1024) */
    zc_ring_protocol protocol;  /* zerocopy: FLAG or LL */
    zc_ring_full_policy policy; /* zerocopy: when the GPU falls behind, wait or drop */
    uint32_t gpu_blocks;        /* zerocopy: persistent blocks (0: one per 256 values of a
                                   frame, samples x channels, up to half the SMs) */
    uint64_t timeout_ns;        /* longest wait of any call (default 2 s) */
    uint64_t watchdog_ns;       /* zerocopy: kernel ends when the host is silent this long */
    uint64_t budget_frames;     /* zerocopy: keep the time budget of the first budget_frames
                                   frames (zc_filter_budget); 0: none. Other modes: refused */
} zc_filter_config;

/* Counters of one filter. */
typedef struct zc_filter_counters {
    uint64_t submitted;
    uint64_t received;
    uint64_t dropped;    /* frames refused under the drop policy */
    uint64_t full_waits; /* submits that found the GPU behind and waited */
} zc_filter_counters;

typedef struct zc_filter zc_filter;

/* A synthetic signal: tones plus uniform noise, real (1 channel) or complex (2: I and Q). */
#define ZC_SYNTH_MAX_TONES 8
typedef struct zc_synth {
    size_t channels;
    int tones;
    double amplitude; /* of each tone */
    double noise;
    double re[ZC_SYNTH_MAX_TONES], im[ZC_SYNTH_MAX_TONES]; /* each tone's phasor */
    double step_re[ZC_SYNTH_MAX_TONES], step_im[ZC_SYNTH_MAX_TONES];
    uint64_t state; /* the noise generator's */
    uint64_t count; /* samples made so far */
} zc_synth;

ZC_BEGIN_DECLS

/* "zerocopy", "mapped-launch", "classic-pageable", "classic-pinned", "graph", "cpu",
 * "classic-overlap", "stream-wait", "hybrid". */
ZC_EXTERN const char *zc_stream_mode_name(zc_stream_mode mode);

/* Whether a mode runs a persistent kernel on a frame ring (zerocopy, hybrid): such a mode
 * takes a ring protocol (zc_stream_config.protocol) and can keep a time budget. */
ZC_EXTERN int zc_stream_mode_on_ring(zc_stream_mode mode);

/* The mode named name (as zc_stream_mode_name gives it). */
ZC_EXTERN zc_status zc_stream_mode_parse(const char *name, zc_stream_mode *mode_p);

/* What the mode does, in a few lines of text ('\n' between them) for a help screen; "" for an
 * unknown mode. */
ZC_EXTERN const char *zc_stream_mode_help(zc_stream_mode mode);

/* The mode's ZC_STREAM_MODE_* properties; 0 for an unknown mode. */
ZC_EXTERN unsigned zc_stream_mode_flags(zc_stream_mode mode);

/*
 * The name of one run of a mode, as zc stream's results and zc advise name them: a mode on a
 * ring with its protocol ("zerocopy-ll", "hybrid-flag"), any other mode by its own name
 * ("classic-pinned"). Written into out (size bytes, NUL-terminated); ZC_ERR_INVALID_ARG for an
 * unknown mode or protocol, ZC_ERR_OVERFLOW when it does not fit.
 */
ZC_EXTERN zc_status zc_stream_run_name(zc_stream_mode mode, zc_ring_protocol protocol, char *out,
                                       size_t size);

/* The mode and protocol of a run's name (zc_stream_run_name's inverse; a mode off the ring
 * gives ZC_RING_PROTO_FLAG, the zero value, as its protocol, which it does not use).
 * ZC_ERR_PARSE for a name that is none. */
ZC_EXTERN zc_status zc_stream_run_parse(const char *name, zc_stream_mode *mode_p,
                                        zc_ring_protocol *protocol_p);

/*
 * A low-pass FIR by the windowed-sinc method (Blackman window), cutoff as a fraction of the
 * sample rate (0 < cutoff < 0.5), normalised to a DC gain of 1. Writes ntaps taps.
 */
ZC_EXTERN zc_status zc_fir_design_lowpass(double cutoff, size_t ntaps, float *taps);

/*
 * The reference: y[n] = sum_k h[k] x[n - k] per channel, in double precision, for one frame
 * of frame_samples * channels interleaved values, given the (ntaps - 1) * channels values that
 * came before it (history, oldest first; zeros at the start of a stream).
 */
ZC_EXTERN zc_status zc_fir_reference(const float *taps, size_t ntaps, size_t channels,
                                     const float *history, const float *frame, size_t frame_samples,
                                     double *out);

/*
 * How far a result is from the reference: max |got - ref| divided by the largest output the
 * filter could give for this input, sum |h| * max |x|. That scale keeps the figure meaningful
 * when the output is near zero, as it is in a filter's stop band. The part of each difference
 * that flushing subnormals to zero could make (a few FLT_MIN, scaled by the taps and the input)
 * is not counted, so that subnormal input is not reported as wrong. count values.
 */
ZC_EXTERN double zc_fir_error(const double *ref, const float *got, size_t count, const float *taps,
                              size_t ntaps, double max_abs_input);

/*
 * Start a signal of `count` tones (Hz, each below rate / 2) plus noise of amplitude noise, at
 * rate samples per second; the sum's peak stays within 1 + noise. Same arguments, same signal.
 */
ZC_EXTERN zc_status zc_synth_init(zc_synth *synth, double rate, const double *tones, int count,
                                  double noise, size_t channels);

/* The next samples * channels values (interleaved when complex). */
ZC_EXTERN void zc_synth_fill(zc_synth *synth, float *out, size_t samples);

/* Defaults: device 0, zerocopy, 1024 samples, 1 channel, in_flight 1, LL, wait, timeout 2 s,
 * watchdog 1 s; taps NULL (the caller sets them). */
ZC_EXTERN void zc_filter_config_init(zc_filter_config *config);

/* Check a configuration without touching a GPU. */
ZC_EXTERN zc_status zc_filter_config_check(const zc_filter_config *config);

/* Set up the mode's buffers, kernels and (zerocopy) the ring and its running kernel. The cpu
 * mode makes no CUDA call at all, so it runs on machines without a GPU or driver. */
ZC_EXTERN zc_status zc_filter_create(const zc_filter_config *config, zc_filter **filter_p);

/* Stop the kernel (zerocopy) and free everything. Accepts NULL. */
ZC_EXTERN void zc_filter_destroy(zc_filter *filter);

/*
 * The buffer for the next frame (frame_samples * channels floats), to fill and publish: the
 * mapped ring slot itself (zerocopy FLAG), the ring's staging frame (zerocopy LL, encoded at
 * publish), or the mode's host buffer (pinned, mapped or malloc'd; cpu: malloc'd, filtered at
 * publish). A buffer keeps what was
 * written into it until it is written again; zc_filter_buffers says how many there are, in
 * turn. With in_flight frames outstanding: ZC_ERR_STATE under the wait policy (take a result
 * first), ZC_ERR_DROPPED, counted, under the drop policy. Zerocopy: when the GPU is behind,
 * waits up to timeout_ns or drops, as the policy says.
 */
ZC_EXTERN zc_status zc_filter_acquire(zc_filter *filter, float **frame_p);

/* Send the acquired frame through the mode's path; *seq_p (may be NULL) gets its number. */
ZC_EXTERN zc_status zc_filter_publish(zc_filter *filter, uint64_t *seq_p);

/* Acquire, copy frame in, publish. */
ZC_EXTERN zc_status zc_filter_submit(zc_filter *filter, const float *frame, uint64_t *seq_p);

/*
 * Wait up to timeout_ns for the oldest outstanding result; *result_p points at it until
 * zc_filter_result_release. ZC_ERR_TIMEOUT when it is not there in time (timeout 0: a poll,
 * without detail); ZC_ERR_KERNEL when the zerocopy kernel ended.
 */
ZC_EXTERN zc_status zc_filter_result_wait(zc_filter *filter, uint64_t timeout_ns,
                                          const float **result_p, uint64_t *seq_p);

ZC_EXTERN zc_status zc_filter_result_release(zc_filter *filter);

/* Wait for the oldest result, copy it into out, release it. */
ZC_EXTERN zc_status zc_filter_receive(zc_filter *filter, float *out, uint64_t timeout_ns,
                                      uint64_t *seq_p);

/* How many input buffers zc_filter_acquire hands out in turn (frame seq gets buffer
 * seq % count). A producer that fills each once can republish them unchanged. */
ZC_EXTERN zc_status zc_filter_buffers(const zc_filter *filter, uint32_t *count_p);

/* Frames submitted and not yet received. */
ZC_EXTERN zc_status zc_filter_outstanding(const zc_filter *filter, uint64_t *count_p);

ZC_EXTERN zc_status zc_filter_counters_get(const zc_filter *filter, zc_filter_counters *counters_p);

/*
 * The time budget of frames first_seq .. first_seq + count - 1 (zerocopy/ring_budget.h): each
 * step of each frame, from both sides' stamps. ZC_ERR_UNSUPPORTED unless the filter is zerocopy
 * and was created with budget_frames.
 */
ZC_EXTERN zc_status zc_filter_budget(zc_filter *filter, uint64_t first_seq, uint64_t count,
                                     zc_ring_budget *budget_p);

/* The persistent kernel's blocks (zerocopy), or the per-frame kernel's grid (other modes). */
ZC_EXTERN zc_status zc_filter_gpu_blocks(const zc_filter *filter, uint32_t *blocks_p);

ZC_END_DECLS

#endif
