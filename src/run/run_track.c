/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's large allocations (run_track.h): a hash table split into stripes, each behind
 * its own lock, so that frees from many threads rarely meet, with a counting filter of the
 * bases in front of it. Every free of the program asks here whether its block was tracked, and
 * almost always it was not: the filter says so with one load, no lock (a lock and a probe per
 * free, twice, made a small malloc and free under zc run five times as dear).
 * Nothing here allocates or calls the driver while holding a lock: both can call free, which
 * comes back here. The allocation hooks say which allocations are large enough (run_cures.h,
 * watch_host); the table takes every one it is told of.
 */
#include "run_track.h"

#include <pthread.h>
#include <string.h>

#include "run_register.h" /* zc__run_range_end */

#define ZC__STRIPES      64u
#define ZC__STRIPE_SLOTS 256u /* a power of two */
#define ZC__EMPTY        ((uintptr_t)0)
#define ZC__GONE         ((uintptr_t)1) /* a slot whose allocation was released */

typedef enum zc__alloc_state {
    ZC__ALLOC_PLAIN,   /* copies are counted towards pinning it */
    ZC__ALLOC_PINNING, /* a copy is pinning it now */
    ZC__ALLOC_PINNED,
    ZC__ALLOC_REFUSED /* the driver would not pin it, or over the bound: never asked again */
} zc__alloc_state;

typedef struct zc__alloc {
    uintptr_t base; /* ZC__EMPTY, ZC__GONE or the allocation's first byte */
    size_t size;
    uint64_t copied; /* bytes of copies that started at base */
    unsigned char state;
} zc__alloc;

typedef struct zc__stripe {
    pthread_mutex_t lock;
    unsigned used; /* slots that are not EMPTY (GONE included) */
    unsigned live;
    zc__alloc slots[ZC__STRIPE_SLOTS];
} zc__stripe;

static zc__stripe zc__stripes[ZC__STRIPES];
static unsigned long zc__tracked; /* live allocations over all stripes; 0 before the first */

/* The filter: how many live allocations have their base hashed to each slot (15 bits; at most
 * ZC__STRIPES * ZC__STRIPE_SLOTS live, so a count never wraps). A slot's count moves under the
 * lock of the allocation's stripe, but stripes share slots: atomically. A block is counted
 * before malloc gives it to the program, so any free of it, in whatever thread, comes after
 * and sees the count. */
#define ZC__FILTER_BITS 15u
static uint16_t zc__filter[1u << ZC__FILTER_BITS];

static pthread_once_t zc__once = PTHREAD_ONCE_INIT;

static void zc__init(void)
{
    for (unsigned i = 0; i < ZC__STRIPES; i++)
        pthread_mutex_init(&zc__stripes[i].lock, NULL);
}

/* Pointers from malloc are 16-byte aligned and mmaps page-aligned: the bits above those mix. */
static unsigned zc__hash(uintptr_t base)
{
    uint64_t h = (uint64_t)(base >> 4) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 32);
}

static zc__stripe *zc__stripe_of(uintptr_t base)
{
    return &zc__stripes[zc__hash(base) % ZC__STRIPES];
}

/* base's slot of the filter: the hash's top bits, which the stripe and the probe leave. */
static uint16_t *zc__filter_of(uintptr_t base)
{
    return &zc__filter[zc__hash(base) >> (32u - ZC__FILTER_BITS)];
}

/* Whether an allocation may be tracked at base: 0 means surely not. */
static int zc__maybe_tracked(uintptr_t base)
{
    return __atomic_load_n(&zc__tracked, __ATOMIC_RELAXED) != 0 &&
           __atomic_load_n(zc__filter_of(base), __ATOMIC_RELAXED) != 0;
}

/* Where base's probe starts in its stripe (the hash's bits the stripe's choice left unused). */
static unsigned zc__home(uintptr_t base)
{
    return (zc__hash(base) / ZC__STRIPES) & (ZC__STRIPE_SLOTS - 1u);
}

/* The slot holding base in s, or NULL (caller holds s's lock). Addresses 0 and 1 are no
 * allocation's (they mark the slots), so never found: a range unmapped from 0 forgets nothing
 * there. */
