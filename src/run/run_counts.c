/* SPDX-License-Identifier: Apache-2.0 */
/* The counters, the pricing of cured copies and the per-process log (run_counts.h). */
#include "run_counts.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_config.h"
#include "run_record.h"

/* Size classes: floor(log2(bytes)). */
#define ZC__CLASSES 64

typedef struct zc__class {
    uint64_t sample_bytes, sample_ns; /* the copy left as it was and timed */
    unsigned seen;                    /* copies of this class that asked */
    uint64_t cured_bytes[2];          /* cured copies of this class, by zc__run_way */
    /* The staged copies' time, and the slowest one's (the first copy of a context pays for
     * making its staging, which says nothing of the staging's speed). */
    uint64_t staged_ns, slowest_ns, slowest_bytes;
    unsigned staged_calls;
    int slower; /* staging judged slower than the sample: copies go as they were */
} zc__class;

/* Staging is judged for a class once ZC_RUN_JUDGE_AFTER copies of it were staged: all but the
 * slowest must have moved their bytes at least ZC__STAGED_SHARE of the sample's rate, or the
 * class's copies go to the driver as they were from then on (pageable-slower). */
#define ZC__STAGED_SHARE 0.9

/* The counter of each way and direction of a cured copy. */
static const zc_run_counter zc__cured_counter[2][2] = {
    [ZC__RUN_STAGED] = {ZC_RUN_COUNTER_PAGEABLE_H2D, ZC_RUN_COUNTER_PAGEABLE_D2H},
    [ZC__RUN_PINNED] = {ZC_RUN_COUNTER_REGISTERED_H2D, ZC_RUN_COUNTER_REGISTERED_D2H}};

static pthread_mutex_t zc__lock = PTHREAD_MUTEX_INITIALIZER;
static zc_run_count zc__counts[ZC_RUN_COUNTER_COUNT];
static zc__class zc__classes[2][ZC__CLASSES];
static FILE *zc__log;
static long zc__log_pid; /* the process that opened zc__log (a forked child opens its own) */

uint64_t zc__run_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static unsigned zc__class_of(size_t bytes)
{
    unsigned c = 0;
    while (c + 1 < ZC__CLASSES && ((size_t)2 << c) <= bytes)
        c++;
    return c;
}

/* Start this process's log (its header) if ZC_RUN_DIR asks for one and it is not started yet:
 * done as the library loads and by every count (a forked child's first), so that nothing
 * counted is lost for want of a log; the counts and the end line are written at exit. */
