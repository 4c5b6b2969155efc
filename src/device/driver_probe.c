/* SPDX-License-Identifier: Apache-2.0 */
/* Asking the NVIDIA driver itself why the CUDA runtime found no GPU. */
#include "device/driver_probe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "device/cuda_check.h"

/* cuDriverGetVersion as cuda.h declares it; CUresult 0 is CUDA_SUCCESS. */
typedef int (*zc__cu_driver_get_version_fn)(int *version);

void zc__driver_probe_run(const char *library, zc__driver_probe *probe_p)
{
    zc__driver_probe probe = {0};
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(probe.problem, sizeof probe.problem, "%s", why ? why : "no reason given");
        *probe_p = probe;
        return;
    }
    probe.loaded = 1;
    zc__cu_driver_get_version_fn get_version;
    *(void **)&get_version = dlsym(handle, "cuDriverGetVersion");
    if (get_version == NULL) {
        snprintf(probe.problem, sizeof probe.problem, "%s has no cuDriverGetVersion", library);
    } else {
        int version = 0;
        int result = get_version(&version);
        if (result == 0 && version > 0)
            probe.cuda_version = version;
        else
            snprintf(probe.problem, sizeof probe.problem,
                     "cuDriverGetVersion failed with CUresult %d", result);
    }
    /* Left open: the runtime holds the same library, and unloading a driver library in the
     * middle of a process gains nothing. */
    *probe_p = probe;
}

void zc__driver_explain(cudaError_t error, const zc__driver_probe *probe, int needed_version,
                        const char *visible_devices, char *why, size_t why_size)
{
    int major = probe->cuda_version / 1000, minor = probe->cuda_version % 1000 / 10;
    if (!probe->loaded) {
        snprintf(why, why_size, "no NVIDIA driver found (%s cannot be loaded: %s)",
                 ZC__DRIVER_LIBRARY, probe->problem);
    } else if (probe->cuda_version == 0) {
        snprintf(why, why_size, "the NVIDIA driver cannot say which CUDA it supports (%s)",
                 probe->problem);
    } else if (probe->cuda_version < needed_version) {
        snprintf(why, why_size,
                 "the NVIDIA driver is too old: it supports CUDA %d.%d, this build of zerocopy "
                 "needs CUDA %d.%d (CUDART_VERSION %d)",
                 major, minor, needed_version / 1000, needed_version % 1000 / 10, needed_version);
    } else if (error == cudaErrorNoDevice && visible_devices != NULL) {
        snprintf(why, why_size,
                 "the driver found no GPU (CUDA %d.%d driver; CUDA_VISIBLE_DEVICES='%s' chooses "
                 "which GPUs it may show)",
                 major, minor, visible_devices);
    } else if (error == cudaErrorNoDevice) {
        snprintf(why, why_size, "the driver found no GPU (CUDA %d.%d driver)", major, minor);
    } else {
        /* The driver is new enough and still refused: most often its kernel module is missing
         * or of another version than the library (nvidia-smi says which). */
        snprintf(why, why_size,
                 "the NVIDIA driver (CUDA %d.%d) is new enough but the CUDA runtime cannot use "
                 "it; check that its kernel module is loaded and of the same version "
                 "(nvidia-smi)",
                 major, minor);
    }
}

zc_status zc__device_count_failure(cudaError_t error, const char *call, const char *file, int line)
{
    if (error != cudaErrorInsufficientDriver && error != cudaErrorNoDevice)
        return zc__cuda_status(error, call, file, line);
    return zc__driver_failure(error, call, file, line);
}

zc_status zc__driver_failure(cudaError_t error, const char *call, const char *file, int line)
{
    (void)cudaGetLastError();
    zc__driver_probe probe;
    zc__driver_probe_run(ZC__DRIVER_LIBRARY, &probe);
    char why[512];
    zc__driver_explain(error, &probe, CUDART_VERSION, getenv("CUDA_VISIBLE_DEVICES"), why,
                       sizeof why);
    return zc__fail(zc__cuda_error_to_status(error), file, line, "%s failed: %s: %s", call,
                    cudaGetErrorName(error), why);
}
