/* SPDX-License-Identifier: Apache-2.0 */
/* Device identity and capabilities, read through the CUDA runtime. */
#include "zerocopy/device.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "device/cuda_check.h"
#include "device/driver_probe.h"

/* Where the kernel publishes PCI attributes. */
#define ZC__SYSFS_ROOT "/sys"

ZC_EXTERN zc_status zc_device_count(int *count_p)
{
    ZC_REQUIRE_ARG(count_p);
    int count = 0;
    /* With no GPU the runtime's own words mislead (no driver reads as "driver version is
     * insufficient"); the driver is asked why instead. */
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess)
        return zc__device_count_failure(error, "cudaGetDeviceCount(&count)", __FILE__, __LINE__);
    if (count == 0)
        return ZC_FAIL(ZC_ERR_NO_DEVICE, "cudaGetDeviceCount: no CUDA device found");
    *count_p = count;
    return ZC_OK;
}

/* Read one integer attribute; unreadable attributes are a CUDA failure like any other. */
static zc_status zc__attribute(int device, enum cudaDeviceAttr attribute, const char *name,
                               int *value_p)
{
    cudaError_t error = cudaDeviceGetAttribute(value_p, attribute, device);
    if (error != cudaSuccess)
        return zc__cuda_status(error, name, __FILE__, __LINE__);
    return ZC_OK;
}

#define ZC__ATTR(device, attr, field)                                                              \
    ZC_CHECK(zc__attribute(device, attr, "cudaDeviceGetAttribute(" #attr ")", field))

ZC_EXTERN zc_status zc_device_info_get(int device, zc_device_info *info_p)
{
    ZC_REQUIRE_ARG(info_p);
    int count = 0;
    ZC_CHECK(zc_device_count(&count));
    if (device < 0 || device >= count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_device_info_get: device %d does not exist (%d found)", device, count);

    zc_device_info info;
    memset(&info, 0, sizeof info);
    info.ordinal = device;
    struct cudaDeviceProp prop;
    ZC_CUDA_RETURN(cudaGetDeviceProperties(&prop, device));
    snprintf(info.name, sizeof info.name, "%s", prop.name);
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.total_memory = prop.totalGlobalMem;
    ZC_CUDA_RETURN(cudaDriverGetVersion(&info.driver_version));
    ZC_CUDA_RETURN(cudaRuntimeGetVersion(&info.runtime_version));
    ZC_CUDA_RETURN(cudaDeviceGetPCIBusId(info.pci_bus_id, (int)sizeof info.pci_bus_id, device));

    ZC__ATTR(device, cudaDevAttrUnifiedAddressing, &info.unified_addressing);
    ZC__ATTR(device, cudaDevAttrCanMapHostMemory, &info.can_map_host_memory);
    ZC__ATTR(device, cudaDevAttrIntegrated, &info.integrated);
    ZC__ATTR(device, cudaDevAttrPageableMemoryAccess, &info.pageable_memory_access);
    ZC__ATTR(device, cudaDevAttrPageableMemoryAccessUsesHostPageTables,
             &info.pageable_memory_access_uses_host_page_tables);
    ZC__ATTR(device, cudaDevAttrConcurrentManagedAccess, &info.concurrent_managed_access);
    ZC__ATTR(device, cudaDevAttrManagedMemory, &info.managed_memory);
    ZC__ATTR(device, cudaDevAttrHostNativeAtomicSupported, &info.host_native_atomic_supported);
    ZC__ATTR(device, cudaDevAttrHostRegisterSupported, &info.host_register_supported);
    ZC__ATTR(device, cudaDevAttrHostRegisterReadOnlySupported,
             &info.host_register_read_only_supported);
    ZC__ATTR(device, cudaDevAttrCanUseHostPointerForRegisteredMem,
             &info.can_use_host_pointer_for_registered_mem);
    ZC__ATTR(device, cudaDevAttrAsyncEngineCount, &info.async_engine_count);
    ZC__ATTR(device, cudaDevAttrDirectManagedMemAccessFromHost,
             &info.direct_managed_mem_access_from_host);
    /* Older drivers do not know this CUDA 13 attribute; say "unknown" rather than fail. */
    cudaError_t partial =
        cudaDeviceGetAttribute(&info.only_partial_host_native_atomic_supported,
                               cudaDevAttrOnlyPartialHostNativeAtomicSupported, device);
    if (partial != cudaSuccess) {
        info.only_partial_host_native_atomic_supported = -1;
        ZC_CUDA_IGNORE(partial);
    }

    /* Free memory needs a context on the device; cudaMemGetInfo creates the primary one. */
    int previous = 0;
    ZC_CUDA_RETURN(cudaGetDevice(&previous));
    ZC_CUDA_RETURN(cudaSetDevice(device));
    size_t free_bytes = 0, total_bytes = 0;
    zc_status status = ZC_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    zc_status restore = ZC_CUDA(cudaSetDevice(previous));
    ZC_CHECK(status);
    ZC_CHECK(restore);
    info.free_memory = free_bytes;

    info.numa_node = zc_pcie_numa_node(ZC__SYSFS_ROOT, info.pci_bus_id);
    ZC_CHECK(zc_pcie_link_read(ZC__SYSFS_ROOT, info.pci_bus_id, &info.link));
    *info_p = info;
    return ZC_OK;
}
