/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the interposition library: the program's large anonymous private allocations as
 * the allocation events tell them (malloc family, anonymous private mmap), found by any address
 * inside, so that the fresh cure faults in ahead only pages that are the program's own memory,
 * never a file or shared mapping's (run_cure_fresh.c).
 */
#ifndef ZC_RUN_ANON_H
#define ZC_RUN_ANON_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

/* An allocation made, [base, base + size): anything it overlaps was released where no hook saw
 * and is forgotten. A full table leaves it out (its copies are then left to fault their pages
 * in as they were). */
void zc__run_anon_add(uintptr_t base, size_t size);

/* A malloc-family block released (free, realloc): forgotten. Cheap when base was never added,
 * which is almost every free: no lock is taken then. */
void zc__run_anon_release(uintptr_t base);

/* The pages of [start, start + length) unmapped or replaced (munmap, mmap with MAP_FIXED,
 * mremap): every allocation they overlap is forgotten. */
void zc__run_anon_release_range(uintptr_t start, size_t length);

/* Whether [start, start + length) lies inside one allocation added and not released. */
int zc__run_anon_covers(uintptr_t start, size_t length);

/* A forked child: the allocations are its own too, unless another thread of the parent was
 * changing the table as it forked (its lock held): then the child's copy may be torn, and it
 * starts from an empty table. Either way the child's one thread finds the lock free. */
void zc__run_anon_after_fork(void);

#endif
