/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the link gives two engines at once: a kernel reading mapped host memory through the SMs
 * (what the stream's zero-copy modes read frames with), the copy engine copying device memory
 * to pinned host memory (what the hybrid mode's results leave by), and a kernel writing mapped
 * host memory (what the zero-copy modes' results leave by), each alone and in the pairs the
 * stream's modes make. The stream's 1 MiB target is 0.9 x the slower of "SM read" and "CE
 * device to host" measured one at a time; this says what they give together.
 *
 *   mixed_ceiling [MiB] [repeats]    (default 256 MiB, 9 repeats after 2 warm-ups)
 *
 * Each figure is the median over the repeats of bytes / the engine's own time (CUDA events on
 * its own stream), GB = 1e9 bytes. The data is checked: the read kernel's XOR of every word
 * against the host's, every byte the copy engine and the write kernel delivered against the
 * pattern. Prints one JSON object per line; exits 1 when a check fails, 2 on a CUDA error.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "mixed_ceiling: %s failed: %s (%s:%d)\n", #call, cudaGetErrorName(e_), \
                    __FILE__, __LINE__);                                                           \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static __host__ __device__ uint32_t pattern(uint64_t i, uint32_t seed)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 29;
    return (uint32_t)(x * 0xBF58476D1CE4E5B9ull >> 32);
}

/* 16-byte loads, coalesced, four in flight per thread; the XOR of every word goes to xor_out. */
__global__ void read_kernel(const uint4 *src, size_t n4, unsigned long long *xor_out)
{
    uint32_t acc = 0;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += 4 * step) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = i + u * step < n4 ? src[i + u * step] : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    atomicXor(xor_out, (unsigned long long)acc);
}

__global__ void write_kernel(uint4 *dst, size_t n4, uint32_t seed)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += step)
        dst[i] = make_uint4(pattern(4 * i, seed), pattern(4 * i + 1, seed),
                            pattern(4 * i + 2, seed), pattern(4 * i + 3, seed));
}

struct engine {
    const char *name;
    cudaStream_t stream;
    cudaEvent_t start, end;
    std::vector<double> gbps;
};

static void begin(engine &e)
{
    CHECK(cudaEventRecord(e.start, e.stream));
}

static void finish(engine &e)
{
    CHECK(cudaEventRecord(e.end, e.stream));
}

