/* SPDX-License-Identifier: Apache-2.0 */
/* The copying threads (run_workers.h). */
#include "run_workers.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "run_config.h"
#include "run_counts.h"

/* A worker that finished a part spins this long for the next one before it sleeps: a staged
 * copy hands out its chunks back to back, and waking a sleeping thread costs about as much as
 * copying 64 KiB; longer, the spinning threads slowed the program's own copies that followed
 * (256 KiB left as they were ran 20% slower beside them on the H200). */
#define ZC__SPIN_NS 50000ull

/* The caller spins this long for the workers' parts before it copies those nobody took. */
#define ZC__WAIT_SPIN_NS 2000000ull

/* Parts are cut on cache lines so that no two threads write one. */
#define ZC__ALIGN 64u

#define ZC__MAX_WORKERS 16

/* rows of width bytes, each at its pitch; one row of bytes for a plain copy, cut by bytes
 * then, by rows otherwise. A job that is not a copy is each(arg, part, parts) instead. */
typedef struct zc__job {
    char *dst;
    const char *src;
    size_t width, rows;
    size_t dst_pitch, src_pitch;
    void (*each)(void *arg, unsigned part, unsigned parts);
    void *arg;
    unsigned parts; /* the caller's part 0, the workers' 1..parts-1 */
} zc__job;

static pthread_mutex_t zc__turn = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static pthread_mutex_t zc__lock = PTHREAD_MUTEX_INITIALIZER; /* sleeping and waking */
static pthread_cond_t zc__job_posted = PTHREAD_COND_INITIALIZER;
static zc__job zc__current;             /* stable from its post until every part is done */
static _Atomic uint64_t zc__generation; /* the job's number: a new job each time it moves */
/* claimed[i]: the last job whose part i someone took. Whoever swaps the job's number in first
 * copies the part; the caller takes every part still free once it has waited a while, so that
 * no job depends on a worker being scheduled at all. */
static _Atomic uint64_t zc__claimed[ZC__MAX_WORKERS + 1];
static _Atomic unsigned zc__parts_done; /* parts 1..parts-1 copied, by anyone */
static unsigned zc__workers;            /* started */
static int zc__started;                 /* zc__workers is final */
static long zc__owner_pid;              /* the process whose threads they are */

static void zc__copy_part(const zc__job *job, unsigned part)
{
    if (job->each != NULL) {
        job->each(job->arg, part, job->parts);
        return;
    }
    if (job->rows == 1) {
        size_t bytes = job->width;
        size_t share =
            ((bytes + job->parts - 1) / job->parts + ZC__ALIGN - 1) / ZC__ALIGN * ZC__ALIGN;
        size_t start = (size_t)part * share;
        if (start >= bytes)
            return;
        size_t n = bytes - start < share ? bytes - start : share;
        memcpy(job->dst + start, job->src + start, n);
        return;
    }
    size_t share = (job->rows + job->parts - 1) / job->parts;
    for (size_t row = (size_t)part * share; row < job->rows && row < (size_t)(part + 1) * share;
         row++)
        memcpy(job->dst + row * job->dst_pitch, job->src + row * job->src_pitch, job->width);
}

/* Copy part of job number generation if nobody has taken it yet. Part numbers only move up: a
 * worker that woke for a job long done finds its part taken by a later one, and leaves it. */
static void zc__take(unsigned part, uint64_t generation)
{
    uint64_t taken = atomic_load_explicit(&zc__claimed[part], memory_order_acquire);
    do {
        if (taken >= generation)
            return;
    } while (!atomic_compare_exchange_weak_explicit(&zc__claimed[part], &taken, generation,
                                                    memory_order_acq_rel, memory_order_acquire));
    /* Taken: the job cannot end, nor the next be posted, before this part is counted. */
    zc__copy_part(&zc__current, part);
    atomic_fetch_add_explicit(&zc__parts_done, 1, memory_order_acq_rel);
}

