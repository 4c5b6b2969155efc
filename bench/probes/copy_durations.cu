// SPDX-License-Identifier: Apache-2.0
// How long a small copy takes on the GPU against what the host sees of it: per host memory kind
// (pinned, pageable), direction and size, one copy between two events, a batch of copies queued
// back to back between two events (per copy), and a synchronous cudaMemcpy on the host clock.
// Run under zc trace, the trace's own duration of each copy (CUPTI) comes beside them: what
// zc advise --trace's predictions are held to. One JSON line per kind, direction and size.
//   copy_durations sync|async   (sync: cudaMemcpy only; async: cudaMemcpyAsync only, so that
//                                a trace of either run holds one way of copying)
#include <algorithm>
#include <cstring>
#include <vector>

#include "probe.h"

static const size_t kSizes[] = {4, 32, 256, 4096, 65536, 1 << 20};
static const int kRepeats = 200; // single copies per point
static const int kBatch = 100;   // copies per batch
static const int kBatches = 20;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One copy of bytes between the host buffer and the device one, in the direction.
static void copy_async(void *dev, void *host, size_t bytes, bool h2d, cudaStream_t s)
{
    if (h2d)
        CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    else
        CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
}

static void measure(bool sync, bool pinned, bool h2d, size_t bytes, void *host, void *dev,
                    cudaStream_t s, cudaEvent_t a, cudaEvent_t b)
{
    std::vector<double> one, batch, host_us;
    if (sync) {
        for (int r = 0; r < kRepeats; r++) {
            double t0 = now_us();
            if (h2d)
                CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
            else
                CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
            host_us.push_back(now_us() - t0);
        }
    } else {
        for (int r = 0; r < kRepeats; r++) {
            CHECK(cudaEventRecord(a, s));
            copy_async(dev, host, bytes, h2d, s);
            CHECK(cudaEventRecord(b, s));
            CHECK(cudaEventSynchronize(b));
            float ms = 0.0f;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            one.push_back(ms * 1e3);
        }
        for (int r = 0; r < kBatches; r++) {
            CHECK(cudaEventRecord(a, s));
            for (int i = 0; i < kBatch; i++)
                copy_async(dev, host, bytes, h2d, s);
            CHECK(cudaEventRecord(b, s));
            CHECK(cudaEventSynchronize(b));
            float ms = 0.0f;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            batch.push_back(ms * 1e3 / kBatch);
        }
    }
    printf("{\"mode\": \"%s\", \"kind\": \"%s\", \"direction\": \"%s\", \"bytes\": %zu, "
           "\"event_one_us\": %.3f, \"event_batch_us\": %.3f, \"host_sync_us\": %.3f}\n",
           sync ? "sync" : "async", pinned ? "pinned" : "pageable", h2d ? "h2d" : "d2h", bytes,
           one.empty() ? 0.0 : median(one), batch.empty() ? 0.0 : median(batch),
           host_us.empty() ? 0.0 : median(host_us));
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "sync") != 0 && strcmp(argv[1], "async") != 0)) {
        fprintf(stderr, "usage: copy_durations sync|async\n");
        return 2;
    }
    bool sync = strcmp(argv[1], "sync") == 0;
    size_t largest = kSizes[sizeof kSizes / sizeof kSizes[0] - 1];
    void *dev = nullptr, *pinned = nullptr;
    CHECK(cudaMalloc(&dev, largest));
    CHECK(cudaHostAlloc(&pinned, largest, cudaHostAllocDefault));
    std::vector<char> pageable(largest, 1);
    memset(pinned, 1, largest);
    cudaStream_t s;
    cudaEvent_t a, b;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 2; d++)
            for (size_t bytes : kSizes)
                measure(sync, k == 0, d == 0, bytes, k == 0 ? pinned : pageable.data(), dev, s, a,
                        b);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(dev));
    return 0;
}
