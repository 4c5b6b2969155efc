// SPDX-License-Identifier: Apache-2.0
// Probe: what the driver calls that zc run makes around each copy cost on this machine, per
// call (median of 21 batches of 1000), on pageable, pinned, registered and device pointers.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define CK(x)                                                                                      \
    do {                                                                                           \
        CUresult r_ = (x);                                                                         \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            printf("FAIL %s: %d\n", #x, (int)r_);                                                  \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
#define TIME(label, stmt)                                                                          \
    do {                                                                                           \
        double t_[21];                                                                             \
        for (int b_ = 0; b_ < 21; b_++) {                                                          \
            double s_ = now();                                                                     \
            for (int i_ = 0; i_ < 1000; i_++) {                                                    \
                stmt;                                                                              \
            }                                                                                      \
            t_[b_] = (now() - s_) * 1e3;                                                           \
        }                                                                                          \
        qsort(t_, 21, sizeof *t_, cmp);                                                            \
        printf("%-48s %8.3f us (min %.3f max %.3f)\n", label, t_[10], t_[0], t_[20]);              \
    } while (0)
int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    char *pageable = malloc(1 << 24);
    memset(pageable, 1, 1 << 24);
    char *registered = malloc(1 << 24);
    memset(registered, 1, 1 << 24);
    CK(cuMemHostRegister(registered, 1 << 24, 0));
    void *pinned;
    CK(cuMemHostAlloc(&pinned, 1 << 24, 0));
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 1 << 24));
    struct {
        const char *name;
        CUdeviceptr p;
    } ptrs[] = {{"pageable", (CUdeviceptr)(uintptr_t)pageable},
                {"registered", (CUdeviceptr)(uintptr_t)registered},
                {"cuMemHostAlloc", (CUdeviceptr)(uintptr_t)pinned},
                {"device", d}};
    char label[96];
    for (int k = 0; k < 4; k++) {
        unsigned type = 0, managed = 0;
        CUpointer_attribute a[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED};
        void *v[] = {&type, &managed};
        snprintf(label, sizeof label, "cuPointerGetAttributes(type, managed) %s", ptrs[k].name);
        TIME(label, cuPointerGetAttributes(2, a, v, ptrs[k].p + 4096));
    }
    CUdeviceptr base;
    size_t size;
    TIME("cuMemGetAddressRange device", cuMemGetAddressRange(&base, &size, d + 4096));
    CUstreamCaptureStatus st;
    TIME("cuStreamIsCapturing", cuStreamIsCapturing(s, &st));
    CUcontext c2;
    TIME("cuCtxGetCurrent", cuCtxGetCurrent(&c2));
    TIME("getpid", (void)getpid());
    TIME("cuStreamQuery (idle)", cuStreamQuery(s));
    TIME("cuMemcpyHtoDAsync 16 KiB pageable + sync",
         (cuMemcpyHtoDAsync(d, pageable, 16384, s), cuStreamSynchronize(s)));
    TIME("cuMemcpyHtoDAsync 16 KiB pinned + sync",
         (cuMemcpyHtoDAsync(d, pinned, 16384, s), cuStreamSynchronize(s)));
    TIME("cuMemcpyDtoHAsync 4 B pageable + sync",
         (cuMemcpyDtoHAsync(pageable, d, 4, s), cuStreamSynchronize(s)));
    return 0;
}
