/* SPDX-License-Identifier: Apache-2.0 */
/* The public buffer calls: allocate, register, free, describe. */
#include "zerocopy/buffer.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/block.h"
#include "mem/caps.h"
#include "mem/pool_internal.h"
#include "mem/registry.h"

/* Record a new block and give it a handle; on failure release it and report why. */
static zc_status zc__publish(const char *fn, zc__block *block, size_t size, zc_buffer **buf_p)
{
    zc__registry_lock();
    zc_status status = zc__registry_insert(fn, block);
    if (status == ZC_OK) {
        status = zc__handle_attach(fn, block, size, buf_p);
        if (status != ZC_OK)
            zc__registry_remove(block);
    }
    zc__registry_unlock();
    if (status != ZC_OK)
        ZC_CHECK_IGNORE(zc__block_release(block));
    return status;
}

ZC_EXTERN zc_status zc_buffer_alloc(size_t size, zc_buffer_kind kind, unsigned flags, int device,
                                    zc_buffer **buf_p)
{
    static const char fn[] = "zc_buffer_alloc";
    ZC_REQUIRE_ARG(buf_p);
    ZC_CHECK(zc__check_kind_flags(fn, kind, flags));
    if (size == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: size is 0", fn);
    size_t rounded = 0;
    ZC_CHECK(zc__page_round(fn, size, &rounded));
    if (device < -1 || (device == -1 && kind != ZC_BUFFER_PAGEABLE))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: device %d is not a device number%s", fn, device,
                       device == -1 ? " (only pageable buffers may have none)" : "");
    zc__block *block = NULL;
    ZC_CHECK(zc__block_make(fn, size, kind, flags, device, &block));
    return zc__publish(fn, block, size, buf_p);
}

ZC_EXTERN zc_status zc_buffer_register(void *ptr, size_t size, unsigned flags, int device,
                                       zc_buffer **buf_p)
{
    static const char fn[] = "zc_buffer_register";
    ZC_REQUIRE_ARG(ptr);
    ZC_REQUIRE_ARG(buf_p);
    const unsigned allowed = zc_buffer_kind_flags(ZC_BUFFER_REGISTERED);
    if (flags & ~ZC_BUFFER_FLAG_ALL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: unknown flag bits 0x%x", fn,
                       flags & ~ZC_BUFFER_FLAG_ALL);
    if (flags & ~allowed)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: flags 0x%x do not apply to registered buffers", fn,
                       flags & ~allowed);
    if (size == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: size is 0", fn);
    if ((uintptr_t)ptr + size < (uintptr_t)ptr)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "%s: range %p + %zu wraps around the address space", fn,
                       ptr, size);
    if (device < 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: device %d is not a device number", fn, device);

    /* zerocopy's own buffers first: the runtime cannot say that a range is ours. */
    zc__registry_lock();
    zc__block *other = zc__registry_find_overlap((uintptr_t)ptr, size);
    zc_buffer_kind other_kind = other ? other->kind : ZC_BUFFER_UNKNOWN;
    uintptr_t other_start = other ? zc__block_start(other) : 0;
    size_t other_size = other ? other->capacity : 0;
    zc__registry_unlock();
    if (other != NULL)
        return ZC_FAIL(other_kind == ZC_BUFFER_DEVICE ? ZC_ERR_WRONG_KIND : ZC_ERR_OVERLAP,
                       "%s: range %p + %zu overlaps the zerocopy %s buffer at %p + %zu", fn, ptr,
                       size, zc_buffer_kind_name(other_kind), (void *)other_start, other_size);

    zc__caps caps;
    ZC_CHECK(zc__caps_get(fn, device, &caps));
    if (!caps.host_register_supported)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "%s: device %d does not support cudaHostRegister", fn,
                       device);
    if ((flags & ZC_BUFFER_FLAG_MAPPED) && !caps.can_map_host_memory)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "%s: device %d cannot map host memory (canMapHostMemory is 0)", fn, device);
    if ((flags & ZC_BUFFER_FLAG_READ_ONLY) && !caps.host_register_read_only_supported)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "%s: device %d cannot register memory read-only "
                       "(hostRegisterReadOnlySupported is 0)",
                       fn, device);

    /* Memory the runtime already knows as device or managed memory cannot be registered. */
    struct cudaPointerAttributes attr;
    cudaError_t error = cudaPointerGetAttributes(&attr, ptr);
    if (error != cudaSuccess) {
        (void)cudaGetLastError();
    } else if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) {
        return ZC_FAIL(ZC_ERR_WRONG_KIND, "%s: %p is %s memory of device %d, not host memory", fn,
                       ptr, attr.type == cudaMemoryTypeDevice ? "device" : "managed", attr.device);
    } else if (attr.type == cudaMemoryTypeHost) {
        return ZC_FAIL(ZC_ERR_OVERLAP, "%s: %p is already pinned (cudaHostAlloc or registered)", fn,
                       ptr);
    }

    zc__block *block = NULL;
    ZC_CHECK(zc__block_register(fn, ptr, size, flags, device, &block));
    return zc__publish(fn, block, size, buf_p);
}

/* Release a block that no pool owns: end its handle and range, then free the memory. */
static zc_status zc__free_resolved(zc__block *block)
{
    zc__handle_detach(block);
    zc__registry_remove(block);
    zc__registry_unlock();
    return zc__block_release(block);
}

