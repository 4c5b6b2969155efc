/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the interposition library: the register cure's unpins that wait for a place where
 * CUDA may be called. A buffer pinned in place that the program frees, unmaps or changes is
 * taken out of the pin table at once, inside the hook (so nothing is copied through it again),
 * and its cuMemHostUnregister queued here, with the release itself when the hook let the cure
 * take it over (free, munmap): the memory then goes back only after it is unpinned, so its
 * addresses are never handed out again while the driver still has them registered. The queue is
 * worked by a thread of its own, off the program's threads (a free never waits behind the GPU),
 * and drained by every hook that may hand the driver a host pointer before it does so.
 */
#ifndef ZC_RUN_DEFERRED_H
#define ZC_RUN_DEFERRED_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

/* A release a hook handed over (free, munmap), made once the unpins queued before it are done. */
typedef void (*zc__run_deferred_release)(void *start, size_t length);

/* Queue the unpin of [base, base + size) in ctx; a pinned size counted as it is unpinned. */
void zc__run_deferred_unpin(void *base, size_t size, CUcontext ctx);

/* Queue a release, made after every unpin queued before it. */
void zc__run_deferred_release_later(zc__run_deferred_release release, void *start, size_t length);

/* Do every queued unpin and release now, and wait for those the thread is doing: called where
 * CUDA may be called, before the driver is handed a host pointer. One atomic load when the
 * queue is empty. */
void zc__run_deferred_drain(void);

/* Start the thread that works the queue (from a driver entry point's hook, the first time a
 * buffer is pinned); without it the queue is drained by the hooks and at exit. */
void zc__run_deferred_start(void);

/* A forked child: the pins are its parent's (its copy of the memory is not registered), so its
 * queued releases are made without unpinning, and no thread works the queue. */
void zc__run_deferred_after_fork(void);

#endif
