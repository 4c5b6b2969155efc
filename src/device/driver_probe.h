/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: why the CUDA runtime sees no GPU: no driver, a driver too old, or no GPU at all. */
#ifndef ZC_DEVICE_DRIVER_PROBE_H
#define ZC_DEVICE_DRIVER_PROBE_H

#if defined(ZC_PART) && !defined(ZC_SEES_device)
#error "src/device/ included from below device: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "zerocopy/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The driver library the CUDA runtime loads; the probe opens the same one. */
#define ZC__DRIVER_LIBRARY "libcuda.so.1"

/* What opening the driver library found. */
typedef struct zc__driver_probe {
    int loaded;        /* the library could be opened */
    int cuda_version;  /* cuDriverGetVersion: 1000 * major + 10 * minor; 0 when unknown */
    char problem[256]; /* when not loaded, or the version is unknown: dlerror() or the call's
                          result, in words */
} zc__driver_probe;

/* Open library (ZC__DRIVER_LIBRARY; tests name others) and ask which CUDA version it supports,
 * through dlsym: zerocopy does not link libcuda, which a machine without a driver lacks. */
void zc__driver_probe_run(const char *library, zc__driver_probe *probe_p);

/*
 * One sentence for why the runtime answered error (cudaErrorInsufficientDriver or
 * cudaErrorNoDevice) given what the probe found, for a build that needs needed_version
 * (CUDART_VERSION); visible_devices is $CUDA_VISIBLE_DEVICES or NULL.
 */
void zc__driver_explain(cudaError_t error, const zc__driver_probe *probe, int needed_version,
                        const char *visible_devices, char *why, size_t why_size);

/*
 * For any CUDA call that failed with cudaErrorInsufficientDriver or cudaErrorNoDevice: record
 * "<call> failed: <cudaErrorName>: <why>" with zc__driver_explain's reason (the runtime gives
 * cudaErrorInsufficientDriver when libcuda.so.1 is missing altogether, and its own words, "CUDA
 * driver version is insufficient", then mislead). Gives ZC_ERR_NO_DEVICE. zc__cuda_status uses it
 * for those two errors, so that every path says the same (cudaSetDevice in the stream's setup
 * as much as the device count).
 */
zc_status zc__driver_failure(cudaError_t error, const char *call, const char *file, int line);

/*
 * For a failed device count: record "<call> failed: <cudaErrorName>: <why>" where the error
 * means "no driver or no device" (the runtime's own description of cudaErrorInsufficientDriver
 * reads as "upgrade your driver" on a machine that has none), and as ZC_CUDA does for any other
 * error. Gives the status the error maps to (ZC_ERR_NO_DEVICE for those two).
 */
zc_status zc__device_count_failure(cudaError_t error, const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

#endif
