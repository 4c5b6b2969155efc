/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the interposition library: the table of cures. Each cure of zerocopy/run.h's
 * ZC_RUN_FIX_MAP is one row with its whole behaviour: the calls it plans (a copy, a pinned
 * allocation or its release) and what it does on every lifecycle event. The hooks only describe
 * a call and ask the rows in table order, or raise an event that every row hears; no hook names
 * a cure (docs/run.md, "The cures and their events"; the model is UCX's ucm events and NCCL's
 * transports asked in order).
 *
 * A cure's file defines one handler per event, named by ZC__RUN_ON(cure, EVENT); the table is
 * built from those names, so a cure that leaves out an event does not link, and one that ignores
 * an event says so with ZC__RUN_IGNORES(cure, EVENT).
 */
#ifndef ZC_RUN_CURES_H
#define ZC_RUN_CURES_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#include "run_copy.h"
#include "zerocopy/run.h"

/*
 * The lifecycle events, one row each: X(arg, ID, "what happened"), arg passed through. A hook
 * raises an event before the call it replaces goes on (after it, for an allocation made).
 */
#define ZC__RUN_EVENT_MAP(X, arg)                                                                  \
    X(arg, HOST_ALLOC, "a large host allocation made (malloc family, anonymous private mmap)")     \
    X(arg, HOST_FREE, "a malloc-family block released (free, realloc); may be deferred")           \
    X(arg, HOST_RESIZE, "a malloc-family block about to be resized: held if a cure must move it")  \
    X(arg, RANGE_UNMAPPED, "a range unmapped (munmap); may be deferred")                           \
    X(arg, RANGE_REPLACED, "the pages of a range replaced now (mmap MAP_FIXED, mremap)")           \
    X(arg, PAGES_DISCARDED, "the pages of a range given back (madvise DONTNEED, FREE, REMOVE)")    \
    X(arg, RANGE_REPROTECTED, "a range's protection changed (mprotect)")                           \
    X(arg, RANGE_IN_GRAPH, "a host range named by a graph's copy node, which may run any time")    \
    X(arg, RANGE_REGISTERED, "a host range the program registers (pins) itself")                   \
    X(arg, CONTEXT_GONE, "a context about to be destroyed, or a device's primary context reset")   \
    X(arg, FORK_CALLED, "fork called: before it and its handlers, where a row may call CUDA")      \
    X(arg, FORK_PREPARE, "fork: before, in the parent")                                            \
    X(arg, FORK_PARENT, "fork: after, in the parent")                                              \
    X(arg, FORK_CHILD, "fork: after, in the child (CUDA is unusable there)")                       \
    X(arg, EXIT, "the process exits (atexit, before the CUDA runtime's own teardown)")

#define ZC__RUN_EVENT_ENUM(arg, id, what) ZC__EVENT_##id,
typedef enum zc__run_event_id {
    ZC__RUN_EVENT_MAP(ZC__RUN_EVENT_ENUM, _) ZC__EVENT_COUNT
} zc__run_event_id;
#undef ZC__RUN_EVENT_ENUM

/* A release the hook would have made, handed to a row that defers it (free, munmap): the row
 * calls it once it has let go of what it held there. */
typedef void (*zc__run_release_fn)(void *start, size_t length);

typedef struct zc__run_event {
    zc__run_event_id id;
    uintptr_t start; /* the host range, for the range events */
    size_t length;
    CUcontext ctx; /* CONTEXT_GONE: the context, or NULL for every context of device */
    CUdevice device;
    /* HOST_FREE, RANGE_UNMAPPED: the release itself, which a row may take over (the hook then
     * skips it); NULL when it cannot wait (the hook releases right after the event). */
    zc__run_release_fn release;
    /* Whether the hook may call CUDA (a driver entry point's hook), or not (free, mmap and the
     * like, which may run where CUDA calls are not allowed: a host function, another thread's
     * capture, behind a kernel that waits for this thread). */
    int may_call_cuda;
} zc__run_event;

/* What a row did with an event. */
typedef enum zc__run_answer {
    ZC__EVENT_SEEN,     /* done with it; the hook goes on */
    ZC__EVENT_DEFERRED, /* HOST_FREE, RANGE_UNMAPPED: the row releases it later; HOST_RESIZE:
                           the row holds the block, so the hook moves it rather than resizing */
    ZC__EVENT_KEPT,     /* HOST_FREE: the row keeps the block, still allocated, to hand it out
                           again (host_serve); the rows after it do not hear of the free, so
                           that what they hold of the block (a pin, a count) stays with it */
    ZC__EVENT_IGNORED,  /* ZC__RUN_IGNORES's answer only: the row handles none of this event,
                           and is not asked of it again (as SEEN for the hook) */
} zc__run_answer;

