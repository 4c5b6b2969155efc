/* Runtime and driver API callbacks: host allocations, registrations, managed memory, prefetches
 * and device pointers of mapped memory, each with its size, flags and cost. */
#include "trace_inject.h"

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

/* What one call means for the log: its name there and where its size, flags and pointer are. */
typedef struct zc__call {
    const char *name;
    size_t bytes;
    unsigned flags;
    const void *pointer;
} zc__call;

/* Decode a runtime call's parameters; 0 when the call is not one the trace logs. */
static int zc__runtime_call(CUpti_CallbackId id, const void *params, int exiting, zc__call *call)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
        const cudaHostAlloc_v3020_params *p = params;
        *call = (zc__call){"hostalloc", p->size, p->flags, exiting ? *p->pHost : NULL};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
        const cudaMallocHost_v3020_params *p = params;
        *call = (zc__call){"hostalloc", p->size, 0, exiting ? *p->ptr : NULL};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
        const cudaHostRegister_v4000_params *p = params;
        *call = (zc__call){"hostregister", p->size, p->flags, p->ptr};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020: {
        const cudaFreeHost_v3020_params *p = params;
        *call = (zc__call){"freehost", 0, 0, p->ptr};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000: {
        const cudaHostUnregister_v4000_params *p = params;
        *call = (zc__call){"hostunregister", 0, 0, p->ptr};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
        const cudaMallocManaged_v6000_params *p = params;
        *call = (zc__call){"mallocmanaged", p->size, p->flags, exiting ? *p->devPtr : NULL};
        return 1;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostGetDevicePointer_v3020:
        *call = (zc__call){"hostgetdeviceptr", 0, 0, NULL};
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v8000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020:
        *call = (zc__call){"prefetch", 0, 0, NULL};
        return 1;
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
        *call = (zc__call){"hostalloc", p->bytesize, p->Flags, exiting ? *p->pp : NULL};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
        const cuMemAllocHost_v2_params *p = params;
        *call = (zc__call){"hostalloc", p->bytesize, 0, exiting ? *p->pp : NULL};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
        const cuMemHostRegister_v2_params *p = params;
        *call = (zc__call){"hostregister", p->bytesize, p->Flags, p->p};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost: {
        const cuMemFreeHost_params *p = params;
        *call = (zc__call){"freehost", 0, 0, p->p};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister: {
        const cuMemHostUnregister_params *p = params;
        *call = (zc__call){"hostunregister", 0, 0, p->p};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const cuMemAllocManaged_params *p = params;
        *call = (zc__call){"mallocmanaged", p->bytesize, p->flags,
                           exiting ? (const void *)(uintptr_t)*p->dptr : NULL};
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostGetDevicePointer_v2:
        *call = (zc__call){"hostgetdeviceptr", 0, 0, NULL};
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2_ptsz:
        *call = (zc__call){"prefetch", 0, 0, NULL};
        return 1;
    default:
        return 0;
    }
}

static void CUPTIAPI zc__callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  const void *data)
{
    const CUpti_CallbackData *info = data;
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
    zc__trace_writer_line("api %s %zu %u %llx %llu %llu %d %s", call.name, call.bytes, call.flags,
                          (unsigned long long)(uintptr_t)(ok ? call.pointer : NULL),
                          (unsigned long long)*info->correlationData, (unsigned long long)end, ok,
                          runtime ? "rt" : "drv");
}

void zc__trace_callbacks_start(void)
{
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
        CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020,
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
