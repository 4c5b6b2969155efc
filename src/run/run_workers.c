/* SPDX-License-Identifier: Apache-2.0 */
/* The copying threads (run_workers.h). */
#include "run_workers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core/backoff.h"
#include "run_config.h"
#include "run_libc_copy.h"
#include "run_counts.h"

/* A worker that finished a part spins this long for the next one before it sleeps: a staged
 * copy hands out its chunks back to back, and waking a sleeping thread costs about as much as
 * copying 64 KiB; longer, the spinning threads slowed the program's own copies that followed
 * (256 KiB left as they were ran 20% slower beside them on the H200). */
#define ZC__SPIN_NS 50000ull

/* Parts are cut on cache lines so that no two threads write one. */
#define ZC__ALIGN 64u

#define ZC__MAX_WORKERS 16

/* A copy is cut in this many parts per thread, none below ZC__PART_MIN: the threads take parts
 * as they come free, so a thread the system schedules late, or a core busy with the program's
 * own spinning threads, costs a small part's time rather than a thread's share. Parts below
 * 64 KiB would gain nothing: waking a thread costs about as much as copying them. */
#define ZC__PARTS_PER_THREAD 4u
#define ZC__PART_MIN         ((size_t)64 << 10)

/* The claim word: the job's generation above, then its number of parts and the next part to
 * take, ZC__PART_BITS each. */
#define ZC__PART_BITS       8u
#define ZC__MAX_PARTS       ((1u << ZC__PART_BITS) - 1u)
#define ZC__GENERATION_MASK ((UINT64_C(1) << (64u - 2u * ZC__PART_BITS)) - 1u)

/* rows rows of width bytes, each at its pitch; one row of bytes for a plain copy, cut by bytes
 * then, by rows otherwise. A job that is not a copy is each(arg, part, parts) instead. */
typedef struct zc__job {
    char *dst;
    const char *src;
    size_t width, rows;
    size_t dst_pitch, src_pitch;
    void (*each)(void *arg, unsigned part, unsigned parts);
    void *arg;
    unsigned parts; /* taken in any order, by any thread, the caller's included */
} zc__job;

static pthread_mutex_t zc__turn = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static pthread_mutex_t zc__lock = PTHREAD_MUTEX_INITIALIZER; /* sleeping and waking */
static pthread_cond_t zc__job_posted = PTHREAD_COND_INITIALIZER;
static zc__job zc__current;             /* stable from its post until every part is done */
static _Atomic uint64_t zc__generation; /* the job's number: a new job each time it moves */
/* Whoever moves the claim word's next part up, checking the generation in the same
 * compare-and-swap, copies that part: a worker that woke for a job long done takes nothing of
 * a later one, and the caller takes parts with the workers, so that no job depends on a worker
 * being scheduled at all. */
static _Atomic uint64_t zc__claim_word;
static _Atomic unsigned zc__parts_done; /* parts copied, by anyone */
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
        zc__run_libc_memcpy(job->dst + start, job->src + start, n);
        return;
    }
    size_t share = (job->rows + job->parts - 1) / job->parts;
    for (size_t row = (size_t)part * share; row < job->rows && row < (size_t)(part + 1) * share;
         row++)
        zc__run_libc_memcpy(job->dst + row * job->dst_pitch, job->src + row * job->src_pitch,
                            job->width);
}

/* The next part of job generation, now taken by this thread; -1 when every part is taken or
 * the job is no longer that one. */
static int zc__claim(uint64_t generation)
{
    uint64_t word = atomic_load_explicit(&zc__claim_word, memory_order_acquire);
    for (;;) {
        unsigned next = (unsigned)(word & ZC__MAX_PARTS);
        unsigned parts = (unsigned)((word >> ZC__PART_BITS) & ZC__MAX_PARTS);
        if (word >> (2u * ZC__PART_BITS) != (generation & ZC__GENERATION_MASK) || next >= parts)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&zc__claim_word, &word, word + 1,
                                                  memory_order_acq_rel, memory_order_acquire))
            return (int)next;
    }
}

/* Copy parts of job generation until none is left to take. A part taken keeps the job from
 * ending, and the next from being posted, until it is counted. */
static void zc__take_parts(uint64_t generation)
{
    int part;
    while ((part = zc__claim(generation)) >= 0) {
        zc__copy_part(&zc__current, (unsigned)part);
        atomic_fetch_add_explicit(&zc__parts_done, 1, memory_order_acq_rel);
    }
}

