/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: a pinned buffer allocated and freed on every iteration of a loop instead of
// once outside it.
#include "planted.h"

#define BYTES      (4u << 20)
#define ITERATIONS 32

int main(void)
{
    unsigned char *dev = NULL;
    PLANTED_CHECK(cudaMalloc((void **)&dev, BYTES));
    cudaStream_t stream;
    PLANTED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int it = 0; it < ITERATIONS; it++) {
        unsigned char *staging = NULL;
        PLANTED_CHECK(cudaHostAlloc((void **)&staging, BYTES, cudaHostAllocDefault));
        for (size_t i = 0; i < BYTES; i += 4096)
            staging[i] = (unsigned char)(it + i);
        PLANTED_CHECK(cudaMemcpyAsync(dev, staging, BYTES, cudaMemcpyHostToDevice, stream));
        PLANTED_CHECK(cudaStreamSynchronize(stream));
        PLANTED_CHECK(cudaFreeHost(staging));
    }
    unsigned char first = 0;
    PLANTED_CHECK(cudaMemcpy(&first, dev, 1, cudaMemcpyDeviceToHost));
    PLANTED_VERIFY(first == (unsigned char)(ITERATIONS - 1), "first byte %u, expected %u", first,
                   ITERATIONS - 1);
    printf("planted hostalloc loop: %d x cudaHostAlloc/cudaFreeHost of %u MiB, verified\n",
           ITERATIONS, BYTES >> 20);
    PLANTED_CHECK(cudaStreamDestroy(stream));
    PLANTED_CHECK(cudaFree(dev));
    return 0;
}