static void zc__log_start(void)
{
    const zc__run_config *config = zc__run_config_get();
    if (config->log_dir == NULL)
        return;
    long pid = (long)getpid();
    /* Started already in this process: the common case, without the lock (a stale read only
     * sends the caller to the locked check below). */
    if (__atomic_load_n(&zc__log_pid, __ATOMIC_ACQUIRE) == pid)
        return;
    pthread_mutex_lock(&zc__lock);
    if (zc__log == NULL || zc__log_pid != pid) {
        char path[PATH_MAX];
        int fd = -1;
        if (snprintf(path, sizeof path, "%s/%ld.run", config->log_dir, pid) < (int)sizeof path)
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        /* This process's image before an exec started it (exec runs no exit handlers, so it
         * holds no counts): the image now running writes the process's log. */
        if (fd < 0 && errno == EEXIST)
            fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
        zc__log = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (fd >= 0 && zc__log == NULL)
            close(fd);
        if (zc__log == NULL) {
            fprintf(stderr, "zerocopy run: cannot write the log %s: %s; nothing will be counted\n",
                    path, strerror(errno));
        } else {
            zc__run_header h = {.pid = pid,
                                .fixes = config->fixes,
                                .threads = config->threads,
                                .chunk_bytes = config->chunk_bytes,
                                .staging_buffers = config->staging_buffers,
                                .min_bytes = config->min_bytes,
                                .min_d2h_bytes = config->min_d2h_bytes};
            zc__run_write_header(zc__log, &h);
            /* On disk now, so that a process killed later still leaves its header (and the
             * missing end says it was cut). */
            fflush(zc__log);
        }
        __atomic_store_n(&zc__log_pid, pid, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&zc__lock);
}

static void zc__add(zc_run_count *sum, uint64_t bytes, uint64_t ns, uint64_t uncured_ns,
                    zc_run_pricing pricing)
{
    if (sum->calls == 0 || pricing < sum->pricing)
        sum->pricing = pricing;
    sum->calls++;
    sum->bytes += bytes;
    sum->ns += ns;
    sum->uncured_ns += uncured_ns;
}

void zc__run_count(zc_run_counter counter, uint64_t bytes, uint64_t ns, uint64_t uncured_ns,
                   zc_run_pricing pricing)
{
    zc__log_start();
    pthread_mutex_lock(&zc__lock);
    zc__add(&zc__counts[counter], bytes, ns, uncured_ns, pricing);
    pthread_mutex_unlock(&zc__lock);
}

/* The counts made where no lock may be waited for, added without one and folded into the counts
 * at exit (zc__log_finish). */
static struct {
    uint64_t calls, bytes, ns;
} zc__unlocked[ZC_RUN_COUNTER_COUNT];

void zc__run_count_nowait(zc_run_counter counter, uint64_t bytes, uint64_t ns)
{
    __atomic_add_fetch(&zc__unlocked[counter].calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&zc__unlocked[counter].bytes, bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&zc__unlocked[counter].ns, ns, __ATOMIC_RELAXED);
}

/* Whether any count was made without the lock (read at exit, when nothing counts any more). */
static int zc__any_unlocked(void)
{
    for (int i = 0; i < ZC_RUN_COUNTER_COUNT; i++)
        if (__atomic_load_n(&zc__unlocked[i].calls, __ATOMIC_RELAXED) != 0)
            return 1;
    return 0;
}

/* The counts made without the lock added to the others (caller holds the lock). */
static void zc__fold_unlocked(void)
{
    for (int i = 0; i < ZC_RUN_COUNTER_COUNT; i++) {
        uint64_t calls = __atomic_exchange_n(&zc__unlocked[i].calls, 0, __ATOMIC_RELAXED);
        if (calls == 0)
            continue;
        zc_run_count *sum = &zc__counts[i];
        if (sum->calls == 0)
            sum->pricing = ZC_RUN_PRICED_NONE;
        sum->calls += calls;
        sum->bytes += __atomic_exchange_n(&zc__unlocked[i].bytes, 0, __ATOMIC_RELAXED);
        sum->ns += __atomic_exchange_n(&zc__unlocked[i].ns, 0, __ATOMIC_RELAXED);
    }
}

int zc__run_pageable_claim_sample(zc__run_dir dir, size_t bytes)
{
    pthread_mutex_lock(&zc__lock);
    zc__class *c = &zc__classes[dir][zc__class_of(bytes)];
    int second = ++c->seen == 2;
    pthread_mutex_unlock(&zc__lock);
    return second;
}

void zc__run_pageable_sampled(zc__run_dir dir, size_t bytes, uint64_t ns)
{
    zc__log_start();
    pthread_mutex_lock(&zc__lock);
    zc__class *c = &zc__classes[dir][zc__class_of(bytes)];
    c->sample_bytes += bytes;
    c->sample_ns += ns;
    zc__add(&zc__counts[ZC_RUN_COUNTER_PAGEABLE_SAMPLE], bytes, ns, ns, ZC_RUN_PRICED_MEASURED);
    pthread_mutex_unlock(&zc__lock);
}

/* Whether class c's staged copies, but the slowest, went slower than its sample (caller holds
 * the lock). */
static int zc__judged_slower(const zc__class *c)
{
    unsigned after = zc__run_config_get()->judge_after;
    if (after == 0 || c->staged_calls < after || c->sample_bytes == 0 || c->sample_ns == 0)
        return 0;
    double bytes = (double)(c->cured_bytes[ZC__RUN_STAGED] - c->slowest_bytes);
    double staged_ns = (double)(c->staged_ns - c->slowest_ns);
    double sampled_ns = bytes * (double)c->sample_ns / (double)c->sample_bytes;
    return staged_ns * ZC__STAGED_SHARE > sampled_ns;
}

int zc__run_pageable_slower(zc__run_dir dir, size_t bytes)
{
    pthread_mutex_lock(&zc__lock);
    zc__class *c = &zc__classes[dir][zc__class_of(bytes)];
    if (!c->slower)
        c->slower = zc__judged_slower(c);
    int slower = c->slower;
    pthread_mutex_unlock(&zc__lock);
    return slower;
}

void zc__run_pageable_cured(zc__run_way way, zc__run_dir dir, size_t bytes, uint64_t ns)
{
    zc__log_start();
    pthread_mutex_lock(&zc__lock);
    zc__class *c = &zc__classes[dir][zc__class_of(bytes)];
    c->cured_bytes[way] += bytes;
    if (way == ZC__RUN_STAGED) {
        c->staged_ns += ns;
        c->staged_calls++;
        if (ns > c->slowest_ns) {
            c->slowest_ns = ns;
            c->slowest_bytes = bytes;
        }
    }
    zc__add(&zc__counts[zc__cured_counter[way][dir]], bytes, ns, 0, ZC_RUN_PRICED_SCALED);
    pthread_mutex_unlock(&zc__lock);
}

/* The copies cured one way in one direction priced at their class's sampled rate, or the
 * nearest class's that has one (caller holds the lock). No sample at all leaves them unpriced. */
static void zc__price(zc__run_way way, zc__run_dir dir)
{
    zc_run_count *count = &zc__counts[zc__cured_counter[way][dir]];
    double uncured = 0;
    for (int k = 0; k < ZC__CLASSES; k++) {
        const zc__class *c = &zc__classes[dir][k];
        if (c->cured_bytes[way] == 0)
            continue;
        const zc__class *rate = NULL;
        for (int d = 0; d < ZC__CLASSES && rate == NULL; d++) {
            if (k - d >= 0 && zc__classes[dir][k - d].sample_bytes > 0)
                rate = &zc__classes[dir][k - d];
            else if (k + d < ZC__CLASSES && zc__classes[dir][k + d].sample_bytes > 0)
                rate = &zc__classes[dir][k + d];
        }
        if (rate == NULL) {
            count->uncured_ns = 0;
            count->pricing = ZC_RUN_PRICED_NONE;
            return;
        }
        uncured +=
            (double)c->cured_bytes[way] * (double)rate->sample_ns / (double)rate->sample_bytes;
    }
    count->uncured_ns = (uint64_t)uncured;
}

/* At exit: every counter with calls, then the end line. A process whose only counts were made
 * without the lock (a forked child's) starts its log here. */
static void zc__log_finish(void)
{
    if (zc__any_unlocked())
        zc__log_start();
    pthread_mutex_lock(&zc__lock);
    zc__fold_unlocked();
    if (zc__log != NULL && zc__log_pid == (long)getpid()) {
        for (int way = ZC__RUN_STAGED; way <= ZC__RUN_PINNED; way++) {
            zc__price((zc__run_way)way, ZC__RUN_H2D);
            zc__price((zc__run_way)way, ZC__RUN_D2H);
        }
        for (int i = 0; i < ZC_RUN_COUNTER_COUNT; i++) {
            if (zc__counts[i].calls > 0)
                zc__run_write_count(zc__log, (zc_run_counter)i, &zc__counts[i]);
        }
        zc__run_write_end(zc__log);
        fclose(zc__log);
        zc__log = NULL;
    }
    pthread_mutex_unlock(&zc__lock);
}

/* A forked child starts with no counts of its own (the parent's are the parent's to write),
 * and opens its own log when it first cures something. */
static void zc__after_fork_child(void)
{
    pthread_mutex_init(&zc__lock, NULL);
    memset(zc__counts, 0, sizeof zc__counts);
    memset(zc__unlocked, 0, sizeof zc__unlocked);
    memset(zc__classes, 0, sizeof zc__classes);
    zc__log = NULL; /* the parent's stream: its buffer is the parent's, never flushed here */
}

/* The log is started as the library loads, so that every process it was loaded into leaves one
 * (zc run says in which processes it ran, cures or none). */
__attribute__((constructor)) static void zc__counts_init(void)
{
    atexit(zc__log_finish);
    zc__log_start();
    pthread_atfork(NULL, NULL, zc__after_fork_child);
}
