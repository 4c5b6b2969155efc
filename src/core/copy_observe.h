/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal: how zc trace's injection library hears of a program's large host copies. The copy
 * library (libzerocopy_run_copy.so, src/run/run_copy_hooks.c) replaces memcpy and memmove when
 * it is preloaded; it exports ZC__COPY_OBSERVE_SYMBOL, which the injection library finds with
 * dlsym once CUDA loads it, and calls with an observer: from then on every copy of at least
 * `from` bytes between ranges apart is timed and handed to the observer after it is made. The
 * two libraries link to nothing of each other's; this header is all they share.
 */
#ifndef ZC_CORE_COPY_OBSERVE_H
#define ZC_CORE_COPY_OBSERVE_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#define ZC__COPY_OBSERVE_SYMBOL "zc_copy_hooks_observe"

/* A copy made: its ranges and how long it took (ns, CLOCK_MONOTONIC). Called on the copying
 * thread, inside its memcpy, so it must not wait for a lock the program may hold. */
typedef void (*zc__copy_seen_fn)(void *dst, const void *src, size_t bytes, uint64_t ns);

/* Arm the observer (one at a time: the last one armed is called); 0, or -1 when from is 0 or
 * seen is NULL. */
typedef int (*zc__copy_observe_fn)(size_t from, zc__copy_seen_fn seen);

/* Defined by the copy library alone; anything else finds it with dlsym, by the name above. */
int zc_copy_hooks_observe(size_t from, zc__copy_seen_fn seen);

#endif
