/* SPDX-License-Identifier: Apache-2.0 */
/* The real dlsym and the driver's entry points (run_driver.h). */
#include "run_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef void *(*zc__dlsym_fn)(void *, const char *);

/* glibc's dlsym by version (dlvsym is not hooked): 2.34 moved it into libc, older ones keep
 * the first x86-64 version. */
static zc__dlsym_fn zc__glibc_dlsym(void)
{
    static zc__dlsym_fn real;
    if (real == NULL) {
        static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
        for (size_t i = 0; real == NULL && i < sizeof versions / sizeof versions[0]; i++)
            real = (zc__dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    }
    return real;
}

void *zc__run_glibc_dlsym(void)
{
    return (void *)zc__glibc_dlsym();
}

void *zc__run_real_dlsym(void *handle, const char *name)
{
    zc__dlsym_fn real = zc__glibc_dlsym();
    return real != NULL ? real(handle, name) : NULL;
}

static pthread_once_t zc__once = PTHREAD_ONCE_INIT;
static void *zc__libcuda;
static zc__run_driver zc__driver;
static int zc__driver_ok;

void *zc__run_driver_symbol(const char *name)
{
    return zc__libcuda != NULL ? zc__run_real_dlsym(zc__libcuda, name) : NULL;
}

#define ZC__RESOLVE(field, symbol)                                                                 \
    do {                                                                                           \
        *(void **)&zc__driver.field = zc__run_driver_symbol(symbol);                               \
        ok &= zc__driver.field != NULL;                                                            \
    } while (0)

static void zc__resolve(void)
{
    zc__libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (zc__libcuda == NULL)
        return;
    int ok = 1;
    ZC__RESOLVE(ctx_get_current, "cuCtxGetCurrent");
    ZC__RESOLVE(ctx_get_device, "cuCtxGetDevice");
    ZC__RESOLVE(ctx_push, "cuCtxPushCurrent_v2");
    ZC__RESOLVE(ctx_pop, "cuCtxPopCurrent_v2");
    ZC__RESOLVE(ctx_synchronize, "cuCtxSynchronize");
    ZC__RESOLVE(pointer_get_attributes, "cuPointerGetAttributes");
    ZC__RESOLVE(mem_get_address_range, "cuMemGetAddressRange_v2");
    ZC__RESOLVE(memcpy_htod_async, "cuMemcpyHtoDAsync_v2");
    ZC__RESOLVE(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2");
    ZC__RESOLVE(memcpy_2d_async, "cuMemcpy2DAsync_v2");
    ZC__RESOLVE(event_create, "cuEventCreate");
    ZC__RESOLVE(event_record, "cuEventRecord");
    ZC__RESOLVE(event_synchronize, "cuEventSynchronize");
    ZC__RESOLVE(event_destroy, "cuEventDestroy_v2");
    ZC__RESOLVE(stream_is_capturing, "cuStreamIsCapturing");
    ZC__RESOLVE(mem_host_alloc, "cuMemHostAlloc");
    ZC__RESOLVE(mem_free_host, "cuMemFreeHost");
    ZC__RESOLVE(mem_host_register, "cuMemHostRegister_v2");
    ZC__RESOLVE(mem_host_unregister, "cuMemHostUnregister");
    ZC__RESOLVE(stream_query, "cuStreamQuery");
    ZC__RESOLVE(stream_synchronize, "cuStreamSynchronize");
    *(void **)&zc__driver.thread_exchange_capture_mode =
        zc__run_driver_symbol("cuThreadExchangeStreamCaptureMode");
    zc__driver_ok = ok;
}

void zc__run_in_context(const zc__run_driver *d, CUcontext ctx, void (*fn)(void *arg), void *arg)
{
    CUcontext popped;
    int pushed = d->ctx_push(ctx) == CUDA_SUCCESS;
    fn(arg);
    if (pushed)
        (void)d->ctx_pop(&popped);
}

/* The mode no exchange happened in: handing it back is a no-op. */
#define ZC__NO_MODE ((CUstreamCaptureMode)-1)

/* How deep this thread is in driver calls of the library's own (between relax and unrelax). */
static __thread int zc__own_depth __attribute__((tls_model("initial-exec")));

CUstreamCaptureMode zc__run_relax(const zc__run_driver *d)
{
    zc__own_depth++;
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    if (d->thread_exchange_capture_mode == NULL ||
        d->thread_exchange_capture_mode(&mode) != CUDA_SUCCESS)
        return ZC__NO_MODE;
    return mode;
}

void zc__run_unrelax(const zc__run_driver *d, CUstreamCaptureMode mode)
{
    if (mode != ZC__NO_MODE)
        (void)d->thread_exchange_capture_mode(&mode);
    zc__own_depth--;
}

/* For zc trace's injection library, which finds it with dlsym: 1 while the calling thread is in
 * a driver call the library makes on its own account (its pins of the program's buffers, their
 * unpinning, its staging buffers, the waits it adds), so that the trace does not take them for
 * the program's. */
__attribute__((visibility("default"))) int zc_run_preload_own_work(void);
int zc_run_preload_own_work(void)
{
    return zc__own_depth > 0;
}

const zc__run_driver *zc__run_driver_get(void)
{
    pthread_once(&zc__once, zc__resolve);
    return zc__driver_ok ? &zc__driver : NULL;
}
