/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's large host copies into or out of pinned memory it allocated. Frameworks stage
 * through pinned buffers of their own (CuPy's cp.asarray copies the NumPy array into one, JAX
 * brings arrays back through them): every CUDA copy is then pinned and fast, and the time goes
 * into a memcpy on one thread that no CUDA call shows. zc trace preloads the copy library
 * (core/copy_observe.h), which tells this file of every copy of ZC__HOST_COPY_FROM bytes or
 * more; those whose destination or source lies in a pinned allocation the program made are
 * logged as "hostcopy" calls (trace_record.h).
 */
#include "trace_inject.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

#include "core/copy_observe.h"

/* Smaller copies cost little beside a transfer's own; the copies that matter are the arrays'. */
#define ZC__HOST_COPY_FROM ((size_t)1 << 20)

/* Set by zc trace when it did not preload the copy library: why, for the note. */
#define ZC__COPY_HOOKS_ABSENT_ENV "ZC_TRACE_COPY_HOOKS_ABSENT"

/* How often a lock held elsewhere is tried again before the record is given up: the holders
 * keep it for one line, but the holder may be the very thread a signal handler interrupted. */
#define ZC__TRIES 1000

static uint64_t zc__unlogged; /* copies given up that way */

/* The allocation holding address: 1 (its pointer in *host_p), 0 none, -1 the lock stayed held. */
static int zc__holder(const void *address, uint64_t *host_p)
{
    for (int tries = 0; tries < ZC__TRIES; tries++) {
        int found = zc__trace_ranges_try_holder((uint64_t)(uintptr_t)address, host_p);
        if (found >= 0)
            return found;
        sched_yield();
    }
    return -1;
}

static int zc__log(const zc_trace_api *record)
{
    for (int tries = 0; tries < ZC__TRIES; tries++) {
        int locked = 0;
        FILE *log = zc__trace_writer_trylock(&locked);
        if (locked) {
            if (log != NULL)
                zc__trace_write_api(log, record);
            zc__trace_writer_unlock();
            return 1;
        }
        sched_yield();
    }
    return 0;
}

/* The pointer is the pinned destination's allocation, else the pinned source's. */
static void zc__seen(void *dst, const void *src, size_t bytes, uint64_t ns)
{
    uint64_t into = 0, out_of = 0;
    int d = zc__holder(dst, &into), s = zc__holder(src, &out_of);
    if (d == 0 && s == 0)
        return;
    uint64_t end = 0;
    cuptiGetTimestamp(&end);
    zc_trace_api record = {
        .call = ZC_TRACE_CALL_HOSTCOPY,
        .bytes = bytes,
        .flags = (d > 0 ? ZC_TRACE_HOSTCOPY_INTO : 0u) | (s > 0 ? ZC_TRACE_HOSTCOPY_OUT_OF : 0u),
        .pointer = d > 0 ? into : out_of,
        .start = end > ns ? end - ns : 0,
        .end = end,
        .ok = 1,
    };
    if (d < 0 || s < 0 || !zc__log(&record))
        __atomic_fetch_add(&zc__unlogged, 1, __ATOMIC_RELAXED);
}

void zc__trace_host_copies_start(void)
{
    zc__copy_observe_fn observe =
        (zc__copy_observe_fn)(uintptr_t)dlsym(RTLD_DEFAULT, ZC__COPY_OBSERVE_SYMBOL);
    if (observe != NULL && observe(ZC__HOST_COPY_FROM, zc__seen) == 0)
        return;
    const char *why = getenv(ZC__COPY_HOOKS_ABSENT_ENV);
    char text[200];
    snprintf(text, sizeof text, "host copies into and out of pinned memory not seen: %s",
             why != NULL && why[0] != '\0'
                 ? why
                 : "the copy library is not in the process (the program or a parent dropped "
                   "LD_PRELOAD)");
    zc__trace_note("host_copies_unseen", text);
}

void zc__trace_host_copies_note(void)
{
    uint64_t lost = __atomic_load_n(&zc__unlogged, __ATOMIC_RELAXED);
    if (lost == 0)
        return;
    char text[200];
    snprintf(text, sizeof text,
             "%llu host copies of 1 MiB or more could not be checked against the pinned "
             "allocations or logged: those or the log were held by the thread they interrupted",
             (unsigned long long)lost);
    zc__trace_note("host_copies_unlogged", text);
}
