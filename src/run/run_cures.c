/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of cures (run_cures.h): the rows in the order a copy asks them, built from each
 * cure's planners and its handler of every event; planning and events loop over it, and the
 * process-wide events (fork, exit) are raised from here.
 */
#include "run_cures.h"

#include <pthread.h>
#include <stdlib.h>

#include "run_config.h"
#include "run_hooks.h"

#define ZC__RUN_HANDLER(cure, id, what) [ZC__EVENT_##id] = ZC__RUN_ON(cure, id),
#define ZC__RUN_ROW(cure, FIX)                                                                     \
    static const zc__run_cure zc__row_##cure = {                                                   \
        ZC_RUN_FIX_##FIX, &zc__cure_##cure##_calls, {ZC__RUN_EVENT_MAP(ZC__RUN_HANDLER, cure)}};
ZC__RUN_CURE_ORDER(ZC__RUN_ROW)
#undef ZC__RUN_ROW
#undef ZC__RUN_HANDLER

#define ZC__RUN_ROW_ADDRESS(cure, FIX) &zc__row_##cure,
const zc__run_cure *const zc__run_cures[] = {ZC__RUN_CURE_ORDER(ZC__RUN_ROW_ADDRESS)};
#undef ZC__RUN_ROW_ADDRESS
const size_t zc__run_cure_count = sizeof zc__run_cures / sizeof zc__run_cures[0];

/* Every cure of zerocopy/run.h has its row, and one only: as many rows as cures, and their
 * bits together are every cure's. */
#define ZC__RUN_ROW_BIT(cure, FIX) | (1u << ZC_RUN_FIX_##FIX)
_Static_assert(sizeof zc__run_cures / sizeof zc__run_cures[0] == ZC_RUN_FIX_COUNT,
               "every cure of ZC_RUN_FIX_MAP has one row in ZC__RUN_CURE_ORDER");
_Static_assert((0u ZC__RUN_CURE_ORDER(ZC__RUN_ROW_BIT)) == ZC_RUN_FIXES_ALL,
               "no cure of ZC_RUN_FIX_MAP has two rows in ZC__RUN_CURE_ORDER");
#undef ZC__RUN_ROW_BIT

static int zc__exiting_flag;

int zc__run_exiting(void)
{
    return __atomic_load_n(&zc__exiting_flag, __ATOMIC_ACQUIRE);
}

/* The rows whose cure is on, bit i for zc__run_cures[i], with ZC__ROWS_KNOWN once worked out
 * (the cures are read once a process: run_config.h). */
#define ZC__ROWS_KNOWN (1u << 31)
_Static_assert(sizeof zc__run_cures / sizeof zc__run_cures[0] < 31, "a bit per row, and one more");
static unsigned zc__rows_on;

static unsigned zc__rows_on_now(void)
{
    unsigned rows = __atomic_load_n(&zc__rows_on, __ATOMIC_ACQUIRE);
    if (rows != 0)
        return rows;
    rows = ZC__ROWS_KNOWN;
    for (size_t i = 0; i < zc__run_cure_count; i++) {
        if (zc__run_fix_on(zc__run_cures[i]->fix))
            rows |= 1u << i;
    }
    __atomic_store_n(&zc__rows_on, rows, __ATOMIC_RELEASE);
    return rows;
}

/* For each event, the rows that answered ZC__EVENT_IGNORED: they are not asked again. Every
 * free of the program raises an event, and most rows ignore it: a call to each cost more than
 * the free itself. */
static unsigned zc__ignoring[ZC__EVENT_COUNT];

zc__run_answer zc__run_raise(const zc__run_event *e)
{
    zc__run_answer answer = ZC__EVENT_SEEN;
    unsigned asked = zc__rows_on_now() & ~ZC__ROWS_KNOWN &
                     ~__atomic_load_n(&zc__ignoring[e->id], __ATOMIC_RELAXED);
    /* In table order: the lowest row first. */
    for (; asked != 0; asked &= asked - 1u) {
        unsigned i = (unsigned)__builtin_ctz(asked);
        zc__run_answer said = zc__run_cures[i]->on[e->id](e);
        if (said == ZC__EVENT_IGNORED)
            __atomic_fetch_or(&zc__ignoring[e->id], 1u << i, __ATOMIC_RELAXED);
        else if (said == ZC__EVENT_KEPT)
            return ZC__EVENT_KEPT;
        else if (said == ZC__EVENT_DEFERRED)
            answer = ZC__EVENT_DEFERRED;
    }
    return answer;
}

