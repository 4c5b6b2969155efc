/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: host threads that copy one buffer together, because
 * one thread fills memory far slower than the link drains it. */
#ifndef ZC_RUN_WORKERS_H
#define ZC_RUN_WORKERS_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

/*
 * memcpy(dst, src, bytes) cut in parts that the configured threads take as they come free, the
 * caller's among them; returns when every part is copied, having waited only for parts another
 * thread is copying. Calls from several threads at once take turns. Without workers (threads
 * 1, or they could not be started) the caller copies alone.
 */
void zc__run_parallel_copy(void *dst, const void *src, size_t bytes);

/* The same, only if no other copy holds the threads: 1 when copied, 0 (nothing done) when they
 * are busy, where zc__run_parallel_copy would wait its turn. For a caller that must not wait
 * (a memcpy, which may run in a signal handler or under this thread's own turn). */
int zc__run_parallel_copy_if_free(void *dst, const void *src, size_t bytes);

/* rows rows of width bytes from src (a row every src_pitch bytes) to dst (every dst_pitch),
 * split by rows over the threads as above. */
void zc__run_parallel_copy_2d(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                              size_t width, size_t rows);

/*
 * fn(arg, part, parts) for every part of a job that is not a copy, over the same threads and
 * taking turns with the copies: parts is the number of threads (1 when work, the bytes it
 * touches, is below what the threads pay for, or there are no workers), and fn is called once
 * for each part from 0 to parts - 1, on whichever thread takes it, the caller's included.
 * Returns when every part is done.
 */
void zc__run_parallel_each(void (*fn)(void *arg, unsigned part, unsigned parts), void *arg,
                           size_t work);

#endif
