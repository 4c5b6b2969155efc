/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: the pinned staging buffers of each context, each with
 * the event that says when the copy engine is done with it. */
#ifndef ZC_RUN_STAGING_H
#define ZC_RUN_STAGING_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <pthread.h>

#define ZC__RUN_STAGING_MAX 16

typedef struct zc__run_staging {
    CUcontext ctx;
    CUdevice device;
    long pid;
    unsigned count;
    size_t chunk_bytes;
    void *region; /* the buffers' one mapping, registered, or NULL: each its own alloc */
    size_t region_bytes;
    void *buffers[ZC__RUN_STAGING_MAX];
    CUevent events[ZC__RUN_STAGING_MAX];
    int pending[ZC__RUN_STAGING_MAX]; /* an event recorded and not yet waited for */
    unsigned next;                    /* the buffer to use next, round robin */
    pthread_mutex_t lock;
} zc__run_staging;

/* The staging of the current context ctx, locked for the caller; made on first use. NULL when
 * it cannot be made (too many contexts, pinning or an event failed): the copy goes as it was. */
zc__run_staging *zc__run_staging_acquire(CUcontext ctx);

void zc__run_staging_release(zc__run_staging *s);

/* Wait until buffer i is free (its copy done): the driver's status. */
CUresult zc__run_staging_wait(zc__run_staging *s, unsigned i);

/* Before a context goes (ctx, or every context of device when ctx is NULL): its staging is
 * waited for and given back, so that nothing of ours outlives it. */
void zc__run_staging_forget(CUcontext ctx, CUdevice device);

/* At exit: every staging no copy is using is given back. */
void zc__run_staging_forget_idle(void);

/* A forked child's stagings are its parent's: forgotten without a driver call. */
void zc__run_staging_after_fork(void);

#endif
