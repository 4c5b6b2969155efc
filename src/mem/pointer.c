/* SPDX-License-Identifier: Apache-2.0 */
/* What a pointer is: zerocopy's own record first, then the CUDA runtime's attributes. */
#include "zerocopy/buffer.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/caps.h"
#include "mem/device_ptr.h"
#include "mem/registry.h"

/* Whether a kernel on the current device may dereference the pointer described by info. */
static int zc__kernel_can_access(const zc_pointer_info *info)
{
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    zc__caps caps;
    if (zc__caps_get("zc_pointer_query", current, &caps) != ZC_OK) {
        zc_clear_error();
        return 0;
    }
    /* By the kind's properties (src/mem's table), not its name. */
    unsigned props = zc_buffer_kind_props(info->kind);
    if (props & ZC_KIND_ON_DEVICE) /* another GPU's memory needs peer access, not looked at */
        return info->device == current;
    if (props & ZC_KIND_MIGRATES)
        return caps.managed_memory;
    if (props & ZC_KIND_PAGE_LOCKED)
        /* Mapped pinned memory is reachable at its device address; under unified addressing
         * that is every device's view of it, otherwise only the device that mapped it. */
        return info->device_ptr != NULL && caps.can_map_host_memory &&
               (caps.unified_addressing || info->device == current);
    if (props & ZC_KIND_HOST) /* pageable memory */
        return caps.pageable_memory_access;
    return 0; /* unknown */
}

ZC_EXTERN zc_status zc_pointer_query(const void *ptr, zc_pointer_info *info_p)
{
    ZC_REQUIRE_ARG(ptr);
    ZC_REQUIRE_ARG(info_p);
    zc_pointer_info info;
    memset(&info, 0, sizeof info);
    info.kind = ZC_BUFFER_UNKNOWN;
    info.device = -1;

    uintptr_t addr = (uintptr_t)ptr;
    zc__registry_lock();
    zc__block *b = zc__registry_find(addr);
    if (b != NULL) {
        info.kind = b->kind;
        info.flags = b->flags;
        info.flags_known = 1;
        info.from_zerocopy = 1;
        info.device = b->device;
        info.base = (void *)zc__block_start(b);
        info.size = b->capacity;
        info.offset = addr - zc__block_start(b);
        info.device_ptr = b->dev != NULL ? (char *)b->dev + info.offset : NULL;
    }
    zc__registry_unlock();

    int count = 0;
    int have_gpu = zc__caps_device_count("zc_pointer_query", &count) == ZC_OK;
    if (!have_gpu) {
        /* Without a GPU only zerocopy's own record can answer; that is not a failure. */
        zc_clear_error();
        *info_p = info;
        return ZC_OK;
    }
    if (!info.from_zerocopy) {
        struct cudaPointerAttributes attr;
        ZC_CHECK(ZC_CUDA(cudaPointerGetAttributes(&attr, ptr)));
        switch (attr.type) {
        case cudaMemoryTypeUnregistered:
            info.kind = ZC_BUFFER_PAGEABLE;
            break;
        case cudaMemoryTypeHost:
            /* The runtime cannot tell cudaHostAlloc from cudaHostRegister, nor see the flags. */
            info.kind = ZC_BUFFER_PINNED;
            info.device = attr.device;
            info.device_ptr = attr.devicePointer;
            break;
        case cudaMemoryTypeDevice:
            info.kind = ZC_BUFFER_DEVICE;
            info.device = attr.device;
            info.device_ptr = attr.devicePointer;
            break;
        case cudaMemoryTypeManaged:
            info.kind = ZC_BUFFER_MANAGED;
            info.device = attr.device;
            info.device_ptr = attr.devicePointer;
            break;
        }
        if (info.kind == ZC_BUFFER_PAGEABLE) {
            /* Only this call's own failure is cleared: an error the caller has not yet
             * collected (a launch's, say) stays for the caller's cudaGetLastError. */
            int current = 0;
            zc__caps caps;
            if (cudaGetDevice(&current) != cudaSuccess)
                (void)cudaGetLastError();
            else if (zc__caps_get("zc_pointer_query", current, &caps) == ZC_OK &&
                     caps.pageable_memory_access)
                info.device_ptr = (void *)ptr;
        }
    }
    info.kernel_can_access = zc__kernel_can_access(&info);
    info.device_mask = zc__pointer_device_mask(&info);
    *info_p = info;
    return ZC_OK;
}
