/* SPDX-License-Identifier: Apache-2.0 */
/* Several GPUs: a buffer's device pointer for any GPU, and which GPUs may use a pointer. */
#include "mem/device_ptr.h"

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/block.h"
#include "mem/caps.h"
#include "mem/registry.h"

/* The mask has one bit per GPU; GPUs past the 64th are left out of it. */
#define ZC__MASK_DEVICES 64

/*
 * Whether this process has enabled peer access from GPU from to GPU to's memory. The runtime
 * has no query for it, but enabling access that is already on fails with
 * cudaErrorPeerAccessAlreadyEnabled; when the probe turns it on instead, it is turned off again
 * so that the state is left as found. 0 on any failure (taken out of the last-error slot).
 */
static int zc__peer_enabled(int from, int to)
{
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (!can)
        return 0;
    int previous = 0;
    if (zc__device_enter(from, &previous) != ZC_OK) {
        zc_clear_error();
        return 0;
    }
    int enabled = 0;
    cudaError_t probe = cudaDeviceEnablePeerAccess(to, 0);
    if (probe == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
        enabled = 1;
    } else if (probe == cudaSuccess) {
        ZC_CUDA_IGNORE(cudaDeviceDisablePeerAccess(to));
    } else {
        (void)cudaGetLastError();
    }
    if (zc__device_leave(previous, ZC_OK) != ZC_OK)
        zc_clear_error();
    return enabled;
}

uint64_t zc__pointer_device_mask(const zc_pointer_info *info)
{
    int count = 0;
    if (zc__caps_device_count("zc_pointer_query", &count) != ZC_OK) {
        zc_clear_error();
        return 0;
    }
    if (count > ZC__MASK_DEVICES)
        count = ZC__MASK_DEVICES;
    uint64_t own = info->device >= 0 && info->device < count ? (uint64_t)1 << info->device : 0;
    uint64_t mask = 0;
    /* By the kind's properties (src/mem's table), not its name. */
    unsigned props = zc_buffer_kind_props(info->kind);
    if (props & ZC_KIND_PAGE_LOCKED) {
        /* The runtime alone cannot see the portable flag: memory zerocopy did not make counts
         * for its own GPU only, which is always true. */
        if (info->flags_known && (info->flags & ZC_BUFFER_FLAG_PORTABLE))
            return count >= ZC__MASK_DEVICES ? ~(uint64_t)0 : ((uint64_t)1 << count) - 1;
        return own;
    }
    if (props & ZC_KIND_ON_DEVICE) {
        mask = own;
        for (int d = 0; d < count; d++)
            if (d != info->device && info->device >= 0 && zc__peer_enabled(d, info->device))
                mask |= (uint64_t)1 << d;
        return mask;
    }
    if (!(props & ZC_KIND_HOST)) /* unknown */
        return 0;
    /* Managed memory where the GPU has managed memory, pageable where it reaches it. */
    for (int d = 0; d < count; d++) {
        zc__caps caps;
        if (zc__caps_get("zc_pointer_query", d, &caps) != ZC_OK) {
            zc_clear_error();
            continue;
        }
        int usable = (props & ZC_KIND_MIGRATES) ? caps.managed_memory : caps.pageable_memory_access;
        if (usable)
            mask |= (uint64_t)1 << d;
    }
    return mask;
}

/* What zc_buffer_device_ptr_for needs of a block, copied under the registry lock. */
typedef struct zc__ptr_snapshot {
    zc_buffer_kind kind;
    unsigned flags;
    int device;
    void *host;
    void *dev;
} zc__ptr_snapshot;

/* Mapped host memory on another GPU: cudaHostGetDevicePointer with that GPU current. */
static zc_status zc__host_ptr_on(const char *fn, const zc__ptr_snapshot *s, int device,
                                 void **ptr_p)
{
    if (!(s->flags & ZC_BUFFER_FLAG_PORTABLE))
        return ZC_FAIL(ZC_ERR_WRONG_KIND,
                       "%s: the %s buffer at %p is pinned for GPU %d only, not for GPU %d; "
                       "allocate or register it with ZC_BUFFER_FLAG_PORTABLE",
                       fn, zc_buffer_kind_name(s->kind), s->host, s->device, device);
    zc__caps caps;
    ZC_CHECK(zc__caps_get(fn, device, &caps));
    if (!caps.can_map_host_memory)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "%s: GPU %d cannot map host memory", fn, device);
    int previous = 0;
    ZC_CHECK(zc__device_enter(device, &previous));
    void *dev = NULL;
    zc_status status = ZC_CUDA(cudaHostGetDevicePointer(&dev, s->host, 0));
    ZC_CHECK(zc__device_leave(previous, status));
    *ptr_p = dev;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_buffer_device_ptr_for(const zc_buffer *buf, int device, void **ptr_p)
{
    static const char fn[] = "zc_buffer_device_ptr_for";
    ZC_REQUIRE_ARG(ptr_p);
    zc__ptr_snapshot s;
    zc__registry_lock();
    zc__block *block = NULL;
    zc_status status = zc__handle_resolve(fn, buf, &block);
    if (status == ZC_OK) {
        s.kind = block->kind;
        s.flags = block->flags;
        s.device = block->device;
        s.host = block->host;
        s.dev = block->dev;
    }
    zc__registry_unlock();
    ZC_CHECK(status);
    int count = 0;
    ZC_CHECK(zc__caps_device_count(fn, &count));
    if (device < 0 || device >= count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: device %d is not one of this machine's %d GPU%s",
                       fn, device, count, count == 1 ? "" : "s");
    /* By the kind's properties (src/mem's table), not its name. */
    unsigned props = zc_buffer_kind_props(s.kind);
    if (props & ZC_KIND_PAGE_LOCKED) {
        if (s.dev == NULL)
            return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                           "%s: the %s buffer at %p is not mapped for any GPU; allocate or "
                           "register it with ZC_BUFFER_FLAG_MAPPED",
                           fn, zc_buffer_kind_name(s.kind), s.host);
        if (device == s.device) {
            *ptr_p = s.dev;
            return ZC_OK;
        }
        return zc__host_ptr_on(fn, &s, device, ptr_p);
    }
    if (props & ZC_KIND_ON_DEVICE) {
        if (device != s.device && !zc__peer_enabled(device, s.device))
            return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                           "%s: the device buffer at %p is GPU %d's memory and GPU %d has no peer "
                           "access to it (cudaDeviceEnablePeerAccess(%d) with GPU %d current)",
                           fn, s.dev, s.device, device, s.device, device);
        *ptr_p = s.dev;
        return ZC_OK;
    }
    if (props & ZC_KIND_MIGRATES) {
        *ptr_p = s.dev;
        return ZC_OK;
    }
    if (props & ZC_KIND_HOST) { /* pageable memory */
        zc__caps caps;
        ZC_CHECK(zc__caps_get(fn, device, &caps));
        if (!caps.pageable_memory_access)
            return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                           "%s: the pageable buffer at %p cannot be used by GPU %d "
                           "(pageableMemoryAccess is 0)",
                           fn, s.host, device);
        *ptr_p = s.host;
        return ZC_OK;
    }
    return ZC_FAIL(ZC_ERR_WRONG_KIND, "%s: buffer of unknown kind", fn);
}
