/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver entry points whose hooks ask the cure table for a pinned allocation or its release,
 * or raise CONTEXT_GONE: cuMemHostAlloc, cuMemAllocHost and cuMemFreeHost go to the first row
 * that serves them (else to the driver as they were); before cuCtxDestroy,
 * cuDevicePrimaryCtxReset and cuDevicePrimaryCtxRelease, every row gives back what it holds in
 * the context (the memory of a context goes with it), then the driver's own call runs.
 */
#include "run_cures.h"
#include "run_hooks.h"

CUresult zc__hook_MEM_HOST_ALLOC(void **p, size_t bytes, unsigned int flags)
{
    zc__run_pinned_ask ask = {ZC__VIA_HOST_ALLOC, p, bytes, flags};
    return zc__run_pinned_alloc(&ask);
}

CUresult zc__hook_MEM_ALLOC_HOST(void **p, size_t bytes)
{
    zc__run_pinned_ask ask = {ZC__VIA_ALLOC_HOST, p, bytes, 0};
    return zc__run_pinned_alloc(&ask);
}

CUresult zc__hook_MEM_FREE_HOST(void *p)
{
    return zc__run_pinned_free(p);
}

typedef CUresult (*zc__ctx_fn)(CUcontext);
typedef CUresult (*zc__dev_fn)(CUdevice);

CUresult zc__hook_CTX_DESTROY(CUcontext ctx)
{
    zc__ctx_fn real = (zc__ctx_fn)zc__run_real(ZC__HOOK_CTX_DESTROY);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx != NULL) {
        zc__run_event e = {.id = ZC__EVENT_CONTEXT_GONE, .ctx = ctx, .may_call_cuda = 1};
        zc__run_raise(&e);
    }
    return real(ctx);
}

/* A device's primary context may go (reset, or its last release): everything of the cures' on
 * the device goes first, then the driver's own call. */
static CUresult zc__before_primary_goes(zc__run_hook_id id, CUdevice dev)
{
    zc__dev_fn real = (zc__dev_fn)zc__run_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_event e = {.id = ZC__EVENT_CONTEXT_GONE, .device = dev, .may_call_cuda = 1};
    zc__run_raise(&e);
    return real(dev);
}

CUresult zc__hook_PRIMARY_RESET(CUdevice dev)
{
    return zc__before_primary_goes(ZC__HOOK_PRIMARY_RESET, dev);
}

CUresult zc__hook_PRIMARY_RELEASE(CUdevice dev)
{
    return zc__before_primary_goes(ZC__HOOK_PRIMARY_RELEASE, dev);
}
