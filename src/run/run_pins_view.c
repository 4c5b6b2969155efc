/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's view of memory a cure changed (a buffer the register cure pinned in place):
 * still as the program made it, as far as any question it asks the driver goes. Queries about a
 * pointer inside such memory (cuPointerGetAttribute(s), cuMemHostGetFlags,
 * cuMemHostGetDevicePointer) are answered with what the driver says of a pageable byte of this
 * library's own, errors included, an address in the answer moved back to the program's pointer;
 * the program's own cuMemHostRegister raises RANGE_REGISTERED (a row lets go of the range's
 * pages first, so the program gets the driver's answer and owns the registration); and its
 * cuMemHostUnregister of memory a cure changed gets the answer for memory never registered.
 * Pinned memory a cure served by registering it (fastpin) answers as the driver's own pinned
 * blocks do, measured on the H100 machine: CUDA_ERROR_INVALID_VALUE to cuMemHostUnregister of
 * it and to cuMemHostRegister of a range that touches it (the driver's own registration, which
 * the cure made, would say otherwise).
 */
#include <stdint.h>

#include "run_cures.h"
#include "run_hooks.h"

/* A byte of pageable memory no one ever registers: the driver's answers about it are the
 * answers about pageable memory. */
static char zc__pageable_byte;

/* The pointer a query is asked about: ptr itself, or the pageable byte when a cure changed it. */
static CUdeviceptr zc__asked(CUdeviceptr ptr)
{
    return zc__run_view_changed((uintptr_t)ptr, 1) ? (CUdeviceptr)(uintptr_t)&zc__pageable_byte
                                                   : ptr;
}

/* An answer that is an address (where the driver maps pageable memory, as on a system with
 * heterogeneous memory management) is about the pageable byte: moved to the program's pointer. */
static void zc__moved_back(CUpointer_attribute attribute, void *data, CUdeviceptr asked,
                           CUdeviceptr ptr)
{
    if (asked == ptr || data == NULL)
        return;
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        if (*(CUdeviceptr *)data != 0)
            *(CUdeviceptr *)data += ptr - asked;
        break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (*(void **)data != NULL)
            *(void **)data = (char *)*(void **)data + (ptr - asked);
        break;
    default:
        break;
    }
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
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUdeviceptr asked = zc__asked(ptr);
    CUresult r = real(data, attribute, asked);
    if (r == CUDA_SUCCESS)
        zc__moved_back(attribute, data, asked, ptr);
    return r;
}

CUresult zc__hook_POINTER_GET_ATTRIBUTES(unsigned count, CUpointer_attribute *attributes,
                                         void **data, CUdeviceptr ptr)
{
    zc__attributes_fn real = (zc__attributes_fn)zc__run_real(ZC__HOOK_POINTER_GET_ATTRIBUTES);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUdeviceptr asked = zc__asked(ptr);
    CUresult r = real(count, attributes, data, asked);
    for (unsigned i = 0; r == CUDA_SUCCESS && attributes != NULL && data != NULL && i < count; i++)
        zc__moved_back(attributes[i], data[i], asked, ptr);
    return r;
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
    if (p != NULL && bytes != 0 && zc__run_pinned_owned((uintptr_t)p, bytes))
        return CUDA_ERROR_INVALID_VALUE;
    if (p != NULL && bytes != 0) {
        zc__run_event e = {.id = ZC__EVENT_RANGE_REGISTERED,
                           .start = (uintptr_t)p,
                           .length = bytes,
                           .may_call_cuda = 1};
        zc__run_raise(&e);
    }
    return real(p, bytes, flags);
}

CUresult zc__hook_MEM_HOST_UNREGISTER(void *p)
{
    zc__unregister_fn real = (zc__unregister_fn)zc__run_real(ZC__HOOK_MEM_HOST_UNREGISTER);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t start = (uintptr_t)p;
    if (zc__run_pinned_owned(start, 1))
        return CUDA_ERROR_INVALID_VALUE;
    return zc__run_view_changed(start, 1) ? CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED : real(p);
}
