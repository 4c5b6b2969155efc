/* Internal: checking a CUDA call in the buffer code, leaving no stale error behind. */
#ifndef ZC_MEM_MEM_CUDA_H
#define ZC_MEM_MEM_CUDA_H

#include <cuda_runtime_api.h>

#include "device/cuda_check.h"

/*
 * Like ZC_CUDA, and on failure also take the error out of the runtime's last-error slot: the
 * buffer code reports and handles it, so a later cudaGetLastError (the caller's launch check,
 * or ZC_CUDA_LAUNCH_CHECK) must not see it again. Sticky errors stay whatever is done here.
 */
static inline zc_status zc__mem_cuda(cudaError_t error, const char *call, const char *file,
                                     int line)
{
    if (error == cudaSuccess)
        return ZC_OK;
    (void)cudaGetLastError();
    return zc__cuda_status(error, call, file, line);
}

#define ZC_MEM_CUDA(call) zc__mem_cuda((call), #call, __FILE__, __LINE__)

/*
 * For a call whose failure changes nothing (cleanup after another failure, best-effort
 * restoring): on failure take its error out of the last-error slot as well, for the same reason.
 */
static inline void zc__mem_cuda_ignore(cudaError_t error)
{
    if (error != cudaSuccess)
        (void)cudaGetLastError();
}

/* ZC_MEM_CUDA, returning the status on failure. */
#define ZC_MEM_CUDA_RETURN(call)                                                                   \
    do {                                                                                           \
        zc_status zc__m = ZC_MEM_CUDA(call);                                                       \
        if (zc__m != ZC_OK)                                                                        \
            return zc__m;                                                                          \
    } while (0)

#endif
