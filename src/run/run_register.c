/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register cure's pins (run_register.h). A pin is a whole allocation of the program's,
 * pinned in place with cuMemHostRegister in the context that copied it; copies from or to it
 * then run at the link's speed without staging. The table is small and fixed (a pin is a large
 * buffer), scanned under one lock; the driver is never called with the lock held, because the
 * driver may call free, which comes back here. A pin is taken out of the table the moment its
 * memory is released or changed; its unregistration follows here, or through the deferred queue
 * when the caller may not call CUDA (run_deferred.h).
 */
#include "run_register.h"

#include <pthread.h>
#include <stdlib.h>

#include "run_config.h"
#include "run_cures.h"
#include "run_deferred.h"
#include "run_track.h"

/* Pins at most: a KV cache swapped out block by block has hundreds of large blocks pinned at
 * once (512 of 2 MiB in bench/workloads/torch_kv_blocks.py), and a pin the table has no room
 * for evicts the one used longest ago, whose count of bytes copied starts again. Every scan
 * stops at the highest slot ever used, so a program with few pins scans few. */
#define ZC__PINS 4096

typedef enum zc__pin_state { ZC__PIN_FREE, ZC__PIN_RESERVED, ZC__PIN_PINNED } zc__pin_state;

typedef struct zc__pin {
    zc__pin_state state;
    uintptr_t base;
    size_t size;
    CUcontext ctx;
    CUdevice device;
    uint64_t last_use; /* for the bound: the pin used longest ago goes first */
    unsigned in_use;   /* copies using it now */
} zc__pin;

static pthread_mutex_t zc__lock = PTHREAD_MUTEX_INITIALIZER;
static zc__pin zc__pins[ZC__PINS];
static unsigned zc__pinned; /* pins not FREE, read without the lock to skip the table */
static size_t zc__pinned_bytes;
static uint64_t zc__clock;
static int zc__slots_used; /* every slot from here on is FREE (changed under the lock) */

static int zc__overlaps(const zc__pin *p, uintptr_t start, uintptr_t end)
{
    return p->base < end && start < p->base + p->size;
}

/* Give slot i back (caller holds the lock). */
static zc__pin zc__take(int i)
{
    zc__pin was = zc__pins[i];
    zc__pins[i].state = ZC__PIN_FREE;
    zc__pinned_bytes -= was.size;
    __atomic_sub_fetch(&zc__pinned, 1, __ATOMIC_RELAXED);
    return was;
}

/* Unpin what was pinned (no lock held): queued, then done at once when the caller may call
 * CUDA (the queue keeps every unpin in the order the pins were taken). */
static void zc__unpin(const zc__pin *p, int now)
{
    zc__run_deferred_unpin((void *)p->base, p->size, p->ctx);
    if (now)
        zc__run_deferred_drain();
}

int zc__run_pin_covers(const void *host, size_t bytes, CUcontext ctx, zc__run_pin_use *use)
{
    use->slot = -1;
    if (__atomic_load_n(&zc__pinned, __ATOMIC_RELAXED) == 0)
        return 0;
    uintptr_t start = (uintptr_t)host, end = start + bytes;
    if (end < start)
        return 0;
    pthread_mutex_lock(&zc__lock);
    for (int i = 0; i < zc__slots_used; i++) {
        zc__pin *p = &zc__pins[i];
        if (p->state == ZC__PIN_PINNED && p->ctx == ctx && p->base <= start &&
            end <= p->base + p->size) {
            p->in_use++;
            p->last_use = ++zc__clock;
            use->slot = i;
            break;
        }
    }
    pthread_mutex_unlock(&zc__lock);
    return use->slot >= 0;
}

void zc__run_pin_done(zc__run_pin_use *use)
{
    if (use->slot < 0)
        return;
    pthread_mutex_lock(&zc__lock);
    if (zc__pins[use->slot].in_use > 0)
        zc__pins[use->slot].in_use--;
    pthread_mutex_unlock(&zc__lock);
    use->slot = -1;
}

