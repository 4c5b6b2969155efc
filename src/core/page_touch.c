/* SPDX-License-Identifier: Apache-2.0 */
/* Faulting fresh pages in from several threads while the caller registers them (page_touch.h). */
#include "core/page_touch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "core/backoff.h"
#include "core/host.h"

/* The touching threads take the range this much at a time: a huge page, so that no huge page
 * is faulted by two threads. */
#define ZC__TOUCH_STEP ((size_t)2 << 20)

/* The caller's registration starts once the threads have taken this many steps each, or after
 * ZC__HEAD_START_MAX_NS whatever they have done (a thread may not be scheduled at all). */
#define ZC__HEAD_START_STEPS  2u
#define ZC__HEAD_START_MAX_NS 20000000ull
#define ZC__TOUCH_THREADS_MAX 256u

typedef struct zc__touching {
    char *base;
    size_t length;
    size_t steps;
    size_t page;
    _Atomic size_t next; /* the next step to take */
    _Atomic int stop;    /* beside has returned */
} zc__touching;

/* A clock of its own, not zc_clock_ns: this file is built into zc run's preload library too,
 * which must export nothing but its hooks, and zc_clock_ns is a public symbol. */
static uint64_t zc__touch_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A write fault on one byte that keeps its value whatever another thread does to it: a
 * compare-and-swap of the value with itself needs the page writable, so the kernel backs it.
 * It starts from 0, what a fresh page holds, and never reads first: a read of a fresh page
 * maps the zero page and the write faults a second time (13 times slower on 4 KiB pages in a
 * 2-core VM); a byte that is not 0 fails once and is swapped with itself. */
static void zc__touch_byte(unsigned char *p)
{
    unsigned char seen = 0;
    while (!__atomic_compare_exchange_n(p, &seen, seen, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* The byte at base and the first byte of every page after it below base + length. */
static void zc__touch_span(char *base, size_t length, size_t page)
{
    if (length == 0)
        return;
    zc__touch_byte((unsigned char *)base);
    uintptr_t next = ((uintptr_t)base / page + 1) * page, end = (uintptr_t)base + length;
    for (uintptr_t at = next; at < end; at += page)
        zc__touch_byte((unsigned char *)at);
}

void zc__touch_pages(void *base, size_t length)
{
    if (base != NULL)
        zc__touch_span(base, length, zc__page_size());
}

static void zc__touch_step(const zc__touching *t, size_t step)
{
    size_t from = step * ZC__TOUCH_STEP;
    size_t to = from + ZC__TOUCH_STEP < t->length ? from + ZC__TOUCH_STEP : t->length;
    zc__touch_span(t->base + from, to - from, t->page);
}

/* Take steps in ascending order until every one is taken or beside has returned. */
static void *zc__touch_thread(void *arg)
{
    zc__touching *t = arg;
    while (!atomic_load_explicit(&t->stop, memory_order_relaxed)) {
        size_t step = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
        if (step >= t->steps)
            break;
        zc__touch_step(t, step);
    }
    return NULL;
}

int zc__touch_beside(void *base, size_t length, unsigned threads, int (*beside)(void *arg),
                     void *arg)
{
    zc__touching t = {.base = base,
                      .length = length,
                      .steps = (length + ZC__TOUCH_STEP - 1) / ZC__TOUCH_STEP,
                      .page = zc__page_size()};
    if (threads > ZC__TOUCH_THREADS_MAX)
        threads = ZC__TOUCH_THREADS_MAX;
    pthread_t ids[ZC__TOUCH_THREADS_MAX];
    unsigned started = 0;
    while (base != NULL && started < threads && started < t.steps &&
           pthread_create(&ids[started], NULL, zc__touch_thread, &t) == 0)
        started++;
    if (started == 0) {
        if (base != NULL)
            (void)zc__touch_thread(&t);
    } else {
        size_t head = (size_t)started * ZC__HEAD_START_STEPS;
        uint64_t since = zc__touch_now_ns();
        while (atomic_load_explicit(&t.next, memory_order_relaxed) < head &&
               zc__touch_now_ns() - since < ZC__HEAD_START_MAX_NS)
            zc__backoff(zc__touch_now_ns() - since);
    }
    int result = beside(arg);
    atomic_store_explicit(&t.stop, 1, memory_order_relaxed);
    for (unsigned i = 0; i < started; i++)
        (void)pthread_join(ids[i], NULL);
    return result;
}