typedef zc__run_answer (*zc__run_on_fn)(const zc__run_event *e);

/* A pinned allocation the program asks for (cuMemHostAlloc, cuMemAllocHost). */
typedef enum zc__run_pinned_via { ZC__VIA_HOST_ALLOC, ZC__VIA_ALLOC_HOST } zc__run_pinned_via;

typedef struct zc__run_pinned_ask {
    zc__run_pinned_via via;
    void **p;
    size_t bytes;
    unsigned flags;
} zc__run_pinned_ask;

/* The calls a cure plans; NULL for a kind of call it never takes. */
typedef struct zc__run_calls {
    /* A copy: ZC__PASS when not this cure's, else its plan. */
    zc__plan (*plan_copy)(zc__run_copy *c);
    /* Run a copy this cure planned (ZC__CURE, ZC__PINNED, ZC__SAMPLE); the driver's own call is
     * c->call. Gives the program's result. */
    CUresult (*run_copy)(zc__run_copy *c, zc__plan plan);
    /* A pinned allocation or its release: 1 when served (the result in *r), 0 when not. */
    int (*pinned_alloc)(const zc__run_pinned_ask *ask, CUresult *r);
    int (*pinned_free)(void *p, CUresult *r);
    /* Whether the driver sees [start, start + length) otherwise than the program made it (a
     * buffer pinned in place): the program's questions about it are answered as before. */
    int (*changed_view)(uintptr_t start, size_t length);
    /* The smallest host allocation it must hear of (HOST_ALLOC and the releases), or NULL for
     * none; the allocation hooks raise their events only for a cure that asks. */
    size_t (*watch_host)(void);
    /* Whether [start, start + length) touches pinned memory it served otherwise than the driver
     * would have (registered, where the driver would have allocated): the program's
     * cuMemHostUnregister of it, and cuMemHostRegister over it, get the answers for the driver's
     * pinned memory. */
    int (*owns_pinned)(uintptr_t start, size_t length);
    /* A host allocation of bytes at alignment (malloc family, not calloc): a block the row kept
     * (ZC__EVENT_KEPT) of exactly that size, handed out again, or NULL. No CUDA call. */
    void *(*host_serve)(size_t bytes, size_t alignment);
    /* Give every kept block back to the allocator (an allocation failed without them); gives
     * the bytes given back. No CUDA call. */
    size_t (*host_squeeze)(void);
    /* Whether [start, start + length) lies whole inside pinned memory the program holds that
     * the row knows of (a block it served, or the driver's that it saw made). Asked from inside
     * memcpy: no CUDA call, no allocation, and while a thread (this one too) changes what the
     * row knows, 0 rather than a wait; readers share the row's lock, so that two threads copying
     * at once never take each other for busy. */
    int (*page_locked)(uintptr_t start, size_t length);
    /* A host copy of bytes from src to dst (the program's memcpy or memmove, large): 1 when the
     * row made it, 0 when it leaves it to the C library. Same rules as page_locked. */
    int (*host_copy)(void *dst, const void *src, size_t bytes);
    /* The smallest host copy it must be asked about, or NULL for none; the copy hooks ask the
     * rows only from the smallest size a row whose cure is on gives. */
    size_t (*watch_copy)(void);
} zc__run_calls;

/* One cure: its fix, the calls it plans, and its handler of every event. */
typedef struct zc__run_cure {
    zc_run_fix fix;
    const zc__run_calls *calls;
    zc__run_on_fn on[ZC__EVENT_COUNT];
} zc__run_cure;

/* The handler of cure (its lower-case name) for event, and a handler that ignores it. */
#define ZC__RUN_ON(cure, event) zc__cure_##cure##_on_##event
#define ZC__RUN_IGNORES(cure, event)                                                               \
    zc__run_answer ZC__RUN_ON(cure, event)(const zc__run_event *e)                                 \
    {                                                                                              \
        (void)e;                                                                                   \
        return ZC__EVENT_IGNORED;                                                                  \
    }

/* The cures in the order a copy asks them, X(cure, FIX): the blocks the program freed kept for
 * its next allocations first (it plans no copy, and a free it keeps must reach no other row), a
 * buffer pinned in place next (a copy that touches one must not reach the driver as it was),
 * then the fresh destination pages faulted in (it always passes the copy on, to be staged),
 * then staging, then the pinned allocations: large ones served from fresh pages first, then
 * those kept for reuse; last the host copies, which plan no CUDA call. Each cure's file
 * (run_cure_<cure>.c) defines zc__cure_<cure>_calls and one handler per event. */
