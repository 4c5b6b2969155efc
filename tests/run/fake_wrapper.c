/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A library that wraps a driver function the way profilers and shims do: its own cuMemAlloc_v2
 * finds the one it wraps with dlsym(RTLD_NEXT, ...). Preloaded after zc run's library, which
 * replaces dlsym, it must be handed the next definition after itself (the driver's), not its
 * own, which would recurse for ever.
 */
#include <dlfcn.h>

#include <cuda.h>

#define WRAPPER_EXPORT __attribute__((visibility("default")))

typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);

static int wrapper_calls;

WRAPPER_EXPORT int fake_wrapper_calls(void);
WRAPPER_EXPORT int fake_wrapper_calls(void)
{
    return wrapper_calls;
}

WRAPPER_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    static alloc_fn next;
    if (next == NULL)
        next = (alloc_fn)dlsym(RTLD_NEXT, "cuMemAlloc_v2");
    if (next == NULL || next == cuMemAlloc_v2)
        return CUDA_ERROR_NOT_FOUND;
    wrapper_calls++;
    return next(dptr, bytes);
}
