/* SPDX-License-Identifier: Apache-2.0 */
// Demonstrations for docs/pitfalls.md: one subcommand per pitfall, each measuring or showing
// it on the machine it runs on. Every demo prints a line for people ("demo NAME: ...") and one
// for scripts ("JSON {...}"); scripts/bench.d/40-trace.sh runs them all. Every wait is bounded:
// kernels that poll give up after a timeout read from %globaltimer.
#include "planted.h"

#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return v[n / 2];
}

__device__ unsigned long long gpu_now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static int attribute(enum cudaDeviceAttr attr)
{
    int value = -1;
    PLANTED_CHECK(cudaDeviceGetAttribute(&value, attr, 0));
    return value;
}

/* ---- pageable-copy: cudaMemcpy from malloc memory against pinned memory ---- */
static int demo_pageable_copy(void)
{
    const size_t bytes = (size_t)64 << 20;
    const int repeats = 5;
    unsigned char *pageable = (unsigned char *)malloc(bytes), *pinned = NULL, *dev = NULL;
    PLANTED_VERIFY(pageable != NULL, "malloc");
    memset(pageable, 1, bytes);
    PLANTED_CHECK(cudaHostAlloc((void **)&pinned, bytes, cudaHostAllocDefault));
    memset(pinned, 1, bytes);
    PLANTED_CHECK(cudaMalloc((void **)&dev, bytes));
    double t_pageable[5], t_pinned[5];
    for (int warm = 0; warm < 2; warm++) {
        PLANTED_CHECK(cudaMemcpy(dev, pageable, bytes, cudaMemcpyHostToDevice));
        PLANTED_CHECK(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice));
    }
    for (int r = 0; r < repeats; r++) {
        double t0 = now_s();
        PLANTED_CHECK(cudaMemcpy(dev, pageable, bytes, cudaMemcpyHostToDevice));
        double t1 = now_s();
        PLANTED_CHECK(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice));
        double t2 = now_s();
        t_pageable[r] = t1 - t0;
        t_pinned[r] = t2 - t1;
    }
    double gb_pageable = bytes / median(t_pageable, repeats) / 1e9;
    double gb_pinned = bytes / median(t_pinned, repeats) / 1e9;
    printf("demo pageable-copy: cudaMemcpy H2D 64 MiB, median of %d, host clock: pageable %.1f "
           "GB/s, pinned %.1f GB/s (%.1fx)\n",
           repeats, gb_pageable, gb_pinned, gb_pinned / gb_pageable);
    printf("JSON {\"demo\":\"pageable-copy\",\"bytes\":%zu,\"pageable_gbps\":%.2f,"
           "\"pinned_gbps\":%.2f}\n",
           bytes, gb_pageable, gb_pinned);
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(pinned));
    free(pageable);
    return 0;
}

