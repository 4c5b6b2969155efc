/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The copy library (libzerocopy_run_copy.so): the program's memcpy and memmove, replaced so that
 * a large host copy into or out of pinned memory can be asked of the interposition library's
 * table of cures (run_cures.h, host_copy): a framework that stages through pinned buffers of its
 * own (CuPy's cp.asarray, JAX's transfers back) copies between them and the program's arrays
 * with one memcpy on one thread, at a fraction of what the link carries. It is preloaded after
 * the interposition library, and only when the hostcopy cure is on (run_copy_entry.c says why);
 * it finds the library's two entry points as it loads, and without them, or while no row asks
 * (zc_run_preload_copy_watch), every call goes straight to the C library's own copy at the cost
 * of one comparison. Overlapping ranges (memmove's reason to be, and memcpy's undefined case)
 * always go to the C library as they were.
 */
#include "run_libc_copy.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define ZC__EXPORT __attribute__((visibility("default")))

typedef size_t (*zc__watch_fn)(void);
typedef int (*zc__host_copy_fn)(void *dst, const void *src, size_t bytes);

/* The interposition library's entry point, found by the constructor. */
static zc__host_copy_fn zc__host_copy;

/* The smallest copy asked of it; SIZE_MAX (none) until the constructor arms the hooks. */
static size_t zc__from = SIZE_MAX;

static int zc__overlap(const void *dst, const void *src, size_t bytes)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    return d < s ? s - d < bytes : d - s < bytes;
}

/* Whether a cure made the copy; only large copies of ranges apart are asked. */
static int zc__cured(void *dst, const void *src, size_t bytes)
{
    return bytes >= __atomic_load_n(&zc__from, __ATOMIC_ACQUIRE) && !zc__overlap(dst, src, bytes) &&
           zc__host_copy(dst, src, bytes);
}

ZC__EXPORT void *memcpy(void *restrict dst, const void *restrict src, size_t bytes)
{
    if (zc__cured(dst, src, bytes))
        return dst;
    return zc__run_libc_memcpy(dst, src, bytes);
}

ZC__EXPORT void *memmove(void *dst, const void *src, size_t bytes)
{
    if (zc__cured(dst, src, bytes))
        return dst;
    return zc__run_libc_memmove(dst, src, bytes);
}

/* Armed once the interposition library is found and a row whose cure is on asks. */
__attribute__((constructor)) static void zc__copy_hooks_init(void)
{
    zc__watch_fn watch = (zc__watch_fn)dlsym(RTLD_DEFAULT, "zc_run_preload_copy_watch");
    zc__host_copy = (zc__host_copy_fn)dlsym(RTLD_DEFAULT, "zc_run_preload_host_copy");
    size_t from = watch != NULL && zc__host_copy != NULL ? watch() : 0;
    if (from != 0)
        __atomic_store_n(&zc__from, from, __ATOMIC_RELEASE);
}
