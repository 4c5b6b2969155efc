/* SPDX-License-Identifier: Apache-2.0 */
/* The test's window into the fake CUDA driver (fake_cuda.c). */
#ifndef ZC_TESTS_RUN_FAKE_CUDA_H
#define ZC_TESTS_RUN_FAKE_CUDA_H

#include <stdint.h>

typedef struct fake_cuda_counts {
    uint64_t host_allocs; /* pinned allocations the driver made */
    uint64_t host_frees;
    uint64_t host_live;
    uint64_t ctx_syncs;
    uint64_t ctx_destroys;
    uint64_t copies; /* copies the driver was asked for, any kind */
} fake_cuda_counts;

void fake_cuda_stats(fake_cuda_counts *counts_p);

/* Make cuStreamIsCapturing say every stream is being captured (1) or none (0). */
void fake_cuda_set_capturing(int capturing);

#endif