zc__plan zc__run_plan(zc__run_copy *c)
{
    if (c->d == NULL || zc__run_exiting())
        return ZC__AS_IT_WAS;
    for (size_t i = 0; i < zc__run_cure_count; i++) {
        const zc__run_cure *row = zc__run_cures[i];
        if (row->calls->plan_copy == NULL || !zc__run_fix_on(row->fix))
            continue;
        zc__plan plan = row->calls->plan_copy(c);
        if (plan != ZC__PASS) {
            c->by = row;
            return plan;
        }
    }
    return c->must_stage || c->must_wait ? ZC__WAIT : ZC__AS_IT_WAS;
}

int zc__run_plans_copies(void)
{
    for (size_t i = 0; i < zc__run_cure_count; i++) {
        if (zc__run_cures[i]->calls->plan_copy != NULL && zc__run_fix_on(zc__run_cures[i]->fix))
            return 1;
    }
    return 0;
}

typedef CUresult (*zc__host_alloc_fn)(void **, size_t, unsigned int);
typedef CUresult (*zc__alloc_host_fn)(void **, size_t);
typedef CUresult (*zc__free_host_fn)(void *);

CUresult zc__run_pinned_alloc(const zc__run_pinned_ask *ask)
{
    CUresult r;
    for (size_t i = 0; i < zc__run_cure_count && !zc__run_exiting(); i++) {
        const zc__run_cure *row = zc__run_cures[i];
        if (row->calls->pinned_alloc != NULL && zc__run_fix_on(row->fix) &&
            row->calls->pinned_alloc(ask, &r))
            return r;
    }
    if (ask->via == ZC__VIA_HOST_ALLOC) {
        zc__host_alloc_fn fn = (zc__host_alloc_fn)zc__run_real(ZC__HOOK_MEM_HOST_ALLOC);
        return fn != NULL ? fn(ask->p, ask->bytes, ask->flags) : CUDA_ERROR_NOT_INITIALIZED;
    }
    zc__alloc_host_fn fn = (zc__alloc_host_fn)zc__run_real(ZC__HOOK_MEM_ALLOC_HOST);
    return fn != NULL ? fn(ask->p, ask->bytes) : CUDA_ERROR_NOT_INITIALIZED;
}

/* A release is asked of every row that plans them, even while exiting: a row that holds the
 * block is the only one that knows it. */
CUresult zc__run_pinned_free(void *p)
{
    CUresult r;
    for (size_t i = 0; i < zc__run_cure_count; i++) {
        const zc__run_cure *row = zc__run_cures[i];
        if (row->calls->pinned_free != NULL && zc__run_fix_on(row->fix) &&
            row->calls->pinned_free(p, &r))
            return r;
    }
    zc__free_host_fn fn = (zc__free_host_fn)zc__run_real(ZC__HOOK_MEM_FREE_HOST);
    return fn != NULL ? fn(p) : CUDA_ERROR_NOT_INITIALIZED;
}

/* A row's answer about a host range (changed_view, owns_pinned, page_locked), NULL for none. */
typedef int (*zc__range_fn)(uintptr_t start, size_t length);

static zc__range_fn zc__changed_view_of(const zc__run_calls *calls)
{
    return calls->changed_view;
}

static zc__range_fn zc__owns_pinned_of(const zc__run_calls *calls)
{
    return calls->owns_pinned;
}

static zc__range_fn zc__page_locked_of(const zc__run_calls *calls)
{
    return calls->page_locked;
}

/* Whether any row whose cure is on answers yes about [start, start + length) to the call that
 * answer_of picks out of its calls. */
static int zc__any_row_says(zc__range_fn (*answer_of)(const zc__run_calls *calls), uintptr_t start,
                            size_t length)
{
    for (size_t i = 0; i < zc__run_cure_count; i++) {
        const zc__run_cure *row = zc__run_cures[i];
        zc__range_fn answer = answer_of(row->calls);
        if (answer != NULL && zc__run_fix_on(row->fix) && answer(start, length))
            return 1;
    }
    return 0;
}

