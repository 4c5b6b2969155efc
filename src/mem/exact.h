/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: memory of each kind from the exact CUDA call a program would write by hand, nothing
 * added (no fast pinning, no pool, no registry): one row of operations per kind, for the parts
 * that measure or move data through what a user would hand-roll (bench, advise, stream, ring). */
#ifndef ZC_MEM_EXACT_H
#define ZC_MEM_EXACT_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "zerocopy/buffer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zc__mem_exact {
    zc_buffer_kind kind;
    const char *call; /* the call, as a report names it: "cudaHostAlloc(cudaHostAllocMapped)" */
    const char *free_call; /* the call that gives it back: "cudaFreeHost" */
    int host;              /* the CPU can touch it */
    int mapped;            /* the device reaches it in place (zc__mem_exact_device_ptr works) */
    /* cudaHostAlloc's flags for the kinds it makes (pinned, mapped, write-combined), else 0
     * with host_alloc 0: zc__mem_exact_alloc_portable adds cudaHostAllocPortable to them. */
    int host_alloc;
    unsigned host_alloc_flags;
    /* bytes of memory of the kind on the current device; failures say which call and why. */
    zc_status (*alloc)(size_t bytes, void **ptr_p);
    /* Give it back; the CUDA error, unrecorded (the callers below record it or drop it). */
    cudaError_t (*release)(void *ptr);
} zc__mem_exact;

/* The row of kind, or NULL for ZC_BUFFER_UNKNOWN and values outside the enum. */
const zc__mem_exact *zc__mem_exact_of(zc_buffer_kind kind);

/* bytes of kind (as zc__mem_exact_of(kind)->alloc), checking the kind and the size first. */
zc_status zc__mem_exact_alloc(zc_buffer_kind kind, size_t bytes, void **ptr_p);

/* The same for every GPU (cudaHostAllocPortable added): pinned, mapped and write-combined. */
zc_status zc__mem_exact_alloc_portable(zc_buffer_kind kind, size_t bytes, void **ptr_p);

/* Free what zc__mem_exact_alloc gave for kind; NULL is accepted. For cleanup: an error is taken
 * out of the runtime's last-error slot and the thread's last error is left as it was. */
void zc__mem_exact_free(zc_buffer_kind kind, void *ptr);

/* The same, for a caller that times or checks the free itself: a failure is a status whose
 * detail names the call ("cudaFreeHost failed: ..."). */
zc_status zc__mem_exact_free_checked(zc_buffer_kind kind, void *ptr);

/* Pin bytes of existing host memory at ptr in place (cudaHostRegister, with the mapped flag
 * when mapped), as a program that registers its own buffer does; undo with
 * zc__mem_exact_unregister (cleanup, as zc__mem_exact_free). The registered row's alloc is
 * aligned_alloc and this, mapped. */
zc_status zc__mem_exact_register(void *ptr, size_t bytes, int mapped);
void zc__mem_exact_unregister(void *ptr);
/* The same, for a caller that times or checks it: a failure names cudaHostUnregister. */
zc_status zc__mem_exact_unregister_checked(void *ptr);

/* Pinned memory by cudaMallocHost, the call CUDA's samples and many programs use for the pinned
 * kind, whose row is cudaHostAlloc(cudaHostAllocDefault): the same memory, the same release
 * (zc__mem_exact_free of ZC_BUFFER_PINNED, cudaFreeHost). */
zc_status zc__mem_exact_malloc_host(size_t bytes, void **ptr_p);

/* The device's address of a mapped kind's host memory (cudaHostGetDevicePointer). */
zc_status zc__mem_exact_device_ptr(zc_buffer_kind kind, void *ptr, void **device_ptr_p);

#ifdef __cplusplus
}
#endif

#endif
