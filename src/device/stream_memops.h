/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the driver's stream memory operations (cuStreamWaitValue64, cuStreamWriteValue64),
 * reached through cudaGetDriverEntryPointByVersion, and whether a device supports them. */
#ifndef ZC_DEVICE_STREAM_MEMOPS_H
#define ZC_DEVICE_STREAM_MEMOPS_H

#if defined(ZC_PART) && !defined(ZC_SEES_device)
#error "src/device/ included from below device: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "zerocopy/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuda.h's CUresult, CUstream and CUdeviceptr as plain types, so that no part of zerocopy
 * includes the driver API header or links libcuda (a machine without a driver lacks it). */
typedef int (*zc__wait_value64_fn)(cudaStream_t stream, unsigned long long addr, uint64_t value,
                                   unsigned int flags);
typedef int (*zc__write_value64_fn)(cudaStream_t stream, unsigned long long addr, uint64_t value,
                                    unsigned int flags);

typedef struct zc__stream_memops {
    zc__wait_value64_fn wait64;
    zc__write_value64_fn write64;
} zc__stream_memops;

/* cuda.h's CU_STREAM_WAIT_VALUE_GEQ: wait until (int64_t)(*addr - value) >= 0. */
#define ZC__WAIT_VALUE_GEQ      0u
/* cuda.h's CU_STREAM_WRITE_VALUE_DEFAULT: the write is ordered after the stream's earlier
 * memory writes (a barrier), which is what makes a kernel's results visible before it. */
#define ZC__WRITE_VALUE_DEFAULT 0u

/*
 * Find the two calls and check that device can use them on mapped host memory: 64-bit stream
 * memory operations (CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS) and host memory mapped
 * into the device (canMapHostMemory). ZC_ERR_UNSUPPORTED, with the reason, when either is
 * missing or the driver lacks the calls.
 */
zc_status zc__stream_memops_get(int device, zc__stream_memops *ops_p);

/* A driver call's CUresult as a status, recording "<call> failed: CUresult N" on failure. */
zc_status zc__driver_result(int result, const char *call, const char *file, int line);

#define ZC_DRIVER(call) zc__driver_result((call), #call, __FILE__, __LINE__)

#ifdef __cplusplus
}
#endif

#endif
