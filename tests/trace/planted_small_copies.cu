/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: many small copies (4 KiB each, pinned, asynchronous), where one large copy
// of the same bytes would do.
#include "planted.h"

#define PIECE  4096u
#define PIECES 1024u

int main(void)
{
    const size_t total = (size_t)PIECE * PIECES;
    unsigned char *host = NULL, *dev = NULL, *back = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&host, total, cudaHostAllocDefault));
    PLANTED_CHECK(cudaHostAlloc((void **)&back, total, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&dev, total));
    for (size_t i = 0; i < total; i++)
        host[i] = (unsigned char)(i * 13 + 1);
    cudaStream_t stream;
    PLANTED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (unsigned p = 0; p < PIECES; p++)
        PLANTED_CHECK(cudaMemcpyAsync(dev + (size_t)p * PIECE, host + (size_t)p * PIECE, PIECE,
                                      cudaMemcpyHostToDevice, stream));
    /* One large copy back, the way it should be done. */
    PLANTED_CHECK(cudaMemcpyAsync(back, dev, total, cudaMemcpyDeviceToHost, stream));
    PLANTED_CHECK(cudaStreamSynchronize(stream));
    for (size_t i = 0; i < total; i++)
        PLANTED_VERIFY(back[i] == host[i], "byte %zu: %u, expected %u", i, back[i], host[i]);
    printf("planted small copies: %u copies of %u bytes, data verified\n", PIECES, PIECE);
    PLANTED_CHECK(cudaStreamDestroy(stream));
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(back));
    PLANTED_CHECK(cudaFreeHost(host));
    return 0;
}
