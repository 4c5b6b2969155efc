/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: how a buffer handed out by a pool goes back to it. */
#ifndef ZC_MEM_POOL_INTERNAL_H
#define ZC_MEM_POOL_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "zerocopy/pool.h"

/*
 * Return buf to pool; with record_event, only once the work queued on stream so far is done.
 * fn names the public call for error details.
 */
zc_status zc__pool_return(struct zc_pool *pool, zc_buffer *buf, struct CUstream_st *stream,
                          int record_event, const char *fn);

#endif
