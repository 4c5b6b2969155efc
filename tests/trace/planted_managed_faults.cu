/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: managed memory written by the CPU, then touched by a kernel without a
// prefetch (every page faults over to the GPU), then read by the CPU (faults back).
#include "planted.h"

#define ITEMS (16u << 20) /* 64 MiB of ints */

__global__ void increment(int *data, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] += 1;
}

int main(void)
{
    int *data = NULL;
    PLANTED_CHECK(
        cudaMallocManaged((void **)&data, (size_t)ITEMS * sizeof(int), cudaMemAttachGlobal));
    for (unsigned i = 0; i < ITEMS; i++)
        data[i] = (int)i;
    increment<<<264, 256>>>(data, ITEMS);
    PLANTED_LAUNCH_CHECK();
    PLANTED_CHECK(cudaDeviceSynchronize());
    long long sum = 0;
    for (unsigned i = 0; i < ITEMS; i += 1024)
        sum += data[i] - (int)i;
    PLANTED_VERIFY(sum == ITEMS / 1024, "sum of increments %lld, expected %u", sum, ITEMS / 1024);
    printf("planted managed faults: 64 MiB managed, CPU -> GPU -> CPU without prefetch, "
           "verified\n");
    PLANTED_CHECK(cudaFree(data));
    return 0;
}
