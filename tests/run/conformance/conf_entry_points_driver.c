/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's copy functions reached every way a program reaches them: by symbol (linked with
 * -lcuda; the header's names are the _v2 ones), through dlsym on libcuda.so.1's handle and on
 * RTLD_DEFAULT (the _v2, _ptds and _ptsz names), and through cuGetProcAddress with each search
 * flag and CUDA versions 3020, 4000, 11000 and 12000. Each function found moves pageable bytes
 * (1 MiB and 3 bytes, above zc run's thresholds) and must move the right ones; each lookup's
 * result is printed, so that one answered otherwise under zc run is caught. Then the questions
 * about a malloc'd buffer copied until the register cure pins it (cuPointerGetAttribute(s),
 * cuMemHostGetFlags, cuMemHostGetDevicePointer) must be answered as for pageable memory, and the
 * program's own cuMemHostRegister of it must succeed as without zc run. */
#include <dlfcn.h>

#include <cuda.h>

#include "conformance.h"

#define N ((1u << 20) + 3)

static const char *name_of(CUresult r)
{
    const char *name = NULL;
    return cuGetErrorName(r, &name) == CUDA_SUCCESS && name != NULL ? name : "unknown";
}

#define CU_FMT       "%s(%d)"
#define CU_ARGS(res) name_of(res), (int)(res)

#define CONF_CU(call)                                                                              \
    do {                                                                                           \
        CUresult conf_cu = (call);                                                                 \
        if (conf_cu != CUDA_SUCCESS) {                                                             \
            printf("FAIL line %d: %s: " CU_FMT "\n", __LINE__, #call, CU_ARGS(conf_cu));           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef enum shape { HTOD, DTOH, HTOD_ASYNC, DTOH_ASYNC, UNIFIED, UNIFIED_ASYNC } shape;

typedef CUresult (*htod_fn)(CUdeviceptr, const void *, size_t);
typedef CUresult (*dtoh_fn)(void *, CUdeviceptr, size_t);
typedef CUresult (*htod_async_fn)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*dtoh_async_fn)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*unified_fn)(CUdeviceptr, CUdeviceptr, size_t);
typedef CUresult (*unified_async_fn)(CUdeviceptr, CUdeviceptr, size_t, CUstream);

/* The function names, base name first as cuGetProcAddress takes it. */
static const struct entry {
    const char *base, *v2, *per_thread;
    shape shape;
} entries[] = {
    {"cuMemcpyHtoD", "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds", HTOD},
    {"cuMemcpyDtoH", "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds", DTOH},
    {"cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2_ptsz", HTOD_ASYNC},
    {"cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync_v2_ptsz", DTOH_ASYNC},
    {"cuMemcpy", "cuMemcpy", "cuMemcpy_ptds", UNIFIED},
    {"cuMemcpyAsync", "cuMemcpyAsync", "cuMemcpyAsync_ptsz", UNIFIED_ASYNC},
};

static unsigned char *host, *pinned, *expect;
static CUdeviceptr dev;
static CUstream stream;
static unsigned seed = 1;

/* fn (of the shape given) copies one way: to the device when to_device. */
static CUresult call(shape s, void *fn, int to_device, CUstream on)
{
    CUdeviceptr h = (CUdeviceptr)(uintptr_t)host;
    switch (s) {
    case HTOD:
        return ((htod_fn)fn)(dev, host, N);
    case DTOH:
        return ((dtoh_fn)fn)(host, dev, N);
    case HTOD_ASYNC:
        return ((htod_async_fn)fn)(dev, host, N, on);
    case DTOH_ASYNC:
        return ((dtoh_async_fn)fn)(host, dev, N, on);
    case UNIFIED:
        return to_device ? ((unified_fn)fn)(dev, h, N) : ((unified_fn)fn)(h, dev, N);
    case UNIFIED_ASYNC:
        return to_device ? ((unified_async_fn)fn)(dev, h, N, on)
                         : ((unified_async_fn)fn)(h, dev, N, on);
    }
    return CUDA_ERROR_INVALID_VALUE;
}

/* One direction through fn, checked through pinned memory and the functions by symbol; the
 * first problem in why. */
static void one_way(shape s, void *fn, int to_device, CUstream on, char *why, size_t why_size)
{
    char detail[160];
    conf_fill(expect, N, seed++);
    if (to_device) {
        memcpy(host, expect, N);
    } else {
        memcpy(pinned, expect, N);
        CONF_CU(cuMemcpyHtoD(dev, pinned, N));
        conf_fill(host, N, seed++);
    }
    CUresult r = call(s, fn, to_device, on);
    CONF_CU(cuCtxSynchronize());
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_size, "%s the device: " CU_FMT, to_device ? "to" : "from", CU_ARGS(r));
        return;
    }
    if (to_device)
        CONF_CU(cuMemcpyDtoH(pinned, dev, N));
    if (!conf_same(to_device ? pinned : host, expect, N, detail, sizeof detail))
        snprintf(why, why_size, "%s the device: %s", to_device ? "to" : "from", detail);
}

