/* Internal: memory of each kind from the exact CUDA call a program would write by hand, nothing
 * added (no fast pinning, no pool, no registry): one row of operations per kind, for the parts
 * that measure or move data through what a user would hand-roll (bench, advise, stream, ring). */
#ifndef ZC_MEM_EXACT_H
#define ZC_MEM_EXACT_H

#include <stddef.h>

#include "zerocopy/buffer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zc__mem_exact {
    zc_buffer_kind kind;
    const char *call; /* the call, as a report names it: "cudaHostAlloc(cudaHostAllocMapped)" */
    int host;         /* the CPU can touch it */
    int mapped;       /* the device reaches it in place (zc__mem_exact_device_ptr works) */
    /* bytes of memory of the kind on the current device; failures say which call and why. */
    zc_status (*alloc)(size_t bytes, void **ptr_p);
    /* Give it back; errors are taken out of the runtime's last-error slot (cleanup). */
    void (*release)(void *ptr);
} zc__mem_exact;

/* The row of kind, or NULL for ZC_BUFFER_UNKNOWN and values outside the enum. */
const zc__mem_exact *zc__mem_exact_of(zc_buffer_kind kind);

/* bytes of kind (as zc__mem_exact_of(kind)->alloc), checking the kind and the size first. */
zc_status zc__mem_exact_alloc(zc_buffer_kind kind, size_t bytes, void **ptr_p);

/* Free what zc__mem_exact_alloc gave for kind; NULL is accepted. */
void zc__mem_exact_free(zc_buffer_kind kind, void *ptr);

/* The device's address of a mapped kind's host memory (cudaHostGetDevicePointer). */
zc_status zc__mem_exact_device_ptr(zc_buffer_kind kind, void *ptr, void **device_ptr_p);

#ifdef __cplusplus
}
#endif

#endif
