/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the interposition library: the pages of the fast pinning cure, without CUDA.
 * Fresh private memory mapped on huge-page boundaries, its pages faulted in by several threads
 * (what the memory itself costs), and the same memory turned shared at a fork, as the driver's
 * pinned memory is. Measured on the H100 machine at 16 GiB (bench/results/h100-20261206b):
 * first touch by 16 threads 0.025 s/GiB with transparent huge pages, 0.065 with 4 KiB pages;
 * the driver's cudaHostAlloc 0.42.
 */
#ifndef ZC_RUN_FAST_PAGES_H
#define ZC_RUN_FAST_PAGES_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

/* The bytes a block of `bytes` takes: a whole number of pages, of huge pages from one huge
 * page up (never a power of two); 0 when the rounding overflows. */
size_t zc__fast_length(size_t bytes);

/* Map length bytes (from zc__fast_length) of fresh private anonymous memory, huge-page aligned
 * and advised huge from one huge page up. NULL (errno set) when the system refuses. */
void *zc__fast_map(size_t length);

/* Give back what zc__fast_map mapped (the kernel's munmap: no event for the other rows). */
void zc__fast_unmap(void *base, size_t length);

/* Fault in every page of [base, base + length) from up to `threads` threads (the caller one of
 * them) without changing a byte: each page gets a compare-and-swap of a byte with itself, a
 * write as far as the kernel goes. Only for writable memory. */
void zc__fast_touch(void *base, size_t length, unsigned threads);

/* Replace the private mapping [base, base + length) by a shared one holding the same bytes at
 * the same address, copied by the copying threads (zc__run_parallel_copy): a child forked later
 * shares it, as it shares the driver's pinned memory. The memory must not be registered with
 * the driver while this runs. 0 when done; -1 (errno set, the private mapping as it was) when
 * not. */
int zc__fast_share(void *base, size_t length);

/* Whether every byte of [start, start + length) is private anonymous memory the process may
 * write (its mappings as /proc/self/maps lists them): only such memory is faulted in for a
 * program's own registration. 0 for anything else (a file, shared memory, a page it may not
 * write, a hole), or when the list cannot be read. */
int zc__fast_anon_writable(const void *start, size_t length);

#endif