/* Every direction fn copies in, on the null stream and (if it takes one) a created one. */
static void exercise(const struct entry *e, void *fn, char *why, size_t why_size)
{
    int async = e->shape == HTOD_ASYNC || e->shape == DTOH_ASYNC || e->shape == UNIFIED_ASYNC;
    for (int created = 0; created <= async && why[0] == '\0'; created++) {
        CUstream on = created ? stream : NULL;
        if (e->shape != DTOH && e->shape != DTOH_ASYNC)
            one_way(e->shape, fn, 1, on, why, why_size);
        if (why[0] == '\0' && e->shape != HTOD && e->shape != HTOD_ASYNC)
            one_way(e->shape, fn, 0, on, why, why_size);
    }
}

static void by_symbol(void)
{
    void *const fns[] = {(void *)cuMemcpyHtoD,      (void *)cuMemcpyDtoH, (void *)cuMemcpyHtoDAsync,
                         (void *)cuMemcpyDtoHAsync, (void *)cuMemcpy,     (void *)cuMemcpyAsync};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        char why[240] = "";
        exercise(&entries[i], fns[i], why, sizeof why);
        conf_result(why, "symbol %s", entries[i].v2);
    }
}

static void by_dlsym(void *handle, const char *how)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const char *names[] = {entries[i].v2, entries[i].per_thread};
        for (int k = 0; k < 2; k++) {
            char why[240] = "";
            void *fn = dlsym(handle, names[k]);
            if (fn != NULL)
                exercise(&entries[i], fn, why, sizeof why);
            conf_result(why, "dlsym %s %s: %s", how, names[k], fn != NULL ? "found" : "absent");
        }
    }
}

static void by_get_proc_address(void)
{
    const int versions[] = {3020, 4000, 11000, 12000};
    const struct {
        cuuint64_t flag;
        const char *name;
    } flags[] = {{CU_GET_PROC_ADDRESS_DEFAULT, "default"},
                 {CU_GET_PROC_ADDRESS_LEGACY_STREAM, "legacy-stream"},
                 {CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "per-thread-stream"}};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++)
            for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
                char why[240] = "";
                void *fn = NULL;
                CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
                CUresult r =
                    cuGetProcAddress(entries[i].base, &fn, versions[v], flags[f].flag, &status);
                if (r == CUDA_SUCCESS && fn != NULL)
                    exercise(&entries[i], fn, why, sizeof why);
                conf_result(why, "cuGetProcAddress %s %d %s -> " CU_FMT ", status %d, %s",
                            entries[i].base, versions[v], flags[f].name, CU_ARGS(r), (int)status,
                            fn != NULL ? "found" : "none");
            }
}

/* The questions about a page-aligned malloc'd buffer copied 3 times from its first byte (maybe
 * pinned in place by zc run, pageable to the program), then the program's own registration of it
 * and the same questions. */
