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

static void zc__exact_free(void *ptr)
{
    free(ptr);
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

static void zc__exact_free_host(void *ptr)
{
    zc__cuda_ignore(cudaFreeHost(ptr));
}

static zc_status zc__exact_registered(size_t bytes, void **ptr_p)
{
    size_t rounded = (bytes + ZC__EXACT_PAGE - 1) / ZC__EXACT_PAGE * ZC__EXACT_PAGE;
    void *p = aligned_alloc(ZC__EXACT_PAGE, rounded);
    if (p == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "aligned_alloc(%u, %zu) failed", ZC__EXACT_PAGE, rounded);
    zc_status st = ZC_CUDA(cudaHostRegister(p, rounded, cudaHostRegisterMapped));
    if (st != ZC_OK) {
        free(p);
        return st;
    }
    *ptr_p = p;
    return ZC_OK;
}

static void zc__exact_unregister(void *ptr)
{
    zc__cuda_ignore(cudaHostUnregister(ptr));
    free(ptr);
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

static void zc__exact_cuda_free(void *ptr)
{
    zc__cuda_ignore(cudaFree(ptr));
}

/* Indexed by zc_buffer_kind. */
static const zc__mem_exact zc__exact_rows[ZC_BUFFER_KIND_COUNT] = {
    [ZC_BUFFER_PAGEABLE] = {ZC_BUFFER_PAGEABLE, "malloc", 1, 0, zc__exact_pageable, zc__exact_free},
    [ZC_BUFFER_PINNED] = {ZC_BUFFER_PINNED, "cudaHostAlloc(cudaHostAllocDefault)", 1, 0,
                          zc__exact_pinned, zc__exact_free_host},
    [ZC_BUFFER_MAPPED] = {ZC_BUFFER_MAPPED, "cudaHostAlloc(cudaHostAllocMapped)", 1, 1,
                          zc__exact_mapped, zc__exact_free_host},
    [ZC_BUFFER_WRITE_COMBINED] = {ZC_BUFFER_WRITE_COMBINED,
                                  "cudaHostAlloc(cudaHostAllocWriteCombined | "
                                  "cudaHostAllocMapped)",
                                  1, 1, zc__exact_write_combined, zc__exact_free_host},
    [ZC_BUFFER_REGISTERED] = {ZC_BUFFER_REGISTERED,
                              "aligned_alloc + cudaHostRegister(cudaHostRegisterMapped)", 1, 1,
                              zc__exact_registered, zc__exact_unregister},
    [ZC_BUFFER_MANAGED] = {ZC_BUFFER_MANAGED, "cudaMallocManaged(cudaMemAttachGlobal)", 1, 0,
                           zc__exact_managed, zc__exact_cuda_free},
    [ZC_BUFFER_DEVICE] = {ZC_BUFFER_DEVICE, "cudaMalloc", 0, 0, zc__exact_device,
                          zc__exact_cuda_free},
};

const zc__mem_exact *zc__mem_exact_of(zc_buffer_kind kind)
{
    if ((int)kind <= (int)ZC_BUFFER_UNKNOWN || (int)kind >= ZC_BUFFER_KIND_COUNT)
        return NULL;
    return &zc__exact_rows[kind];
}

zc_status zc__mem_exact_alloc(zc_buffer_kind kind, size_t bytes, void **ptr_p)
{
    ZC_REQUIRE_ARG(ptr_p);
    const zc__mem_exact *row = zc__mem_exact_of(kind);
    if (row == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__mem_exact_alloc: kind %d is not a memory kind",
                       (int)kind);
    if (bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__mem_exact_alloc: 0 bytes of %s memory",
                       zc_buffer_kind_name(kind));
    return row->alloc(bytes, ptr_p);
}

void zc__mem_exact_free(zc_buffer_kind kind, void *ptr)
{
    const zc__mem_exact *row = zc__mem_exact_of(kind);
    if (row != NULL && ptr != NULL)
        row->release(ptr);
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
