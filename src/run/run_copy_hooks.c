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
 * zc trace preloads it too, alone, to hear of the program's large host copies: its injection
 * library arms an observer (core/copy_observe.h) that is told of each one once it is made,
 * cured or not, with its time.
 */
#include "run_libc_copy.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "core/copy_observe.h"

#define ZC__EXPORT __attribute__((visibility("default")))

typedef size_t (*zc__watch_fn)(void);
typedef int (*zc__host_copy_fn)(void *dst, const void *src, size_t bytes);

/* The interposition library's entry point, found by the constructor. */
static zc__host_copy_fn zc__host_copy;

/* The smallest copy the cures are asked of (SIZE_MAX: none, until the constructor arms them);
 * the observer and the smallest copy it hears of (SIZE_MAX: none armed); the smaller of the two,
 * which every call is compared with first. */
static size_t zc__cure_from = SIZE_MAX;
static zc__copy_seen_fn zc__seen;
static size_t zc__seen_from = SIZE_MAX;
static size_t zc__from = SIZE_MAX;

static int zc__overlap(const void *dst, const void *src, size_t bytes)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    return d < s ? s - d < bytes : d - s < bytes;
}

static uint64_t zc__now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

typedef void *(*zc__libc_copy_fn)(void *dst, const void *src, size_t bytes);

/* A large copy of ranges apart: made by a cure when one takes it, else by the C library, and
 * told to the observer when one is armed for its size. */
static void zc__large_copy(void *dst, const void *src, size_t bytes, zc__libc_copy_fn libc)
{
    zc__copy_seen_fn seen = NULL;
    if (bytes >= __atomic_load_n(&zc__seen_from, __ATOMIC_ACQUIRE))
        seen = __atomic_load_n(&zc__seen, __ATOMIC_ACQUIRE);
    uint64_t start = seen != NULL ? zc__now_ns() : 0;
    if (bytes < __atomic_load_n(&zc__cure_from, __ATOMIC_ACQUIRE) ||
        !zc__host_copy(dst, src, bytes))
        libc(dst, src, bytes);
    if (seen != NULL)
        seen(dst, src, bytes, zc__now_ns() - start);
}

/* Only large copies of ranges apart are asked of the cures and told to the observer. */
static int zc__large(const void *dst, const void *src, size_t bytes)
{
    return bytes >= __atomic_load_n(&zc__from, __ATOMIC_ACQUIRE) && !zc__overlap(dst, src, bytes);
}

ZC__EXPORT void *memcpy(void *restrict dst, const void *restrict src, size_t bytes)
{
    if (!zc__large(dst, src, bytes))
        return zc__run_libc_memcpy(dst, src, bytes);
    zc__large_copy(dst, src, bytes, zc__run_libc_memcpy);
    return dst;
}

ZC__EXPORT void *memmove(void *dst, const void *src, size_t bytes)
{
    if (!zc__large(dst, src, bytes))
        return zc__run_libc_memmove(dst, src, bytes);
    zc__large_copy(dst, src, bytes, zc__run_libc_memmove);
    return dst;
}

/* The smallest size either the cures or the observer ask for, as the one bound every call is
 * compared with. The two arm at different times (the cures as the library loads, the observer
 * when CUDA starts), so a lost race is all but impossible: a few tries are plenty. */
static void zc__lower_from(size_t from)
{
    size_t now = __atomic_load_n(&zc__from, __ATOMIC_ACQUIRE);
    for (int tries = 0; tries < 64 && from < now; tries++) {
        if (__atomic_compare_exchange_n(&zc__from, &now, from, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return;
    }
}

ZC__EXPORT int zc_copy_hooks_observe(size_t from, zc__copy_seen_fn seen)
{
    if (from == 0 || seen == NULL)
        return -1;
    __atomic_store_n(&zc__seen, seen, __ATOMIC_RELEASE);
    __atomic_store_n(&zc__seen_from, from, __ATOMIC_RELEASE);
    zc__lower_from(from);
    return 0;
}

/* Armed once the interposition library is found and a row whose cure is on asks. */
__attribute__((constructor)) static void zc__copy_hooks_init(void)
{
    zc__watch_fn watch = (zc__watch_fn)dlsym(RTLD_DEFAULT, "zc_run_preload_copy_watch");
    zc__host_copy = (zc__host_copy_fn)dlsym(RTLD_DEFAULT, "zc_run_preload_host_copy");
    size_t from = watch != NULL && zc__host_copy != NULL ? watch() : 0;
    if (from == 0)
        return;
    __atomic_store_n(&zc__cure_from, from, __ATOMIC_RELEASE);
    zc__lower_from(from);
}
