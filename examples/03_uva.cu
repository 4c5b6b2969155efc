/* SPDX-License-Identifier: Apache-2.0 */
/* Example 3 (unified virtual addressing): with unifiedAddressing, a pointer from cudaHostAlloc
 * goes straight to a kernel, and cudaPointerGetAttributes (and zc_pointer_query) says what it
 * is. Exits 3 without a GPU, 4 without unified addressing. */
#include <stdint.h>

#include "example_common.h"

static __global__ void add_index(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += i;
}

static const char *memory_type_name(enum cudaMemoryType type)
{
    switch (type) {
    case cudaMemoryTypeUnregistered:
        return "unregistered (pageable)";
    case cudaMemoryTypeHost:
        return "host (pinned)";
    case cudaMemoryTypeDevice:
        return "device";
    case cudaMemoryTypeManaged:
        return "managed";
    }
    return "?";
}

int main(void)
{
    example_require_gpu("03_uva");
    struct cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("GPU 0: %s, unifiedAddressing = %d\n", prop.name, prop.unifiedAddressing);
    if (!prop.unifiedAddressing) {
        fprintf(stderr, "03_uva: GPU 0 has no unified addressing; host pointers need "
                        "cudaHostGetDevicePointer there\n");
        return EXAMPLE_UNSUPPORTED;
    }

    const int n = 1 << 16;
    int *host = NULL;
    CHECK_CUDA(cudaHostAlloc((void **)&host, n * sizeof(int), cudaHostAllocDefault));
    for (int i = 0; i < n; i++)
        host[i] = 1000;

    /* One address space: the host pointer itself is a valid kernel argument. */
    add_index<<<(n + 255) / 256, 256>>>(host, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        if (host[i] != 1000 + i && wrong++ < 5)
            fprintf(stderr, "element %d is %d, expected %d\n", i, host[i], 1000 + i);
    }

    struct cudaPointerAttributes attr;
    CHECK_CUDA(cudaPointerGetAttributes(&attr, host));
    printf("cudaPointerGetAttributes(host): type %s, device %d, hostPointer %p, devicePointer "
           "%p\n",
           memory_type_name(attr.type), attr.device, attr.hostPointer, attr.devicePointer);
    zc_pointer_info q;
    CHECK_ZC(zc_pointer_query(host, &q));
    printf("zc_pointer_query(host): %s, device address %p, a kernel may use it directly: %s\n",
           zc_buffer_kind_name(q.kind), q.device_ptr, q.kernel_can_access ? "yes" : "no");

    int on_stack = 0;
    CHECK_CUDA(cudaPointerGetAttributes(&attr, &on_stack));
    CHECK_ZC(zc_pointer_query(&on_stack, &q));
    printf("a stack variable: type %s; a kernel may use it directly: %s\n",
           memory_type_name(attr.type), q.kernel_can_access ? "yes" : "no");

    printf("kernel wrote through the cudaHostAlloc pointer: %s\n",
           wrong == 0 ? "all correct" : "WRONG");
    CHECK_CUDA(cudaFreeHost(host));
    return wrong == 0 ? EXAMPLE_OK : EXAMPLE_WRONG_DATA;
}
