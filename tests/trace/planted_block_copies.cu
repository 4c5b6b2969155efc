/* SPDX-License-Identifier: Apache-2.0 */
// Planted pitfall: blocks of one size moved one call each, as a paged KV cache is restored
// block by block: 512 blocks of 64 KiB copied from scattered slots of a pinned pool to the
// device, one cudaMemcpyAsync per block, where the block mover would take them in one call.
#include "planted.h"

#define BLOCK  (64u << 10)
#define BLOCKS 512u

int main(void)
{
    const size_t total = (size_t)BLOCK * BLOCKS;
    unsigned char *pool = NULL, *dev = NULL, *back = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&pool, total, cudaHostAllocDefault));
    PLANTED_CHECK(cudaHostAlloc((void **)&back, total, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&dev, total));
    for (size_t i = 0; i < total; i++)
        pool[i] = (unsigned char)(i * 7 + 3);
    cudaStream_t stream;
    PLANTED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    /* One small copy first, as a loop in its steady state has had: the first copy's call pays
     * CUDA's set-up (2.7 ms between the first block and the second on an H100 under zc trace),
     * which would cut the move in two. 1 KiB is below a block: it is no part of the move. */
    PLANTED_CHECK(cudaMemcpyAsync(dev, pool, 1024, cudaMemcpyHostToDevice, stream));
    PLANTED_CHECK(cudaStreamSynchronize(stream));
    /* Block b of the cache lives in slot (b * 37) % BLOCKS of the pool: 37 is prime to 512,
     * so every slot is read once, out of order. */
    for (unsigned b = 0; b < BLOCKS; b++) {
        const size_t slot = ((size_t)b * 37u) % BLOCKS;
        PLANTED_CHECK(cudaMemcpyAsync(dev + (size_t)b * BLOCK, pool + slot * BLOCK, BLOCK,
                                      cudaMemcpyHostToDevice, stream));
    }
    /* One large copy back, to check the blocks. */
    PLANTED_CHECK(cudaMemcpyAsync(back, dev, total, cudaMemcpyDeviceToHost, stream));
    PLANTED_CHECK(cudaStreamSynchronize(stream));
    for (unsigned b = 0; b < BLOCKS; b++) {
        const size_t slot = ((size_t)b * 37u) % BLOCKS;
        for (size_t i = 0; i < BLOCK; i += 509) {
            unsigned char want = pool[slot * BLOCK + i], got = back[(size_t)b * BLOCK + i];
            PLANTED_VERIFY(got == want, "block %u byte %zu: %u, expected %u", b, i, got, want);
        }
    }
    printf("planted block copies: %u blocks of %u bytes, one call each, data verified\n", BLOCKS,
           BLOCK);
    PLANTED_CHECK(cudaStreamDestroy(stream));
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(back));
    PLANTED_CHECK(cudaFreeHost(pool));
    return 0;
}