static void *zc__worker(void *arg)
{
    (void)arg;
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
        zc__take_parts(seen);
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
        int ok = pthread_create(&thread, &attr, zc__worker, NULL) == 0;
        pthread_attr_destroy(&attr);
        if (!ok)
            break;
        zc__workers++;
    }
}

/* A forked child has none of the parent's threads, and the locks may have been held by one of
 * them, in the middle of a job: it starts over (zc__start sees the new pid) with no part of the
 * parent's job left to take. */
static void zc__after_fork_child(void)
{
    atomic_store_explicit(&zc__claim_word, 0, memory_order_relaxed); /* no part to take */
    pthread_mutex_init(&zc__turn, NULL);
    pthread_mutex_init(&zc__lock, NULL);
    pthread_cond_init(&zc__job_posted, NULL);
}

__attribute__((constructor)) static void zc__workers_init(void)
{
    pthread_atfork(NULL, NULL, zc__after_fork_child);
}

/* How many parts job is cut in: a part per thread for a job that is not a copy (its own
 * function cuts the work, in whole huge pages where it can), several for a copy. */
static unsigned zc__parts_of(const zc__job *job, unsigned threads)
{
    if (job->each != NULL)
        return threads;
    size_t parts = (size_t)threads * ZC__PARTS_PER_THREAD;
    size_t most = job->rows == 1 ? job->width / ZC__PART_MIN : job->rows;
    if (parts > most)
        parts = most;
    if (parts > ZC__MAX_PARTS)
        parts = ZC__MAX_PARTS;
    return parts < 1 ? 1u : (unsigned)parts;
}

/* Run job over every thread, the caller's included; when only_if_free, only if no other job
 * holds the threads (else 0, nothing done). 1 when done. */
static int zc__run_job(zc__job job, int only_if_free)
{
    /* Below a few pages the threads cost more than they save. */
    if (job.width * job.rows < (size_t)64 << 10) {
        job.parts = 1;
        zc__copy_part(&job, 0);
        return 1;
    }
    if (only_if_free) {
        if (pthread_mutex_trylock(&zc__turn) != 0)
            return 0;
    } else {
        pthread_mutex_lock(&zc__turn);
    }
    zc__start();
    if (zc__workers == 0) {
        pthread_mutex_unlock(&zc__turn);
        job.parts = 1;
        zc__copy_part(&job, 0);
        return 1;
    }
    job.parts = zc__parts_of(&job, zc__workers + 1);
    zc__current = job;
    atomic_store_explicit(&zc__parts_done, 0, memory_order_relaxed);
    pthread_mutex_lock(&zc__lock);
    uint64_t generation = atomic_load_explicit(&zc__generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&zc__claim_word,
                          (generation & ZC__GENERATION_MASK) << (2u * ZC__PART_BITS) |
                              (uint64_t)job.parts << ZC__PART_BITS,
                          memory_order_release);
    atomic_store_explicit(&zc__generation, generation, memory_order_release);
    pthread_cond_broadcast(&zc__job_posted);
    pthread_mutex_unlock(&zc__lock);
    /* The caller takes parts beside the workers, and waits only for parts in the middle of a
     * memcpy: spinning while that is short, then napping (core/backoff.h: a yield would give
     * the core straight back when every core is busy, and the worker it waits for starve). */
    zc__take_parts(generation);
    uint64_t waiting_since = zc__run_now_ns();
    while (atomic_load_explicit(&zc__parts_done, memory_order_acquire) < job.parts)
        zc__backoff(zc__run_now_ns() - waiting_since);
    pthread_mutex_unlock(&zc__turn);
    return 1;
}

void zc__run_parallel_copy(void *dst, const void *src, size_t bytes)
{
    (void)zc__run_job((zc__job){.dst = dst, .src = src, .width = bytes, .rows = 1}, 0);
}

int zc__run_parallel_copy_if_free(void *dst, const void *src, size_t bytes)
{
    return zc__run_job((zc__job){.dst = dst, .src = src, .width = bytes, .rows = 1}, 1);
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
    (void)zc__run_job((zc__job){.dst = dst,
                                .src = src,
                                .width = width,
                                .rows = rows,
                                .dst_pitch = dst_pitch,
                                .src_pitch = src_pitch},
                      0);
}

void zc__run_parallel_each(void (*fn)(void *arg, unsigned part, unsigned parts), void *arg,
                           size_t work)
{
    (void)zc__run_job((zc__job){.width = work, .rows = 1, .each = fn, .arg = arg}, 0);
}
