/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: the register cure's pins, pageable buffers of the
 * program pinned in place (cuMemHostRegister) once they have been copied again and again, and
 * taken away before anything gives their pages back or changes them. */
#ifndef ZC_RUN_REGISTER_H
#define ZC_RUN_REGISTER_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#include "run_counts.h"
#include "run_driver.h"

/* A pin held by a copy that uses it (so that the bound never unpins it under the copy). */
typedef struct zc__run_pin_use {
    int slot; /* -1: none */
} zc__run_pin_use;

/*
 * Whether [host, host + bytes) lies inside a buffer pinned in place in context ctx. If so the
 * pin is held in *use until zc__run_pin_done, and the copy goes straight to the driver, which
 * sees page-locked memory. Costs one atomic load while nothing is pinned.
 */
int zc__run_pin_covers(const void *host, size_t bytes, CUcontext ctx, zc__run_pin_use *use);

void zc__run_pin_done(zc__run_pin_use *use);

/*
 * A pageable copy of bytes from or to host (cure-eligible: big enough, device side sound) in
 * context ctx: counted towards its allocation, and the allocation pinned in place when it has
 * been copied twice its size over. 1 when the range is pinned now (held in *use, the time spent
 * pinning in *pin_ns); 0 when the copy goes another way.
 */
int zc__run_pin_consider(const zc__run_driver *d, const void *host, size_t bytes, CUcontext ctx,
                         zc__run_pin_use *use, uint64_t *pin_ns);

/* The end of [start, start + length), UINTPTR_MAX for a range that runs past the last address. */
static inline uintptr_t zc__run_range_end(uintptr_t start, size_t length)
{
    return start + length < start ? UINTPTR_MAX : start + length;
}

/* Whether any pin touches [start, start + length): one atomic load while nothing is pinned. */
int zc__run_pins_touching(uintptr_t start, size_t length);

/* What becomes of an allocation whose pin is taken away. */
typedef enum zc__after_drop {
    ZC__GONE_WITH_IT, /* the allocation is being released: nothing to tell the tracker */
    ZC__PIN_AGAIN,    /* it lives on and may be pinned again (the bound, its context going,
                         its pages given back) */
    ZC__NEVER_AGAIN   /* it lives on and must stay as the program made it (a graph names it,
                         the program registers it itself, changes its protection) */
} zc__after_drop;

/*
 * Take every pin touching [start, start + length) out of the table at once, so that no copy uses
 * it again, and unpin it: here when now is set (the caller may call CUDA), else through the
 * deferred queue (run_deferred.h). Gives how many were taken.
 */
unsigned zc__run_pins_take(uintptr_t start, size_t length, zc__after_drop after, int now);

/* Before a context goes (ctx, or every context of device when ctx is NULL): its pins are
 * unpinned now, with it current. */
void zc__run_pins_forget(CUcontext ctx, CUdevice device);

/* At exit: every pin no copy is using now is unpinned (one in use belongs to a thread still
 * copying while the process ends, and goes with the process). */
void zc__run_pins_forget_all(void);

/* A forked child's pins are its parent's: forgotten without a driver call. */
void zc__run_pins_after_fork(void);

#endif
