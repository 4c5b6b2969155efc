/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's memcpy and memmove, replaced so that a large host copy into or out of pinned
 * memory can be asked of the table of cures (run_cures.h, host_copy): a framework that stages
 * through pinned buffers of its own (CuPy's cp.asarray, JAX's transfers back) copies between
 * them and the program's arrays with one memcpy on one thread, at a fraction of what the link
 * carries. Every other call goes straight to the C library's own, at the cost of one comparison:
 * until the constructor arms the hooks (the hostcopy cure on), the threshold is above any size.
 *
 * Overlapping ranges (memmove's reason to be, and memcpy's undefined case) always go to the C
 * library as they were.
 */
#include "run_libc_copy.h"

#include <stdint.h>
#include <string.h>

#include "run_cures.h"

#define ZC__EXPORT __attribute__((visibility("default")))

/* The smallest copy asked of the cures; SIZE_MAX (none) until the constructor arms the hooks. */
static size_t zc__from = SIZE_MAX;

static int zc__overlap(const void *dst, const void *src, size_t bytes)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    return d < s ? s - d < bytes : d - s < bytes;
}

/* Whether a cure made the copy; only large copies of ranges apart are asked. */
static int zc__cured(void *dst, const void *src, size_t bytes)
{
    return bytes >= __atomic_load_n(&zc__from, __ATOMIC_RELAXED) && !zc__overlap(dst, src, bytes) &&
           zc__run_host_copy(dst, src, bytes);
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

/* Armed once the configuration can be read, and only when a row whose cure is on asks. */
__attribute__((constructor)) static void zc__copy_hooks_init(void)
{
    size_t watch = zc__run_copy_watch();
    if (watch != 0)
        __atomic_store_n(&zc__from, watch, __ATOMIC_RELAXED);
}
