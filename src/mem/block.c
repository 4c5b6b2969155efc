/* SPDX-License-Identifier: Apache-2.0 */
/* Making and releasing blocks of every kind, each with the call its kind needs. */
#include "mem/block.h"

#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "core/host.h"
#include "core/page_touch.h"
#include "device/cuda_check.h"
#include "mem/caps.h"
#include "mem/kinds.h"
#include "mem/pages.h"

zc_status zc__check_kind_flags(const char *fn, zc_buffer_kind kind, unsigned flags)
{
    if (flags & ~ZC_BUFFER_FLAG_ALL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: unknown flag bits 0x%x", fn,
                       flags & ~ZC_BUFFER_FLAG_ALL);
    const zc__kind_row *row = zc__kind_of(kind);
    if (row == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: unknown buffer kind %d", fn, (int)kind);
    if (row->props & ZC_KIND_BY_REGISTER)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "%s: %s buffers are made by zc_buffer_register, not allocated", fn,
                       row->name);
    unsigned allowed = row->flags;
    if (flags & ~allowed)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: flags 0x%x do not apply to %s buffers", fn,
                       flags & ~allowed, zc_buffer_kind_name(kind));
    return ZC_OK;
}

zc_status zc__page_round(const char *fn, size_t size, size_t *rounded_p)
{
    size_t page = zc__page_size();
    /* Leave room for the huge-page alignment slack of zc__pages_map as well. */
    if (size > SIZE_MAX - page - ZC__HUGE_PAGE)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "%s: %zu bytes cannot be rounded up to whole pages", fn,
                       size);
    *rounded_p = (size + page - 1) / page * page;
    return ZC_OK;
}

static zc__block *zc__block_new(zc_buffer_kind kind, unsigned flags, int device, size_t capacity)
{
    zc__block *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->kind = kind;
    b->requested_kind = kind;
    b->flags = flags;
    b->device = device;
    b->capacity = capacity;
    return b;
}

/* Pageable memory: malloc-like for small sizes, a mapping for large ones. caps are the
 * device's when b->device >= 0. */
static zc_status zc__make_pageable(const char *fn, zc__block *b, const zc__caps *caps)
{
    if (b->capacity >= ZC_PIN_REGISTER_THRESHOLD) {
        ZC_CHECK(zc__pages_map(fn, b->capacity, 1, &b->map_base));
        b->map_len = b->capacity;
        b->method = ZC_METHOD_MMAP;
    } else {
        int err = posix_memalign(&b->map_base, zc__page_size(), b->capacity);
        if (err != 0)
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: posix_memalign of %zu bytes failed: %s", fn,
                           b->capacity, strerror(err));
        b->method = ZC_METHOD_MALLOC;
    }
    b->host = b->map_base;
    b->dev = NULL;
    /* Only where the device walks the host's page tables may a kernel use this address. */
    if (b->device >= 0 && caps->pageable_memory_access)
        b->dev = b->host;
    return ZC_OK;
}

/* The device-side address of pinned host memory, as the runtime gives it. NULL (and no error)
 * when the memory is not mapped; required is set for mapped kinds. */
static zc_status zc__host_device_pointer(void *host, int required, void **dev_p)
{
    void *dev = NULL;
    cudaError_t error = cudaHostGetDevicePointer(&dev, host, 0);
    if (error != cudaSuccess) {
        if (required)
            return ZC_CUDA(error);
        (void)cudaGetLastError();
        dev = NULL;
    }
    *dev_p = dev;
    return ZC_OK;
}

/* cudaHostRegister of fresh pages, run beside the threads that fault them in
 * (core/page_touch.h): the registration pins pages the threads have just made. */
typedef struct zc__registration {
    void *base;
    size_t len;
    unsigned flags; /* cudaHostRegisterDefault with what the buffer's flags ask */
    zc_status status;
} zc__registration;

static int zc__register(void *arg)
{
    zc__registration *r = arg;
    r->status = ZC_CUDA(cudaHostRegister(r->base, r->len, r->flags));
    return 0;
}

