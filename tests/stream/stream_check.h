/* SPDX-License-Identifier: Apache-2.0 */
/* What the streaming engine's tests share: a test signal, pushing it through a stream in pieces
 * of given sizes, and the whole output against the reference. */
#ifndef ZC_TEST_STREAM_CHECK_H
#define ZC_TEST_STREAM_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/stream.h"

/* values of a signal in (-1, 1) after halo zeros (the history before it), seeded. Free it. */
float *stream_check_signal(size_t values, size_t halo, uint64_t seed);

/*
 * Push samples of x (channels values each) in pieces of the given sizes (cycled), pulling what
 * is ready after each, then flush and pull the rest into out (room for samples + 1). Fails the
 * test on any failure; gives the samples pulled.
 */
size_t stream_check_run(zc_stream *s, const float *x, size_t samples, size_t channels,
                        const size_t *pieces, size_t npieces, float *out);

/*
 * The same from two threads: this one pushes x in pieces of 1 to max_piece samples (changing
 * sizes) and flushes, while a second one pulls, up to pull_max samples a call, into out (room for
 * samples + pull_max). Fails the test on any failure; gives the samples pulled.
 */
size_t stream_check_two_threads(zc_stream *s, const float *x, size_t samples, size_t max_piece,
                                size_t pull_max, float *out);

/* The output against zc_fir_reference over the whole signal (signal starts with its halo):
 * max |error| / (sum |h| x 1.0). */
double stream_check_error(const float *taps, size_t ntaps, const float *signal, size_t halo,
                          size_t samples, size_t channels, const float *out);

/*
 * Whether a mode is left out under compute-sanitizer, said on stderr when it is: hybrid, with
 * either protocol. The sanitizer runs kernels and copies one at a time, and hybrid's copy of
 * each result is queued behind a stream wait while the ring's persistent kernel runs: it did not
 * finish under memcheck, FLAG frames on the H200 (400 frames, two calls, 2026-12-04) and both
 * protocols on an H100 (300 frames within 30 s each, 2026-12-06, where every other mode took
 * 1 s). Without the sanitizer every test runs it; left out so that it does not hide what the
 * sanitizer says of the others.
 */
int stream_check_sanitizer_skips(zc_stream_mode mode, zc_ring_protocol protocol);

#endif
