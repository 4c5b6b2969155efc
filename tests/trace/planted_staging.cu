/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: data staged through a pinned buffer with memcpy, as a framework does (CuPy's
// cp.asarray, JAX's transfers): every CUDA copy is pinned and fast, and the host copy beside it,
// one memcpy on one thread, takes most of the time. No copy touches pageable memory.
#include "planted.h"

#include <string.h>

#define BYTES   (32u << 20)
#define REPEATS 4

int main(void)
{
    unsigned char *data = (unsigned char *)malloc(BYTES), *back = (unsigned char *)malloc(BYTES);
    PLANTED_VERIFY(data != NULL && back != NULL, "malloc of %u bytes", BYTES);
    for (size_t i = 0; i < BYTES; i++)
        data[i] = (unsigned char)(i * 11 + (i >> 20));
    unsigned char *staging = NULL, *dev = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&staging, BYTES, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&dev, BYTES));
    for (int r = 0; r < REPEATS; r++) {
        memset(back, 0, BYTES);
        memcpy(staging, data, BYTES); /* in: the array into the framework's pinned buffer */
        PLANTED_CHECK(cudaMemcpy(dev, staging, BYTES, cudaMemcpyHostToDevice));
        memset(staging, 0, BYTES);
        PLANTED_CHECK(cudaMemcpy(staging, dev, BYTES, cudaMemcpyDeviceToHost));
        memcpy(back, staging, BYTES); /* out: the pinned buffer into the array */
        PLANTED_VERIFY(memcmp(back, data, BYTES) == 0, "round %d changed the data", r);
    }
    printf("planted staging: %d x 2 copies of %u MiB through a pinned buffer, each beside a "
           "memcpy\n",
           REPEATS, BYTES >> 20);
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(staging));
    free(back);
    free(data);
    return 0;
}