/*
 * A slot reserved for size bytes within the bound, unpinning the pins used longest ago (and not
 * in use) to make room; -1 when there is no room.
 */
static int zc__reserve(size_t size)
{
    const size_t bound = zc__run_config_get()->register_bytes;
    if (size > bound)
        return -1;
    for (;;) {
        pthread_mutex_lock(&zc__lock);
        int free_slot = -1, oldest = -1;
        for (int i = 0; i < zc__slots_used; i++) {
            const zc__pin *p = &zc__pins[i];
            if (p->state == ZC__PIN_FREE && free_slot < 0)
                free_slot = i;
            if (p->state == ZC__PIN_PINNED && p->in_use == 0 &&
                (oldest < 0 || p->last_use < zc__pins[oldest].last_use))
                oldest = i;
        }
        if (free_slot < 0 && zc__slots_used < ZC__PINS)
            free_slot = zc__slots_used;
        if (free_slot >= 0 && zc__pinned_bytes + size <= bound) {
            if (free_slot >= zc__slots_used)
                zc__slots_used = free_slot + 1;
            zc__pins[free_slot] = (zc__pin){.state = ZC__PIN_RESERVED, .size = size};
            zc__pinned_bytes += size;
            __atomic_add_fetch(&zc__pinned, 1, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&zc__lock);
            return free_slot;
        }
        if (oldest < 0) {
            pthread_mutex_unlock(&zc__lock);
            return -1;
        }
        zc__pin victim = zc__take(oldest);
        pthread_mutex_unlock(&zc__lock);
        zc__unpin(&victim, 1);
        zc__run_track_unpinned((void *)victim.base, 1);
    }
}

/* Pin [base, base + size) in ctx (current); 1 on success, the pin in slot. */
static int zc__pin_now(const zc__run_driver *d, void *base, size_t size, CUcontext ctx)
{
    int slot = zc__reserve(size);
    if (slot < 0)
        return 0;
    CUdevice device = 0;
    CUstreamCaptureMode mode = zc__run_relax(d);
    int ok = d->ctx_get_device(&device) == CUDA_SUCCESS &&
             d->mem_host_register(base, size, 0) == CUDA_SUCCESS;
    zc__run_unrelax(d, mode);
    if (!ok) {
        pthread_mutex_lock(&zc__lock);
        zc__take(slot);
        pthread_mutex_unlock(&zc__lock);
        return 0;
    }
    zc__run_exit_arm();
    zc__run_deferred_start();
    pthread_mutex_lock(&zc__lock);
    zc__pins[slot] = (zc__pin){.state = ZC__PIN_PINNED,
                               .base = (uintptr_t)base,
                               .size = size,
                               .ctx = ctx,
                               .device = device,
                               .last_use = ++zc__clock};
    pthread_mutex_unlock(&zc__lock);
    return 1;
}

int zc__run_pin_consider(const zc__run_driver *d, const void *host, size_t bytes, CUcontext ctx,
                         zc__run_pin_use *use, uint64_t *pin_ns)
{
    use->slot = -1;
    void *base = NULL;
    size_t size = 0;
    if (!zc__run_track_count_copy(host, bytes, &base, &size))
        return 0;
    uint64_t start = zc__run_now_ns();
    int pinned = zc__pin_now(d, base, size, ctx);
    if (!zc__run_track_pinned(base, pinned)) {
        /* Released while it was being pinned (by another thread of the program). */
        if (pinned)
            zc__run_pins_take((uintptr_t)base, size, ZC__GONE_WITH_IT, 1);
        return 0;
    }
    uint64_t ns = zc__run_now_ns() - start;
    if (!pinned) {
        zc__run_count(ZC_RUN_COUNTER_REGISTER_REFUSED, size, ns, 0, ZC_RUN_PRICED_NONE);
        return 0;
    }
    zc__run_count(ZC_RUN_COUNTER_REGISTER_PIN, size, ns, 0, ZC_RUN_PRICED_NONE);
    *pin_ns = ns;
    return zc__run_pin_covers(host, bytes, ctx, use);
}

