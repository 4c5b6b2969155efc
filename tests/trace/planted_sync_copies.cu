/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: synchronous cudaMemcpy around every kernel, so copies and compute take
// turns instead of overlapping (the buffers are pinned, so this is the only pitfall).
#include "planted.h"

#define ITEMS      (4u << 20) /* 16 MiB of floats */
#define ITERATIONS 16

__global__ void work(float *data, unsigned n, int rounds)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = data[i];
        for (int r = 0; r < rounds; r++)
            x = x * 0.999f + 0.5f;
        data[i] = x;
    }
}

int main(void)
{
    const size_t bytes = (size_t)ITEMS * sizeof(float);
    float *host = NULL, *dev = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&host, bytes, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&dev, bytes));
    for (unsigned i = 0; i < ITEMS; i++)
        host[i] = 1.0f;
    for (int it = 0; it < ITERATIONS; it++) {
        PLANTED_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
        work<<<264, 256>>>(dev, ITEMS, 64);
        PLANTED_LAUNCH_CHECK();
        PLANTED_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    }
    PLANTED_VERIFY(host[0] > 1.0f && host[0] == host[ITEMS - 1], "host[0] = %f, host[last] = %f",
                   host[0], host[ITEMS - 1]);
    printf("planted sync copies: %d x (cudaMemcpy 16 MiB, kernel, cudaMemcpy 16 MiB), verified\n",
           ITERATIONS);
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(host));
    return 0;
}
