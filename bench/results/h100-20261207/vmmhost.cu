// SPDX-License-Identifier: Apache-2.0
// Probe: pinned host memory made by the driver's virtual memory calls (cuMemCreate with a host
// NUMA location) rather than registered: how fast 8 GiB comes, made as one handle or as chunks
// created by several threads and mapped side by side in one reserved range; whether the CPU can
// use it at once (first write, s/GiB); whether a copy may span two chunks; what the pointer
// attributes say. Beside it, the floor (first touch of fresh 4 KiB and huge pages by every
// thread) and cuMemHostRegister of touched pages, for the same bytes.
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        CUresult r_ = (x);                                                                         \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *s_ = "";                                                                   \
            cuGetErrorString(r_, &s_);                                                             \
            printf("FAIL %s: %s (line %d)\n", #x, s_, __LINE__);                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static const size_t GiB = (size_t)1 << 30;

typedef struct {
    char *base;
    size_t from, to;
    CUmemAllocationProp *prop;
    CUmemGenericAllocationHandle *h;
    size_t chunk;
    int err;
} job;
static void *touch(void *a)
{
    job *j = (job *)a;
    for (size_t o = j->from; o < j->to; o += 4096)
        j->base[o] = 1;
    return NULL;
}
static void *create(void *a)
{
    job *j = (job *)a;
    for (size_t k = j->from; k < j->to; k++)
        if (cuMemCreate(&j->h[k], j->chunk, j->prop, 0) != CUDA_SUCCESS) {
            j->err = 1;
            return NULL;
        }
    return NULL;
}
static double touch_all(char *p, size_t bytes, int threads)
{
    pthread_t t[64];
    job j[64];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        j[i].base = p;
        j[i].from = bytes / threads * i / 4096 * 4096;
        j[i].to = i == threads - 1 ? bytes : bytes / threads * (i + 1) / 4096 * 4096;
        pthread_create(&t[i], 0, touch, &j[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], 0);
    return now() - t0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    size_t bytes = (argc > 1 ? atol(argv[1]) : 8) * GiB;
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads > 64)
        threads = 64;
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    int numa = -1;
    cuDeviceGetAttribute(&numa, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, dev);
    int vmm = 0;
    cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
    printf("bytes %zu GiB, threads %d, device host NUMA id %d, VMM %d\n", bytes / GiB, threads,
           numa, vmm);
    // floors
    for (int huge = 0; huge < 2; huge++) {
        char *p = (char *)mmap(0, bytes + (2 << 20), PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char *a = (char *)(((uintptr_t)p + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
        madvise(a, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        double t = touch_all(a, bytes, threads);
        double r0 = now();
        CUresult rr = cuMemHostRegister(a, bytes, 0);
        double r = now() - r0;
        printf("floor %s: touch %.4f s/GiB; register touched %.4f s/GiB (rc %d)\n",
               huge ? "THP" : "4K", t / (bytes / GiB), r / (bytes / GiB), (int)rr);
        if (rr == CUDA_SUCCESS)
            cuMemHostUnregister(a);
        munmap(p, bytes + (2 << 20));
    }
    int types[2] = {CU_MEM_LOCATION_TYPE_HOST_NUMA, CU_MEM_LOCATION_TYPE_HOST};
    for (int ti = 0; ti < 2; ti++) {
        CUmemAllocationProp prop;
        memset(&prop, 0, sizeof prop);
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = (CUmemLocationType)types[ti];
        prop.location.id = numa < 0 ? 0 : numa;
        size_t gran = 0, rec = 0;
        CUresult g = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
        printf("\nlocation %s: granularity min %zu rec %zu (rc %d)\n",
               ti == 0 ? "HOST_NUMA" : "HOST", gran, rec, (int)g);
        if (g != CUDA_SUCCESS)
            continue;
        size_t chunks_ways[3] = {1, (size_t)threads, (size_t)threads * 4};
        for (int w = 0; w < 3; w++) {
            size_t n = chunks_ways[w], chunk = bytes / n / gran * gran;
            size_t total = chunk * n;
            CUmemGenericAllocationHandle *h = (CUmemGenericAllocationHandle *)calloc(n, sizeof *h);
            double t0 = now();
            int nt = n < (size_t)threads ? (int)n : threads;
            pthread_t t[64];
            job j[64];
            for (int i = 0; i < nt; i++) {
                j[i].prop = &prop;
                j[i].h = h;
                j[i].chunk = chunk;
                j[i].err = 0;
                j[i].from = n * i / nt;
                j[i].to = n * (i + 1) / nt;
                pthread_create(&t[i], 0, create, &j[i]);
            }
            int err = 0;
            for (int i = 0; i < nt; i++) {
                pthread_join(t[i], 0);
                err |= j[i].err;
            }
            double tc = now() - t0;
            if (err) {
                printf("chunks %zu: cuMemCreate failed\n", n);
                continue;
            }
            CUdeviceptr va;
            CK(cuMemAddressReserve(&va, total, 0, 0, 0));
            for (size_t k = 0; k < n; k++)
                CK(cuMemMap(va + k * chunk, chunk, 0, h[k], 0));
            CUmemAccessDesc acc[2];
            memset(acc, 0, sizeof acc);
            acc[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            acc[0].location.id = 0;
            acc[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            acc[1].location.type = (CUmemLocationType)types[ti];
            acc[1].location.id = prop.location.id;
            acc[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            CUresult sa = cuMemSetAccess(va, total, acc, 2);
            if (sa != CUDA_SUCCESS) {
                printf("  setAccess with host: rc %d; device only: ", (int)sa);
                sa = cuMemSetAccess(va, total, acc, 1);
                printf("rc %d\n", (int)sa);
            }
            double tm = now() - t0;
            char *p = (char *)(uintptr_t)va;
            double tw = touch_all(p, total, threads);
            double tw2 = touch_all(p, total, threads);
            printf("chunks %zu x %zu MiB: create %.4f s/GiB, +map+access %.4f s/GiB; CPU first "
                   "write %.4f, again %.4f s/GiB\n",
                   n, chunk >> 20, tc / (total / (double)GiB), tm / (total / (double)GiB),
                   tw / (total / (double)GiB), tw2 / (total / (double)GiB));
            // a copy spanning two chunks, and the whole range, both ways
            CUdeviceptr d;
            CK(cuMemAlloc(&d, 256 << 20));
            size_t at = n > 1 ? chunk - (128 << 20) : 0;
            memset(p + at, 7, 256 << 20);
            CUresult c1 = cuMemcpyHtoD(d, p + at, 256 << 20);
            double c0 = now();
            for (int i = 0; i < 8; i++)
                cuMemcpyHtoD(d, p + at, 256 << 20);
            double h2d = 8.0 * (256 << 20) / (now() - c0) / 1e9;
            c0 = now();
            for (int i = 0; i < 8; i++)
                cuMemcpyDtoH(p + at, d, 256 << 20);
            double d2h = 8.0 * (256 << 20) / (now() - c0) / 1e9;
            int ok = p[at] == 7 && p[at + (256 << 20) - 1] == 7;
            unsigned int mt = 0;
            CUresult pa = cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                                (CUdeviceptr)(uintptr_t)(p + at));
            cudaPointerAttributes attr;
            cudaError_t ra = cudaPointerGetAttributes(&attr, p + at);
            unsigned int hf = 0;
            cudaError_t rf = cudaHostGetFlags(&hf, p + at);
            printf("  copy across chunks rc %d; H2D %.2f GB/s, D2H %.2f GB/s, data %s; memtype %u "
                   "(rc %d); runtime type %d (rc %d); cudaHostGetFlags rc %d\n",
                   (int)c1, h2d, d2h, ok ? "ok" : "BAD", mt, (int)pa, (int)attr.type, (int)ra,
                   (int)rf);
            cudaGetLastError();
            cuMemFree(d);
            double f0 = now();
            CK(cuMemUnmap(va, total));
            for (size_t k = 0; k < n; k++)
                CK(cuMemRelease(h[k]));
            CK(cuMemAddressFree(va, total));
            printf("  free %.4f s\n", now() - f0);
            free(h);
        }
    }
    return 0;
}
