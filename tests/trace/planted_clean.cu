/* SPDX-License-Identifier: Apache-2.0 */
// The clean program: pinned buffers allocated once, chunks pipelined with cudaMemcpyAsync and
// kernels on two streams, few large copies, everything freed. zc trace must report nothing.
#include "planted.h"

#define CHUNKS      8
#define CHUNK_BYTES (8u << 20)
#define CHUNK_ITEMS (CHUNK_BYTES / sizeof(float))

__global__ void scale(float *data, size_t n, float factor)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = data[i] * factor + 1.0f;
}

int main(void)
{
    const size_t total = (size_t)CHUNKS * CHUNK_BYTES;
    float *in = NULL, *out = NULL, *dev = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&in, total, cudaHostAllocDefault));
    PLANTED_CHECK(cudaHostAlloc((void **)&out, total, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&dev, total));
    for (size_t i = 0; i < total / sizeof(float); i++)
        in[i] = (float)(i % 1000);
    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++)
        PLANTED_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));

    for (int c = 0; c < CHUNKS; c++) {
        cudaStream_t s = streams[c % 2];
        size_t offset = (size_t)c * CHUNK_ITEMS;
        PLANTED_CHECK(
            cudaMemcpyAsync(dev + offset, in + offset, CHUNK_BYTES, cudaMemcpyHostToDevice, s));
        scale<<<264, 256, 0, s>>>(dev + offset, CHUNK_ITEMS, 2.0f);
        PLANTED_LAUNCH_CHECK();
        PLANTED_CHECK(
            cudaMemcpyAsync(out + offset, dev + offset, CHUNK_BYTES, cudaMemcpyDeviceToHost, s));
    }
    for (int s = 0; s < 2; s++)
        PLANTED_CHECK(cudaStreamSynchronize(streams[s]));
    for (size_t i = 0; i < total / sizeof(float); i += 4099)
        PLANTED_VERIFY(out[i] == (float)(i % 1000) * 2.0f + 1.0f, "out[%zu] = %f", i, out[i]);

    for (int s = 0; s < 2; s++)
        PLANTED_CHECK(cudaStreamDestroy(streams[s]));
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(out));
    PLANTED_CHECK(cudaFreeHost(in));
    printf("planted clean: %d chunks of %u MiB pipelined on 2 streams, data verified\n", CHUNKS,
           CHUNK_BYTES >> 20);
    return 0;
}
