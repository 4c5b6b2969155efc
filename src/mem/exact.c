/* SPDX-License-Identifier: Apache-2.0 */
/* Memory of each kind from the exact CUDA call, one row per kind. */
#include "mem/exact.h"

#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "device/cuda_check.h"

/* Registered memory is page-aligned host memory that cudaHostRegister pins in place. */
#define ZC__EXACT_PAGE 4096u

static zc_status zc__exact_pageable(size_t bytes, void **ptr_p)
{
    void *p = malloc(bytes);
    if (p == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "malloc(%zu) failed", bytes);
    *ptr_p = p;
    return ZC_OK;
}

static cudaError_t zc__exact_free(void *ptr)
{
    free(ptr);
    return cudaSuccess;
}

static zc_status zc__exact_host_alloc(size_t bytes, unsigned flags, void **ptr_p)
{
    void *p = NULL;
    ZC_CUDA_RETURN(cudaHostAlloc(&p, bytes, flags));
    *ptr_p = p;
    return ZC_OK;
}

static zc_status zc__exact_pinned(size_t bytes, void **ptr_p)
{
    return zc__exact_host_alloc(bytes, cudaHostAllocDefault, ptr_p);
}

static zc_status zc__exact_mapped(size_t bytes, void **ptr_p)
{
    return zc__exact_host_alloc(bytes, cudaHostAllocMapped, ptr_p);
}

/* Mapped as well, so that the GPU can check what the CPU reads only slowly. */
static zc_status zc__exact_write_combined(size_t bytes, void **ptr_p)
{
    return zc__exact_host_alloc(bytes, cudaHostAllocWriteCombined | cudaHostAllocMapped, ptr_p);
}

static cudaError_t zc__exact_free_host(void *ptr)
{
    return cudaFreeHost(ptr);
}

