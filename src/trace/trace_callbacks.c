/* SPDX-License-Identifier: Apache-2.0 */
/* Runtime and driver API callbacks: host allocations, registrations, managed memory, prefetches,
 * advice and device pointers of mapped memory, each with its size, flags and cost; and kernel
 * launches, whose arguments trace_launch.c reads. */
#include "trace_inject.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

/* cupti.h (through trace_inject.h) brings the callback ids and the parameter structures. */

/*
 * cudaHostAlloc and friends call the driver's own allocation entry points. A runtime call is
 * logged at its exit; while it is in progress on this thread, the driver calls it makes are
 * not logged again. A program that calls the driver API directly is still seen through the
 * driver domain.
 */
static _Thread_local int zc__runtime_depth;

static CUpti_SubscriberHandle zc__subscriber;

/* Under zc run (zc trace -- zc run -- PROGRAM), its interposition library says when a driver
 * call is its own (a cure pinning one of the program's buffers, its staging buffers): logged
 * with ZC_TRACE_FLAG_ZC_RUN, and not an allocation the program's kernels or copies can be given. */
typedef int (*zc__own_work_fn)(void);
static zc__own_work_fn zc__run_own_work;

/* What one call means for the log: its name there and where its size, flags and pointer are. */
typedef struct zc__call {
    zc_trace_call call;
    size_t bytes;
    unsigned flags;
    const void *pointer;
    uint64_t device_pointer; /* hostgetdeviceptr: the pointer it gave, at exit */
} zc__call;

/* Every prefetch and advice entry point starts with the range: (pointer, count). */
typedef struct zc__range_params {
    const void *pointer;
    size_t count;
} zc__range_params;

/* A kernel launch in progress through the runtime on this thread: the kernel's activity record
 * carries the runtime call's correlation id, so the driver launch inside logs that one; and
 * whether the driver launch inside read the arguments (if not, the runtime's exit tries). */
static _Thread_local uint32_t zc__runtime_launch;
static _Thread_local int zc__driver_launch_read;

/* The runtime launches whose parameters say where the kernel and its arguments are: the first
 * two fields of cudaLaunchKernel's and cudaLaunchCooperativeKernel's, the second and third of
 * cudaLaunchKernelExC's. NULL func for the others (__cudaLaunchKernel has no public layout). */
static void zc__runtime_launch_args(CUpti_CallbackId id, const void *params, const void **func_p,
                                    void ***args_p)
{
    *func_p = NULL;
    *args_p = NULL;
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
        const cudaLaunchKernel_v7000_params *p = params;
        *func_p = p->func;
        *args_p = p->args;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000: {
        const cudaLaunchCooperativeKernel_v9000_params *p = params;
        *func_p = p->func;
        *args_p = p->args;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        const cudaLaunchKernelExC_v11060_params *p = params;
        *func_p = p->func;
        *args_p = p->args;
        break;
    }
    default:
        break;
    }
}

