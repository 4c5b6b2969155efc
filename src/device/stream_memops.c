/* SPDX-License-Identifier: Apache-2.0 */
/* Finding the driver's stream memory operations and checking that a device supports them. */
#include "device/stream_memops.h"

#include "core/error.h"
#include "device/cuda_check.h"

/* cuda.h: CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS. */
#define ZC__ATTR_64_BIT_STREAM_MEM_OPS 122
/* The ABI version the function pointers are asked for: CUDA 12.0's, which is the 11.7 form of
 * both calls (the one whose waits work on any memory the device can reach). */
#define ZC__MEMOPS_ABI_VERSION         12000

typedef int (*zc__device_get_fn)(int *device, int ordinal);
typedef int (*zc__device_get_attribute_fn)(int *value, int attribute, int device);

/* One driver function by name; ZC_ERR_UNSUPPORTED when the driver does not have it. */
static zc_status zc__entry(const char *symbol, void **fn_p)
{
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, fn_p, ZC__MEMOPS_ABI_VERSION,
                                                     cudaEnableDefault, &found);
    if (e != cudaSuccess) {
        ZC_CUDA_IGNORE(e); /* reported below, with the symbol */
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "cudaGetDriverEntryPointByVersion(\"%s\") failed: %s",
                       symbol, cudaGetErrorName(e));
    }
    if (found != cudaDriverEntryPointSuccess || *fn_p == NULL)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "the NVIDIA driver has no %s (entry point query result %d): stream "
                       "memory operations need a newer driver",
                       symbol, (int)found);
    return ZC_OK;
}

zc_status zc__driver_result(int result, const char *call, const char *file, int line)
{
    if (result == 0)
        return ZC_OK;
    return zc__fail(ZC_ERR_CUDA, file, line, "%s failed: CUresult %d", call, result);
}

zc_status zc__stream_memops_get(int device, zc__stream_memops *ops_p)
{
    ZC_REQUIRE_ARG(ops_p);
    int can_map = 0;
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device));
    if (!can_map)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "GPU %d cannot map host memory (canMapHostMemory 0): the stream cannot "
                       "wait on a word the CPU writes",
                       device);
    zc__device_get_fn device_get;
    zc__device_get_attribute_fn get_attribute;
    zc__stream_memops ops;
    ZC_CHECK(zc__entry("cuDeviceGet", (void **)&device_get));
    ZC_CHECK(zc__entry("cuDeviceGetAttribute", (void **)&get_attribute));
    ZC_CHECK(zc__entry("cuStreamWaitValue64", (void **)&ops.wait64));
    ZC_CHECK(zc__entry("cuStreamWriteValue64", (void **)&ops.write64));
    int cu_device = 0, has_64 = 0;
    ZC_CHECK(ZC_DRIVER(device_get(&cu_device, device)));
    ZC_CHECK(ZC_DRIVER(get_attribute(&has_64, ZC__ATTR_64_BIT_STREAM_MEM_OPS, cu_device)));
    if (!has_64)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "GPU %d lacks 64-bit stream memory operations "
                       "(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 0)",
                       device);
    *ops_p = ops;
    return ZC_OK;
}
