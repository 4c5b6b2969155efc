/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: what the plain (run_copy.c) and the 2D
 * (run_copy_2d.c) pageable-copy cures share. */
#ifndef ZC_RUN_COPY_H
#define ZC_RUN_COPY_H

#include <cuda.h>
#include <stddef.h>

#include "run_counts.h"
#include "run_driver.h"
#include "run_staging.h"

/* What a pointer is, as far as the copy cure cares. */
typedef enum zc__where { ZC__UNKNOWN, ZC__PAGEABLE, ZC__DEVICE, ZC__OTHER } zc__where;

zc__where zc__run_classify(const zc__run_driver *d, CUdeviceptr ptr);

/* What to do with a copy. */
typedef enum zc__plan { ZC__AS_IT_WAS, ZC__SAMPLE, ZC__CURE } zc__plan;

/* Whether a copy of bytes is below the size the cure pays for in its direction. */
int zc__run_copy_small(zc__run_dir dir, size_t bytes);

/* Count a copy left as it was, for the reason given; gives ZC__AS_IT_WAS. */
zc__plan zc__run_copy_leave(zc_run_counter why, size_t bytes);

/*
 * The checks every cured copy passes once its host side is known to be pageable and its device
 * side device memory, [device, device + extent) the device bytes it touches: big enough, a
 * current context (in *ctx_p), the device range inside one allocation, the stream not being
 * captured. Gives the plan, counting a copy left.
 */
zc__plan zc__run_copy_plan(const zc__run_driver *d, zc__run_dir dir, size_t bytes,
                           CUdeviceptr device, size_t extent, CUstream stream, CUcontext *ctx_p);

/* A copy is cut in chunks of about an eighth of it, from 256 KiB up to a staging buffer. */
size_t zc__run_chunk_for(const zc__run_staging *s, size_t bytes);

#endif
