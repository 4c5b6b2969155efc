/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: the program's large allocations as it makes and
 * releases them (the register cure's handlers of the allocation events tell), so that the cure
 * pins in place only memory whose every release it will hear of first. */
#ifndef ZC_RUN_TRACK_H
#define ZC_RUN_TRACK_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

/* An allocation the program made, [base, base + size): a malloc-family block (released by free
 * or realloc) or an anonymous private mapping (released by munmap or mremap). Gives the size of
 * an allocation tracked at base before whose release no hook saw, when it was pinned (its pin
 * must go: its pages are not these), else 0. */
size_t zc__run_track_add(void *base, size_t size);

/* A malloc-family block is given back (free, realloc): forgotten. Gives its size when it was
 * pinned (or being pinned), else 0. Cheap when base was never tracked. */
size_t zc__run_track_release(void *base);

/* How much of the allocation at base the copies from its start have moved. */
typedef enum zc__run_copied {
    ZC__COPIED_UNTRACKED, /* no tracked allocation starts at base */
    ZC__COPIED_PART,      /* less than its size */
    ZC__COPIED_WHOLE      /* at least its size: a buffer the program copies whole */
} zc__run_copied;

/* What is tracked at base, with the allocation's size in *size_p when one starts there. */
zc__run_copied zc__run_track_copied(void *base, size_t *size_p);

/* Whether the allocation at base is pinned or being pinned. */
int zc__run_track_held(void *base);

/* The pages of [start, start + length) are unmapped or remapped (munmap, mremap, mmap over
 * them with MAP_FIXED): every allocation inside is forgotten (the caller takes the pins). */
void zc__run_track_release_range(uintptr_t start, size_t length);

/*
 * A copy of bytes starting at host: count it towards its allocation (when host is where a
 * tracked allocation starts). Gives 1, with the allocation's extent, when the allocation has
 * now been copied twice its size over and should be pinned in place; the caller then reports
 * with zc__run_track_pinned. 0 otherwise.
 */
int zc__run_track_count_copy(const void *host, size_t bytes, void **base_p, size_t *size_p);

/* The outcome of the pinning that count_copy asked for: pinned (1) or refused (0, never asked
 * again). Gives 0 when the allocation was released in the meantime (the caller then unpins). */
int zc__run_track_pinned(void *base, int pinned);

/* The pin of base was dropped while the allocation lives on: with again (the bound, its
 * context going) its copies count towards pinning it again from nothing; without (the program
 * uses it in a graph, or registers it itself) it is never pinned again. */
void zc__run_track_unpinned(void *base, int again);

/* A forked child's tables: the pins are its parent's, forgotten without a driver call. */
void zc__run_track_after_fork(void);

#endif