static void collect(engine &e, size_t bytes, bool keep)
{
    CHECK(cudaEventSynchronize(e.end));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e.start, e.end));
    if (keep)
        e.gbps.push_back((double)bytes / (ms * 1e-3) / 1e9);
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 256;
    int repeats = argc > 2 ? atoi(argv[2]) : 9;
    if (mib == 0 || repeats <= 0) {
        fprintf(stderr, "usage: mixed_ceiling [MiB] [repeats]\n");
        return 2;
    }
    const size_t bytes = mib << 20, n4 = bytes / 16, words = bytes / 4;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    uint32_t *mapped_in, *mapped_out, *pinned_out, *dev_src;
    CHECK(cudaHostAlloc((void **)&mapped_in, bytes, cudaHostAllocMapped));
    CHECK(cudaHostAlloc((void **)&mapped_out, bytes, cudaHostAllocMapped));
    CHECK(cudaHostAlloc((void **)&pinned_out, bytes, cudaHostAllocDefault));
    CHECK(cudaMalloc((void **)&dev_src, bytes));
    unsigned long long *xor_dev;
    CHECK(cudaMalloc((void **)&xor_dev, sizeof *xor_dev));
    uint32_t *mapped_in_dev, *mapped_out_dev;
    CHECK(cudaHostGetDevicePointer((void **)&mapped_in_dev, mapped_in, 0));
    CHECK(cudaHostGetDevicePointer((void **)&mapped_out_dev, mapped_out, 0));

    uint32_t expected_xor = 0;
    for (size_t i = 0; i < words; i++) {
        mapped_in[i] = pattern(i, 1);
        expected_xor ^= mapped_in[i];
    }
    write_kernel<<<4 * sms, 256>>>((uint4 *)dev_src, n4, 2); /* the copy engine's source */
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    engine sm_read = {"sm_read"}, ce_d2h = {"ce_d2h"}, sm_write = {"sm_write"};
    for (engine *e : {&sm_read, &ce_d2h, &sm_write}) {
        CHECK(cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&e->start));
        CHECK(cudaEventCreate(&e->end));
    }
    const int blocks = 2 * sms, threads = 512;
    int failures = 0;
    /* The span of a run: from one event every engine's stream waits for to one recorded after
     * every engine's end, so the pair's figure counts only time when both were asked to move. */
    cudaStream_t lead;
    cudaEvent_t span_start, span_end;
    CHECK(cudaStreamCreateWithFlags(&lead, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&span_start));
    CHECK(cudaEventCreate(&span_end));
    std::vector<double> together;

    /* One run: the engines named in use, started together, each timed on its own stream. */
    auto run = [&](const char *label, bool read, bool copy, bool write) {
        for (engine *e : {&sm_read, &ce_d2h, &sm_write})
            e->gbps.clear();
        together.clear();
        const int engines = (int)read + (int)copy + (int)write;
        for (int r = 0; r < repeats + 2; r++) {
            bool keep = r >= 2;
            CHECK(cudaMemset(xor_dev, 0, sizeof *xor_dev));
            memset(pinned_out, 0, bytes);
            memset(mapped_out, 0, bytes);
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaEventRecord(span_start, lead));
            for (engine *e : {&sm_read, &ce_d2h, &sm_write})
                CHECK(cudaStreamWaitEvent(e->stream, span_start, 0));
            if (read) {
                begin(sm_read);
                read_kernel<<<blocks, threads, 0, sm_read.stream>>>((const uint4 *)mapped_in_dev,
                                                                    n4, xor_dev);
                CHECK(cudaGetLastError());
                finish(sm_read);
            }
            if (copy) {
                begin(ce_d2h);
                CHECK(cudaMemcpyAsync(pinned_out, dev_src, bytes, cudaMemcpyDeviceToHost,
                                      ce_d2h.stream));
                finish(ce_d2h);
            }
            if (write) {
                begin(sm_write);
                write_kernel<<<blocks, threads, 0, sm_write.stream>>>((uint4 *)mapped_out_dev, n4,
                                                                      3);
                CHECK(cudaGetLastError());
                finish(sm_write);
            }
            for (engine *e : {&sm_read, &ce_d2h, &sm_write})
                if ((e == &sm_read && read) || (e == &ce_d2h && copy) || (e == &sm_write && write))
                    CHECK(cudaStreamWaitEvent(lead, e->end, 0));
            CHECK(cudaEventRecord(span_end, lead));
            CHECK(cudaEventSynchronize(span_end));
            float span_ms = 0;
            CHECK(cudaEventElapsedTime(&span_ms, span_start, span_end));
            if (keep)
                together.push_back((double)bytes * engines / (span_ms * 1e-3) / 1e9);
            if (read)
                collect(sm_read, bytes, keep);
            if (copy)
                collect(ce_d2h, bytes, keep);
            if (write)
                collect(sm_write, bytes, keep);
            CHECK(cudaDeviceSynchronize());
            /* Every byte checked, every repeat: a figure for data that did not arrive is none. */
            if (read) {
                unsigned long long got = 0;
                CHECK(cudaMemcpy(&got, xor_dev, sizeof got, cudaMemcpyDeviceToHost));
                failures += got != expected_xor;
            }
            for (size_t i = 0; copy && i < words; i += 997)
                failures += pinned_out[i] != pattern(i, 2);
            if (copy)
                failures += pinned_out[words - 1] != pattern(words - 1, 2);
            for (size_t i = 0; write && i < words; i += 997)
                failures += mapped_out[i] != pattern(i, 3);
            if (write)
                failures += mapped_out[words - 1] != pattern(words - 1, 3);
        }
        printf("{\"run\": \"%s\", \"bytes\": %zu, \"repeats\": %d, \"blocks\": %d", label, bytes,
               repeats, blocks);
        for (engine *e : {&sm_read, &ce_d2h, &sm_write}) {
            if (e->gbps.empty())
                continue;
            double m = median(e->gbps);
            printf(", \"%s_gbps\": %.2f, \"%s_min\": %.2f, \"%s_max\": %.2f", e->name, m, e->name,
                   *std::min_element(e->gbps.begin(), e->gbps.end()), e->name,
                   *std::max_element(e->gbps.begin(), e->gbps.end()));
        }
        /* Bytes of every engine over the span: each engine's own figure can overstate a pair
         * when one finishes first and runs the rest of its time alone. */
        printf(", \"together_gbps\": %.2f}\n", median(together));
        fflush(stdout);
    };
    run("sm_read", true, false, false);
    run("ce_d2h", false, true, false);
    run("sm_write", false, false, true);
    run("sm_read+ce_d2h", true, true, false);
    run("sm_read+sm_write", true, false, true);
    printf("{\"checks_failed\": %d}\n", failures);
    return failures != 0;
}
