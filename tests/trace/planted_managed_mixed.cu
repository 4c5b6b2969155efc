/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall, per allocation: two managed allocations, the first prefetched to the GPU before
// its kernel, the second used by a kernel with no prefetch and no advice. zc trace must report
// managed_faults naming the second (kernel touch_unprefetched, 32 MiB) and not the first.
#include "planted.h"

#define PREFETCHED_ITEMS   (16u << 20) /* 64 MiB of ints */
#define UNPREFETCHED_ITEMS (8u << 20)  /* 32 MiB of ints */

__global__ void touch_prefetched(int *data, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] += 1;
}

__global__ void touch_unprefetched(int *data, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] += 2;
}

int main(void)
{
    int device = 0;
    PLANTED_CHECK(cudaGetDevice(&device));
    int *good = NULL, *bad = NULL;
    PLANTED_CHECK(cudaMallocManaged((void **)&good, (size_t)PREFETCHED_ITEMS * sizeof(int),
                                    cudaMemAttachGlobal));
    PLANTED_CHECK(cudaMallocManaged((void **)&bad, (size_t)UNPREFETCHED_ITEMS * sizeof(int),
                                    cudaMemAttachGlobal));
    for (unsigned i = 0; i < PREFETCHED_ITEMS; i++)
        good[i] = (int)i;
    for (unsigned i = 0; i < UNPREFETCHED_ITEMS; i++)
        bad[i] = (int)i;
    cudaMemLocation gpu = {};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = device;
    PLANTED_CHECK(cudaMemPrefetchAsync(good, (size_t)PREFETCHED_ITEMS * sizeof(int), gpu, 0, 0));
    touch_prefetched<<<264, 256>>>(good, PREFETCHED_ITEMS);
    PLANTED_LAUNCH_CHECK();
    touch_unprefetched<<<264, 256>>>(bad, UNPREFETCHED_ITEMS);
    PLANTED_LAUNCH_CHECK();
    PLANTED_CHECK(cudaDeviceSynchronize());
    cudaMemLocation cpu = {};
    cpu.type = cudaMemLocationTypeHost;
    PLANTED_CHECK(cudaMemPrefetchAsync(good, (size_t)PREFETCHED_ITEMS * sizeof(int), cpu, 0, 0));
    PLANTED_CHECK(cudaDeviceSynchronize());
    PLANTED_VERIFY(good[5] == 6 && bad[5] == 7, "good[5] = %d, bad[5] = %d, expected 6 and 7",
                   good[5], bad[5]);
    printf("planted managed mixed: 64 MiB prefetched, 32 MiB used without prefetch, verified\n");
    PLANTED_CHECK(cudaFree(good));
    PLANTED_CHECK(cudaFree(bad));
    return 0;
}
