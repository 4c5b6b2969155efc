/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: what the cures did in this process, and its log. */
#ifndef ZC_RUN_COUNTS_H
#define ZC_RUN_COUNTS_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/run.h"

/* The two directions of a pageable copy. */
typedef enum zc__run_dir { ZC__RUN_H2D = 0, ZC__RUN_D2H = 1 } zc__run_dir;

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t zc__run_now_ns(void);

/* One call of counter, its bytes and time; uncured_ns and pricing say what it would have cost as
 * it was where the caller knows (ZC_RUN_PRICED_NONE otherwise). Every count (this one, and the
 * pageable ones below) starts the process's log (ZC_RUN_DIR) if it is not started yet; the
 * counts and the end line are written at exit. */
void zc__run_count(zc_run_counter counter, uint64_t bytes, uint64_t ns, uint64_t uncured_ns,
                   zc_run_pricing pricing);

/* The same, where no lock may be waited for (inside memcpy, which may run in a signal handler
 * that interrupted this very counting): added without a lock, written at exit with the others,
 * unpriced. */
void zc__run_count_nowait(zc_run_counter counter, uint64_t bytes, uint64_t ns);

/* Whether a pageable copy of this size is the second of its size class (powers of two) in its
 * direction, and so left as it was and timed to price the others. The second, not the first:
 * a program that copies each buffer once keeps all of its copies cured. */
int zc__run_pageable_claim_sample(zc__run_dir dir, size_t bytes);

/* A pageable copy left as it was and timed: the rate its size class is priced at. */
void zc__run_pageable_sampled(zc__run_dir dir, size_t bytes, uint64_t ns);

/* How a pageable copy was cured: through staging, or straight from its buffer pinned in place. */
typedef enum zc__run_way { ZC__RUN_STAGED = 0, ZC__RUN_PINNED = 1 } zc__run_way;

/* A cured pageable copy; its uncured time is priced at exit from the samples. */
void zc__run_pageable_cured(zc__run_way way, zc__run_dir dir, size_t bytes, uint64_t ns);

/* Whether staging has been measured slower than the driver's own path for copies of dir and
 * the size class of bytes: once ZC_RUN_JUDGE_AFTER (8) of them were staged, the time of all
 * but the slowest against what the class's sample took for as many bytes; judged slower, it
 * stays so for the process (its copies then go as they were: pageable-slower). */
int zc__run_pageable_slower(zc__run_dir dir, size_t bytes);

#endif
