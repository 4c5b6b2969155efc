/* SPDX-License-Identifier: Apache-2.0 */
// Not a pitfall: host memory registered with the mapped flag, then only copied from with
// cudaMemcpyAsync; no kernel is ever given a pointer into it. zc trace must not say that kernels
// read it over PCIe (nor report anything else).
#include "planted.h"

#include <stdlib.h>

#define BYTES (32u << 20)
#define ITEMS (BYTES / sizeof(float))

__global__ void scale(float *data, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] *= 3.0f;
}

int main(void)
{
    PLANTED_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    float *host = NULL, *mapped = NULL, *dev = NULL;
    if (posix_memalign((void **)&host, 4096, BYTES) != 0) {
        fprintf(stderr, "posix_memalign failed\n");
        return 1;
    }
    for (size_t i = 0; i < ITEMS; i++)
        host[i] = (float)(i % 10);
    PLANTED_CHECK(cudaHostRegister(host, BYTES, cudaHostRegisterMapped));
    /* The program asks for the device pointer, as code written for zero-copy does, then copies
     * instead of reading through it. */
    PLANTED_CHECK(cudaHostGetDevicePointer((void **)&mapped, host, 0));
    PLANTED_CHECK(cudaMalloc((void **)&dev, BYTES));
    cudaStream_t stream;
    PLANTED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PLANTED_CHECK(cudaMemcpyAsync(dev, host, BYTES, cudaMemcpyHostToDevice, stream));
    scale<<<264, 256, 0, stream>>>(dev, ITEMS);
    PLANTED_LAUNCH_CHECK();
    PLANTED_CHECK(cudaMemcpyAsync(host, dev, BYTES, cudaMemcpyDeviceToHost, stream));
    PLANTED_CHECK(cudaStreamSynchronize(stream));
    PLANTED_VERIFY(host[7] == 21.0f, "host[7] = %f, expected 21", host[7]);
    printf("planted mapped copied: 32 MiB registered mapped, only copied, verified (device "
           "pointer %s)\n",
           mapped != NULL ? "taken" : "missing");
    PLANTED_CHECK(cudaStreamDestroy(stream));
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaHostUnregister(host));
    free(host);
    return 0;
}
