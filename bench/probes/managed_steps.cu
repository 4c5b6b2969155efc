// SPDX-License-Identifier: Apache-2.0
// What one managed-memory transfer costs, step by step, at sizes from 4 KiB to 256 MiB: the
// steps zc advise's managed technique takes (the CPU writes pages the last prefetch put on the
// GPU, the input and the output are prefetched to the GPU, a kernel reads the input and writes
// the output, the output is prefetched back), each timed alone (host clock around the call and
// a stream synchronisation), and the whole transfer queued as the runner queues it, with one
// synchronisation. One JSON line per size; every kernel's sum and every output word checked.
//   managed_steps [REPS]
#include <cuda_runtime.h>

#include "probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Each thread sums its words of in and writes out[i] = in[i] ^ 0x5a5a5a5a.
__global__ void work(const uint32_t *in, uint32_t *out, size_t words, uint32_t *sum)
{
    uint32_t s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t v = in[i];
        s += v;
        out[i] = v ^ 0x5a5a5a5au;
    }
    atomicAdd(sum, s);
}

static void prefetch(const void *p, size_t bytes, int device, cudaStream_t s)
{
    CHECK(cudaMemPrefetchAsync(p, bytes, probe_where(device), 0, s));
}

static uint32_t fill(uint32_t *p, size_t words, uint32_t seed)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < words; i++) {
        p[i] = seed * 2654435761u + (uint32_t)i;
        sum += p[i];
    }
    return sum;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static double pct(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (double)(v.size() - 1))];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    int dev = 0, sms = 0;
    CHECK(cudaSetDevice(dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint32_t *sum = nullptr;
    CHECK(cudaMalloc(&sum, 4));
    const size_t sizes[] = {4u << 10, 16u << 10, 64u << 10, 256u << 10, 1u << 20,
                            4u << 20, 16u << 20, 64u << 20, 256u << 20};
    int failed = 0;
    // An empty launch and synchronisation: what every step's timing includes once.
    std::vector<double> sync;
    for (int r = 0; r < reps + 5; r++) {
        double t0 = now_us();
        CHECK(cudaStreamSynchronize(s));
        if (r >= 5)
            sync.push_back(now_us() - t0);
    }
    printf("{\"sync_us\": %.3f}\n", median(sync));
    for (size_t bytes : sizes) {
        size_t words = bytes / 4;
        uint32_t *in = nullptr, *out = nullptr;
        CHECK(cudaMallocManaged(&in, bytes));
        CHECK(cudaMallocManaged(&out, bytes));
        int blocks = (int)std::min<size_t>((words + 255) / 256, (size_t)sms * 8);
        std::vector<double> touch, pin, pout_gpu, kern, pback, whole, whole_h2d, whole_d2h;
        fill(in, words, 1);
        memset(out, 0, bytes);
        int n = bytes >= (64u << 20) ? std::max(5, reps / 3) : reps;
        for (int r = 0; r < n + 3; r++) {
            bool keep = r >= 3;
            // As after the last transfer: the input on the GPU, the output on the host.
            prefetch(in, bytes, dev, s);
            CHECK(cudaStreamSynchronize(s));
            double t0 = now_us();
            uint32_t want = fill(in, words, (uint32_t)r + 7);
            double t1 = now_us();
            prefetch(in, bytes, dev, s);
            CHECK(cudaStreamSynchronize(s));
            double t2 = now_us();
            prefetch(out, bytes, dev, s);
            CHECK(cudaStreamSynchronize(s));
            double t3 = now_us();
            CHECK(cudaMemsetAsync(sum, 0, 4, s));
            CHECK(cudaStreamSynchronize(s));
            double t4 = now_us();
            work<<<blocks, 256, 0, s>>>(in, out, words, sum);
            CHECK(cudaGetLastError());
            CHECK(cudaStreamSynchronize(s));
            double t5 = now_us();
            prefetch(out, bytes, -1, s);
            CHECK(cudaStreamSynchronize(s));
            double t6 = now_us();
            uint32_t got = 0;
            CHECK(cudaMemcpy(&got, sum, 4, cudaMemcpyDeviceToHost));
            if (got != want || out[words - 1] != (in[words - 1] ^ 0x5a5a5a5au))
                failed++;
            if (keep) {
                touch.push_back(t1 - t0);
                pin.push_back(t2 - t1);
                pout_gpu.push_back(t3 - t2);
                kern.push_back(t5 - t4);
                pback.push_back(t6 - t5);
            }
            // The whole transfer as the runner queues it: fill, prefetches, kernel, prefetch
            // back, one synchronisation (in on the GPU, out on the host, as above).
            prefetch(in, bytes, dev, s);
            CHECK(cudaMemsetAsync(sum, 0, 4, s));
            CHECK(cudaStreamSynchronize(s));
            t0 = now_us();
            want = fill(in, words, (uint32_t)r + 99);
            prefetch(in, bytes, dev, s);
            prefetch(out, bytes, dev, s);
            work<<<blocks, 256, 0, s>>>(in, out, words, sum);
            CHECK(cudaGetLastError());
            prefetch(out, bytes, -1, s);
            CHECK(cudaStreamSynchronize(s));
            t1 = now_us();
            CHECK(cudaMemcpy(&got, sum, 4, cudaMemcpyDeviceToHost));
            if (got != want || out[0] != (in[0] ^ 0x5a5a5a5au))
                failed++;
            if (keep)
                whole.push_back(t1 - t0);
            // Input only (h2d): fill, prefetch, kernel reads, one synchronisation.
            prefetch(in, bytes, dev, s);
            CHECK(cudaMemsetAsync(sum, 0, 4, s));
            CHECK(cudaStreamSynchronize(s));
            t0 = now_us();
            want = fill(in, words, (uint32_t)r + 5);
            prefetch(in, bytes, dev, s);
            work<<<blocks, 256, 0, s>>>(in, out, words, sum);
            CHECK(cudaGetLastError());
            CHECK(cudaStreamSynchronize(s));
            t1 = now_us();
            CHECK(cudaMemcpy(&got, sum, 4, cudaMemcpyDeviceToHost));
            if (got != want)
                failed++;
            if (keep)
                whole_h2d.push_back(t1 - t0);
            // Output only (d2h): out from the host to the GPU, kernel, back, one sync.
            prefetch(out, bytes, -1, s);
            CHECK(cudaStreamSynchronize(s));
            t0 = now_us();
            prefetch(out, bytes, dev, s);
            work<<<blocks, 256, 0, s>>>(in, out, words, sum);
            CHECK(cudaGetLastError());
            prefetch(out, bytes, -1, s);
            CHECK(cudaStreamSynchronize(s));
            t1 = now_us();
            if (out[words / 2] != (in[words / 2] ^ 0x5a5a5a5au))
                failed++;
            if (keep)
                whole_d2h.push_back(t1 - t0);
        }
        printf("{\"bytes\": %zu, \"reps\": %d, \"cpu_touch_us\": %.2f, \"prefetch_in_us\": %.2f, "
               "\"prefetch_out_to_gpu_us\": %.2f, \"kernel_us\": %.2f, "
               "\"prefetch_back_us\": %.2f, \"whole_both_us\": %.2f, \"whole_both_p90_us\": %.2f, "
               "\"whole_h2d_us\": %.2f, \"whole_d2h_us\": %.2f}\n",
               bytes, n, median(touch), median(pin), median(pout_gpu), median(kern), median(pback),
               median(whole), pct(whole, 0.9), median(whole_h2d), median(whole_d2h));
        fflush(stdout);
        CHECK(cudaFree(in));
        CHECK(cudaFree(out));
    }
    printf("{\"checks_failed\": %d}\n", failed);
    CHECK(cudaFree(sum));
    CHECK(cudaStreamDestroy(s));
    return failed ? 1 : 0;
}
