/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: the register cure's pins, pageable buffers of the
 * program pinned in place (cuMemHostRegister) once they have been copied again and again, and
 * unpinned before anything gives their pages back. */
#ifndef ZC_RUN_REGISTER_H
#define ZC_RUN_REGISTER_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: DESIGN.md's layers (src/CMakeLists.txt)"
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

/*
 * Unpin every pin that touches [start, start + length): the allocation behind it is being
 * freed, unmapped or remapped (run_track.c, run_alloc_hooks.c calls it). Safe from any thread
 * and from inside free: it holds no lock while it calls the driver.
 */
void zc__run_pins_drop(uintptr_t start, size_t length);

/* The end of [start, start + length), UINTPTR_MAX for a range that runs past the last address. */
static inline uintptr_t zc__run_range_end(uintptr_t start, size_t length)
{
    return start + length < start ? UINTPTR_MAX : start + length;
}

/* Whether any pin touches [start, start + length): one atomic load while nothing is pinned. */
int zc__run_pins_touching(uintptr_t start, size_t length);

/* Unpin every pin touching [start, start + length) for good: the program uses the buffer in a
 * way that must see it as it was (a graph, a registration of its own). */
void zc__run_pins_refuse(uintptr_t start, size_t length);

/* Before a context goes (ctx, or every context of device when ctx is NULL; every one at exit):
 * its pins are unpinned with it current. */
void zc__run_pins_forget(CUcontext ctx, CUdevice device);
void zc__run_pins_forget_all(void);

/* A forked child's pins are its parent's: forgotten without a driver call. */
void zc__run_pins_after_fork(void);

#endif
