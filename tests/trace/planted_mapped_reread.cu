/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: a kernel that reads the same mapped host memory again and again (8 passes),
// each read crossing PCIe, where one copy to device memory would be read at device speed.
#include "planted.h"

#define ITEMS  (1u << 20) /* 4 MiB of floats */
#define PASSES 8

__global__ void reread(const float *mapped, float *out, unsigned n, int passes)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f;
    /* volatile: each pass really reads host memory again, as an unwitting kernel would. */
    const volatile float *p = mapped;
    for (int pass = 0; pass < passes; pass++)
        sum += p[(i + (unsigned)pass * 32u) % n];
    out[i] = sum;
}

int main(void)
{
    PLANTED_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    float *host = NULL, *mapped = NULL, *out = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&host, ITEMS * sizeof(float), cudaHostAllocMapped));
    PLANTED_CHECK(cudaHostGetDevicePointer((void **)&mapped, host, 0));
    PLANTED_CHECK(cudaMalloc((void **)&out, ITEMS * sizeof(float)));
    for (unsigned i = 0; i < ITEMS; i++)
        host[i] = 1.0f;
    reread<<<(ITEMS + 255) / 256, 256>>>(mapped, out, ITEMS, PASSES);
    PLANTED_LAUNCH_CHECK();
    PLANTED_CHECK(cudaDeviceSynchronize());
    float first = 0;
    PLANTED_CHECK(cudaMemcpy(&first, out, sizeof first, cudaMemcpyDeviceToHost));
    PLANTED_VERIFY(first == (float)PASSES, "out[0] = %f, expected %d", first, PASSES);
    printf("planted mapped reread: %d passes over 4 MiB of mapped memory, verified\n", PASSES);
    PLANTED_CHECK(cudaFree(out));
    PLANTED_CHECK(cudaFreeHost(host));
    return 0;
}