#define ZC__RUN_CURE_ORDER(X)                                                                      \
    X(reuse, REUSE)                                                                                \
    X(register, REGISTER)                                                                          \
    X(fresh, FRESH)                                                                                \
    X(pageable, PAGEABLE)                                                                          \
    X(fastpin, FASTPIN)                                                                            \
    X(pinning, PINNING)                                                                            \
    X(hostcopy, HOSTCOPY)                                                                          \
    ZC__RUN_CURE_PLANT(X)

/* tests/run plants a cure at the end of the order: a cure file that leaves out an event's
 * handler must fail to link. */
#ifdef ZC_PLANT_RUN_CURE
#define ZC__RUN_CURE_PLANT(X) X(planted, PLANTED)
#else
#define ZC__RUN_CURE_PLANT(X)
#endif

#define ZC__RUN_DECLARE_HANDLER(cure, id, what)                                                    \
    zc__run_answer ZC__RUN_ON(cure, id)(const zc__run_event *e);
#define ZC__RUN_DECLARE_CURE(cure, FIX)                                                            \
    extern const zc__run_calls zc__cure_##cure##_calls;                                            \
    ZC__RUN_EVENT_MAP(ZC__RUN_DECLARE_HANDLER, cure)
ZC__RUN_CURE_ORDER(ZC__RUN_DECLARE_CURE)
#undef ZC__RUN_DECLARE_CURE
#undef ZC__RUN_DECLARE_HANDLER

/* Raise an event: every row whose cure is on hears it, in table order, up to one that keeps
 * the block (ZC__EVENT_KEPT, given back: the hook neither releases it nor tells anyone else).
 * ZC__EVENT_DEFERRED when a row took over the release (or holds a block being resized). */
zc__run_answer zc__run_raise(const zc__run_event *e);

/* Plan a copy: every row whose cure is on is asked in table order; the first that does not
 * pass plans it (c->by). No row: ZC__WAIT when a row asked for it (c->must_wait), else
 * ZC__AS_IT_WAS. */
zc__plan zc__run_plan(zc__run_copy *c);

/* Whether any row whose cure is on plans copies (else a copy is never described: it goes to the
 * driver as it was, at no cost). */
int zc__run_plans_copies(void);

/* Serve a pinned allocation or release through the first row that takes it, else the driver's
 * own entry point. */
CUresult zc__run_pinned_alloc(const zc__run_pinned_ask *ask);
CUresult zc__run_pinned_free(void *p);

/* Whether any row changed how the driver sees [start, start + length). */
int zc__run_view_changed(uintptr_t start, size_t length);

/* Whether [start, start + length) touches pinned memory a row served otherwise than the driver
 * would have. */
int zc__run_pinned_owned(uintptr_t start, size_t length);

/* A host allocation served with a block a row kept, or NULL (the hook then makes it). */
void *zc__run_host_serve(size_t bytes, size_t alignment);

/* Every kept block given back to the allocator; gives whether there was any. */
int zc__run_host_squeeze(void);

/* Whether [start, start + length) lies inside pinned memory the program holds that a row whose
 * cure is on knows of (page_locked). */
int zc__run_page_locked(uintptr_t start, size_t length);

/* Whether [start, start + length) lies whole inside the block [base, base + size), without an
 * overflow for ranges near the top of the address space (a row's page_locked). */
static inline int zc__run_range_within(uintptr_t start, size_t length, uintptr_t base, size_t size)
{
    return start >= base && start - base < size && length <= size - (start - base);
}

/* A large host copy (the program's memcpy or memmove) made by the first row whose cure is on
 * that takes it: 1, else 0 (the C library makes it). */
int zc__run_host_copy(void *dst, const void *src, size_t bytes);

/* The smallest host allocation a row whose cure is on must hear of; 0 when none asks. */
size_t zc__run_host_watch(void);

/* The smallest host copy a row whose cure is on must be asked about; 0 when none asks. */
size_t zc__run_copy_watch(void);

/*
 * Ask for the exit event (once; each cure calls it the first time it holds something of its
 * own): registered with atexit then, after the CUDA runtime and driver have started, so that it
 * runs before their teardown.
 */
void zc__run_exit_arm(void);

/* Whether the process is exiting: from then on no call is cured, and no row frees what a
 * thread still copying may be using. */
int zc__run_exiting(void);

/* Raise FORK_CALLED: the program called fork, which has not started yet (run_fork_hook.c). */
void zc__run_fork_called(void);

#endif
