/* SPDX-License-Identifier: Apache-2.0 */
/* A program that calls the CUDA driver API directly (linked with -lcuda), so that zc run's
 * replacements are reached by symbol rather than through the runtime: a pageable round trip
 * through device memory, and pinned allocations freed and made again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult check_result = (call);                                                            \
        if (check_result != CUDA_SUCCESS) {                                                        \
            const char *check_name = "?";                                                          \
            cuGetErrorName(check_result, &check_name);                                             \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, check_name);      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(void)
{
    const size_t n = (9u << 20) + 5;
    CHECK(cuInit(0));
    CUdevice device;
    CUcontext ctx;
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
    CHECK(cuCtxSetCurrent(ctx));
    unsigned char *in = malloc(n), *out = malloc(n);
    if (in == NULL || out == NULL)
        return 1;
    for (size_t i = 0; i < n; i++)
        in[i] = (unsigned char)(i * 13u + (i >> 16));
    CUdeviceptr dev;
    CHECK(cuMemAlloc(&dev, n));
    uint64_t h = 1469598103934665603ull;
    for (int round = 0; round < 3; round++) {
        memset(out, 0, n);
        CHECK(cuMemcpyHtoD(dev, in, n));
        CHECK(cuMemcpyDtoH(out, dev, n));
        if (memcmp(in, out, n) != 0) {
            fprintf(stderr, "verify failed: round %d changed the data\n", round);
            return 2;
        }
        for (size_t i = 0; i < n; i += 4099)
            h = (h ^ out[i]) * 1099511628211ull;
    }
    for (int i = 0; i < 4; i++) {
        void *pinned = NULL;
        CHECK(cuMemHostAlloc(&pinned, 1u << 20, CU_MEMHOSTALLOC_PORTABLE));
        memset(pinned, i, 1u << 20);
        CHECK(cuMemFreeHost(pinned));
    }
    CHECK(cuMemFree(dev));
    CHECK(cuDevicePrimaryCtxRelease(device));
    printf("driver %zu %016llx\n", n, (unsigned long long)h);
    free(out);
    free(in);
    return 0;
}
