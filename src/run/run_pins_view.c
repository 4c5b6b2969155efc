/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's view of a buffer the register cure pinned in place: still pageable memory, as
 * far as any question it asks the driver goes. Queries about a pointer inside a pin
 * (cuPointerGetAttribute(s), cuMemHostGetFlags, cuMemHostGetDevicePointer) are answered with
 * what the driver says of a pageable byte of this library's own, and errors included; the
 * program's own cuMemHostRegister of memory that holds a pin of ours unpins ours first, for
 * good, so the program gets the driver's answer and owns the registration; and its
 * cuMemHostUnregister of one of our pins gets the answer for memory never registered.
 */
#include <stdint.h>

#include "run_hooks.h"
#include "run_register.h"

/* A byte of pageable memory no one ever registers: the driver's answers about it are the
 * answers about pageable memory. */
static char zc__pageable_byte;

/* The pointer a query is asked about: ptr itself, or the pageable byte when ptr is ours. */
static CUdeviceptr zc__asked(CUdeviceptr ptr)
{
    return zc__run_pins_touching((uintptr_t)ptr, 1) ? (CUdeviceptr)(uintptr_t)&zc__pageable_byte
                                                    : ptr;
}

typedef CUresult (*zc__attribute_fn)(void *, CUpointer_attribute, CUdeviceptr);
typedef CUresult (*zc__attributes_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
typedef CUresult (*zc__host_flags_fn)(unsigned *, void *);
typedef CUresult (*zc__host_device_ptr_fn)(CUdeviceptr *, void *, unsigned);
typedef CUresult (*zc__register_fn)(void *, size_t, unsigned);
typedef CUresult (*zc__unregister_fn)(void *);

CUresult zc__hook_POINTER_GET_ATTRIBUTE(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    zc__attribute_fn real = (zc__attribute_fn)zc__run_real(ZC__HOOK_POINTER_GET_ATTRIBUTE);
    return real != NULL ? real(data, attribute, zc__asked(ptr)) : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult zc__hook_POINTER_GET_ATTRIBUTES(unsigned count, CUpointer_attribute *attributes,
                                         void **data, CUdeviceptr ptr)
{
    zc__attributes_fn real = (zc__attributes_fn)zc__run_real(ZC__HOOK_POINTER_GET_ATTRIBUTES);
    return real != NULL ? real(count, attributes, data, zc__asked(ptr))
                        : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult zc__hook_MEM_HOST_GET_FLAGS(unsigned *flags, void *p)
{
    zc__host_flags_fn real = (zc__host_flags_fn)zc__run_real(ZC__HOOK_MEM_HOST_GET_FLAGS);
    return real != NULL ? real(flags, (void *)(uintptr_t)zc__asked((CUdeviceptr)(uintptr_t)p))
                        : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult zc__hook_MEM_HOST_GET_DEVICE_POINTER(CUdeviceptr *dptr, void *p, unsigned flags)
{
    zc__host_device_ptr_fn real =
        (zc__host_device_ptr_fn)zc__run_real(ZC__HOOK_MEM_HOST_GET_DEVICE_POINTER);
    return real != NULL ? real(dptr, (void *)(uintptr_t)zc__asked((CUdeviceptr)(uintptr_t)p), flags)
                        : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult zc__hook_MEM_HOST_REGISTER(void *p, size_t bytes, unsigned flags)
{
    zc__register_fn real = (zc__register_fn)zc__run_real(ZC__HOOK_MEM_HOST_REGISTER);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_pins_refuse((uintptr_t)p, bytes);
    return real(p, bytes, flags);
}

CUresult zc__hook_MEM_HOST_UNREGISTER(void *p)
{
    zc__unregister_fn real = (zc__unregister_fn)zc__run_real(ZC__HOOK_MEM_HOST_UNREGISTER);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    return zc__run_pins_touching((uintptr_t)p, 1) ? CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED : real(p);
}
