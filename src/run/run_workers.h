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
 * memcpy(dst, src, bytes) split over the configured threads, the caller's among them; returns
 * when every part is copied. Calls from several threads at once take turns. Without workers
 * (threads 1, or they could not be started) the caller copies alone.
 */
void zc__run_parallel_copy(void *dst, const void *src, size_t bytes);

/* rows rows of width bytes from src (a row every src_pitch bytes) to dst (every dst_pitch),
 * split by rows over the threads as above. */
void zc__run_parallel_copy_2d(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                              size_t width, size_t rows);

#endif
