/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hostcopy cure's row. Frameworks stage through pinned buffers of their own: CuPy's
 * cp.asarray copies the NumPy array into a pinned buffer, then sends that; JAX brings an array
 * back into a pinned buffer, then copies it into the NumPy array. The link moves the pinned
 * buffer at 50 GB/s and more, but the host copy beside it is one memcpy on one thread (10 GB/s
 * at best, a few GB/s into fresh pages), and it is most of the transfer's time. No CUDA call
 * shows it: the copy library's hooks (run_copy_hooks.c, preloaded only with this cure) ask the
 * table of cures about every large memcpy and memmove, and this row makes one whose source or
 * destination lies whole inside pinned memory the program holds (a block another row served or saw
 * made: page_locked) with the copying threads (run_workers.h), each taking a part of it. The bytes
 * are those memcpy would have written, all of them written before the call returns.
 * - Only ranges apart: overlapping ones (memmove's case) never reach the rows.
 * - It never waits for the threads: when another copy holds them (a staged CUDA copy, another
 *   thread's memcpy, or this thread's own, as in a signal handler), the caller copies alone, as
 *   it would have (hostcopy-busy).
 * - No CUDA call, and no lock waited for, its counts included (zc__run_count_nowait): a memcpy
 *   may run anywhere, in a signal handler that interrupted the library itself too.
 * Off by default (ZC_RUN_FIXES_DEFAULT): it replaces memcpy in the whole program.
 */
#include <stdint.h>

#include "run_config.h"
#include "run_counts.h"
#include "run_cures.h"
#include "run_workers.h"

static int zc__host_copy(void *dst, const void *src, size_t bytes)
{
    /* One copying thread (ZC_RUN_THREADS=1, or one CPU) is the caller alone: nothing to gain. */
    if (zc__run_config_get()->threads < 2)
        return 0;
    if (!zc__run_page_locked((uintptr_t)dst, bytes) && !zc__run_page_locked((uintptr_t)src, bytes))
        return 0;
    uint64_t start = zc__run_now_ns();
    if (!zc__run_parallel_copy_if_free(dst, src, bytes)) {
        zc__run_count_nowait(ZC_RUN_COUNTER_HOSTCOPY_BUSY, bytes, 0);
        return 0;
    }
    zc__run_count_nowait(ZC_RUN_COUNTER_HOSTCOPY_THREADS, bytes, zc__run_now_ns() - start);
    return 1;
}

static size_t zc__watch_copy(void)
{
    return zc__run_config_get()->hostcopy_bytes;
}

const zc__run_calls zc__cure_hostcopy_calls = {.host_copy = zc__host_copy,
                                               .watch_copy = zc__watch_copy};

/* ---- the lifecycle: it holds nothing ---- */

ZC__RUN_IGNORES(hostcopy, HOST_ALLOC)
ZC__RUN_IGNORES(hostcopy, HOST_FREE)
ZC__RUN_IGNORES(hostcopy, HOST_RESIZE)
ZC__RUN_IGNORES(hostcopy, RANGE_UNMAPPED)
ZC__RUN_IGNORES(hostcopy, RANGE_REPLACED)
ZC__RUN_IGNORES(hostcopy, PAGES_DISCARDED)
ZC__RUN_IGNORES(hostcopy, RANGE_REPROTECTED)
ZC__RUN_IGNORES(hostcopy, RANGE_IN_GRAPH)
ZC__RUN_IGNORES(hostcopy, RANGE_REGISTERED)
ZC__RUN_IGNORES(hostcopy, CONTEXT_GONE)
ZC__RUN_IGNORES(hostcopy, FORK_CALLED)
ZC__RUN_IGNORES(hostcopy, FORK_PREPARE)
ZC__RUN_IGNORES(hostcopy, FORK_PARENT)
ZC__RUN_IGNORES(hostcopy, FORK_CHILD)
ZC__RUN_IGNORES(hostcopy, EXIT)