static void questions(void)
{
    const size_t n = 4u << 20;
    unsigned char *buf = NULL;
    if (posix_memalign((void **)&buf, 4096, n) != 0) {
        printf("FAIL posix_memalign of 4 MiB\n");
        exit(1);
    }
    CUdeviceptr big;
    CONF_CU(cuMemAlloc(&big, n));
    conf_fill(buf, n, seed++);
    for (int i = 0; i < 3; i++)
        CONF_CU(cuMemcpyHtoD(big, buf, n));
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)buf;
    for (int registered = 0; registered < 2; registered++) {
        const char *state = registered ? "registered by the program" : "copied 3 times";
        unsigned type = 0, managed = 0, flags = 0;
        CUresult r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
        conf_result(NULL, "cuPointerGetAttribute MEMORY_TYPE of a buffer %s -> " CU_FMT ", %u",
                    state, CU_ARGS(r), r == CUDA_SUCCESS ? type : 0);
        type = 0;
        CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            CU_POINTER_ATTRIBUTE_IS_MANAGED};
        void *data[] = {&type, &managed};
        r = cuPointerGetAttributes(2, attributes, data, p);
        conf_result(NULL, "cuPointerGetAttributes of it -> " CU_FMT ", type %u managed %u",
                    CU_ARGS(r), r == CUDA_SUCCESS ? type : 0, r == CUDA_SUCCESS ? managed : 0);
        r = cuMemHostGetFlags(&flags, buf);
        conf_result(NULL, "cuMemHostGetFlags of it -> " CU_FMT ", 0x%x", CU_ARGS(r),
                    r == CUDA_SUCCESS ? flags : 0);
        CUdeviceptr mapped = 0;
        r = cuMemHostGetDevicePointer(&mapped, buf, 0);
        conf_result(NULL, "cuMemHostGetDevicePointer of it -> " CU_FMT ", %s", CU_ARGS(r),
                    r != CUDA_SUCCESS ? "-"
                    : mapped == p     ? "the same"
                                      : "another");
        if (!registered) {
            r = cuMemHostRegister(buf, n, 0);
            conf_result(r == CUDA_SUCCESS ? NULL : "CUDA documents success",
                        "cuMemHostRegister of it -> " CU_FMT, CU_ARGS(r));
        }
    }
    CUresult r = cuMemHostUnregister(buf);
    conf_result(r == CUDA_SUCCESS ? NULL : "CUDA documents success",
                "cuMemHostUnregister of it -> " CU_FMT, CU_ARGS(r));
    CONF_CU(cuMemFree(big));
    free(buf);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int count = 0;
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count == 0) {
        fprintf(stderr, "SKIP conf_entry_points_driver: no CUDA GPU (%s)\n",
                r != CUDA_SUCCESS ? name_of(r) : "0 devices");
        return CONF_SKIP;
    }
    CUdevice device;
    CUcontext ctx;
    CONF_CU(cuDeviceGet(&device, 0));
    CONF_CU(cuDevicePrimaryCtxRetain(&ctx, device));
    CONF_CU(cuCtxSetCurrent(ctx));
    CONF_CU(cuStreamCreate(&stream, CU_STREAM_DEFAULT));
    CONF_CU(cuMemAlloc(&dev, N));
    CONF_CU(cuMemAllocHost((void **)&pinned, N));
    host = (unsigned char *)conf_malloc(N);
    expect = (unsigned char *)conf_malloc(N);

    by_symbol();
    void *handle = dlopen("libcuda.so.1", RTLD_NOW);
    conf_result(handle != NULL ? NULL : dlerror(), "dlopen libcuda.so.1");
    if (handle != NULL)
        by_dlsym(handle, "libcuda.so.1");
    by_dlsym(RTLD_DEFAULT, "RTLD_DEFAULT");
    by_get_proc_address();
    questions();

    free(expect);
    free(host);
    CONF_CU(cuMemFreeHost(pinned));
    CONF_CU(cuMemFree(dev));
    CONF_CU(cuStreamDestroy(stream));
    CONF_CU(cuDevicePrimaryCtxRelease(device));
    return conf_end("conf_entry_points_driver");
}