static zc__alloc *zc__find(zc__stripe *s, uintptr_t base)
{
    if (base <= ZC__GONE)
        return NULL;
    unsigned at = zc__home(base);
    for (unsigned probe = 0; probe < ZC__STRIPE_SLOTS; probe++) {
        zc__alloc *a = &s->slots[(at + probe) & (ZC__STRIPE_SLOTS - 1u)];
        if (a->base == base)
            return a;
        if (a->base == ZC__EMPTY)
            return NULL;
    }
    return NULL;
}

/* Rehash a stripe whose released slots lengthen every probe (caller holds its lock). */
static void zc__compact(zc__stripe *s)
{
    zc__alloc live[ZC__STRIPE_SLOTS];
    unsigned n = 0;
    for (unsigned i = 0; i < ZC__STRIPE_SLOTS; i++) {
        if (s->slots[i].base > ZC__GONE)
            live[n++] = s->slots[i];
    }
    memset(s->slots, 0, sizeof s->slots);
    for (unsigned i = 0; i < n; i++) {
        unsigned at = zc__home(live[i].base);
        while (s->slots[at].base != ZC__EMPTY)
            at = (at + 1u) & (ZC__STRIPE_SLOTS - 1u);
        s->slots[at] = live[i];
    }
    s->used = n;
}

/* Forget slot a of s (caller holds the lock); gives what it held. */
static zc__alloc zc__forget(zc__stripe *s, zc__alloc *a)
{
    zc__alloc was = *a;
    a->base = ZC__GONE;
    s->live--;
    __atomic_sub_fetch(zc__filter_of(was.base), 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&zc__tracked, 1, __ATOMIC_RELAXED);
    return was;
}

static int zc__held(const zc__alloc *a)
{
    return a->state == ZC__ALLOC_PINNED || a->state == ZC__ALLOC_PINNING;
}

size_t zc__run_track_add(void *base, size_t size)
{
    if (base == NULL || size == 0)
        return 0;
    pthread_once(&zc__once, zc__init);
    uintptr_t b = (uintptr_t)base;
    zc__stripe *s = zc__stripe_of(b);
    pthread_mutex_lock(&s->lock);
    zc__alloc *a = zc__find(s, b);
    zc__alloc stale = {0};
    if (a != NULL) {
        /* A block at this address that was released where no hook saw it: the new one
         * replaces it, and a pin of the old one goes (its pages are not these). */
        stale = zc__forget(s, a);
    }
    if (s->used + 1 > ZC__STRIPE_SLOTS * 3 / 4)
        zc__compact(s);
    if (s->used + 1 <= ZC__STRIPE_SLOTS * 3 / 4) {
        unsigned at = zc__home(b);
        while (s->slots[at].base > ZC__GONE)
            at = (at + 1u) & (ZC__STRIPE_SLOTS - 1u);
        if (s->slots[at].base == ZC__EMPTY)
            s->used++;
        s->slots[at] = (zc__alloc){.base = b, .size = size};
        s->live++;
        __atomic_add_fetch(zc__filter_of(b), 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&zc__tracked, 1, __ATOMIC_RELAXED);
    }
    /* A full stripe leaves the allocation untracked: it is never pinned, which is safe. */
    pthread_mutex_unlock(&s->lock);
    return zc__held(&stale) ? stale.size : 0;
}

/* What is tracked at base (a zeroed record when nothing is), forgotten when forget is set. */
static zc__alloc zc__look_up(void *base, int forget)
{
    zc__alloc was = {0};
    uintptr_t b = (uintptr_t)base;
    if (base == NULL || !zc__maybe_tracked(b))
        return was;
    zc__stripe *s = zc__stripe_of(b);
    pthread_mutex_lock(&s->lock);
    zc__alloc *a = zc__find(s, b);
    if (a != NULL)
        was = forget ? zc__forget(s, a) : *a;
    pthread_mutex_unlock(&s->lock);
    return was;
}

size_t zc__run_track_release(void *base)
{
    zc__alloc was = zc__look_up(base, 1);
    return zc__held(&was) ? was.size : 0;
}