/* Pinned, mapped or write-combined memory on the current device (already entered). */
static zc_status zc__make_pinned(const char *fn, zc__block *b, const zc__caps *caps)
{
    int mapped = (b->flags & ZC_BUFFER_FLAG_MAPPED) != 0;
    int use_register = !(b->flags & (ZC_BUFFER_FLAG_WRITE_COMBINED | ZC_BUFFER_FLAG_HOST_ALLOC)) &&
                       b->capacity >= ZC_PIN_REGISTER_THRESHOLD && caps->host_register_supported;
    zc_status status;
    if (use_register) {
        ZC_CHECK(zc__pages_map(fn, b->capacity, 1, &b->map_base));
        b->map_len = b->capacity;
        zc__registration r = {.base = b->map_base, .len = b->map_len};
        if (b->flags & ZC_BUFFER_FLAG_PORTABLE)
            r.flags |= cudaHostRegisterPortable;
        if (mapped)
            r.flags |= cudaHostRegisterMapped;
        (void)zc__touch_beside(b->map_base, b->map_len, zc__pages_touch_threads(b->map_len),
                               zc__register, &r);
        status = r.status;
        if (status == ZC_OK) {
            b->method = ZC_METHOD_MMAP_REGISTER;
        } else {
            /* Registration is only the faster way; cudaHostAlloc below is the other. */
            ZC_CHECK_IGNORE(zc__pages_unmap(b->map_base, b->map_len));
            b->map_base = NULL;
            b->map_len = 0;
            use_register = 0;
        }
    }
    if (!use_register) {
        unsigned hflags = cudaHostAllocDefault;
        if (b->flags & ZC_BUFFER_FLAG_PORTABLE)
            hflags |= cudaHostAllocPortable;
        if (mapped)
            hflags |= cudaHostAllocMapped;
        if (b->flags & ZC_BUFFER_FLAG_WRITE_COMBINED)
            hflags |= cudaHostAllocWriteCombined;
        status = ZC_CUDA(cudaHostAlloc(&b->map_base, b->capacity, hflags));
        if (status != ZC_OK) {
            b->map_base = NULL;
            return status;
        }
        b->method = ZC_METHOD_HOST_ALLOC;
    }
    b->host = b->map_base;
    status = zc__host_device_pointer(b->host, mapped, &b->dev);
    if (status != ZC_OK) {
        if (b->method == ZC_METHOD_HOST_ALLOC) {
            ZC_CUDA_IGNORE(cudaFreeHost(b->map_base));
        } else {
            ZC_CUDA_IGNORE(cudaHostUnregister(b->map_base));
            ZC_CHECK_IGNORE(zc__pages_unmap(b->map_base, b->map_len));
        }
        b->host = b->map_base = NULL;
        return status;
    }
    return ZC_OK;
}

/* Everything but pageable memory: needs the device, made current for the calls. */
static zc_status zc__make_on_device(const char *fn, zc__block *b)
{
    zc__caps caps;
    ZC_CHECK(zc__caps_get(fn, b->device, &caps));
    if ((b->flags & ZC_BUFFER_FLAG_MAPPED) && !caps.can_map_host_memory)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "%s: device %d cannot map host memory (canMapHostMemory is 0)", fn,
                       b->device);
    if (b->kind == ZC_BUFFER_MANAGED && !caps.managed_memory)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "%s: device %d has no managed memory", fn, b->device);
    int previous = 0;
    ZC_CHECK(zc__device_enter(b->device, &previous));
    zc_status status = ZC_OK;
    switch (b->kind) {
    case ZC_BUFFER_MANAGED: {
        unsigned attach =
            (b->flags & ZC_BUFFER_FLAG_ATTACH_HOST) ? cudaMemAttachHost : cudaMemAttachGlobal;
        status = ZC_CUDA(cudaMallocManaged(&b->map_base, b->capacity, attach));
        if (status == ZC_OK) {
            b->host = b->dev = b->map_base;
            b->method = ZC_METHOD_MALLOC_MANAGED;
            if (!caps.concurrent_managed_access)
                b->notes |= ZC_BUFFER_NOTE_NO_CONCURRENT_ACCESS;
        }
        break;
    }
    case ZC_BUFFER_DEVICE:
        status = ZC_CUDA(cudaMalloc(&b->map_base, b->capacity));
        if (status == ZC_OK) {
            b->dev = b->map_base;
            b->method = ZC_METHOD_MALLOC_DEVICE;
        }
        break;
    default:
        status = zc__make_pinned(fn, b, &caps);
        break;
    }
    return zc__device_leave(previous, status);
}

