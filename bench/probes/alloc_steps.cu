// SPDX-License-Identifier: Apache-2.0
// What one allocation costs depending on what ran before it in the process: zc bench's
// alloc.cost times an allocation right after freeing one of the same size (the driver may hand
// the same memory back), zc advise's runner allocates after streams, device memory and kernels
// came and went. One process per kind and size, so that "first" is the process's first
// allocation of that kind after the context exists. Each allocation is timed with the host
// clock, freed, and its memory written and read back once (the GPU copies 4 KiB of it out and
// the bytes are compared) before the next step.
//   alloc_steps KIND BYTES     KIND: pinned | mapped | register | managed | device
// One JSON line: each step's microseconds.
#include <cuda_runtime.h>

#include "probe.h"
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

__global__ void touch(uint32_t *p)
{
    p[threadIdx.x] += 1;
}

struct Block {
    void *p = nullptr;   // what the GPU and host see (host view for host kinds)
    void *raw = nullptr; // malloc'd memory under a registration
};

static std::string g_kind;
static size_t g_bytes;

static double alloc_one(Block *b)
{
    if (g_kind == "register") {
        b->raw = aligned_alloc(4096, (g_bytes + 4095) & ~(size_t)4095);
        if (b->raw == nullptr)
            exit(1);
        memset(b->raw, 1, g_bytes);
    }
    double t0 = now_us();
    if (g_kind == "pinned")
        CHECK(cudaHostAlloc(&b->p, g_bytes, cudaHostAllocDefault));
    else if (g_kind == "mapped")
        CHECK(cudaHostAlloc(&b->p, g_bytes, cudaHostAllocMapped));
    else if (g_kind == "register")
        CHECK(cudaHostRegister(b->raw, g_bytes, cudaHostRegisterDefault));
    else if (g_kind == "managed")
        CHECK(cudaMallocManaged(&b->p, g_bytes));
    else
        CHECK(cudaMalloc(&b->p, g_bytes));
    double t1 = now_us();
    if (g_kind == "register")
        b->p = b->raw;
    return t1 - t0;
}

static void free_one(Block *b)
{
    if (g_kind == "pinned" || g_kind == "mapped")
        CHECK(cudaFreeHost(b->p));
    else if (g_kind == "register") {
        CHECK(cudaHostUnregister(b->raw));
        free(b->raw);
    } else
        CHECK(cudaFree(b->p));
    *b = Block();
}

// The memory works: 4 KiB written, copied through the GPU and compared.
static void check_one(const Block *b)
{
    size_t n = std::min<size_t>(g_bytes, 4096);
    std::vector<unsigned char> want(n), got(n);
    for (size_t i = 0; i < n; i++)
        want[i] = (unsigned char)(i * 131 + 7);
    CHECK(cudaMemcpy(b->p, want.data(), n, cudaMemcpyDefault));
    CHECK(cudaMemcpy(got.data(), b->p, n, cudaMemcpyDefault));
    if (memcmp(want.data(), got.data(), n) != 0) {
        fprintf(stderr, "alloc_steps: %s %zu bytes came back changed\n", g_kind.c_str(), g_bytes);
        exit(1);
    }
}

static double step(const char *what)
{
    (void)what;
    Block b;
    double us = alloc_one(&b);
    check_one(&b);
    free_one(&b);
    return us;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: alloc_steps pinned|mapped|register|managed|device BYTES\n");
        return 2;
    }
    g_kind = argv[1];
    g_bytes = strtoull(argv[2], nullptr, 0);
    if (g_bytes == 0)
        return 2;
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(0));
    double first = step("first");
    double again = step("again");
    // What the runner does between two of its allocations.
    void *d = nullptr;
    CHECK(cudaMalloc(&d, g_bytes));
    CHECK(cudaFree(d));
    double after_device_free = step("after cudaMalloc/cudaFree of the same size");
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamDestroy(s));
    double after_stream = step("after a stream created and destroyed");
    uint32_t *k = nullptr;
    CHECK(cudaMalloc(&k, 1024));
    touch<<<1, 256>>>(k);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(k));
    double after_kernel = step("after a kernel");
    usleep(100000);
    double after_sleep = step("after 100 ms idle");
    // Two alive at once: the second cannot reuse the first's memory.
    Block live;
    (void)alloc_one(&live);
    double second_live = step("while another of the same size is alive");
    free_one(&live);
    std::vector<double> warm;
    for (int i = 0; i < 11; i++)
        warm.push_back(step("warm"));
    std::sort(warm.begin(), warm.end());
    printf("{\"kind\":\"%s\",\"bytes\":%zu,\"first_us\":%.1f,\"again_us\":%.1f,"
           "\"after_device_free_us\":%.1f,\"after_stream_us\":%.1f,\"after_kernel_us\":%.1f,"
           "\"after_sleep_us\":%.1f,\"second_live_us\":%.1f,\"warm_median_us\":%.1f,"
           "\"warm_max_us\":%.1f}\n",
           g_kind.c_str(), g_bytes, first, again, after_device_free, after_stream, after_kernel,
           after_sleep, second_live, warm[warm.size() / 2], warm.back());
    return 0;
}
