/* SPDX-License-Identifier: Apache-2.0 */
/* Managed-memory helpers: prefetch to a device or the host, and access advice. */
#include "zerocopy/buffer.h"

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/caps.h"
#include "mem/registry.h"

/* The managed range [offset, offset + length) of buf, checked. */
static zc_status zc__managed_range(const char *fn, const zc_buffer *buf, size_t offset,
                                   size_t length, void **start_p, size_t *length_p, int *device_p)
{
    zc__registry_lock();
    zc__block *b = NULL;
    zc_status status = zc__handle_resolve(fn, buf, &b);
    zc_buffer_kind kind = status == ZC_OK ? b->kind : ZC_BUFFER_UNKNOWN;
    size_t size = status == ZC_OK ? b->size : 0;
    void *base = status == ZC_OK ? b->dev : NULL;
    int device = status == ZC_OK ? b->device : -1;
    zc__registry_unlock();
    ZC_CHECK(status);
    if (kind != ZC_BUFFER_MANAGED)
        return ZC_FAIL(ZC_ERR_WRONG_KIND, "%s: buffer is %s memory, not managed", fn,
                       zc_buffer_kind_name(kind));
    if (offset >= size)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: offset %zu is past the buffer's %zu bytes", fn,
                       offset, size);
    if (length == 0)
        length = size - offset;
    if (length > size - offset)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %zu bytes from offset %zu pass the end (%zu)", fn,
                       length, offset, size);
    *start_p = (char *)base + offset;
    *length_p = length;
    *device_p = device;
    return ZC_OK;
}

/* The CUDA location for a device number or ZC_DEVICE_HOST, checked. */
static zc_status zc__location(const char *fn, int device, struct cudaMemLocation *loc_p)
{
    struct cudaMemLocation loc;
    if (device == ZC_DEVICE_HOST) {
        loc.type = cudaMemLocationTypeHost;
        loc.id = 0;
    } else {
        zc__caps caps;
        ZC_CHECK(zc__caps_get(fn, device, &caps));
        loc.type = cudaMemLocationTypeDevice;
        loc.id = device;
    }
    *loc_p = loc;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_buffer_prefetch(const zc_buffer *buf, size_t offset, size_t length,
                                       int device, struct CUstream_st *stream)
{
    static const char fn[] = "zc_buffer_prefetch";
    void *start = NULL;
    int owner = 0;
    ZC_CHECK(zc__managed_range(fn, buf, offset, length, &start, &length, &owner));
    struct cudaMemLocation loc;
    ZC_CHECK(zc__location(fn, device, &loc));
    zc__caps caps;
    ZC_CHECK(zc__caps_get(fn, device == ZC_DEVICE_HOST ? owner : device, &caps));
    if (!caps.concurrent_managed_access)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "%s: prefetching needs concurrentManagedAccess, which device %d lacks", fn,
                       device == ZC_DEVICE_HOST ? owner : device);
#if CUDART_VERSION >= 13000
    return ZC_CUDA(cudaMemPrefetchAsync(start, length, loc, 0, (cudaStream_t)stream));
#else
    return ZC_CUDA(cudaMemPrefetchAsync(
        start, length, device == ZC_DEVICE_HOST ? cudaCpuDeviceId : device, (cudaStream_t)stream));
#endif
}

ZC_EXTERN zc_status zc_buffer_advise(const zc_buffer *buf, size_t offset, size_t length,
                                     zc_advice advice, int device)
{
    static const char fn[] = "zc_buffer_advise";
    enum cudaMemoryAdvise what;
    switch (advice) {
    case ZC_ADVISE_READ_MOSTLY:
        what = cudaMemAdviseSetReadMostly;
        break;
    case ZC_ADVISE_UNSET_READ_MOSTLY:
        what = cudaMemAdviseUnsetReadMostly;
        break;
    case ZC_ADVISE_PREFERRED_LOCATION:
        what = cudaMemAdviseSetPreferredLocation;
        break;
    case ZC_ADVISE_UNSET_PREFERRED_LOCATION:
        what = cudaMemAdviseUnsetPreferredLocation;
        break;
    case ZC_ADVISE_ACCESSED_BY:
        what = cudaMemAdviseSetAccessedBy;
        break;
    case ZC_ADVISE_UNSET_ACCESSED_BY:
        what = cudaMemAdviseUnsetAccessedBy;
        break;
    default:
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: unknown advice %d", fn, (int)advice);
    }
    void *start = NULL;
    int owner = 0;
    ZC_CHECK(zc__managed_range(fn, buf, offset, length, &start, &length, &owner));
    struct cudaMemLocation loc;
    ZC_CHECK(zc__location(fn, device, &loc));
#if CUDART_VERSION >= 13000
    return ZC_CUDA(cudaMemAdvise(start, length, what, loc));
#else
    return ZC_CUDA(
        cudaMemAdvise(start, length, what, device == ZC_DEVICE_HOST ? cudaCpuDeviceId : device));
#endif
}
