/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: anonymous page mappings for pageable and fast-pinned buffers, and page touching. */
#ifndef ZC_MEM_PAGES_H
#define ZC_MEM_PAGES_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include "zerocopy/status.h"

/* Huge-page size that mappings of at least this size are aligned to (transparent huge pages
 * can then back them, which makes touching and pinning cheaper). */
#define ZC__HUGE_PAGE ((size_t)2 << 20)

/* Buffers at least this large are touched by several threads. */
#define ZC__TOUCH_THREADS_MIN ((size_t)64 << 20)

/* At most this many threads touch one buffer when the count is picked by size. */
#define ZC__TOUCH_THREADS_MAX 8

/* At most this many threads touch one buffer when the caller names the count (the pinning
 * floor touches with every core). */
#define ZC__TOUCH_THREADS_LIMIT 256

/*
 * Map len bytes (a multiple of the page size) of anonymous private memory; with huge set and
 * len at least a huge page, the start is aligned to ZC__HUGE_PAGE and MADV_HUGEPAGE asked for
 * (advice only: ignored where transparent huge pages are off). zc__pages_unmap takes *base_p
 * and len.
 */
zc_status zc__pages_map(const char *fn, size_t len, int huge, void **base_p);

/* Unmap what zc__pages_map gave. */
zc_status zc__pages_unmap(void *base, size_t len);

/*
 * Write one byte in every page of [base, base + len) so that the kernel backs it with memory
 * now (registration then only has to pin resident pages). threads: 0 picks by size (at most
 * ZC__TOUCH_THREADS_MAX), 1 touches on the calling thread, more: that many, at most one per
 * huge page of the range and ZC__TOUCH_THREADS_LIMIT.
 */
void zc__pages_touch(void *base, size_t len, unsigned threads);

/* How many threads fault len fresh bytes in beside the caller's registration of them
 * (core/page_touch.h): none below ZC__TOUCH_THREADS_MIN, else one for every CPU the process
 * may run on but the caller's, which registers; the floor the pinned path is held to is every
 * core touching (zc bench's pinning family). */
unsigned zc__pages_touch_threads(size_t len);

#endif