zc_status zc__mem_exact_register(void *ptr, size_t bytes, int mapped)
{
    ZC_REQUIRE_ARG(ptr);
    if (bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__mem_exact_register: 0 bytes at %p", ptr);
    ZC_CUDA_RETURN(
        cudaHostRegister(ptr, bytes, mapped ? cudaHostRegisterMapped : cudaHostRegisterDefault));
    return ZC_OK;
}

void zc__mem_exact_unregister(void *ptr)
{
    if (ptr != NULL)
        ZC_CUDA_IGNORE(cudaHostUnregister(ptr));
}

zc_status zc__mem_exact_unregister_checked(void *ptr)
{
    ZC_REQUIRE_ARG(ptr);
    ZC_CUDA_RETURN(cudaHostUnregister(ptr));
    return ZC_OK;
}

zc_status zc__mem_exact_malloc_host(size_t bytes, void **ptr_p)
{
    ZC_REQUIRE_ARG(ptr_p);
    if (bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__mem_exact_malloc_host: 0 bytes");
    void *p = NULL;
    ZC_CUDA_RETURN(cudaMallocHost(&p, bytes));
    *ptr_p = p;
    return ZC_OK;
}

static zc_status zc__exact_registered(size_t bytes, void **ptr_p)
{
    size_t rounded = (bytes + ZC__EXACT_PAGE - 1) / ZC__EXACT_PAGE * ZC__EXACT_PAGE;
    void *p = aligned_alloc(ZC__EXACT_PAGE, rounded);
    if (p == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "aligned_alloc(%u, %zu) failed", ZC__EXACT_PAGE, rounded);
    zc_status st = zc__mem_exact_register(p, rounded, 1);
    if (st != ZC_OK) {
        free(p);
        return st;
    }
    *ptr_p = p;
    return ZC_OK;
}

static cudaError_t zc__exact_free_registered(void *ptr)
{
    cudaError_t error = cudaHostUnregister(ptr);
    free(ptr);
    return error;
}

static zc_status zc__exact_managed(size_t bytes, void **ptr_p)
{
    void *p = NULL;
    ZC_CUDA_RETURN(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
    *ptr_p = p;
    return ZC_OK;
}

static zc_status zc__exact_device(size_t bytes, void **ptr_p)
{
    void *p = NULL;
    ZC_CUDA_RETURN(cudaMalloc(&p, bytes));
    *ptr_p = p;
    return ZC_OK;
}

static cudaError_t zc__exact_cuda_free(void *ptr)
{
    return cudaFree(ptr);
}

/* Indexed by zc_buffer_kind: kind, call, free call, host, mapped, host_alloc and its flags,
 * alloc, release. */
static const zc__mem_exact zc__exact_rows[] = {
    [ZC_BUFFER_PAGEABLE] = {ZC_BUFFER_PAGEABLE, "malloc", "free", 1, 0, 0, 0, zc__exact_pageable,
                            zc__exact_free},
    [ZC_BUFFER_PINNED] = {ZC_BUFFER_PINNED, "cudaHostAlloc(cudaHostAllocDefault)", "cudaFreeHost",
                          1, 0, 1, cudaHostAllocDefault, zc__exact_pinned, zc__exact_free_host},
    [ZC_BUFFER_MAPPED] = {ZC_BUFFER_MAPPED, "cudaHostAlloc(cudaHostAllocMapped)", "cudaFreeHost", 1,
                          1, 1, cudaHostAllocMapped, zc__exact_mapped, zc__exact_free_host},
    [ZC_BUFFER_WRITE_COMBINED] = {ZC_BUFFER_WRITE_COMBINED,
                                  "cudaHostAlloc(cudaHostAllocWriteCombined | "
                                  "cudaHostAllocMapped)",
                                  "cudaFreeHost", 1, 1, 1,
                                  cudaHostAllocWriteCombined | cudaHostAllocMapped,
                                  zc__exact_write_combined, zc__exact_free_host},
    [ZC_BUFFER_REGISTERED] = {ZC_BUFFER_REGISTERED,
                              "aligned_alloc + cudaHostRegister(cudaHostRegisterMapped)",
                              "cudaHostUnregister + free", 1, 1, 0, 0, zc__exact_registered,
                              zc__exact_free_registered},
    [ZC_BUFFER_MANAGED] = {ZC_BUFFER_MANAGED, "cudaMallocManaged(cudaMemAttachGlobal)", "cudaFree",
                           1, 0, 0, 0, zc__exact_managed, zc__exact_cuda_free},
    [ZC_BUFFER_DEVICE] = {ZC_BUFFER_DEVICE, "cudaMalloc", "cudaFree", 0, 0, 0, 0, zc__exact_device,
                          zc__exact_cuda_free},
};

/* A kind of zerocopy/buffer.h's list without its row here must not build (tests/mem plants one). */
_Static_assert(sizeof zc__exact_rows / sizeof zc__exact_rows[0] == ZC_BUFFER_KIND_COUNT,
               "every memory kind of buffer.h has its row of exact calls here");

const zc__mem_exact *zc__mem_exact_of(zc_buffer_kind kind)
{
    if ((int)kind <= (int)ZC_BUFFER_UNKNOWN || (int)kind >= ZC_BUFFER_KIND_COUNT)
        return NULL;
    return &zc__exact_rows[kind];
}

/* The row of kind for fn's bytes, or NULL with the failure recorded. */
static const zc__mem_exact *zc__exact_checked(const char *fn, zc_buffer_kind kind, size_t bytes,
                                              zc_status *status_p)
{
    const zc__mem_exact *row = zc__mem_exact_of(kind);
    if (row == NULL)
        *status_p = ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: kind %d is not a memory kind", fn, (int)kind);
    else if (bytes == 0)
        *status_p =
            ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: 0 bytes of %s memory", fn, zc_buffer_kind_name(kind));
    else
        return row;
    return NULL;
}

zc_status zc__mem_exact_alloc(zc_buffer_kind kind, size_t bytes, void **ptr_p)
{
    ZC_REQUIRE_ARG(ptr_p);
    zc_status status = ZC_OK;
    const zc__mem_exact *row = zc__exact_checked("zc__mem_exact_alloc", kind, bytes, &status);
    return row != NULL ? row->alloc(bytes, ptr_p) : status;
}

zc_status zc__mem_exact_alloc_portable(zc_buffer_kind kind, size_t bytes, void **ptr_p)
{
    ZC_REQUIRE_ARG(ptr_p);
    zc_status status = ZC_OK;
    const zc__mem_exact *row =
        zc__exact_checked("zc__mem_exact_alloc_portable", kind, bytes, &status);
    if (row == NULL)
        return status;
    if (!row->host_alloc)
        return ZC_FAIL(ZC_ERR_WRONG_KIND,
                       "zc__mem_exact_alloc_portable: %s memory is not made by cudaHostAlloc",
                       zc_buffer_kind_name(kind));
    return zc__exact_host_alloc(bytes, row->host_alloc_flags | cudaHostAllocPortable, ptr_p);
}

void zc__mem_exact_free(zc_buffer_kind kind, void *ptr)
{
    const zc__mem_exact *row = zc__mem_exact_of(kind);
    if (row != NULL && ptr != NULL)
        ZC_CUDA_IGNORE(row->release(ptr));
}

zc_status zc__mem_exact_free_checked(zc_buffer_kind kind, void *ptr)
{
    const zc__mem_exact *row = zc__mem_exact_of(kind);
    if (row == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc__mem_exact_free_checked: kind %d is not a memory kind", (int)kind);
    if (ptr == NULL)
        return ZC_OK;
    return zc__cuda_status(row->release(ptr), row->free_call, __FILE__, __LINE__);
}

zc_status zc__mem_exact_device_ptr(zc_buffer_kind kind, void *ptr, void **device_ptr_p)
{
    ZC_REQUIRE_ARG(ptr);
    ZC_REQUIRE_ARG(device_ptr_p);
    const zc__mem_exact *row = zc__mem_exact_of(kind);
    if (row == NULL || !row->mapped)
        return ZC_FAIL(ZC_ERR_WRONG_KIND,
                       "zc__mem_exact_device_ptr: %s memory is not mapped into the device",
                       zc_buffer_kind_name(kind));
    ZC_CUDA_RETURN(cudaHostGetDevicePointer(device_ptr_p, ptr, 0));
    return ZC_OK;
}
