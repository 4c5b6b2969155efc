// SPDX-License-Identifier: Apache-2.0
// What one managed transfer of results out costs by what the CPU and the buffer do between
// transfers: zc advise's runner allocates the size exactly and never reads its results between
// transfers; zc bench's managed.transfer moved the first bytes of a 64 MiB buffer and read every
// word back on the CPU after each (its check), until this probe's figures made it the runner's
// way. A transfer: the pages prefetched to the GPU, a
// kernel writes them, they are prefetched back, one synchronisation; host clock around it. Each
// way at each size: 3 warm-ups, then the median of REPS; every word of every transfer the CPU
// reads is checked, and the last transfer's words where it reads none.
//   managed_out [REPS]
#include <cuda_runtime.h>

#include "probe.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void write_words(uint32_t *out, size_t words, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = seed ^ (uint32_t)(i * 2654435761u);
}

static void check(const uint32_t *p, size_t words, uint32_t seed, const char *way, size_t bytes)
{
    for (size_t i = 0; i < words; i++)
        if (p[i] != (seed ^ (uint32_t)(i * 2654435761u))) {
            fprintf(stderr, "managed_out: %s at %zu bytes: word %zu is wrong\n", way, bytes, i);
            exit(1);
        }
}

// One way at one size: the median of reps transfers, in microseconds.
static double run(uint32_t *p, size_t bytes, bool read_back, int reps, const char *way,
                  cudaStream_t s)
{
    size_t words = bytes / 4;
    std::vector<double> t;
    uint32_t seed = 0;
    for (int r = 0; r < reps + 3; r++) {
        seed = 0x9e3779b9u * (uint32_t)(r + 1);
        double t0 = now_us();
        CHECK(cudaMemPrefetchAsync(p, bytes, probe_where(0), 0, s));
        write_words<<<264, 256, 0, s>>>(p, words, seed);
        CHECK(cudaGetLastError());
        CHECK(cudaMemPrefetchAsync(p, bytes, probe_where(-1), 0, s));
        CHECK(cudaStreamSynchronize(s));
        double t1 = now_us();
        if (r >= 3)
            t.push_back(t1 - t0);
        if (read_back)
            check(p, words, seed, way, bytes);
    }
    if (!read_back)
        check(p, words, seed, way, bytes);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    if (reps < 1)
        return 2;
    CHECK(cudaSetDevice(0));
    int managed = 0;
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, 0));
    if (!managed) {
        fprintf(stderr, "managed_out: GPU 0 lacks concurrentManagedAccess\n");
        return 1;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t big = (size_t)64 << 20;
    const size_t sizes[] = {(size_t)64 << 10, (size_t)1 << 20, (size_t)4 << 20, (size_t)16 << 20};
    for (size_t bytes : sizes) {
        uint32_t *exact = nullptr, *slice = nullptr;
        CHECK(cudaMallocManaged(&exact, bytes));
        double exact_untouched = run(exact, bytes, false, reps, "exact, untouched", s);
        double exact_read = run(exact, bytes, true, reps, "exact, read", s);
        CHECK(cudaFree(exact));
        CHECK(cudaMallocManaged(&slice, big));
        double slice_untouched = run(slice, bytes, false, reps, "slice, untouched", s);
        double slice_read = run(slice, bytes, true, reps, "slice, read", s);
        CHECK(cudaFree(slice));
        printf("{\"bytes\":%zu,\"exact_untouched_us\":%.1f,\"exact_read_us\":%.1f,"
               "\"slice_untouched_us\":%.1f,\"slice_read_us\":%.1f}\n",
               bytes, exact_untouched, exact_read, slice_untouched, slice_read);
    }
    CHECK(cudaStreamDestroy(s));
    return 0;
}