/* ---- hostalloc-vs-register: the cost of pinning ---- */
static int demo_hostalloc_vs_register(void)
{
    const size_t bytes = (size_t)256 << 20;
    PLANTED_CHECK(cudaFree(0)); /* create the context first: its cost is not pinning's */
    unsigned char *pinned = NULL;
    double t0 = now_s();
    PLANTED_CHECK(cudaHostAlloc((void **)&pinned, bytes, cudaHostAllocDefault));
    double t1 = now_s();
    PLANTED_CHECK(cudaFreeHost(pinned));
    double t2 = now_s();
    unsigned char *plain = (unsigned char *)aligned_alloc(4096, bytes);
    PLANTED_VERIFY(plain != NULL, "aligned_alloc");
    double t3 = now_s();
    memset(plain, 0, bytes); /* touch every page so that registration pins real pages */
    double t4 = now_s();
    PLANTED_CHECK(cudaHostRegister(plain, bytes, cudaHostRegisterDefault));
    double t5 = now_s();
    PLANTED_CHECK(cudaHostUnregister(plain));
    double t6 = now_s();
    free(plain);
    printf("demo hostalloc-vs-register: 256 MiB: cudaHostAlloc %.1f ms, cudaFreeHost %.1f ms; "
           "touch %.1f ms + cudaHostRegister %.1f ms, cudaHostUnregister %.1f ms\n",
           (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3, (t6 - t5) * 1e3);
    printf("JSON {\"demo\":\"hostalloc-vs-register\",\"bytes\":%zu,\"hostalloc_ms\":%.2f,"
           "\"freehost_ms\":%.2f,\"touch_ms\":%.2f,\"register_ms\":%.2f,\"unregister_ms\":%.2f}\n",
           bytes, (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3,
           (t6 - t5) * 1e3);
    return 0;
}

/* ---- wc-cpu-read: the CPU reading write-combined memory ---- */
static double cpu_read_gbps(const uint64_t *data, size_t bytes, uint64_t *sum_p)
{
    double t0 = now_s();
    uint64_t sum = 0;
    const volatile uint64_t *p = data;
    for (size_t i = 0; i < bytes / sizeof(uint64_t); i++)
        sum += p[i];
    double t1 = now_s();
    *sum_p = sum;
    return bytes / (t1 - t0) / 1e9;
}

static int demo_wc_cpu_read(void)
{
    const size_t bytes = (size_t)16 << 20;
    uint64_t *normal = NULL, *wc = NULL, sum_normal = 0, sum_wc = 0;
    PLANTED_CHECK(cudaHostAlloc((void **)&normal, bytes, cudaHostAllocDefault));
    PLANTED_CHECK(cudaHostAlloc((void **)&wc, bytes, cudaHostAllocWriteCombined));
    double t0 = now_s();
    memset(wc, 3, bytes);
    double wc_write = bytes / (now_s() - t0) / 1e9;
    memset(normal, 3, bytes);
    double gb_normal = cpu_read_gbps(normal, bytes, &sum_normal);
    double gb_wc = cpu_read_gbps(wc, bytes, &sum_wc);
    PLANTED_VERIFY(sum_normal == sum_wc, "sums differ");
    printf("demo wc-cpu-read: CPU reads 16 MiB: pinned %.2f GB/s, write-combined %.3f GB/s "
           "(%.0fx slower); CPU writes to write-combined %.2f GB/s\n",
           gb_normal, gb_wc, gb_normal / gb_wc, wc_write);
    printf("JSON {\"demo\":\"wc-cpu-read\",\"bytes\":%zu,\"pinned_read_gbps\":%.3f,"
           "\"wc_read_gbps\":%.4f,\"wc_write_gbps\":%.3f}\n",
           bytes, gb_normal, gb_wc, wc_write);
    PLANTED_CHECK(cudaFreeHost(wc));
    PLANTED_CHECK(cudaFreeHost(normal));
    return 0;
}

/* ---- uncoalesced-mapped: zero-copy reads, coalesced against scattered ---- */
__global__ void read_float4(const float4 *in, size_t n4, float *out)
{
    float sum = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        sum += v.x + v.y + v.z + v.w;
    }
    if (sum == -1.0f) /* never true: keeps the loads */
        *out = sum;
}

/* Each thread reads one float every 128 bytes: every load is its own PCIe request. */
__global__ void read_strided(const float *in, size_t n, float *out)
{
    float sum = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i * 32 < n;
         i += (size_t)gridDim.x * blockDim.x)
        sum += in[i * 32];
    if (sum == -1.0f)
        *out = sum;
}

static float time_kernel(int strided, const void *in, size_t bytes, float *out, int sms)
{
    cudaEvent_t a, b;
    PLANTED_CHECK(cudaEventCreate(&a));
    PLANTED_CHECK(cudaEventCreate(&b));
    float ms[3];
    for (int r = -1; r < 3; r++) {
        PLANTED_CHECK(cudaEventRecord(a, 0));
        if (strided)
            read_strided<<<sms * 8, 256>>>((const float *)in, bytes / sizeof(float), out);
        else
            read_float4<<<sms * 8, 256>>>((const float4 *)in, bytes / sizeof(float4), out);
        PLANTED_LAUNCH_CHECK();
        PLANTED_CHECK(cudaEventRecord(b, 0));
        PLANTED_CHECK(cudaEventSynchronize(b));
        if (r >= 0)
            PLANTED_CHECK(cudaEventElapsedTime(&ms[r], a, b));
    }
    PLANTED_CHECK(cudaEventDestroy(a));
    PLANTED_CHECK(cudaEventDestroy(b));
    double v[3] = {ms[0], ms[1], ms[2]};
    return (float)median(v, 3);
}

