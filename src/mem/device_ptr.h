/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: which GPUs may use a pointer, for zc_pointer_query's device mask. */
#ifndef ZC_MEM_DEVICE_PTR_H
#define ZC_MEM_DEVICE_PTR_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>

#include "zerocopy/buffer.h"

/* Bit d set when GPU d may use the memory info describes (its kind, flags, flags_known,
 * device and device_ptr already filled). 0 with no GPU. Leaves no CUDA error behind. */
uint64_t zc__pointer_device_mask(const zc_pointer_info *info);

#endif
