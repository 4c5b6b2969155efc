/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: a copy's fresh destination pages faulted in over the
 * copying threads (run_workers.h), ahead of the copy that writes them. The fresh cure's work
 * (run_cure_fresh.c), done by it for a whole copy or by the pageable cure's staging window by
 * window (run_copy.c). */
#ifndef ZC_RUN_FAULT_IN_H
#define ZC_RUN_FAULT_IN_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

/*
 * Fault in the pages of [host, host + bytes) with every copying thread: a compare-and-swap of
 * one byte of each page with itself (core/page_touch.h), so no byte changes; whole 2 MiB
 * regions to a thread where each gets one, so that no two threads fault within one. Gives the
 * nanoseconds it took.
 */
uint64_t zc__run_fault_in(const void *host, size_t bytes);

#endif