/* Decode a runtime call's parameters; 0 when the call is not one the trace logs. */
static int zc__runtime_call(CUpti_CallbackId id, const void *params, int exiting, zc__call *call)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
        const cudaHostAlloc_v3020_params *p = params;
        *call =
            (zc__call){ZC_TRACE_CALL_HOSTALLOC, p->size, p->flags, exiting ? *p->pHost : NULL, 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
        const cudaMallocHost_v3020_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTALLOC, p->size, 0, exiting ? *p->ptr : NULL, 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
        const cudaHostRegister_v4000_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTREGISTER, p->size, p->flags, p->ptr, 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020: {
        const cudaFreeHost_v3020_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_FREEHOST, 0, 0, p->ptr, 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000: {
        const cudaHostUnregister_v4000_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTUNREGISTER, 0, 0, p->ptr, 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
        const cudaMallocManaged_v6000_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_MALLOCMANAGED, p->size, p->flags,
                           exiting ? *p->devPtr : NULL, 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostGetDevicePointer_v3020: {
        const cudaHostGetDevicePointer_v3020_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTGETDEVICEPTR, 0, 0, p->pHost,
                           exiting && p->pDevice ? (uint64_t)(uintptr_t)*p->pDevice : 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v8000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v8000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v12020: {
        const zc__range_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_PREFETCH, p->count, 0, p->pointer, 0};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemAdvise_v8000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemAdvise_v12020: {
        const zc__range_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_ADVISE, p->count, 0, p->pointer, 0};
        return 1;
    }
    default:
        return 0;
    }
}

/* The same for the driver's entry points. */
static int zc__driver_call(CUpti_CallbackId id, const void *params, int exiting, zc__call *call)
{
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
        const cuMemHostAlloc_params *p = params;
        *call =
            (zc__call){ZC_TRACE_CALL_HOSTALLOC, p->bytesize, p->Flags, exiting ? *p->pp : NULL, 0};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
        const cuMemAllocHost_v2_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTALLOC, p->bytesize, 0, exiting ? *p->pp : NULL, 0};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
        const cuMemHostRegister_v2_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTREGISTER, p->bytesize, p->Flags, p->p, 0};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost: {
        const cuMemFreeHost_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_FREEHOST, 0, 0, p->p, 0};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister: {
        const cuMemHostUnregister_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTUNREGISTER, 0, 0, p->p, 0};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const cuMemAllocManaged_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_MALLOCMANAGED, p->bytesize, p->flags,
                           exiting ? (const void *)(uintptr_t)*p->dptr : NULL, 0};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostGetDevicePointer_v2: {
        const cuMemHostGetDevicePointer_v2_params *p = params;
        *call = (zc__call){ZC_TRACE_CALL_HOSTGETDEVICEPTR, 0, 0, p->p,
                           exiting && p->pdptr ? (uint64_t)*p->pdptr : 0};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAdvise:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAdvise_v2: {
        /* CUdeviceptr first, then the count, in every variant. */
        const struct {
            CUdeviceptr pointer;
            size_t count;
        } *p = params;
        int advise = id == CUPTI_DRIVER_TRACE_CBID_cuMemAdvise ||
                     id == CUPTI_DRIVER_TRACE_CBID_cuMemAdvise_v2;
        *call = (zc__call){advise ? ZC_TRACE_CALL_ADVISE : ZC_TRACE_CALL_PREFETCH, p->count, 0,
                           (const void *)(uintptr_t)p->pointer, 0};
        return 1;
    }
    default:
        return 0;
    }
}

/* Keep the allocation table of trace_ranges.c in step with a call that succeeded. */
static void zc__track(const zc__call *call)
{
    uint64_t pointer = (uint64_t)(uintptr_t)call->pointer;
    switch (call->call) {
    case ZC_TRACE_CALL_HOSTALLOC:
    case ZC_TRACE_CALL_HOSTREGISTER:
    case ZC_TRACE_CALL_MALLOCMANAGED:
        zc__trace_ranges_add(pointer, call->bytes, pointer);
        break;
    case ZC_TRACE_CALL_FREEHOST:
    case ZC_TRACE_CALL_HOSTUNREGISTER:
        zc__trace_ranges_remove(pointer);
        break;
    case ZC_TRACE_CALL_HOSTGETDEVICEPTR: {
        /* Without unified addressing (or for some registered memory) the device pointer differs
         * from the host one: the same allocation is reached through a second range. */
        uint64_t base = 0, bytes = 0;
        if (call->device_pointer != 0 && call->device_pointer != pointer &&
            zc__trace_ranges_host_of(pointer, &base, &bytes) &&
            call->device_pointer >= pointer - base)
            zc__trace_ranges_add(call->device_pointer - (pointer - base), bytes, base);
        break;
    }
    default:
        break;
    }
}

/* Kernel launches: counted through the runtime; arguments read at the driver, at entry, or
 * failing that at the runtime call's exit. */
