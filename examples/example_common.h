/* SPDX-License-Identifier: Apache-2.0 */
/* What the examples share: checking every call and the exit codes they end with. */
#ifndef ZC_EXAMPLE_COMMON_H
#define ZC_EXAMPLE_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include <zerocopy/zerocopy.h>

/* Exit codes, the same as the zc tool's: 3 means "no CUDA GPU or driver". */
enum {
    EXAMPLE_OK = 0,
    EXAMPLE_FAILED = 1,
    EXAMPLE_NO_DEVICE = 3,
    EXAMPLE_UNSUPPORTED = 4,
    EXAMPLE_WRONG_DATA = 5
};

/* Stop with the CUDA error's name and text, and the call that failed. */
#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t example_e = (call);                                                            \
        if (example_e != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorName(example_e), cudaGetErrorString(example_e));                   \
            exit(EXAMPLE_FAILED);                                                                  \
        }                                                                                          \
    } while (0)

/* Stop with zerocopy's status and its detail (which call, why, where). */
#define CHECK_ZC(call)                                                                             \
    do {                                                                                           \
        zc_status example_s = (call);                                                              \
        if (example_s != ZC_OK) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,               \
                    zc_status_str(example_s), zc_last_error());                                    \
            exit(EXAMPLE_FAILED);                                                                  \
        }                                                                                          \
    } while (0)

/* Without a GPU, say so on one line and exit with 3. */
static inline void example_require_gpu(const char *program)
{
    int count = 0;
    zc_status status = zc_device_count(&count);
    if (status == ZC_ERR_NO_DEVICE) {
        fprintf(stderr, "%s: no CUDA GPU: %s\n", program, zc_last_error());
        exit(EXAMPLE_NO_DEVICE);
    }
    CHECK_ZC(status);
}

#endif
