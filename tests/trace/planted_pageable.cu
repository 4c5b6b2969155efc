/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: copies from and to pageable (malloc'd) memory. The driver stages each one
// through its own pinned buffer, at a fraction of the link's speed.
#include "planted.h"

#include <string.h>

#define BYTES   (32u << 20)
#define REPEATS 8

int main(void)
{
    unsigned char *host = (unsigned char *)malloc(BYTES), *back = (unsigned char *)malloc(BYTES);
    PLANTED_VERIFY(host != NULL && back != NULL, "malloc of %u bytes", BYTES);
    for (size_t i = 0; i < BYTES; i++)
        host[i] = (unsigned char)(i * 7);
    unsigned char *dev = NULL;
    PLANTED_CHECK(cudaMalloc((void **)&dev, BYTES));
    cudaEvent_t start, stop;
    PLANTED_CHECK(cudaEventCreate(&start));
    PLANTED_CHECK(cudaEventCreate(&stop));
    PLANTED_CHECK(cudaEventRecord(start, 0));
    for (int r = 0; r < REPEATS; r++) {
        PLANTED_CHECK(cudaMemcpy(dev, host, BYTES, cudaMemcpyHostToDevice));
        PLANTED_CHECK(cudaMemcpy(back, dev, BYTES, cudaMemcpyDeviceToHost));
    }
    PLANTED_CHECK(cudaEventRecord(stop, 0));
    PLANTED_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    PLANTED_CHECK(cudaEventElapsedTime(&ms, start, stop));
    PLANTED_VERIFY(memcmp(host, back, BYTES) == 0, "round trip changed the data");
    printf("planted pageable: %d x 2 copies of %u MiB pageable, %.2f GB/s average\n", REPEATS,
           BYTES >> 20, 2.0 * REPEATS * BYTES / (ms * 1e-3) / 1e9);
    PLANTED_CHECK(cudaEventDestroy(start));
    PLANTED_CHECK(cudaEventDestroy(stop));
    PLANTED_CHECK(cudaFree(dev));
    free(back);
    free(host);
    return 0;
}