static int demo_uncoalesced_mapped(void)
{
    const size_t bytes = (size_t)256 << 20;
    int sms = attribute(cudaDevAttrMultiProcessorCount);
    float *host = NULL, *out = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&host, bytes, cudaHostAllocMapped));
    memset(host, 0, bytes);
    PLANTED_CHECK(cudaMalloc((void **)&out, sizeof(float)));
    float ms_coalesced = time_kernel(0, host, bytes, out, sms);
    float ms_strided = time_kernel(1, host, bytes, out, sms);
    double useful_coalesced = bytes / (ms_coalesced * 1e-3) / 1e9;
    double useful_strided = (bytes / 32) / (ms_strided * 1e-3) / 1e9;
    printf("demo uncoalesced-mapped: kernel reads mapped memory: coalesced float4 %.1f GB/s; "
           "one float per 128 bytes %.2f GB/s of useful data (%.2f ms for 1/32 of the bytes, "
           "against %.2f ms for all of them)\n",
           useful_coalesced, useful_strided, ms_strided, ms_coalesced);
    printf("JSON {\"demo\":\"uncoalesced-mapped\",\"bytes\":%zu,\"coalesced_gbps\":%.2f,"
           "\"strided_useful_gbps\":%.3f,\"coalesced_ms\":%.3f,\"strided_ms\":%.3f}\n",
           bytes, useful_coalesced, useful_strided, ms_coalesced, ms_strided);
    PLANTED_CHECK(cudaFree(out));
    PLANTED_CHECK(cudaFreeHost(host));
    return 0;
}

/* ---- mapped-reread: reading mapped memory k times against copying it once ---- */
__global__ void read_passes(const float4 *in, size_t n4, int passes, float *out)
{
    float sum = 0.0f;
    for (int p = 0; p < passes; p++) {
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
             i += (size_t)gridDim.x * blockDim.x) {
            /* Each pass loads again: no register or cache can hold 256 MiB. */
            float4 v = in[i];
            sum += v.x + v.w;
        }
    }
    if (sum == -1.0f)
        *out = sum;
}

static int demo_mapped_reread(void)
{
    const size_t bytes = (size_t)256 << 20;
    const int passes = 8;
    int sms = attribute(cudaDevAttrMultiProcessorCount);
    float4 *host = NULL, *dev = NULL;
    float *out = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&host, bytes, cudaHostAllocMapped));
    memset(host, 0, bytes);
    PLANTED_CHECK(cudaMalloc((void **)&dev, bytes));
    PLANTED_CHECK(cudaMalloc((void **)&out, sizeof(float)));
    cudaEvent_t a, b, c;
    PLANTED_CHECK(cudaEventCreate(&a));
    PLANTED_CHECK(cudaEventCreate(&b));
    PLANTED_CHECK(cudaEventCreate(&c));
    float ms_mapped = 0, ms_copy = 0, ms_kernel = 0;
    for (int warm = 0; warm < 2; warm++) {
        PLANTED_CHECK(cudaEventRecord(a, 0));
        read_passes<<<sms * 8, 256>>>(host, bytes / sizeof(float4), passes, out);
        PLANTED_LAUNCH_CHECK();
        PLANTED_CHECK(cudaEventRecord(b, 0));
        PLANTED_CHECK(cudaEventSynchronize(b));
        PLANTED_CHECK(cudaEventElapsedTime(&ms_mapped, a, b));
        PLANTED_CHECK(cudaEventRecord(a, 0));
        PLANTED_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, 0));
        PLANTED_CHECK(cudaEventRecord(b, 0));
        read_passes<<<sms * 8, 256>>>(dev, bytes / sizeof(float4), passes, out);
        PLANTED_LAUNCH_CHECK();
        PLANTED_CHECK(cudaEventRecord(c, 0));
        PLANTED_CHECK(cudaEventSynchronize(c));
        PLANTED_CHECK(cudaEventElapsedTime(&ms_copy, a, b));
        PLANTED_CHECK(cudaEventElapsedTime(&ms_kernel, b, c));
    }
    printf("demo mapped-reread: a kernel reading 256 MiB %d times: from mapped memory %.1f ms; "
           "copy once (%.1f ms) then read device memory (%.1f ms) = %.1f ms\n",
           passes, ms_mapped, ms_copy, ms_kernel, ms_copy + ms_kernel);
    printf("JSON {\"demo\":\"mapped-reread\",\"bytes\":%zu,\"passes\":%d,\"mapped_ms\":%.3f,"
           "\"copy_ms\":%.3f,\"device_kernel_ms\":%.3f}\n",
           bytes, passes, ms_mapped, ms_copy, ms_kernel);
    PLANTED_CHECK(cudaEventDestroy(a));
    PLANTED_CHECK(cudaEventDestroy(b));
    PLANTED_CHECK(cudaEventDestroy(c));
    PLANTED_CHECK(cudaFree(out));
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(host));
    return 0;
}