/* Take out, one at a time, every pin that matches, and unpin it with no lock held; then tell
 * the tracker what became of its allocation. Pins in use are skipped when busy_too is clear.
 * Gives how many were taken. */
typedef int (*zc__pin_match)(const zc__pin *p, const void *arg);

static unsigned zc__drop_matching(zc__pin_match match, const void *arg, zc__after_drop after,
                                  int now, int busy_too)
{
    unsigned taken = 0;
    for (;;) {
        if (__atomic_load_n(&zc__pinned, __ATOMIC_RELAXED) == 0)
            return taken;
        zc__pin victim = {0};
        pthread_mutex_lock(&zc__lock);
        for (int i = 0; i < zc__slots_used && victim.state == ZC__PIN_FREE; i++) {
            const zc__pin *p = &zc__pins[i];
            if (p->state == ZC__PIN_PINNED && (busy_too || p->in_use == 0) && match(p, arg))
                victim = zc__take(i);
        }
        pthread_mutex_unlock(&zc__lock);
        if (victim.state == ZC__PIN_FREE)
            return taken;
        taken++;
        zc__unpin(&victim, now);
        if (after != ZC__GONE_WITH_IT)
            zc__run_track_unpinned((void *)victim.base, after == ZC__PIN_AGAIN);
    }
}

typedef struct zc__range {
    uintptr_t start, end;
} zc__range;

static int zc__in_range(const zc__pin *p, const void *arg)
{
    const zc__range *r = arg;
    return zc__overlaps(p, r->start, r->end);
}

unsigned zc__run_pins_take(uintptr_t start, size_t length, zc__after_drop after, int now)
{
    zc__range r = {start, zc__run_range_end(start, length)};
    return zc__drop_matching(zc__in_range, &r, after, now, 1);
}

int zc__run_pins_touching(uintptr_t start, size_t length)
{
    if (__atomic_load_n(&zc__pinned, __ATOMIC_RELAXED) == 0 || length == 0)
        return 0;
    uintptr_t end = zc__run_range_end(start, length);
    int touching = 0;
    pthread_mutex_lock(&zc__lock);
    for (int i = 0; i < zc__slots_used && !touching; i++)
        touching = zc__pins[i].state == ZC__PIN_PINNED && zc__overlaps(&zc__pins[i], start, end);
    pthread_mutex_unlock(&zc__lock);
    return touching;
}

typedef struct zc__owner {
    CUcontext ctx;
    CUdevice device;
    int all;
} zc__owner;

static int zc__owned_by(const zc__pin *p, const void *arg)
{
    const zc__owner *o = arg;
    return o->all || (o->ctx != NULL ? p->ctx == o->ctx : p->device == o->device);
}

void zc__run_pins_forget(CUcontext ctx, CUdevice device)
{
    zc__owner o = {ctx, device, 0};
    /* Once the process exits, a pin a copy still uses goes with the process. */
    zc__drop_matching(zc__owned_by, &o, ZC__PIN_AGAIN, 1, !zc__run_exiting());
}

void zc__run_pins_forget_all(void)
{
    zc__owner o = {NULL, 0, 1};
    zc__drop_matching(zc__owned_by, &o, ZC__NEVER_AGAIN, 1, 0);
}

void zc__run_pins_after_fork(void)
{
    pthread_mutex_init(&zc__lock, NULL);
    for (int i = 0; i < ZC__PINS; i++)
        zc__pins[i].state = ZC__PIN_FREE;
    zc__slots_used = 0;
    zc__pinned = 0;
    zc__pinned_bytes = 0;
}
