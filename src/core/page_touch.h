/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: faulting fresh pages in from several threads while the caller registers them. */
#ifndef ZC_CORE_PAGE_TOUCH_H
#define ZC_CORE_PAGE_TOUCH_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

/*
 * Fault every page of [base, base + length) in (writable memory only) from up to threads
 * threads of their own without changing a byte, 2 MiB at a time in ascending address order,
 * and run beside(arg) on the caller's thread once they are a few steps ahead; the touching
 * stops when beside returns. Returns beside's result.
 *
 * Why: the driver's registration pins a range's pages in ascending order, and what it costs
 * beyond the first touch of fresh pages is the walk itself; begun behind threads that are
 * faulting the pages in, it pins pages that are already there, and the two overlap instead of
 * following each other. A page the touching has not reached when the walk gets there is
 * faulted by the walk, as it would have been without the threads.
 *
 * With threads 0, or none that could start, every page is touched on the caller's thread
 * before beside runs; with base NULL nothing is touched and beside runs alone.
 */
int zc__touch_beside(void *base, size_t length, unsigned threads, int (*beside)(void *arg),
                     void *arg);

/*
 * Fault every page of [base, base + length) in on the calling thread without changing a byte:
 * a compare-and-swap of one byte of each page with itself, a write as far as the kernel goes
 * (atomic: a byte another thread writes meanwhile keeps that thread's value). Only for memory
 * the caller could write. One write fault a page: several times faster than
 * MADV_POPULATE_WRITE from the same threads on the H100 machine.
 */
void zc__touch_pages(void *base, size_t length);

#endif