/* ---- pageable-kernel: a kernel dereferencing a malloc pointer ---- */
__global__ void write_one(int *p)
{
    *p = 42;
}

static int demo_pageable_kernel(void)
{
    int pageable_access = attribute(cudaDevAttrPageableMemoryAccess);
    int *plain = (int *)malloc(sizeof(int));
    PLANTED_VERIFY(plain != NULL, "malloc");
    *plain = 0;
    write_one<<<1, 1>>>(plain);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    void *after = NULL;
    cudaError_t next = cudaMalloc(&after, 1024);
    printf("demo pageable-kernel: pageableMemoryAccess=%d; kernel writing a malloc pointer: "
           "launch %s, synchronize %s, value %d; the next cudaMalloc: %s%s\n",
           pageable_access, cudaGetErrorName(launch), cudaGetErrorName(sync), *plain,
           cudaGetErrorName(next),
           next != cudaSuccess ? " (the context is lost: the process must restart)" : "");
    printf("JSON {\"demo\":\"pageable-kernel\",\"pageableMemoryAccess\":%d,\"launch\":\"%s\","
           "\"synchronize\":\"%s\",\"next_call\":\"%s\",\"value\":%d}\n",
           pageable_access, cudaGetErrorName(launch), cudaGetErrorName(sync),
           cudaGetErrorName(next), *plain);
    free(plain);
    return 0; /* the demonstration succeeded whatever it showed */
}

/* ---- devptr: device pointers of registered and write-combined memory ---- */
__global__ void store_value(int *p, int value)
{
    *p = value;
}