static int zc__launch(CUpti_CallbackDomain domain, CUpti_CallbackId id,
                      const CUpti_CallbackData *info)
{
    int entering = info->callbackSite == CUPTI_API_ENTER;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        switch (id) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
        case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
        case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
            if (entering) {
                zc__trace_launch_runtime();
                zc__runtime_launch = info->correlationId;
                zc__driver_launch_read = 0;
                return 1;
            }
            if (!zc__driver_launch_read) {
                const void *func = NULL;
                void **args = NULL;
                zc__runtime_launch_args(id, info->functionParams, &func, &args);
                if (func != NULL)
                    zc__driver_launch_read =
                        zc__trace_launch_inspect_runtime(func, args, info->correlationId);
            }
            zc__trace_launch_done(zc__driver_launch_read);
            zc__runtime_launch = 0;
            return 1;
        default:
            return 0;
        }
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !entering)
        return 0;
    CUfunction f = NULL;
    void **params = NULL, **extra = NULL;
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = info->functionParams;
        f = p->f, params = p->kernelParams, extra = p->extra;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = info->functionParams;
        f = p->f, params = p->kernelParams, extra = p->extra;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = info->functionParams;
        f = p->f, params = p->kernelParams;
        break;
    }
    default:
        return 0;
    }
    if (zc__runtime_launch != 0) {
        zc__driver_launch_read = zc__trace_launch_inspect(f, params, extra, zc__runtime_launch) ||
                                 zc__driver_launch_read;
    } else {
        /* The program called the driver itself: this is the launch, counted here. */
        zc__trace_launch_done(zc__trace_launch_inspect(f, params, extra, info->correlationId));
    }
    return 1;
}

static void CUPTIAPI zc__callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  const void *data)
{
    const CUpti_CallbackData *info = data;
    if (zc__launch(domain, id, info))
        return;
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (!runtime && zc__runtime_depth > 0)
        return;
    int exiting = info->callbackSite == CUPTI_API_EXIT;
    zc__call call;
    if (!(runtime ? zc__runtime_call(id, info->functionParams, exiting, &call)
                  : zc__driver_call(id, info->functionParams, exiting, &call)))
        return;
    /* CUPTI keeps correlationData for each call from its entry to its exit: the start time. */
    if (!exiting) {
        uint64_t now = 0;
        cuptiGetTimestamp(&now);
        *info->correlationData = now;
        if (runtime)
            zc__runtime_depth++;
        return;
    }
    if (runtime && zc__runtime_depth > 0)
        zc__runtime_depth--;
    uint64_t end = 0;
    cuptiGetTimestamp(&end);
    int ok = runtime ? *(const int *)info->functionReturnValue == 0
                     : *(const CUresult *)info->functionReturnValue == CUDA_SUCCESS;
    int own = zc__run_own_work != NULL && zc__run_own_work();
    if (ok && !own)
        zc__track(&call);
    zc_trace_api record = {
        .call = call.call,
        .bytes = call.bytes,
        .flags = call.flags | (own ? ZC_TRACE_FLAG_ZC_RUN : 0u),
        .pointer = ok ? (uint64_t)(uintptr_t)call.pointer : 0,
        .start = *info->correlationData,
        .end = end,
        .ok = ok,
        .runtime = runtime,
    };
    FILE *log = zc__trace_writer_lock();
    if (log != NULL)
        zc__trace_write_api(log, &record);
    zc__trace_writer_unlock();
}

void zc__trace_callbacks_start(void)
{
    zc__run_own_work = (zc__own_work_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "zc_run_preload_own_work");
    CUptiResult result = cuptiSubscribe(&zc__subscriber, zc__callback, NULL);
    if (result != CUPTI_SUCCESS) {
        zc__trace_note_cupti("callbacks_unavailable", "cuptiSubscribe", result);
        return;
    }
    static const CUpti_CallbackId runtime_ids[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000,
        CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
        CUPTI_RUNTIME_TRACE_CBID_cudaHostGetDevicePointer_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v8000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v8000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v12020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemAdvise_v8000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemAdvise_v12020,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    };
    static const CUpti_CallbackId driver_ids[] = {
        CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
        CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
        CUPTI_DRIVER_TRACE_CBID_cuMemHostGetDevicePointer_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemAdvise,
        CUPTI_DRIVER_TRACE_CBID_cuMemAdvise_v2,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    };
    for (size_t i = 0; i < sizeof runtime_ids / sizeof runtime_ids[0]; i++) {
        result =
            cuptiEnableCallback(1, zc__subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_ids[i]);
        if (result != CUPTI_SUCCESS)
            zc__trace_note_cupti("callback_unavailable", "cuptiEnableCallback(runtime)", result);
    }
    for (size_t i = 0; i < sizeof driver_ids / sizeof driver_ids[0]; i++) {
        result = cuptiEnableCallback(1, zc__subscriber, CUPTI_CB_DOMAIN_DRIVER_API, driver_ids[i]);
        if (result != CUPTI_SUCCESS)
            zc__trace_note_cupti("callback_unavailable", "cuptiEnableCallback(driver)", result);
    }
}
