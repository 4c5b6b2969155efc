/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the copy library (libzerocopy_run_copy.so, run_copy_hooks.c) asks of this one: the two
 * entry points, besides the hooks, that this library exports. The copy library is preloaded
 * beside it only when the hostcopy cure is on (zc run does so): replacing memcpy costs every
 * call of it in the program a little (about 1.5 ns), which no program pays for a cure it did
 * not ask for.
 */
#include <stddef.h>

#include "run_cures.h"

#define ZC__EXPORT __attribute__((visibility("default")))

ZC__EXPORT size_t zc_run_preload_copy_watch(void);
ZC__EXPORT int zc_run_preload_host_copy(void *dst, const void *src, size_t bytes);

/* The smallest host copy a row whose cure is on asks about; 0 when none. */
size_t zc_run_preload_copy_watch(void)
{
    return zc__run_copy_watch();
}

/* 1 when a row made the copy, else 0 (the caller makes it with the C library). */
int zc_run_preload_host_copy(void *dst, const void *src, size_t bytes)
{
    return zc__run_host_copy(dst, src, bytes);
}
