/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library and the copy library: the C library's memcpy and
 * memmove, past the copy library's replacements of them (run_copy_hooks.c). */
#ifndef ZC_RUN_LIBC_COPY_H
#define ZC_RUN_LIBC_COPY_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

/*
 * Where the copy library is preloaded, the interposition library's own calls of memcpy reach
 * the replacement as the program's do. A copy made on behalf of the replacement (the copying
 * threads' parts of a copy it hands them), and every copy the replacement passes on, calls these
 * instead, so that it can never come back into it.
 */
void *zc__run_libc_memcpy(void *dst, const void *src, size_t bytes);
void *zc__run_libc_memmove(void *dst, const void *src, size_t bytes);

#endif