zc__run_copied zc__run_track_copied(void *base, size_t *size_p)
{
    zc__alloc is = zc__look_up(base, 0);
    if (is.base == ZC__EMPTY)
        return ZC__COPIED_UNTRACKED;
    *size_p = is.size;
    return is.copied >= is.size ? ZC__COPIED_WHOLE : ZC__COPIED_PART;
}

int zc__run_track_held(void *base)
{
    zc__alloc is = zc__look_up(base, 0);
    return zc__held(&is);
}

void zc__run_track_release_range(uintptr_t start, size_t length)
{
    if (length == 0)
        return;
    uintptr_t end = zc__run_range_end(start, length);
    if (__atomic_load_n(&zc__tracked, __ATOMIC_RELAXED) == 0)
        return;
    /* The common case, a mapping unmapped whole: found where it starts. */
    zc__stripe *s = zc__stripe_of(start);
    pthread_mutex_lock(&s->lock);
    zc__alloc *a = zc__find(s, start);
    int whole = a != NULL && a->size == length;
    if (a != NULL && a->size <= length)
        zc__forget(s, a);
    pthread_mutex_unlock(&s->lock);
    if (whole)
        return;
    /* Anything else inside the range: a part of a mapping, or a mapping that is not where the
     * range starts. Rare enough to look everywhere. */
    for (unsigned i = 0; i < ZC__STRIPES; i++) {
        zc__stripe *t = &zc__stripes[i];
        pthread_mutex_lock(&t->lock);
        for (unsigned k = 0; k < ZC__STRIPE_SLOTS && t->live > 0; k++) {
            zc__alloc *x = &t->slots[k];
            if (x->base > ZC__GONE && x->base < end && x->base + x->size > start)
                zc__forget(t, x);
        }
        pthread_mutex_unlock(&t->lock);
    }
}

int zc__run_track_count_copy(const void *host, size_t bytes, void **base_p, size_t *size_p)
{
    uintptr_t b = (uintptr_t)host;
    if (!zc__maybe_tracked(b))
        return 0;
    zc__stripe *s = zc__stripe_of(b);
    int pin = 0;
    pthread_mutex_lock(&s->lock);
    zc__alloc *a = zc__find(s, b);
    if (a != NULL && a->state == ZC__ALLOC_PLAIN) {
        a->copied += bytes;
        if (a->copied / 2 >= a->size) {
            a->state = ZC__ALLOC_PINNING;
            *base_p = (void *)a->base;
            *size_p = a->size;
            pin = 1;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return pin;
}

/* Move the allocation at base from state from to state to (its count of bytes copied kept, or
 * started again); gives whether it was there in state from. */
static int zc__move(void *base, zc__alloc_state from, zc__alloc_state to, int count_again)
{
    uintptr_t b = (uintptr_t)base;
    zc__stripe *s = zc__stripe_of(b);
    pthread_mutex_lock(&s->lock);
    zc__alloc *a = zc__find(s, b);
    int was = a != NULL && a->state == from;
    if (was) {
        a->state = (unsigned char)to;
        if (count_again)
            a->copied = 0;
    }
    pthread_mutex_unlock(&s->lock);
    return was;
}

int zc__run_track_pinned(void *base, int pinned)
{
    return zc__move(base, ZC__ALLOC_PINNING, pinned ? ZC__ALLOC_PINNED : ZC__ALLOC_REFUSED, 0);
}

void zc__run_track_unpinned(void *base, int again)
{
    zc__move(base, ZC__ALLOC_PINNED, again ? ZC__ALLOC_PLAIN : ZC__ALLOC_REFUSED, 1);
}

void zc__run_track_after_fork(void)
{
    /* Only this thread runs in the child: no lock is held by anybody else. */
    for (unsigned i = 0; i < ZC__STRIPES; i++) {
        zc__stripe *s = &zc__stripes[i];
        pthread_mutex_init(&s->lock, NULL);
        for (unsigned k = 0; k < ZC__STRIPE_SLOTS; k++) {
            if (s->slots[k].base > ZC__GONE && s->slots[k].state != ZC__ALLOC_REFUSED)
                s->slots[k].state = ZC__ALLOC_PLAIN;
        }
    }
}
