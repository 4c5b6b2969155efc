/* SPDX-License-Identifier: Apache-2.0 */
/* The device attributes that decide which buffers are possible, cached per device: they are
 * read on every allocation, and zc_device_info_get is far too slow for that. */
#include "mem/caps.h"

#include <pthread.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"
#include "device/driver_probe.h"

#define ZC__MAX_DEVICES 64

static pthread_mutex_t zc__caps_lock = PTHREAD_MUTEX_INITIALIZER;
static int zc__count_known;
static int zc__count;
static cudaError_t zc__count_error;
static int zc__known[ZC__MAX_DEVICES];
static zc__caps zc__cache[ZC__MAX_DEVICES];

zc_status zc__caps_device_count(const char *fn, int *count_p)
{
    pthread_mutex_lock(&zc__caps_lock);
    if (!zc__count_known) {
        int count = 0;
        zc__count_error = cudaGetDeviceCount(&count);
        if (zc__count_error != cudaSuccess)
            (void)cudaGetLastError();
        zc__count = zc__count_error == cudaSuccess ? count : 0;
        zc__count_known = 1;
    }
    int count = zc__count;
    cudaError_t error = zc__count_error;
    pthread_mutex_unlock(&zc__caps_lock);
    if (error != cudaSuccess) { /* no driver, too old or no GPU, in words (device/driver_probe.h) */
        char call[160];
        snprintf(call, sizeof call, "%s: cudaGetDeviceCount(&count)", fn);
        return zc__device_count_failure(error, call, __FILE__, __LINE__);
    }
    if (count == 0)
        return ZC_FAIL(ZC_ERR_NO_DEVICE, "%s: no CUDA device found", fn);
    *count_p = count;
    return ZC_OK;
}

static zc_status zc__read_attr(int device, enum cudaDeviceAttr attr, const char *name, int *v)
{
    cudaError_t error = cudaDeviceGetAttribute(v, attr, device);
    return zc__cuda_status(error, name, __FILE__, __LINE__);
}

#define ZC__READ(attr, field)                                                                      \
    do {                                                                                           \
        ZC_CHECK(zc__read_attr(device, attr, "cudaDeviceGetAttribute(" #attr ")", &caps.field));   \
    } while (0)

static zc_status zc__caps_read(int device, zc__caps *caps_p)
{
    zc__caps caps;
    ZC__READ(cudaDevAttrUnifiedAddressing, unified_addressing);
    ZC__READ(cudaDevAttrCanMapHostMemory, can_map_host_memory);
    ZC__READ(cudaDevAttrPageableMemoryAccess, pageable_memory_access);
    ZC__READ(cudaDevAttrConcurrentManagedAccess, concurrent_managed_access);
    ZC__READ(cudaDevAttrManagedMemory, managed_memory);
    ZC__READ(cudaDevAttrHostRegisterSupported, host_register_supported);
    ZC__READ(cudaDevAttrHostRegisterReadOnlySupported, host_register_read_only_supported);
    *caps_p = caps;
    return ZC_OK;
}

zc_status zc__caps_get(const char *fn, int device, zc__caps *caps_p)
{
    int count = 0;
    ZC_CHECK(zc__caps_device_count(fn, &count));
    if (device < 0 || device >= count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: device %d does not exist (%d found)", fn, device,
                       count);
    if (device >= ZC__MAX_DEVICES)
        return zc__caps_read(device, caps_p);
    zc_status status = ZC_OK;
    pthread_mutex_lock(&zc__caps_lock);
    if (!zc__known[device]) {
        status = zc__caps_read(device, &zc__cache[device]);
        if (status == ZC_OK)
            zc__known[device] = 1;
    }
    if (status == ZC_OK)
        *caps_p = zc__cache[device];
    pthread_mutex_unlock(&zc__caps_lock);
    return status;
}

zc_status zc__device_enter(int device, int *previous_p)
{
    int previous = 0;
    ZC_CUDA_RETURN(cudaGetDevice(&previous));
    if (previous != device)
        ZC_CUDA_RETURN(cudaSetDevice(device));
    *previous_p = previous;
    return ZC_OK;
}

zc_status zc__device_leave(int previous, zc_status status)
{
    /* After a failure, keep its detail: restoring is then best effort and silent. */
    if (status != ZC_OK) {
        ZC_CUDA_IGNORE(cudaSetDevice(previous));
        return status;
    }
    int current = previous;
    zc_status restore = ZC_CUDA(cudaGetDevice(&current));
    if (restore == ZC_OK && current != previous)
        restore = ZC_CUDA(cudaSetDevice(previous));
    return restore;
}
