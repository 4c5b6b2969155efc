/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: a whole 1 GiB data set pinned at once when a few staging chunks would do.
// The test holds it against a small RAM figure (zc trace --ram) so that the machine itself is
// never short of memory.
#include "planted.h"

#include <string.h>

#define BYTES ((size_t)1 << 30)
#define COPY  ((size_t)64 << 20)

int main(void)
{
    unsigned char *data = (unsigned char *)aligned_alloc(4096, BYTES);
    PLANTED_VERIFY(data != NULL, "aligned_alloc of 1 GiB");
    memset(data, 0x5a, BYTES);
    PLANTED_CHECK(cudaHostRegister(data, BYTES, cudaHostRegisterDefault));
    unsigned char *dev = NULL;
    PLANTED_CHECK(cudaMalloc((void **)&dev, COPY));
    PLANTED_CHECK(cudaMemcpy(dev, data, COPY, cudaMemcpyHostToDevice));
    unsigned char last = 0;
    PLANTED_CHECK(cudaMemcpy(&last, dev + COPY - 1, 1, cudaMemcpyDeviceToHost));
    PLANTED_VERIFY(last == 0x5a, "last byte 0x%02x, expected 0x5a", last);
    printf("planted over-pinning: 1 GiB registered at once, 64 MiB of it copied, verified\n");
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaHostUnregister(data));
    free(data);
    return 0;
}