ZC_EXTERN zc_status zc_buffer_free(zc_buffer *buf)
{
    if (buf == NULL)
        return ZC_OK;
    zc__registry_lock();
    zc__block *block = NULL;
    zc_status status = zc__handle_resolve("zc_buffer_free", buf, &block);
    if (status != ZC_OK) {
        zc__registry_unlock();
        return status;
    }
    if (block->pool != NULL) {
        struct zc_pool *pool = block->pool;
        zc__registry_unlock();
        return zc__pool_return(pool, buf, NULL, 0, "zc_buffer_free");
    }
    return zc__free_resolved(block);
}

ZC_EXTERN zc_status zc_buffer_unregister(void *ptr)
{
    static const char fn[] = "zc_buffer_unregister";
    ZC_REQUIRE_ARG(ptr);
    zc__registry_lock();
    zc__block *block = zc__registry_find((uintptr_t)ptr);
    if (block == NULL || block->kind != ZC_BUFFER_REGISTERED || block->handle == 0) {
        zc__registry_unlock();
        if (block != NULL)
            return ZC_FAIL(ZC_ERR_WRONG_KIND,
                           "%s: %p lies in a zerocopy %s buffer, not a registration; free it "
                           "with zc_buffer_free",
                           fn, ptr, zc_buffer_kind_name(block->kind));
        return ZC_FAIL(ZC_ERR_NOT_FOUND, "%s: zerocopy registered nothing at %p", fn, ptr);
    }
    if (block->host != ptr) {
        void *base = block->host;
        size_t size = block->capacity;
        zc__registry_unlock();
        return ZC_FAIL(ZC_ERR_NOT_BASE,
                       "%s: %p is %zu bytes into the registration at %p + %zu, not its start", fn,
                       ptr, (size_t)((char *)ptr - (char *)base), base, size);
    }
    return zc__free_resolved(block);
}

ZC_EXTERN zc_status zc_buffer_info_get(const zc_buffer *buf, zc_buffer_info *info_p)
{
    ZC_REQUIRE_ARG(info_p);
    zc__registry_lock();
    zc__block *block = NULL;
    zc_status status = zc__handle_resolve("zc_buffer_info_get", buf, &block);
    if (status == ZC_OK)
        zc__block_info(block, info_p);
    zc__registry_unlock();
    return status;
}

/* One field through a snapshot; on a bad handle the failure is recorded and ok is 0. */
static int zc__snapshot(const char *fn, const zc_buffer *buf, zc_buffer_info *info)
{
    zc__registry_lock();
    zc__block *block = NULL;
    zc_status status = zc__handle_resolve(fn, buf, &block);
    if (status == ZC_OK)
        zc__block_info(block, info);
    zc__registry_unlock();
    return status == ZC_OK;
}

ZC_EXTERN void *zc_buffer_host_ptr(const zc_buffer *buf)
{
    zc_buffer_info info;
    return zc__snapshot(__func__, buf, &info) ? info.host_ptr : NULL;
}

ZC_EXTERN void *zc_buffer_device_ptr(const zc_buffer *buf)
{
    zc_buffer_info info;
    return zc__snapshot(__func__, buf, &info) ? info.device_ptr : NULL;
}

ZC_EXTERN size_t zc_buffer_size(const zc_buffer *buf)
{
    zc_buffer_info info;
    return zc__snapshot(__func__, buf, &info) ? info.size : 0;
}

ZC_EXTERN zc_buffer_kind zc_buffer_kind_of(const zc_buffer *buf)
{
    zc_buffer_info info;
    return zc__snapshot(__func__, buf, &info) ? info.kind : ZC_BUFFER_UNKNOWN;
}

ZC_EXTERN unsigned zc_buffer_flags(const zc_buffer *buf)
{
    zc_buffer_info info;
    return zc__snapshot(__func__, buf, &info) ? info.flags : 0;
}

ZC_EXTERN int zc_buffer_device(const zc_buffer *buf)
{
    zc_buffer_info info;
    return zc__snapshot(__func__, buf, &info) ? info.device : -1;
}

ZC_EXTERN int zc_buffer_is_fallback(const zc_buffer *buf)
{
    zc_buffer_info info;
    return zc__snapshot(__func__, buf, &info) ? (info.notes & ZC_BUFFER_NOTE_FALLBACK) != 0 : 0;
}

ZC_EXTERN zc_status zc_buffer_totals_get(zc_buffer_totals *totals_p)
{
    ZC_REQUIRE_ARG(totals_p);
    zc__registry_lock();
    zc__registry_totals(totals_p);
    zc__registry_unlock();
    return ZC_OK;
}

ZC_EXTERN const char *zc_buffer_method_name(zc_buffer_method method)
{
    switch (method) {
    case ZC_METHOD_MALLOC:
        return "posix_memalign";
    case ZC_METHOD_MMAP:
        return "mmap";
    case ZC_METHOD_HOST_ALLOC:
        return "cudaHostAlloc";
    case ZC_METHOD_MMAP_REGISTER:
        return "mmap+touch+cudaHostRegister";
    case ZC_METHOD_USER_REGISTER:
        return "cudaHostRegister";
    case ZC_METHOD_MALLOC_MANAGED:
        return "cudaMallocManaged";
    case ZC_METHOD_MALLOC_DEVICE:
        return "cudaMalloc";
    case ZC_METHOD_NONE:
        break;
    }
    return "none";
}
