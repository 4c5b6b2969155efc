/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the planted-pitfall programs: a check for every CUDA call and the closing line.
 * The programs are ordinary CUDA programs, as a user would write them, so they use the CUDA
 * runtime only and not the zerocopy library. */
#ifndef ZC_TESTS_TRACE_PLANTED_H
#define ZC_TESTS_TRACE_PLANTED_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

/* Exit with code 1 and a line naming the call and the CUDA error when a call fails. */
#define PLANTED_CHECK(call)                                                                        \
    do {                                                                                           \
        cudaError_t planted_error = (call);                                                        \
        if (planted_error != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorName(planted_error), cudaGetErrorString(planted_error));           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* After a kernel launch: the launch error, then the kernel's own. */
#define PLANTED_LAUNCH_CHECK()                                                                     \
    do {                                                                                           \
        PLANTED_CHECK(cudaGetLastError());                                                         \
    } while (0)

/* Exit with code 2 when data moved is wrong, naming what and where. */
#define PLANTED_VERIFY(condition, ...)                                                             \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            fprintf(stderr, "verify failed: " __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                                   \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

#endif