int zc__run_view_changed(uintptr_t start, size_t length)
{
    return zc__any_row_says(zc__changed_view_of, start, length);
}

int zc__run_pinned_owned(uintptr_t start, size_t length)
{
    return zc__any_row_says(zc__owns_pinned_of, start, length);
}

int zc__run_page_locked(uintptr_t start, size_t length)
{
    return zc__any_row_says(zc__page_locked_of, start, length);
}

int zc__run_host_copy(void *dst, const void *src, size_t bytes)
{
    for (size_t i = 0; i < zc__run_cure_count && !zc__run_exiting(); i++) {
        const zc__run_cure *row = zc__run_cures[i];
        if (row->calls->host_copy != NULL && zc__run_fix_on(row->fix) &&
            row->calls->host_copy(dst, src, bytes))
            return 1;
    }
    return 0;
}

void *zc__run_host_serve(size_t bytes, size_t alignment)
{
    for (size_t i = 0; i < zc__run_cure_count && !zc__run_exiting(); i++) {
        const zc__run_cure *row = zc__run_cures[i];
        if (row->calls->host_serve == NULL || !zc__run_fix_on(row->fix))
            continue;
        void *p = row->calls->host_serve(bytes, alignment);
        if (p != NULL)
            return p;
    }
    return NULL;
}

int zc__run_host_squeeze(void)
{
    size_t freed = 0;
    for (size_t i = 0; i < zc__run_cure_count; i++) {
        const zc__run_cure *row = zc__run_cures[i];
        if (row->calls->host_squeeze != NULL && zc__run_fix_on(row->fix))
            freed += row->calls->host_squeeze();
    }
    return freed != 0;
}

typedef size_t (*zc__watch_fn)(void);

static zc__watch_fn zc__host_watch_of(const zc__run_calls *calls)
{
    return calls->watch_host;
}

static zc__watch_fn zc__copy_watch_of(const zc__run_calls *calls)
{
    return calls->watch_copy;
}

/* The least size that the rows whose cure is on give through their watch of (watch_host or
 * watch_copy); 0 when none gives any. */
static size_t zc__least_watched(zc__watch_fn (*watch_of)(const zc__run_calls *calls))
{
    size_t least = 0;
    for (size_t i = 0; i < zc__run_cure_count; i++) {
        const zc__run_cure *row = zc__run_cures[i];
        zc__watch_fn watch = watch_of(row->calls);
        if (watch == NULL || !zc__run_fix_on(row->fix))
            continue;
        size_t min = watch();
        if (min != 0 && (least == 0 || min < least))
            least = min;
    }
    return least;
}

size_t zc__run_host_watch(void)
{
    return zc__least_watched(zc__host_watch_of);
}

size_t zc__run_copy_watch(void)
{
    return zc__least_watched(zc__copy_watch_of);
}

/* ---- the process-wide events ---- */

static void zc__raise_simple(zc__run_event_id id)
{
    zc__run_event e = {.id = id,
                       .may_call_cuda = id == ZC__EVENT_EXIT || id == ZC__EVENT_FORK_CALLED};
    zc__run_raise(&e);
}

void zc__run_fork_called(void)
{
    zc__raise_simple(ZC__EVENT_FORK_CALLED);
}

static void zc__at_exit(void)
{
    __atomic_store_n(&zc__exiting_flag, 1, __ATOMIC_RELEASE);
    zc__raise_simple(ZC__EVENT_EXIT);
}

static void zc__fork_prepare(void)
{
    zc__raise_simple(ZC__EVENT_FORK_PREPARE);
}

static void zc__fork_parent(void)
{
    zc__raise_simple(ZC__EVENT_FORK_PARENT);
}

static void zc__fork_child(void)
{
    zc__raise_simple(ZC__EVENT_FORK_CHILD);
}

static pthread_once_t zc__exit_once = PTHREAD_ONCE_INIT;

static void zc__register_exit(void)
{
    atexit(zc__at_exit);
}

void zc__run_exit_arm(void)
{
    pthread_once(&zc__exit_once, zc__register_exit);
}

/* Fork is watched from the start: a cure's tables must be right in a child whenever it forks. */
__attribute__((constructor)) static void zc__cures_init(void)
{
    pthread_atfork(zc__fork_prepare, zc__fork_parent, zc__fork_child);
}