static void *zc__worker(void *arg)
{
    unsigned index = (unsigned)(uintptr_t)arg; /* 1-based: part 0 is the caller's */
    uint64_t seen = 0;
    for (;;) {
        uint64_t until = zc__run_now_ns() + ZC__SPIN_NS;
        while (atomic_load_explicit(&zc__generation, memory_order_acquire) == seen &&
               zc__run_now_ns() < until)
            ;
        if (atomic_load_explicit(&zc__generation, memory_order_acquire) == seen) {
            pthread_mutex_lock(&zc__lock);
            while (atomic_load(&zc__generation) == seen)
                pthread_cond_wait(&zc__job_posted, &zc__lock);
            pthread_mutex_unlock(&zc__lock);
        }
        seen = atomic_load_explicit(&zc__generation, memory_order_acquire);
        zc__take(index, seen);
    }
    return NULL;
}

/* Start the workers once per process (caller holds zc__turn). Threads that cannot be created
 * leave fewer workers, never a failure: the caller copies what they would have. */
static void zc__start(void)
{
    long pid = (long)getpid();
    if (zc__started && zc__owner_pid == pid)
        return;
    zc__workers = 0;
    zc__started = 1;
    zc__owner_pid = pid;
    unsigned want = zc__run_config_get()->threads;
    for (unsigned i = 1; i < want && i <= ZC__MAX_WORKERS; i++) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int ok = pthread_create(&thread, &attr, zc__worker, (void *)(uintptr_t)i) == 0;
        pthread_attr_destroy(&attr);
        if (!ok)
            break;
        zc__workers++;
    }
}

/* A forked child has none of the parent's threads, and the locks may have been held by one of
 * them: it starts over (zc__start sees the new pid). */
static void zc__after_fork_child(void)
{
    pthread_mutex_init(&zc__turn, NULL);
    pthread_mutex_init(&zc__lock, NULL);
    pthread_cond_init(&zc__job_posted, NULL);
}

__attribute__((constructor)) static void zc__workers_init(void)
{
    pthread_atfork(NULL, NULL, zc__after_fork_child);
}

/* Run job over every thread, the caller's included. */
static void zc__run_job(zc__job job)
{
    /* Below a few pages the threads cost more than they save. */
    if (job.width * job.rows < (size_t)64 << 10) {
        job.parts = 1;
        zc__copy_part(&job, 0);
        return;
    }
    pthread_mutex_lock(&zc__turn);
    zc__start();
    if (zc__workers == 0) {
        pthread_mutex_unlock(&zc__turn);
        job.parts = 1;
        zc__copy_part(&job, 0);
        return;
    }
    job.parts = zc__workers + 1;
    zc__current = job;
    atomic_store_explicit(&zc__parts_done, 0, memory_order_relaxed);
    pthread_mutex_lock(&zc__lock);
    uint64_t generation = atomic_fetch_add_explicit(&zc__generation, 1, memory_order_release) + 1;
    pthread_cond_broadcast(&zc__job_posted);
    pthread_mutex_unlock(&zc__lock);
    zc__copy_part(&zc__current, 0);
    /* The workers' parts: a bounded spin for them, then the caller takes every part no worker
     * has started, and waits only for parts in the middle of a memcpy. */
    uint64_t until = zc__run_now_ns() + ZC__WAIT_SPIN_NS;
    while (atomic_load_explicit(&zc__parts_done, memory_order_acquire) < zc__workers &&
           zc__run_now_ns() < until)
        ;
    for (unsigned part = 1; part <= zc__workers; part++)
        zc__take(part, generation);
    while (atomic_load_explicit(&zc__parts_done, memory_order_acquire) < zc__workers)
        sched_yield();
    pthread_mutex_unlock(&zc__turn);
}

void zc__run_parallel_copy(void *dst, const void *src, size_t bytes)
{
    zc__run_job((zc__job){.dst = dst, .src = src, .width = bytes, .rows = 1});
}

void zc__run_parallel_copy_2d(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                              size_t width, size_t rows)
{
    if (rows == 0 || width == 0)
        return;
    if (rows == 1 || (dst_pitch == width && src_pitch == width)) {
        zc__run_parallel_copy(dst, src, width * rows); /* contiguous: cut by bytes */
        return;
    }
    zc__run_job((zc__job){.dst = dst,
                          .src = src,
                          .width = width,
                          .rows = rows,
                          .dst_pitch = dst_pitch,
                          .src_pitch = src_pitch});
}

void zc__run_parallel_each(void (*fn)(void *arg, unsigned part, unsigned parts), void *arg,
                           size_t work)
{
    zc__run_job((zc__job){.width = work, .rows = 1, .each = fn, .arg = arg});
}