zc_status zc__block_make(const char *fn, size_t size, zc_buffer_kind kind, unsigned flags,
                         int device, zc__block **block_p)
{
    size_t capacity = 0;
    ZC_CHECK(zc__page_round(fn, size, &capacity));
    /* The kinds of pinned memory are one kind with flags; name the result by its flags. */
    zc_buffer_kind effective = kind;
    if (kind == ZC_BUFFER_PINNED || kind == ZC_BUFFER_MAPPED || kind == ZC_BUFFER_WRITE_COMBINED) {
        if (kind == ZC_BUFFER_MAPPED)
            flags |= ZC_BUFFER_FLAG_MAPPED;
        if (kind == ZC_BUFFER_WRITE_COMBINED)
            flags |= ZC_BUFFER_FLAG_WRITE_COMBINED;
        effective = (flags & ZC_BUFFER_FLAG_WRITE_COMBINED) ? ZC_BUFFER_WRITE_COMBINED
                    : (flags & ZC_BUFFER_FLAG_MAPPED)       ? ZC_BUFFER_MAPPED
                                                            : ZC_BUFFER_PINNED;
    }
    zc__block *b = zc__block_new(effective, flags, device, capacity);
    if (b == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no memory for the buffer record", fn);
    b->requested_kind = kind;
    zc__caps caps;
    memset(&caps, 0, sizeof caps);
    zc_status status = ZC_OK;
    if (kind == ZC_BUFFER_PAGEABLE) {
        if (device >= 0)
            status = zc__caps_get(fn, device, &caps);
        if (status == ZC_OK)
            status = zc__make_pageable(fn, b, &caps);
    } else {
        status = zc__make_on_device(fn, b);
    }

    int may_fall_back = (flags & ZC_BUFFER_FLAG_FALLBACK_PAGEABLE) &&
                        status != ZC_ERR_INVALID_ARG && status != ZC_ERR_OVERFLOW;
    if (status != ZC_OK && may_fall_back) {
        /* The caller asked for pageable memory rather than a failure; zc_last_error() keeps
         * why pinning failed, and the buffer records the status. */
        zc_status why = status;
        b->kind = ZC_BUFFER_PAGEABLE;
        b->flags = ZC_BUFFER_FLAG_FALLBACK_PAGEABLE;
        b->notes = 0;
        if (zc__caps_get(fn, device, &caps) != ZC_OK) {
            memset(&caps, 0, sizeof caps);
            b->device = -1;
        }
        status = zc__make_pageable(fn, b, &caps);
        if (status == ZC_OK) {
            b->notes |= ZC_BUFFER_NOTE_FALLBACK;
            b->fallback_status = why;
        }
    }
    if (status != ZC_OK) {
        free(b);
        return status;
    }
    *block_p = b;
    return ZC_OK;
}

zc_status zc__block_register(const char *fn, void *ptr, size_t size, unsigned flags, int device,
                             zc__block **block_p)
{
    zc__block *b = zc__block_new(ZC_BUFFER_REGISTERED, flags, device, size);
    if (b == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no memory for the buffer record", fn);
    int previous = 0;
    zc_status status = zc__device_enter(device, &previous);
    if (status != ZC_OK) {
        free(b);
        return status;
    }
    unsigned rflags = cudaHostRegisterDefault;
    if (flags & ZC_BUFFER_FLAG_PORTABLE)
        rflags |= cudaHostRegisterPortable;
    if (flags & ZC_BUFFER_FLAG_MAPPED)
        rflags |= cudaHostRegisterMapped;
    if (flags & ZC_BUFFER_FLAG_READ_ONLY)
        rflags |= cudaHostRegisterReadOnly;
    status = ZC_CUDA(cudaHostRegister(ptr, size, rflags));
    if (status == ZC_OK) {
        b->host = b->map_base = ptr;
        b->method = ZC_METHOD_USER_REGISTER;
        status = zc__host_device_pointer(ptr, (flags & ZC_BUFFER_FLAG_MAPPED) != 0, &b->dev);
        if (status != ZC_OK) {
            ZC_CUDA_IGNORE(cudaHostUnregister(ptr));
            b->method = ZC_METHOD_NONE;
        }
    }
    status = zc__device_leave(previous, status);
    if (status != ZC_OK) {
        if (b->method == ZC_METHOD_USER_REGISTER)
            ZC_CUDA_IGNORE(cudaHostUnregister(ptr));
        free(b);
        return status;
    }
    *block_p = b;
    return ZC_OK;
}

zc_status zc__block_release(zc__block *b)
{
    if (b == NULL)
        return ZC_OK;
    zc_status status = ZC_OK;
    switch (b->method) {
    case ZC_METHOD_MALLOC:
        free(b->map_base);
        break;
    case ZC_METHOD_MMAP:
        status = zc__pages_unmap(b->map_base, b->map_len);
        break;
    case ZC_METHOD_HOST_ALLOC:
        status = ZC_CUDA(cudaFreeHost(b->map_base));
        break;
    case ZC_METHOD_MMAP_REGISTER: {
        /* Unpin first: the pages must stay mapped while the driver still holds them. */
        status = ZC_CUDA(cudaHostUnregister(b->map_base));
        zc_status unmapped = zc__pages_unmap(b->map_base, b->map_len);
        if (status == ZC_OK)
            status = unmapped;
        break;
    }
    case ZC_METHOD_USER_REGISTER:
        status = ZC_CUDA(cudaHostUnregister(b->map_base));
        break;
    case ZC_METHOD_MALLOC_MANAGED:
    case ZC_METHOD_MALLOC_DEVICE:
        status = ZC_CUDA(cudaFree(b->map_base));
        break;
    case ZC_METHOD_NONE:
        break;
    }
    free(b);
    return status;
}