static int demo_devptr(void)
{
    PLANTED_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    int uva = attribute(cudaDevAttrUnifiedAddressing);
    int host_ptr_ok = attribute(cudaDevAttrCanUseHostPointerForRegisteredMem);
    const size_t bytes = 1 << 20;
    int *registered = (int *)aligned_alloc(4096, bytes), *wc = NULL, *dev_reg = NULL,
        *dev_wc = NULL;
    PLANTED_VERIFY(registered != NULL, "aligned_alloc");
    memset(registered, 0, bytes);
    PLANTED_CHECK(cudaHostRegister(registered, bytes, cudaHostRegisterMapped));
    PLANTED_CHECK(cudaHostGetDevicePointer((void **)&dev_reg, registered, 0));
    PLANTED_CHECK(
        cudaHostAlloc((void **)&wc, bytes, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    PLANTED_CHECK(cudaHostGetDevicePointer((void **)&dev_wc, wc, 0));
    wc[0] = 0;
    store_value<<<1, 1>>>(dev_reg, 7);
    PLANTED_LAUNCH_CHECK();
    store_value<<<1, 1>>>(dev_wc, 9);
    PLANTED_LAUNCH_CHECK();
    PLANTED_CHECK(cudaDeviceSynchronize());
    PLANTED_VERIFY(registered[0] == 7 && wc[0] == 9, "values %d %d", registered[0], wc[0]);
    printf("demo devptr: unifiedAddressing=%d canUseHostPointerForRegisteredMem=%d; registered: "
           "device pointer %s host pointer; write-combined mapped: device pointer %s host "
           "pointer; kernels wrote through cudaHostGetDevicePointer's pointers\n",
           uva, host_ptr_ok, (void *)dev_reg == (void *)registered ? "==" : "!=",
           (void *)dev_wc == (void *)wc ? "==" : "!=");
    printf("JSON {\"demo\":\"devptr\",\"unifiedAddressing\":%d,"
           "\"canUseHostPointerForRegisteredMem\":%d,\"registered_same\":%s,\"wc_same\":%s}\n",
           uva, host_ptr_ok, (void *)dev_reg == (void *)registered ? "true" : "false",
           (void *)dev_wc == (void *)wc ? "true" : "false");
    PLANTED_CHECK(cudaFreeHost(wc));
    PLANTED_CHECK(cudaHostUnregister(registered));
    free(registered);
    return 0;
}

/* ---- flag-nc: polling a CPU flag through the non-coherent path, and the right way ---- */
__global__ void poll_ldg(const unsigned *__restrict__ flag, unsigned long long timeout_ns,
                         unsigned long long *result)
{
    unsigned long long start = gpu_now_ns(), spins = 0;
    unsigned seen = 0;
    while (gpu_now_ns() - start < timeout_ns) {
        spins++;
        if (__ldg(flag) != 0) {
            seen = 1;
            break;
        }
    }
    result[0] = seen;
    result[1] = gpu_now_ns() - start;
    result[2] = spins;
}

__global__ void poll_acquire(const unsigned *flag, unsigned long long timeout_ns,
                             unsigned long long *result)
{
    unsigned long long start = gpu_now_ns(), spins = 0;
    unsigned seen = 0, value = 0;
    while (gpu_now_ns() - start < timeout_ns) {
        spins++;
        asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
        if (value != 0) {
            seen = 1;
            break;
        }
    }
    result[0] = seen;
    result[1] = gpu_now_ns() - start;
    result[2] = spins;
}

static void run_poll(int acquire, unsigned *flag, unsigned long long *result_dev,
                     unsigned long long result[3])
{
    const unsigned long long timeout_ns = 200000000ull; /* 200 ms */
    cudaStream_t stream;
    PLANTED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    __atomic_store_n(flag, 0u, __ATOMIC_RELEASE);
    if (acquire)
        poll_acquire<<<1, 1, 0, stream>>>(flag, timeout_ns, result_dev);
    else
        poll_ldg<<<1, 1, 0, stream>>>(flag, timeout_ns, result_dev);
    PLANTED_LAUNCH_CHECK();
    usleep(2000); /* let the kernel start polling and cache what it reads */
    __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
    PLANTED_CHECK(cudaStreamSynchronize(stream));
    PLANTED_CHECK(cudaMemcpy(result, result_dev, 3 * sizeof *result, cudaMemcpyDeviceToHost));
    PLANTED_CHECK(cudaStreamDestroy(stream));
}

static int demo_flag_nc(void)
{
    PLANTED_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    unsigned *flag = NULL;
    unsigned long long *result_dev = NULL, ldg[3], acq[3];
    PLANTED_CHECK(cudaHostAlloc((void **)&flag, 64, cudaHostAllocMapped));
    PLANTED_CHECK(cudaMalloc((void **)&result_dev, 3 * sizeof *result_dev));
    run_poll(0, flag, result_dev, ldg);
    run_poll(1, flag, result_dev, acq);
    printf("demo flag-nc: CPU sets a mapped flag 2 ms after the kernel starts polling; "
           "__ldg/const __restrict__: %s after %.1f ms (%llu polls); ld.acquire.sys: %s after "
           "%.1f ms (%llu polls); timeout 200 ms\n",
           ldg[0] ? "saw it" : "never saw it", ldg[1] * 1e-6, ldg[2],
           acq[0] ? "saw it" : "never saw it", acq[1] * 1e-6, acq[2]);
    printf("JSON {\"demo\":\"flag-nc\",\"ldg_saw\":%s,\"ldg_ms\":%.3f,\"ldg_polls\":%llu,"
           "\"acquire_saw\":%s,\"acquire_ms\":%.3f,\"acquire_polls\":%llu}\n",
           ldg[0] ? "true" : "false", ldg[1] * 1e-6, ldg[2], acq[0] ? "true" : "false",
           acq[1] * 1e-6, acq[2]);
    PLANTED_CHECK(cudaFree(result_dev));
    PLANTED_CHECK(cudaFreeHost(flag));
    return 0;
}

/* ---- mapped-atomics: GPU and CPU adding to the same mapped word ---- */
__global__ void gpu_adds(unsigned *counter, int adds)
{
    for (int i = 0; i < adds; i++)
        atomicAdd_system(counter, 1u);
}

static int demo_mapped_atomics(void)
{
    PLANTED_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    const int threads = 256, gpu_adds_each = 4000, cpu_adds = threads * gpu_adds_each;
    int native = attribute(cudaDevAttrHostNativeAtomicSupported);
    unsigned *counter = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&counter, 64, cudaHostAllocMapped));
    *counter = 0;
    gpu_adds<<<1, threads>>>(counter, gpu_adds_each);
    PLANTED_LAUNCH_CHECK();
    for (int i = 0; i < cpu_adds; i++)
        __atomic_fetch_add(counter, 1u, __ATOMIC_SEQ_CST);
    PLANTED_CHECK(cudaDeviceSynchronize());
    unsigned expected = (unsigned)(2 * cpu_adds), got = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
    printf("demo mapped-atomics: hostNativeAtomicSupported=%d; GPU atomicAdd_system and CPU "
           "__atomic_fetch_add, %d each, on one mapped word: %u, expected %u (%d lost)\n",
           native, cpu_adds, got, expected, (int)(expected - got));
    printf("JSON {\"demo\":\"mapped-atomics\",\"hostNativeAtomicSupported\":%d,\"adds_each\":%d,"
           "\"result\":%u,\"expected\":%u}\n",
           native, cpu_adds, got, expected);
    PLANTED_CHECK(cudaFreeHost(counter));
    return 0;
}

