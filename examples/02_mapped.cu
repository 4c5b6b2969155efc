/* SPDX-License-Identifier: Apache-2.0 */
/* Example 2 (mapped, zero-copy memory): the CPU writes into a mapped pinned buffer, a kernel
 * reads and writes it in place through its device address, and the CPU sees the result without
 * any copy. Exits 3 without a GPU, 4 where the GPU cannot map host memory. */
#include <stdint.h>

#include "example_common.h"

/* y = 2x + 1 for every element, read from and written to host memory over the bus. */
static __global__ void scale_in_place(float *data, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        data[i] = 2.0f * data[i] + 1.0f;
}

int main(void)
{
    example_require_gpu("02_mapped");
    int can_map = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
    if (!can_map) {
        fprintf(stderr, "02_mapped: GPU 0 cannot map host memory (canMapHostMemory is 0)\n");
        return EXAMPLE_UNSUPPORTED;
    }

    const size_t n = (size_t)1 << 20;
    zc_buffer *buf = NULL;
    CHECK_ZC(zc_buffer_alloc(n * sizeof(float), ZC_BUFFER_MAPPED, 0, 0, &buf));
    float *host = (float *)zc_buffer_host_ptr(buf);
    /* The device's address for the same memory, as cudaHostGetDevicePointer gives it. */
    float *dev = (float *)zc_buffer_device_ptr(buf);
    printf("mapped buffer: host address %p, device address %p%s\n", (void *)host, (void *)dev,
           host == (float *)dev ? " (the same: unified addressing)" : "");

    for (size_t i = 0; i < n; i++)
        host[i] = (float)(i % 1000);
    scale_in_place<<<256, 256>>>(dev, n);
    CHECK_CUDA(cudaGetLastError());
    /* The kernel's writes are visible to the CPU once it has finished: no cudaMemcpy. */
    CHECK_CUDA(cudaDeviceSynchronize());

    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        float want = 2.0f * (float)(i % 1000) + 1.0f;
        if (host[i] != want && wrong++ < 5)
            fprintf(stderr, "element %zu is %g, expected %g\n", i, host[i], want);
    }
    printf("%zu elements written by the CPU, transformed by the GPU in place, read by the CPU: "
           "%s\n",
           n, wrong == 0 ? "all correct, no copy made" : "WRONG");
    CHECK_ZC(zc_buffer_free(buf));
    return wrong == 0 ? EXAMPLE_OK : EXAMPLE_WRONG_DATA;
}
