/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers for the ring's GPU tests: sizes scaled under compute-sanitizer, an echo kernel run,
 * frame traffic with every result checked. */
#ifndef ZC_TESTS_RING_GPU_RING_SUPPORT_H
#define ZC_TESTS_RING_GPU_RING_SUPPORT_H

#include <stdint.h>

#include "fake_gpu.h"
#include "ring_gpu_kernels.h"

/* 1 when the program runs under compute-sanitizer (everything is far slower there). */
int zc_rt_under_sanitizer(void);

/* full, or ZC_TEST_FRAMES when set, or full / 1000 (at least 2000) under compute-sanitizer. */
uint64_t zc_rt_frames(uint64_t full);

typedef struct zc_echo_run {
    zc_ring *ring;
    zc_echo_counts *counts; /* device memory */
    cudaStream_t stream;
} zc_echo_run;

/* Create a ring with c, launch the echo kernel on it and wait until it runs. */
void zc_echo_start(const zc_ring_config *c, uint32_t blocks, uint32_t threads, int interleave,
                   uint64_t delay_ns, zc_echo_run *run);

/* Stop it (must end on request), read its counts, free everything. */
void zc_echo_finish(zc_echo_run *run, zc_echo_counts *counts_p);

/* Push frames (offer = seq) keeping up to window outstanding; check every result. Gives the
 * seconds it took. */
double zc_echo_traffic(zc_ring *ring, uint64_t frames, uint32_t window);

/* Print the kernel's state on stderr (for failure messages). */
void zc_rt_print_state(zc_ring *ring, const char *when);

#endif
