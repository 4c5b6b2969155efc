/* SPDX-License-Identifier: Apache-2.0 */
/* The staging buffers per context (run_staging.h). */
#include "run_staging.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run_config.h"
#include "run_cures.h"
#include "run_driver.h"

/* Contexts with a staging of their own; a program with more copies the rest as it was. */
#define ZC__CONTEXTS 8

static pthread_mutex_t zc__table = PTHREAD_MUTEX_INITIALIZER;
static zc__run_staging zc__stagings[ZC__CONTEXTS];
static int zc__used[ZC__CONTEXTS];

/* The staging's mapping is made and unmade by the system calls themselves: the allocation hooks
 * would track it as the program's, and it is not. */
static void *zc__map(size_t bytes)
{
    void *p = (void *)syscall(SYS_mmap, NULL, bytes, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void zc__unmap(void *p, size_t bytes)
{
    (void)syscall(SYS_munmap, p, bytes);
}

/* Give back what a staging holds (the caller made its context current); errors are ignored: the
 * context is going, and the copy it served has returned already. */
static void zc__free(const zc__run_driver *d, zc__run_staging *s)
{
    for (unsigned i = 0; i < s->count; i++) {
        if (s->events[i] != NULL) {
            if (s->pending[i])
                (void)d->event_synchronize(s->events[i]);
            (void)d->event_destroy(s->events[i]);
        }
        if (s->buffers[i] != NULL && s->region == NULL)
            (void)d->mem_free_host(s->buffers[i]);
        s->events[i] = NULL;
        s->buffers[i] = NULL;
        s->pending[i] = 0;
    }
    if (s->region != NULL) {
        (void)d->mem_host_unregister(s->region);
        zc__unmap(s->region, s->region_bytes);
    }
    s->region = NULL;
    s->region_bytes = 0;
    s->count = 0;
}

/* The buffers as one mapping pinned in place: registering memory costs about a seventh of what
 * cuMemHostAlloc does for the same bytes (baseline/h200.md: 1 GiB in 59 ms against 409), and a
 * program's first cured copy waits for it. 0 when the mapping or its registration fails. */
static int zc__make_region(const zc__run_driver *d, zc__run_staging *s)
{
    size_t bytes = s->chunk_bytes * s->count;
    void *region = zc__map(bytes);
    if (region == NULL)
        return 0;
    if (d->mem_host_register(region, bytes, CU_MEMHOSTREGISTER_PORTABLE) != CUDA_SUCCESS) {
        zc__unmap(region, bytes);
        return 0;
    }
    s->region = region;
    s->region_bytes = bytes;
    for (unsigned i = 0; i < s->count; i++)
        s->buffers[i] = (char *)region + (size_t)i * s->chunk_bytes;
    return 1;
}

/* Buffers (portable pinned memory, through the driver's own entry points so that the pinning
 * cure never sees them) and events, in the current context. */
static int zc__make(const zc__run_driver *d, zc__run_staging *s, CUcontext ctx)
{
    const zc__run_config *c = zc__run_config_get();
    memset(s->buffers, 0, sizeof s->buffers);
    memset(s->events, 0, sizeof s->events);
    memset(s->pending, 0, sizeof s->pending);
    s->ctx = ctx;
    s->pid = (long)getpid();
    s->next = 0;
    s->chunk_bytes = c->chunk_bytes;
    s->count = c->staging_buffers;
    s->region = NULL;
    s->region_bytes = 0;
    if (d->ctx_get_device(&s->device) != CUDA_SUCCESS)
        return 0;
    /* Failing that, each buffer pinned on its own, as the driver allocates pinned memory. */
    int in_region = zc__make_region(d, s);
    for (unsigned i = 0; i < s->count; i++) {
        if ((!in_region && d->mem_host_alloc(&s->buffers[i], s->chunk_bytes,
                                             CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS) ||
            d->event_create(&s->events[i], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
            zc__free(d, s);
            return 0;
        }
    }
    return 1;
}

zc__run_staging *zc__run_staging_acquire(CUcontext ctx)
{
    const zc__run_driver *d = zc__run_driver_get();
    if (d == NULL || ctx == NULL)
        return NULL;
    long pid = (long)getpid();
    pthread_mutex_lock(&zc__table);
    zc__run_staging *found = NULL;
    for (int i = 0; i < ZC__CONTEXTS && found == NULL; i++) {
        /* A forked child's table is its parent's: those buffers are not its own. */
        if (zc__used[i] && zc__stagings[i].pid != pid)
            zc__used[i] = 0;
        if (zc__used[i] && zc__stagings[i].ctx == ctx)
            found = &zc__stagings[i];
    }
    for (int i = 0; i < ZC__CONTEXTS && found == NULL; i++) {
        if (!zc__used[i]) {
            pthread_mutex_init(&zc__stagings[i].lock, NULL);
            CUstreamCaptureMode mode = zc__run_relax(d);
            int made = zc__make(d, &zc__stagings[i], ctx);
            zc__run_unrelax(d, mode);
            if (!made)
                break;
            zc__used[i] = 1;
            found = &zc__stagings[i];
            zc__run_exit_arm();
        }
    }
    pthread_mutex_unlock(&zc__table);
    if (found != NULL)
        pthread_mutex_lock(&found->lock);
    return found;
}

void zc__run_staging_release(zc__run_staging *s)
{
    pthread_mutex_unlock(&s->lock);
}

CUresult zc__run_staging_wait(zc__run_staging *s, unsigned i)
{
    if (!s->pending[i])
        return CUDA_SUCCESS;
    CUresult r = zc__run_driver_get()->event_synchronize(s->events[i]);
    if (r == CUDA_SUCCESS)
        s->pending[i] = 0;
    return r;
}

/* zc__free for zc__run_in_context. */
static void zc__free_staging(void *staging)
{
    const zc__run_driver *d = zc__run_driver_get();
    CUstreamCaptureMode mode = zc__run_relax(d);
    zc__free(d, staging);
    zc__run_unrelax(d, mode);
}

/* Give back staging i (a used entry of this process; caller holds the table), its lock held. */
static void zc__forget_locked(const zc__run_driver *d, int i)
{
    zc__run_staging *s = &zc__stagings[i];
    zc__run_in_context(d, s->ctx, zc__free_staging, s);
    pthread_mutex_unlock(&s->lock);
    zc__used[i] = 0;
}

/* Give back the stagings of ctx (every context of device when ctx is NULL; every one when all
 * is set). Once the process exits, only a staging no copy is using: one in use belongs to a
 * thread still copying as the process ends (waiting for it could wait on the driver's teardown
 * that the exiting thread holds), and goes with the process. */
static void zc__forget_matching(CUcontext ctx, CUdevice device, int all)
{
    const zc__run_driver *d = zc__run_driver_get();
    if (d == NULL)
        return;
    long pid = (long)getpid();
    const int idle_only = zc__run_exiting();
    pthread_mutex_lock(&zc__table);
    for (int i = 0; i < ZC__CONTEXTS; i++) {
        zc__run_staging *s = &zc__stagings[i];
        if (!zc__used[i] || s->pid != pid ||
            (!all && (ctx != NULL ? s->ctx != ctx : s->device != device)))
            continue;
        if (idle_only ? pthread_mutex_trylock(&s->lock) != 0 : pthread_mutex_lock(&s->lock) != 0)
            continue;
        zc__forget_locked(d, i);
    }
    pthread_mutex_unlock(&zc__table);
}

void zc__run_staging_forget_idle(void)
{
    zc__forget_matching(NULL, 0, 1);
}

void zc__run_staging_after_fork(void)
{
    pthread_mutex_init(&zc__table, NULL);
    for (int i = 0; i < ZC__CONTEXTS; i++)
        zc__used[i] = 0;
}

void zc__run_staging_forget(CUcontext ctx, CUdevice device)
{
    zc__forget_matching(ctx, device, 0);
}