/* ---- persistent-hang: a polling kernel and the legacy default stream ---- */
__global__ void persistent(const volatile unsigned *stop, unsigned long long timeout_ns,
                           unsigned *timed_out)
{
    unsigned long long start = gpu_now_ns();
    while (*stop == 0) {
        if (gpu_now_ns() - start > timeout_ns) {
            *timed_out = 1;
            return;
        }
        __nanosleep(1000);
    }
}

static double blocked_copy(int legacy, unsigned *stop, unsigned *timed_out, int *small_host,
                           int *small_dev)
{
    const unsigned long long timeout_ns = 1000000000ull; /* the kernel gives up after 1 s */
    cudaStream_t kernel_stream = 0, copy_stream = 0;
    if (!legacy) {
        PLANTED_CHECK(cudaStreamCreateWithFlags(&kernel_stream, cudaStreamNonBlocking));
        PLANTED_CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    }
    __atomic_store_n(stop, 0u, __ATOMIC_RELEASE);
    *timed_out = 0;
    persistent<<<1, 1, 0, kernel_stream>>>(stop, timeout_ns, timed_out);
    PLANTED_LAUNCH_CHECK();
    usleep(1000);
    double t0 = now_s();
    if (legacy) {
        PLANTED_CHECK(cudaMemcpy(small_dev, small_host, sizeof(int), cudaMemcpyHostToDevice));
    } else {
        PLANTED_CHECK(cudaMemcpyAsync(small_dev, small_host, sizeof(int), cudaMemcpyHostToDevice,
                                      copy_stream));
        PLANTED_CHECK(cudaStreamSynchronize(copy_stream));
    }
    double blocked = now_s() - t0;
    __atomic_store_n(stop, 1u, __ATOMIC_RELEASE);
    PLANTED_CHECK(cudaDeviceSynchronize());
    if (!legacy) {
        PLANTED_CHECK(cudaStreamDestroy(kernel_stream));
        PLANTED_CHECK(cudaStreamDestroy(copy_stream));
    }
    return blocked;
}

static int demo_persistent_hang(void)
{
    PLANTED_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    unsigned *stop = NULL, *timed_out = NULL;
    int *small_host = NULL, *small_dev = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&stop, 64, cudaHostAllocMapped));
    PLANTED_CHECK(cudaHostAlloc((void **)&timed_out, 64, cudaHostAllocMapped));
    PLANTED_CHECK(cudaHostAlloc((void **)&small_host, 64, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&small_dev, 64));
    double legacy = blocked_copy(1, stop, timed_out, small_host, small_dev);
    unsigned legacy_timed_out = *timed_out;
    double separate = blocked_copy(0, stop, timed_out, small_host, small_dev);
    unsigned separate_timed_out = *timed_out;
    printf("demo persistent-hang: a polling kernel on the legacy stream, then cudaMemcpy: the "
           "copy returned after %.1f ms (kernel timed out: %s); kernel and copy on non-blocking "
           "streams: %.3f ms (kernel timed out: %s)\n",
           legacy * 1e3, legacy_timed_out ? "yes" : "no", separate * 1e3,
           separate_timed_out ? "yes" : "no");
    printf("JSON {\"demo\":\"persistent-hang\",\"legacy_blocked_ms\":%.3f,"
           "\"legacy_kernel_timed_out\":%s,\"nonblocking_ms\":%.4f,"
           "\"nonblocking_kernel_timed_out\":%s}\n",
           legacy * 1e3, legacy_timed_out ? "true" : "false", separate * 1e3,
           separate_timed_out ? "true" : "false");
    PLANTED_CHECK(cudaFree(small_dev));
    PLANTED_CHECK(cudaFreeHost(small_host));
    PLANTED_CHECK(cudaFreeHost(timed_out));
    PLANTED_CHECK(cudaFreeHost(stop));
    return 0;
}

