/* SPDX-License-Identifier: Apache-2.0 */
/* The test's window into the fake CUDA driver (fake_cuda.c). */
#ifndef ZC_TESTS_RUN_FAKE_CUDA_H
#define ZC_TESTS_RUN_FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

typedef struct fake_cuda_counts {
    uint64_t host_allocs; /* pinned allocations the driver made */
    uint64_t host_frees;
    uint64_t host_live;
    uint64_t ctx_syncs;
    uint64_t ctx_destroys;
    uint64_t copies;       /* copies the driver was asked for, any kind */
    uintptr_t last_stream; /* the stream of the last asynchronous copy or event asked for */
    /* Pageable memory registered in place. Registrations with CU_MEMHOSTREGISTER_PORTABLE are
     * counted apart: the library's staging buffers are one, its pins of the program's memory
     * never are, and the tests count the pins. */
    uint64_t registers;
    uint64_t unregisters;
    uint64_t registered_live;
    uint64_t portable_registers;
    uint64_t portable_live;
    uint64_t stream_syncs;
    uint64_t forbidden_calls; /* driver calls a thread made while it forbade them */
} fake_cuda_counts;

void fake_cuda_stats(fake_cuda_counts *counts_p);

/* Forbid (1) or allow (0) driver calls on the calling thread: a call made while forbidden is
 * counted (forbidden_calls), as a test of where the library calls CUDA (never inside free). */
void fake_cuda_forbid(int forbid);

/* Hold (1) every event wait until cuDevicePrimaryCtxRelease is called: a copy in flight that
 * waits on the driver while the context is being torn down. */
void fake_cuda_hold_events(int hold);

/* Make cuStreamIsCapturing say every stream is being captured (1) or none (0). */
void fake_cuda_set_capturing(int capturing);

/* The per-thread default-stream forms, which cuda.h declares only for programs built with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM (under the plain names). */
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t bytes, CUstream s);

#endif
