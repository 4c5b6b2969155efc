/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: a staged copy as a pipeline of pieces through the
 * staging buffers, the one loop the plain and the 2D cures share. */
#ifndef ZC_RUN_PIPELINE_H
#define ZC_RUN_PIPELINE_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <stddef.h>

#include "run_counts.h"
#include "run_driver.h"
#include "run_staging.h"

/* A copy cut in pieces, each of which fits a staging buffer. */
typedef struct zc__run_pipeline {
    zc__run_dir dir;
    size_t pieces;
    CUstream stream;
    int async; /* host to device: return once staged, the copies still in flight */
    /* The host's side of a piece: pack it into staging (to the device) or unpack it (from). */
    void (*host_side)(const void *copy, size_t piece, void *staging);
    /* The copy engine's side: queue the piece between staging and the device on stream. */
    CUresult (*device_side)(const zc__run_driver *d, const void *copy, size_t piece, void *staging,
                            CUstream stream);
    const void *copy;
} zc__run_pipeline;

/*
 * Run p through s. Host to device: each piece packed into the next buffer once its event says
 * the engine has left it, then queued, so that packing the next overlaps moving this one.
 * Device to host: every buffer in flight at once, each unpacked by the threads as its event
 * fires and refilled with the next piece. Gives the first failing driver call's status.
 */
CUresult zc__run_pipeline_run(const zc__run_driver *d, zc__run_staging *s,
                              const zc__run_pipeline *p);

#endif