/* ---- reuse-before-copy and wrong-free ---- */
static size_t count_byte(const unsigned char *p, size_t n, unsigned char value)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += p[i] == value;
    return count;
}

static size_t copy_then_overwrite(int wait_first, unsigned char *src, unsigned char *dev,
                                  unsigned char *back, size_t bytes, cudaStream_t stream)
{
    memset(src, 0x11, bytes);
    PLANTED_CHECK(cudaMemcpyAsync(dev, src, bytes, cudaMemcpyHostToDevice, stream));
    if (wait_first)
        PLANTED_CHECK(cudaStreamSynchronize(stream));
    /* The next frame, written into the buffer being copied: back half first, so that the CPU
     * writes where the copy engine has not read yet (it reads front to back, faster). */
    memset(src + bytes / 2, 0x22, bytes / 2);
    memset(src, 0x22, bytes / 2);
    PLANTED_CHECK(cudaStreamSynchronize(stream));
    PLANTED_CHECK(cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost));
    return count_byte(back, bytes, 0x22);
}

static int demo_reuse_before_copy(void)
{
    const size_t bytes = (size_t)256 << 20;
    unsigned char *src = NULL, *back = NULL, *dev = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&src, bytes, cudaHostAllocDefault));
    PLANTED_CHECK(cudaHostAlloc((void **)&back, bytes, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&dev, bytes));
    cudaStream_t stream;
    PLANTED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    size_t torn = copy_then_overwrite(0, src, dev, back, bytes, stream);
    size_t clean = copy_then_overwrite(1, src, dev, back, bytes, stream);
    /* Freeing with the wrong function: each returns an error instead of freeing. */
    cudaError_t free_pinned = cudaFree(src);
    (void)cudaGetLastError();
    void *plain = malloc(4096);
    cudaError_t freehost_plain = cudaFreeHost(plain);
    (void)cudaGetLastError();
    free(plain);
    printf("demo reuse-before-copy: 256 MiB cudaMemcpyAsync, then the CPU overwrites the source "
           "before synchronizing: %zu bytes (%.1f%%) arrived as the new data; with the "
           "synchronize first: %zu. cudaFree(pinned) = %s, cudaFreeHost(malloc'd) = %s\n",
           torn, 100.0 * torn / bytes, clean, cudaGetErrorName(free_pinned),
           cudaGetErrorName(freehost_plain));
    printf("JSON {\"demo\":\"reuse-before-copy\",\"bytes\":%zu,\"torn_bytes\":%zu,"
           "\"torn_bytes_after_sync\":%zu,\"cudaFree_on_pinned\":\"%s\","
           "\"cudaFreeHost_on_malloc\":\"%s\"}\n",
           bytes, torn, clean, cudaGetErrorName(free_pinned), cudaGetErrorName(freehost_plain));
    PLANTED_CHECK(cudaStreamDestroy(stream));
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(back));
    PLANTED_CHECK(cudaFreeHost(src));
    return 0;
}

/* ---- managed-concurrent: the CPU touching managed memory while a kernel runs ---- */
__global__ void spin_on_managed(int *data, size_t n, unsigned long long duration_ns)
{
    unsigned long long start = gpu_now_ns();
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    while (gpu_now_ns() - start < duration_ns) {
        if (i < n)
            data[i] += 1;
        i = (i + (size_t)gridDim.x * blockDim.x) % n;
    }
}

