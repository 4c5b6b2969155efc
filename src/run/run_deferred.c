/* SPDX-License-Identifier: Apache-2.0 */
/* The deferred unpins and releases (run_deferred.h): a ring under one lock, worked in order. */
#include "run_deferred.h"

#include <pthread.h>
#include <string.h>

#include "run_counts.h"
#include "run_driver.h"

/* At most one unpin per pin (run_register.c holds 256) and one release per unpin. */
#define ZC__DEFERRED 1024

typedef struct zc__item {
    void *start;
    size_t length;
    CUcontext ctx;                    /* an unpin: its context */
    zc__run_deferred_release release; /* a release, or NULL for an unpin */
} zc__item;

static pthread_mutex_t zc__lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t zc__work = PTHREAD_COND_INITIALIZER; /* an item was queued */
static pthread_cond_t zc__idle = PTHREAD_COND_INITIALIZER; /* an item was done */
static zc__item zc__ring[ZC__DEFERRED];
static size_t zc__head, zc__tail; /* items [head, tail) wait */
static unsigned zc__pending;      /* queued or being done: one atomic load to skip a drain */
static int zc__thread_started;
static int zc__forked; /* in a forked child: releases only */

/* The unregistration itself, with this thread's capture mode relaxed, so that it never
 * invalidates a stream capture another thread has under way (for zc__run_in_context). */
static void zc__unregister_relaxed(void *start)
{
    const zc__run_driver *d = zc__run_driver_get();
    CUstreamCaptureMode mode = zc__run_relax(d);
    (void)d->mem_host_unregister(start);
    zc__run_unrelax(d, mode);
}

/* Unpin with the pin's context current, and count it. */
static void zc__unpin(const zc__item *it)
{
    const zc__run_driver *d = zc__run_driver_get();
    if (d == NULL || zc__forked)
        return;
    uint64_t start = zc__run_now_ns();
    zc__run_in_context(d, it->ctx, zc__unregister_relaxed, it->start);
    zc__run_count(ZC_RUN_COUNTER_REGISTER_UNPIN, it->length, zc__run_now_ns() - start, 0,
                  ZC_RUN_PRICED_NONE);
}

static void zc__do(const zc__item *it)
{
    if (it->release != NULL)
        it->release(it->start, it->length);
    else
        zc__unpin(it);
}

/* Take the next item (caller holds the lock); 0 when none. */
static int zc__take(zc__item *it)
{
    if (zc__head == zc__tail)
        return 0;
    *it = zc__ring[zc__head++ % ZC__DEFERRED];
    return 1;
}

/* One item done (called without the lock). */
static void zc__done(void)
{
    pthread_mutex_lock(&zc__lock);
    __atomic_sub_fetch(&zc__pending, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&zc__idle);
    pthread_mutex_unlock(&zc__lock);
}

static void zc__push(const zc__item *it)
{
    pthread_mutex_lock(&zc__lock);
    /* Full: impossible while pins are bounded as they are; do the oldest here rather than lose
     * one (an unpin from an allocation hook is then the rare exception). */
    while (zc__tail - zc__head == ZC__DEFERRED) {
        zc__item oldest;
        zc__take(&oldest);
        pthread_mutex_unlock(&zc__lock);
        zc__do(&oldest);
        zc__done();
        pthread_mutex_lock(&zc__lock);
    }
    zc__ring[zc__tail++ % ZC__DEFERRED] = *it;
    __atomic_add_fetch(&zc__pending, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&zc__work);
    pthread_mutex_unlock(&zc__lock);
}

void zc__run_deferred_unpin(void *base, size_t size, CUcontext ctx)
{
    zc__item it = {base, size, ctx, NULL};
    zc__push(&it);
}

void zc__run_deferred_release_later(zc__run_deferred_release release, void *start, size_t length)
{
    zc__item it = {start, length, NULL, release};
    zc__push(&it);
}

void zc__run_deferred_drain(void)
{
    if (__atomic_load_n(&zc__pending, __ATOMIC_ACQUIRE) == 0)
        return;
    pthread_mutex_lock(&zc__lock);
    for (;;) {
        zc__item it;
        if (zc__take(&it)) {
            pthread_mutex_unlock(&zc__lock);
            zc__do(&it);
            zc__done();
            pthread_mutex_lock(&zc__lock);
            continue;
        }
        /* What the thread is doing now must be done before the caller goes on. */
        if (zc__pending == 0)
            break;
        pthread_cond_wait(&zc__idle, &zc__lock);
    }
    pthread_mutex_unlock(&zc__lock);
}

static void *zc__worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&zc__lock);
    for (;;) {
        zc__item it;
        while (!zc__take(&it))
            pthread_cond_wait(&zc__work, &zc__lock);
        pthread_mutex_unlock(&zc__lock);
        zc__do(&it);
        zc__done();
        pthread_mutex_lock(&zc__lock);
    }
    return NULL;
}

void zc__run_deferred_start(void)
{
    pthread_mutex_lock(&zc__lock);
    int start = !zc__thread_started && !zc__forked;
    zc__thread_started = 1;
    pthread_mutex_unlock(&zc__lock);
    if (!start)
        return;
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, zc__worker, NULL) != 0) {
        /* No thread: the hooks and the exit drain the queue. */
        pthread_mutex_lock(&zc__lock);
        zc__thread_started = 0;
        pthread_mutex_unlock(&zc__lock);
    }
    pthread_attr_destroy(&attr);
}

void zc__run_deferred_after_fork(void)
{
    pthread_mutex_init(&zc__lock, NULL);
    pthread_cond_init(&zc__work, NULL);
    pthread_cond_init(&zc__idle, NULL);
    zc__forked = 1;
    zc__thread_started = 1; /* never started in the child: CUDA is unusable there */
    /* Items the parent's thread was doing are the parent's; the child does the rest, releases
     * only. */
    zc__pending = (unsigned)(zc__tail - zc__head);
}
