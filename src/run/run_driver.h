/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: the real dlsym and the CUDA driver's own entry points,
 * which the cures call so that nothing they do goes through a hook again. */
#ifndef ZC_RUN_DRIVER_H
#define ZC_RUN_DRIVER_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>

/* dlsym as glibc defines it (ours replaces the program's). */
void *zc__run_real_dlsym(void *handle, const char *name);

/* glibc's dlsym itself, for the one call that must reach it with the program's return address
 * (run_hooks.c: RTLD_NEXT). */
void *zc__run_glibc_dlsym(void);

/* The driver's entry points the cures use, resolved once from libcuda.so.1. */
typedef struct zc__run_driver {
    CUresult (*ctx_get_current)(CUcontext *ctx);
    CUresult (*ctx_get_device)(CUdevice *dev);
    CUresult (*ctx_push)(CUcontext ctx);
    CUresult (*ctx_pop)(CUcontext *ctx);
    CUresult (*ctx_synchronize)(void);
    CUresult (*pointer_get_attributes)(unsigned count, CUpointer_attribute *attributes, void **data,
                                       CUdeviceptr ptr);
    CUresult (*mem_get_address_range)(CUdeviceptr *base, size_t *size, CUdeviceptr ptr);
    CUresult (*memcpy_htod_async)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
    CUresult (*memcpy_dtoh_async)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
    CUresult (*memcpy_2d_async)(const CUDA_MEMCPY2D *copy, CUstream s);
    CUresult (*event_create)(CUevent *event, unsigned flags);
    CUresult (*event_record)(CUevent event, CUstream stream);
    CUresult (*event_synchronize)(CUevent event);
    CUresult (*event_destroy)(CUevent event);
    CUresult (*stream_is_capturing)(CUstream stream, CUstreamCaptureStatus *status);
    CUresult (*mem_host_alloc)(void **p, size_t bytes, unsigned flags);
    CUresult (*mem_free_host)(void *p);
    CUresult (*mem_host_register)(void *p, size_t bytes, unsigned flags);
    CUresult (*mem_host_unregister)(void *p);
    CUresult (*stream_query)(CUstream stream);
    CUresult (*stream_synchronize)(CUstream stream);
    /* Optional (NULL where the driver lacks it): this thread's stream capture mode, which the
     * cures relax around their own unregistrations. */
    CUresult (*thread_exchange_capture_mode)(CUstreamCaptureMode *mode);
} zc__run_driver;

/* The driver's entry points, or NULL when libcuda.so.1 cannot be loaded or lacks one of them
 * (then no cure runs and every call goes through as it was). */
const zc__run_driver *zc__run_driver_get(void);

/* Teardown work of a context: fn(arg) with ctx pushed current around it, and run even when it
 * cannot be (the context may be on its way out; fn ignores the driver's answers). */
void zc__run_in_context(const zc__run_driver *d, CUcontext ctx, void (*fn)(void *arg), void *arg);

/*
 * Calls of the cures' own that CUDA counts as unsafe during a stream capture in global mode
 * (registering, unregistering, making events and pinned memory) run with the calling thread's
 * capture mode relaxed, so that they never invalidate a capture another thread (or this one)
 * has under way. zc__run_relax gives the mode to hand back to zc__run_unrelax. Between the two,
 * the thread's driver calls are the library's own (zc_run_preload_own_work, for zc trace).
 */
CUstreamCaptureMode zc__run_relax(const zc__run_driver *d);
void zc__run_unrelax(const zc__run_driver *d, CUstreamCaptureMode mode);

/* The driver's own definition of a symbol ("cuMemcpyHtoD_v2"), or NULL. */
void *zc__run_driver_symbol(const char *name);

#endif
