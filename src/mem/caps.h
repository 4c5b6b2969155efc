/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the few device attributes the buffer code needs, read once per device. */
#ifndef ZC_MEM_CAPS_H
#define ZC_MEM_CAPS_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "zerocopy/status.h"

typedef struct zc__caps {
    int unified_addressing;
    int can_map_host_memory;
    int pageable_memory_access;
    int concurrent_managed_access;
    int managed_memory;
    int host_register_supported;
    int host_register_read_only_supported;
} zc__caps;

/* Number of CUDA devices; ZC_ERR_NO_DEVICE with the CUDA error when there are none. The
 * answer is kept after the first call (the runtime's device list does not change). */
zc_status zc__caps_device_count(const char *fn, int *count_p);

/* The capabilities of GPU number device, read with cudaDeviceGetAttribute the first time and
 * kept. ZC_ERR_NO_DEVICE without devices; ZC_ERR_INVALID_ARG for a number out of range. */
zc_status zc__caps_get(const char *fn, int device, zc__caps *caps_p);

/* Make device current for the calling thread, remembering the previous one in *previous_p. */
zc_status zc__device_enter(int device, int *previous_p);

/* Restore the device zc__device_enter saw; gives the first failure of status and its own. */
zc_status zc__device_leave(int previous, zc_status status);

#endif