static int demo_managed_concurrent(void)
{
    int concurrent = attribute(cudaDevAttrConcurrentManagedAccess);
    const size_t n = (size_t)16 << 20;
    int *data = NULL;
    PLANTED_CHECK(cudaMallocManaged((void **)&data, n * sizeof(int), cudaMemAttachGlobal));
    memset(data, 0, n * sizeof(int));
    if (!concurrent) {
        printf("demo managed-concurrent: concurrentManagedAccess=0: touching managed memory "
               "while a kernel runs would kill this process with SIGSEGV; not done\n");
        printf("JSON {\"demo\":\"managed-concurrent\",\"concurrentManagedAccess\":0}\n");
        PLANTED_CHECK(cudaFree(data));
        return 0;
    }
    spin_on_managed<<<132, 256>>>(data, n, 50000000ull);
    PLANTED_LAUNCH_CHECK();
    double t0 = now_s();
    long long sum = 0;
    for (size_t i = 0; i < n; i += 1024) {
        data[i] = 5; /* the kernel is running: each touch may migrate the page back */
        sum += data[i];
    }
    double cpu_s = now_s() - t0;
    PLANTED_CHECK(cudaDeviceSynchronize());
    printf("demo managed-concurrent: concurrentManagedAccess=1: the CPU touched %zu managed "
           "pages while a kernel wrote them: allowed, took %.1f ms (sum %lld); where the "
           "attribute is 0 the same touch is a segmentation fault\n",
           n / 1024, cpu_s * 1e3, sum);
    printf("JSON {\"demo\":\"managed-concurrent\",\"concurrentManagedAccess\":1,"
           "\"cpu_touch_ms\":%.3f}\n",
           cpu_s * 1e3);
    PLANTED_CHECK(cudaFree(data));
    return 0;
}

/* ---- fork: CUDA in a child of a process that already initialised CUDA ---- */
static const char *child_malloc(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return "pipe failed";
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(20); /* a child that hangs inside the driver is killed, not waited for forever */
        void *p = NULL;
        cudaError_t error = cudaMalloc(&p, 1 << 20);
        const char *name = cudaGetErrorName(error);
        ssize_t written = write(fds[1], name, strlen(name));
        (void)written;
        _exit(0);
    }
    close(fds[1]);
    static char answers[2][64];
    static int which = 0;
    char *answer = answers[which++ % 2];
    ssize_t n = pid > 0 ? read(fds[0], answer, 63) : -1;
    answer[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (n <= 0)
        snprintf(answer, 64, "child died (%s)",
                 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "no answer");
    return answer;
}

static int demo_fork(void)
{
    const char *before = child_malloc(); /* the parent has not touched CUDA yet */
    PLANTED_CHECK(cudaFree(0));
    const char *after = child_malloc();
    printf("demo fork: cudaMalloc in a forked child: before the parent used CUDA %s; after "
           "%s\n",
           before, after);
    printf("JSON {\"demo\":\"fork\",\"child_before_init\":\"%s\",\"child_after_init\":\"%s\"}\n",
           before, after);
    return 0;
}

typedef struct demo {
    const char *name;
    int (*run)(void);
    const char *what;
} demo;

static const demo demos[] = {
    {"pageable-copy", demo_pageable_copy, "cudaMemcpy from malloc memory against pinned"},
    {"hostalloc-vs-register", demo_hostalloc_vs_register, "the cost of each way to pin"},
    {"wc-cpu-read", demo_wc_cpu_read, "the CPU reading write-combined memory"},
    {"uncoalesced-mapped", demo_uncoalesced_mapped, "zero-copy reads, coalesced or scattered"},
    {"mapped-reread", demo_mapped_reread, "reading mapped memory 8 times against copying once"},
    {"pageable-kernel", demo_pageable_kernel, "a kernel dereferencing a malloc pointer"},
    {"devptr", demo_devptr, "device pointers of registered and write-combined memory"},
    {"flag-nc", demo_flag_nc, "polling a CPU flag with __ldg against ld.acquire.sys"},
    {"mapped-atomics", demo_mapped_atomics, "GPU and CPU atomics on one mapped word"},
    {"persistent-hang", demo_persistent_hang, "a polling kernel and the legacy stream"},
    {"reuse-before-copy", demo_reuse_before_copy, "overwriting a buffer under its async copy"},
    {"managed-concurrent", demo_managed_concurrent, "CPU access to managed memory mid-kernel"},
    {"fork", demo_fork, "CUDA in a forked child"},
};

int main(int argc, char **argv)
{
    const size_t count = sizeof demos / sizeof demos[0];
    if (argc == 2) {
        for (size_t i = 0; i < count; i++) {
            if (strcmp(argv[1], demos[i].name) == 0)
                return demos[i].run();
        }
    }
    fprintf(stderr,
            "usage: %s DEMO\n(each demo runs in its own process: some lose the CUDA "
            "context on purpose)\n\ndemos:\n",
            argv[0]);
    for (size_t i = 0; i < count; i++)
        fprintf(stderr, "  %-22s %s\n", demos[i].name, demos[i].what);
    return argc == 2 && strcmp(argv[1], "--list") == 0 ? 0 : 2;
}
