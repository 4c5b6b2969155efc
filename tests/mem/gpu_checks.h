/* SPDX-License-Identifier: Apache-2.0 */
/* Checks the GPU buffer and pool tests share: a CUDA or zerocopy call that must succeed. */
#ifndef ZC_TESTS_MEM_GPU_CHECKS_H
#define ZC_TESTS_MEM_GPU_CHECKS_H

#include <cuda_runtime_api.h>

#include "test_support.h"
#include "zerocopy/status.h"

/* Fail the test with the CUDA error's name and text, the call and where it was made. */
#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t zc__e = (call);                                                                \
        if (zc__e != cudaSuccess)                                                                  \
            fail_msg("%s failed: %s (%s) at %s:%d", #call, cudaGetErrorName(zc__e),                \
                     cudaGetErrorString(zc__e), __FILE__, __LINE__);                               \
    } while (0)

/* Fail the test with the status's name and zerocopy's detail of the failure. */
#define ZC_OK_OR_FAIL(call)                                                                        \
    do {                                                                                           \
        zc_status zc__s = (call);                                                                  \
        if (zc__s != ZC_OK)                                                                        \
            fail_msg("%s gave %s: %s", #call, zc_status_name(zc__s), zc_last_error());             \
    } while (0)

#endif
