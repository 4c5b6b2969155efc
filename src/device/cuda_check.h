/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the one macro that checks a CUDA runtime call and turns its error into a status. */
#ifndef ZC_DEVICE_CUDA_CHECK_H
#define ZC_DEVICE_CUDA_CHECK_H

#if defined(ZC_PART) && !defined(ZC_SEES_device)
#error "src/device/ included from below device: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda_runtime_api.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Map a CUDA error to a status and, on failure, record "<call> failed: <cudaErrorName>
 * (<description>) (file:line)" as the thread's last error and clear the runtime's last-error
 * slot (the caller handles the failure). cudaSuccess gives ZC_OK.
 */
zc_status zc__cuda_status(cudaError_t error, const char *call, const char *file, int line);

/* The status a CUDA error maps to, without recording anything. */
zc_status zc__cuda_error_to_status(cudaError_t error);

#ifdef __cplusplus
}
#endif

/* Evaluate a CUDA runtime call once; give its status (ZC_OK on success). */
#define ZC_CUDA(call) zc__cuda_status((call), #call, __FILE__, __LINE__)

/* Evaluate a CUDA runtime call; on failure store its status in status_var and goto label. */
#define ZC_CUDA_GOTO(call, status_var, label)                                                      \
    do {                                                                                           \
        (status_var) = ZC_CUDA(call);                                                              \
        if ((status_var) != ZC_OK)                                                                 \
            goto label;                                                                            \
    } while (0)

/* Evaluate a CUDA runtime call; on failure return its status. */
#define ZC_CUDA_RETURN(call)                                                                       \
    do {                                                                                           \
        zc_status zc__s = ZC_CUDA(call);                                                           \
        if (zc__s != ZC_OK)                                                                        \
            return zc__s;                                                                          \
    } while (0)

/* Evaluate a CUDA runtime call whose failure changes nothing (cleanup after another failure,
 * best-effort restoring): its error is taken out of the runtime's last-error slot and the
 * thread's last error keeps the failure being cleaned up after. */
#define ZC_CUDA_IGNORE(call) ZC_CHECK_IGNORE(ZC_CUDA(call))

/* Check that the kernel launch just made was accepted (cudaGetLastError), naming the kernel. */
#define ZC_CUDA_LAUNCH_CHECK(kernel_name)                                                          \
    zc__cuda_status(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)

#endif
