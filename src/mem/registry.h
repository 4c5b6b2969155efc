/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the process's record of live buffers: handles, address ranges and totals. */
#ifndef ZC_MEM_REGISTRY_H
#define ZC_MEM_REGISTRY_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "mem/block.h"
#include "zerocopy/buffer.h"

/*
 * A handle is (generation << 32) | (slot + 1), never a pointer: the registry never reads memory
 * through a handle, so a freed or forged handle cannot make it touch freed memory, and a slot's
 * generation changes on every free, so a stale handle is told apart from the slot's next user.
 */

/* The one lock over handles, ranges and totals. Held briefly; never around a CUDA call that
 * can take long except where noted. */
void zc__registry_lock(void);
void zc__registry_unlock(void);

/*
 * Record a new block's range and count it. ZC_ERR_OVERLAP when it overlaps a block already
 * recorded (detail names both ranges). Lock held by the caller.
 */
zc_status zc__registry_insert(const char *fn, zc__block *block);

/* Forget a block's range and uncount it. Lock held. */
void zc__registry_remove(zc__block *block);

/* The block whose range holds addr, or NULL. Lock held. */
zc__block *zc__registry_find(uintptr_t addr);

/* Some block overlapping [start, start + len), or NULL. Lock held. */
zc__block *zc__registry_find_overlap(uintptr_t start, size_t len);

/* Give the block a fresh handle (size is what the holder asked for). ZC_ERR_NO_MEMORY when
 * the table cannot grow. Lock held. */
zc_status zc__handle_attach(const char *fn, zc__block *block, size_t size, zc_buffer **buf_p);

/* The block a live handle names. ZC_ERR_INVALID_ARG for NULL or a handle that never was,
 * ZC_ERR_DOUBLE_FREE for one already freed. Lock held. */
zc_status zc__handle_resolve(const char *fn, const zc_buffer *buf, zc__block **block_p);

/* End the block's handle: the slot's generation moves on. Lock held. */
void zc__handle_detach(zc__block *block);

/* Copy of the totals. Lock held. */
void zc__registry_totals(zc_buffer_totals *totals_p);

/* A block's public description under its current handle. */
void zc__block_info(const zc__block *block, zc_buffer_info *info_p);

#endif
