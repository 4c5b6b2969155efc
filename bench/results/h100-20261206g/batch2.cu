// SPDX-License-Identifier: Apache-2.0
// Probe: what makes cudaMemcpyBatchAsync of small blocks to the device slow on the host. The same
// batch (blocks scattered in a pool, 8-64 KiB, 512 of them) from host memory made three ways
// (cudaHostAlloc default, cudaHostAlloc mapped+portable, malloc+cudaHostRegister), on a stream
// that is idle, that waits on an event already complete, or that runs a short kernel first.
// Host time of the call and wall time, median of 7 runs after 2.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void spin(long long ns)
{
    long long start = clock64();
    while (clock64() - start < ns)
        ;
}

int main()
{
    const size_t count = 512, pool = 2 * 512 * (64 << 10);
    char *hosts[3];
    CK(cudaHostAlloc((void **)&hosts[0], pool, cudaHostAllocDefault));
    CK(cudaHostAlloc((void **)&hosts[1], pool, cudaHostAllocMapped | cudaHostAllocPortable));
    hosts[2] = (char *)aligned_alloc(4096, pool);
    CK(cudaHostRegister(hosts[2], pool, cudaHostRegisterDefault));
    const char *host_names[] = {"hostalloc", "mapped", "registered"};
    char *dev = nullptr;
    CK(cudaMalloc((void **)&dev, pool));
    for (int h = 0; h < 3; h++)
        memset(hosts[h], h + 1, pool);
    cudaStream_t s, other;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    cudaEvent_t done;
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    srand(7);
    std::vector<size_t> perm(2 * count);
    for (size_t i = 0; i < perm.size(); i++)
        perm[i] = i;
    for (size_t i = perm.size() - 1; i > 0; i--)
        std::swap(perm[i], perm[rand() % (i + 1)]);
    const char *before_names[] = {"idle", "event-wait", "kernel-first", "record-first"};
    size_t sizes_k[] = {8, 16, 24, 32, 64};
    for (size_t size_k : sizes_k) {
        size_t size = size_k << 10;
        for (int h = 0; h < 3; h++) {
            std::vector<void *> dsts(count), srcs(count);
            std::vector<size_t> sizes(count, size);
            for (size_t i = 0; i < count; i++) {
                srcs[i] = hosts[h] + perm[i] * size;
                dsts[i] = dev + perm[count + i] * size;
            }
            for (int b = 0; b < 4; b++) {
                std::vector<double> wall, host_s;
                for (int r = 0; r < 9; r++) {
                    CK(cudaDeviceSynchronize());
                    if (b == 1) {
                        CK(cudaEventRecord(done, other));
                        CK(cudaEventSynchronize(done));
                    }
                    double t0 = now();
                    if (b == 1)
                        CK(cudaStreamWaitEvent(s, done, 0));
                    if (b == 2) {
                        spin<<<1, 1, 0, s>>>(20000);
                        CK(cudaGetLastError());
                    }
                    if (b == 3)
                        CK(cudaEventRecord(done, s));
                    cudaMemcpyAttributes attr;
                    memset(&attr, 0, sizeof attr);
                    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
                    size_t idx = 0;
                    CK(cudaMemcpyBatchAsync(dsts.data(), (const void **)srcs.data(), sizes.data(),
                                            count, &attr, &idx, 1, s));
                    double t1 = now();
                    CK(cudaStreamSynchronize(s));
                    double t2 = now();
                    if (r >= 2) {
                        wall.push_back(t2 - t0);
                        host_s.push_back(t1 - t0);
                    }
                }
                std::sort(wall.begin(), wall.end());
                std::sort(host_s.begin(), host_s.end());
                printf("%3zuK x%zu h2d %-10s %-12s wall %7.1f us (%6.2f GB/s) host %7.1f us\n",
                       size_k, count, host_names[h], before_names[b], wall[3] * 1e6,
                       (double)size * count / wall[3] / 1e9, host_s[3] * 1e6);
                fflush(stdout);
            }
        }
    }
    return 0;
}
