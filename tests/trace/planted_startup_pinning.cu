/* SPDX-License-Identifier: Apache-2.0 */
// Not a pitfall: eight pinned buffers (128 MiB) allocated once at start-up, used by a pipeline of
// async copies and kernels, freed at exit. Many pinning calls, but no repetition: zc trace must
// not call it pinning in a loop, nor anything else.
#include "planted.h"

#define BUFFERS      8
#define BUFFER_BYTES (16u << 20)
#define ITEMS        (BUFFER_BYTES / sizeof(float))
#define ROUNDS       4

__global__ void scale(float *data, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = data[i] * 2.0f + 1.0f;
}

int main(void)
{
    float *host[BUFFERS], *dev = NULL;
    for (int b = 0; b < BUFFERS; b++) {
        PLANTED_CHECK(cudaHostAlloc((void **)&host[b], BUFFER_BYTES, cudaHostAllocDefault));
        for (size_t i = 0; i < ITEMS; i++)
            host[b][i] = (float)(i % 100);
    }
    PLANTED_CHECK(cudaMalloc((void **)&dev, (size_t)BUFFERS * BUFFER_BYTES));
    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++)
        PLANTED_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    /* Each round takes the buffers in and back out; the values go 2x+1 per round. */
    for (int round = 0; round < ROUNDS; round++) {
        for (int b = 0; b < BUFFERS; b++) {
            cudaStream_t s = streams[b % 2];
            float *d = dev + (size_t)b * ITEMS;
            PLANTED_CHECK(cudaMemcpyAsync(d, host[b], BUFFER_BYTES, cudaMemcpyHostToDevice, s));
            scale<<<264, 256, 0, s>>>(d, ITEMS);
            PLANTED_LAUNCH_CHECK();
            PLANTED_CHECK(cudaMemcpyAsync(host[b], d, BUFFER_BYTES, cudaMemcpyDeviceToHost, s));
        }
        for (int s = 0; s < 2; s++)
            PLANTED_CHECK(cudaStreamSynchronize(streams[s]));
    }
    for (int b = 0; b < BUFFERS; b++) {
        float expected = (float)(7 % 100);
        for (int r = 0; r < ROUNDS; r++)
            expected = expected * 2.0f + 1.0f;
        PLANTED_VERIFY(host[b][7] == expected, "buffer %d: %f, expected %f", b, host[b][7],
                       expected);
    }
    for (int s = 0; s < 2; s++)
        PLANTED_CHECK(cudaStreamDestroy(streams[s]));
    PLANTED_CHECK(cudaFree(dev));
    for (int b = 0; b < BUFFERS; b++)
        PLANTED_CHECK(cudaFreeHost(host[b]));
    printf("planted startup pinning: %d x %u MiB pinned once, %d rounds of copies and kernels, "
           "verified\n",
           BUFFERS, BUFFER_BYTES >> 20, ROUNDS);
    return 0;
}
