/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A stand-in for the CUDA driver (built as libcuda.so.1) for the CPU test of zc run's library: no
 * GPU, but the parts of the driver the cures lean on behave as they must. "Device" memory is host
 * memory the fake hands out and knows; pinned memory is the same, known as host memory; every
 * asynchronous copy and event goes through one queue that runs only when somebody waits on it
 * (an event, a synchronous call, a free): as late as a real copy engine could, so that a cure
 * which reused a staging buffer before waiting for its copy would copy the wrong bytes, and the
 * test would see it.
 * Counters of what the program asked of it are read through fake_cuda_stats.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "fake_cuda.h"

#define FAKE_EXPORT      __attribute__((visibility("default")))
#define FAKE_ALLOCATIONS 4096
#define FAKE_QUEUE       4096

typedef struct fake_allocation {
    char *base;
    size_t bytes;
    int device;     /* 1: device memory, 0: pinned host memory */
    int registered; /* the program's own memory, registered in place (not the fake's to free) */
    int portable;   /* registered with CU_MEMHOSTREGISTER_PORTABLE */
} fake_allocation;

typedef enum fake_op_kind { FAKE_COPY, FAKE_EVENT, FAKE_HOST_FN } fake_op_kind;

typedef struct fake_op {
    fake_op_kind kind;
    char *dst;
    const char *src;
    size_t bytes;                      /* of a row */
    size_t rows, dst_pitch, src_pitch; /* rows 1 for a plain copy */
    uint64_t *event_done;              /* FAKE_EVENT: the sequence it completes */
    CUhostFn fn;                       /* FAKE_HOST_FN: run in stream order */
    void *user_data;
    uint64_t sequence;
} fake_op;

static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_allocation fake_allocations[FAKE_ALLOCATIONS];
static fake_op fake_queue[FAKE_QUEUE];
static size_t fake_head, fake_tail; /* ops [head, tail) are waiting */
static uint64_t fake_sequence;      /* of the last op queued */
static uint64_t fake_executed;      /* of the last op done */
static fake_cuda_counts fake_counts;
static int fake_capturing;
static char fake_context_token;
static __thread int fake_forbidden;

/* A driver call: counted as forbidden when the calling thread forbade them. */
static void fake_called(void)
{
    if (fake_forbidden)
        __atomic_add_fetch(&fake_counts.forbidden_calls, 1, __ATOMIC_RELAXED);
}

/* Run the ops queued up to sequence, in order (caller holds the lock). */
static void fake_execute_to(uint64_t sequence)
{
    while (fake_executed < sequence && fake_head != fake_tail) {
        fake_op op = fake_queue[fake_head % FAKE_QUEUE];
        if (op.kind == FAKE_EVENT)
            *op.event_done = op.sequence;
        if (op.kind == FAKE_HOST_FN)
            op.fn(op.user_data);
        for (size_t row = 0; op.kind == FAKE_COPY && row < op.rows; row++)
            memcpy(op.dst + row * op.dst_pitch, op.src + row * op.src_pitch, op.bytes);
        fake_head++;
        fake_executed = op.sequence;
    }
}

/* Queue an op (caller holds the lock); gives its sequence. A full queue runs its oldest. */
static uint64_t fake_enqueue(fake_op op)
{
    if (fake_tail - fake_head == FAKE_QUEUE)
        fake_execute_to(fake_queue[fake_head % FAKE_QUEUE].sequence);
    op.sequence = ++fake_sequence;
    fake_queue[fake_tail++ % FAKE_QUEUE] = op;
    return op.sequence;
}

/* Wait until every op queued up to sequence is done: the fake's copy engine runs only when
 * somebody waits for it, the latest a real one could finish (caller holds the lock). */
static void fake_wait(uint64_t sequence)
{
    fake_execute_to(sequence);
}

static fake_allocation *fake_find(const void *p)
{
    for (int i = 0; i < FAKE_ALLOCATIONS; i++) {
        fake_allocation *a = &fake_allocations[i];
        if (a->base != NULL && (const char *)p >= a->base && (const char *)p < a->base + a->bytes)
            return a;
    }
    return NULL;
}

static CUresult fake_add(size_t bytes, int device, void **p)
{
    if (bytes == 0 || p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    char *base = malloc(bytes);
    if (base == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&fake_lock);
    for (int i = 0; i < FAKE_ALLOCATIONS; i++) {
        if (fake_allocations[i].base == NULL) {
            fake_allocations[i] = (fake_allocation){base, bytes, device, 0, 0};
            if (!device) {
                fake_counts.host_allocs++;
                fake_counts.host_live++;
            }
            pthread_mutex_unlock(&fake_lock);
            *p = base;
            return CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&fake_lock);
    free(base);
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult fake_remove(void *p, int device)
{
    pthread_mutex_lock(&fake_lock);
    fake_wait(fake_sequence); /* freeing waits for the work queued, as the driver's does */
    fake_allocation *a = fake_find(p);
    if (a == NULL || a->base != p || a->device != device || a->registered) {
        pthread_mutex_unlock(&fake_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    free(a->base);
    a->base = NULL;
    if (!device) {
        fake_counts.host_frees++;
        fake_counts.host_live--;
    }
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT void fake_cuda_stats(fake_cuda_counts *counts_p)
{
    pthread_mutex_lock(&fake_lock);
    *counts_p = fake_counts;
    pthread_mutex_unlock(&fake_lock);
}

FAKE_EXPORT void fake_cuda_forbid(int forbid)
{
    fake_forbidden = forbid;
}

FAKE_EXPORT void fake_cuda_set_capturing(int capturing)
{
    fake_capturing = capturing;
}

/* At exit: what pinned memory is still allocated, for the test to read on stderr. */
__attribute__((destructor)) static void fake_report(void)
{
    fprintf(stderr, "fake cuda: %llu pinned allocations live at exit\n",
            (unsigned long long)fake_counts.host_live);
    fprintf(stderr, "fake cuda: %llu registrations live at exit\n",
            (unsigned long long)fake_counts.registered_live);
    fprintf(stderr, "fake cuda: %llu portable registrations live at exit (%llu made)\n",
            (unsigned long long)fake_counts.portable_live,
            (unsigned long long)fake_counts.portable_registers);
}

FAKE_EXPORT CUresult cuInit(unsigned int flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    fake_called();
    *ctx = (CUcontext)&fake_context_token;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice *dev)
{
    *dev = 0;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    fake_called();
    return ctx == (CUcontext)&fake_context_token ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

FAKE_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
    *ctx = (CUcontext)&fake_context_token;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSynchronize(void)
{
    fake_called();
    pthread_mutex_lock(&fake_lock);
    fake_counts.ctx_syncs++;
    fake_wait(fake_sequence);
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    (void)ctx;
    fake_counts.ctx_destroys++;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    (void)dev;
    return CUDA_SUCCESS;
}

/* fake_cuda_hold_events: event waits block until the primary context is released, as a copy
 * in flight on another thread waits on the driver while a runtime tears its context down. */
static int fake_hold_events, fake_released;
static pthread_cond_t fake_release_cond = PTHREAD_COND_INITIALIZER;

FAKE_EXPORT void fake_cuda_hold_events(int hold)
{
    pthread_mutex_lock(&fake_lock);
    fake_hold_events = hold;
    pthread_mutex_unlock(&fake_lock);
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    (void)dev;
    pthread_mutex_lock(&fake_lock);
    fake_released = 1;
    pthread_cond_broadcast(&fake_release_cond);
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuPointerGetAttributes(unsigned count, CUpointer_attribute *attributes,
                                            void **data, CUdeviceptr ptr)
{
    fake_called();
    pthread_mutex_lock(&fake_lock);
    fake_allocation *a = fake_find((const void *)(uintptr_t)ptr);
    unsigned type = a == NULL ? 0 : a->device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    pthread_mutex_unlock(&fake_lock);
    for (unsigned i = 0; i < count; i++) {
        if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
            *(unsigned *)data[i] = type;
        else if (attributes[i] == CU_POINTER_ATTRIBUTE_IS_MANAGED)
            *(unsigned *)data[i] = 0;
        /* Host memory, pageable or not, is where the program sees it (as on a system whose
         * devices reach pageable memory): an answer that is an address. */
        else if (attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER && type != CU_MEMORYTYPE_DEVICE)
            *(void **)data[i] = (void *)(uintptr_t)ptr;
        else
            return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr ptr)
{
    pthread_mutex_lock(&fake_lock);
    fake_allocation *a = fake_find((const void *)(uintptr_t)ptr);
    if (a != NULL) {
        *base = (CUdeviceptr)(uintptr_t)a->base;
        *size = a->bytes;
    }
    pthread_mutex_unlock(&fake_lock);
    return a != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    void *p = NULL;
    CUresult r = fake_add(bytes, 1, &p);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    return fake_remove((void *)(uintptr_t)dptr, 1);
}

FAKE_EXPORT CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags)
{
    (void)flags;
    return fake_add(bytes, 0, p);
}

FAKE_EXPORT CUresult cuMemAllocHost_v2(void **p, size_t bytes)
{
    return fake_add(bytes, 0, p);
}

FAKE_EXPORT CUresult cuMemFreeHost(void *p)
{
    return fake_remove(p, 0);
}

/* A copy the driver would refuse: a device side outside its allocation. */
static int fake_device_range_ok(CUdeviceptr d, size_t bytes)
{
    pthread_mutex_lock(&fake_lock);
    fake_allocation *a = fake_find((const void *)(uintptr_t)d);
    int ok = a != NULL && a->device && (char *)(uintptr_t)d + bytes <= a->base + a->bytes;
    pthread_mutex_unlock(&fake_lock);
    return ok;
}

/* Queue a copy; wait for it when sync. Pageable sources are read now for async copies, as the
 * driver stages them before it returns. */
static CUresult fake_copy(void *dst, const void *src, size_t bytes, int sync)
{
    /* A NULL pointer is refused, as the driver refuses it, rather than read. */
    if (dst == NULL || src == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    fake_counts.copies++;
    const fake_allocation *from = fake_find(src);
    char *staged = NULL;
    if (from == NULL && !sync) {
        staged = malloc(bytes); /* the driver's staging of a pageable source: leaked, a test */
        if (staged == NULL) {
            pthread_mutex_unlock(&fake_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        memcpy(staged, src, bytes);
    }
    uint64_t s = fake_enqueue((fake_op){
        .kind = FAKE_COPY, .dst = dst, .src = staged ? staged : src, .bytes = bytes, .rows = 1});
    if (sync)
        fake_wait(s);
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
    if (!fake_device_range_ok(dst, bytes))
        return CUDA_ERROR_INVALID_VALUE;
    return fake_copy((void *)(uintptr_t)dst, src, bytes, 1);
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
    if (!fake_device_range_ok(src, bytes))
        return CUDA_ERROR_INVALID_VALUE;
    return fake_copy(dst, (const void *)(uintptr_t)src, bytes, 1);
}

/* The stream an asynchronous call named, for the test to read. */
static void fake_note_stream(CUstream s)
{
    pthread_mutex_lock(&fake_lock);
    fake_counts.last_stream = (uintptr_t)s;
    pthread_mutex_unlock(&fake_lock);
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes,
                                          CUstream s)
{
    fake_note_stream(s);
    if (!fake_device_range_ok(dst, bytes))
        return CUDA_ERROR_INVALID_VALUE;
    return fake_copy((void *)(uintptr_t)dst, src, bytes, 0);
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    fake_note_stream(s);
    if (!fake_device_range_ok(src, bytes))
        return CUDA_ERROR_INVALID_VALUE;
    /* To pageable memory the driver's copy is synchronous; to pinned it is queued. */
    int pinned = 0;
    pthread_mutex_lock(&fake_lock);
    pinned = fake_find(dst) != NULL;
    pthread_mutex_unlock(&fake_lock);
    return fake_copy(dst, (const void *)(uintptr_t)src, bytes, !pinned);
}

FAKE_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    return fake_copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, 1);
}

FAKE_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    (void)s;
    return fake_copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, 0);
}

/* A side of a 2D copy as a pointer: host or device memory are both the fake's host memory. */
static char *fake_side(CUmemorytype type, const void *host, CUdeviceptr device, size_t x, size_t y,
                       size_t pitch)
{
    char *base = type == CU_MEMORYTYPE_HOST ? (char *)host : (char *)(uintptr_t)device;
    return base == NULL ? NULL : base + y * pitch + x;
}

static CUresult fake_copy_2d(const CUDA_MEMCPY2D *p, int sync)
{
    if (p->srcMemoryType == CU_MEMORYTYPE_ARRAY || p->dstMemoryType == CU_MEMORYTYPE_ARRAY)
        return CUDA_ERROR_NOT_SUPPORTED;
    char *src =
        fake_side(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcPitch);
    char *dst =
        fake_side(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, p->dstPitch);
    size_t w = p->WidthInBytes, h = p->Height;
    if (src == NULL || dst == NULL || p->srcPitch < w || p->dstPitch < w)
        return CUDA_ERROR_INVALID_VALUE;
    if (w == 0 || h == 0)
        return CUDA_SUCCESS;
    /* A device side must lie inside one allocation, as the driver checks. */
    if ((p->srcMemoryType == CU_MEMORYTYPE_DEVICE &&
         !fake_device_range_ok((CUdeviceptr)(uintptr_t)src, (h - 1) * p->srcPitch + w)) ||
        (p->dstMemoryType == CU_MEMORYTYPE_DEVICE &&
         !fake_device_range_ok((CUdeviceptr)(uintptr_t)dst, (h - 1) * p->dstPitch + w)))
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    fake_counts.copies++;
    size_t src_pitch = p->srcPitch;
    char *staged = NULL;
    if (fake_find(src) == NULL && !sync) {
        staged = malloc(w * h); /* the driver's staging of a pageable source: leaked, a test */
        if (staged == NULL) {
            pthread_mutex_unlock(&fake_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        for (size_t row = 0; row < h; row++)
            memcpy(staged + row * w, src + row * src_pitch, w);
        src = staged;
        src_pitch = w;
    }
    uint64_t s = fake_enqueue((fake_op){.kind = FAKE_COPY,
                                        .dst = dst,
                                        .src = src,
                                        .bytes = w,
                                        .rows = h,
                                        .dst_pitch = p->dstPitch,
                                        .src_pitch = src_pitch});
    if (sync)
        fake_wait(s);
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p)
{
    return fake_copy_2d(p, 1);
}

FAKE_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p)
{
    return fake_copy_2d(p, 1);
}

/* An asynchronous pitched copy is synchronous into pageable memory, as the driver's is. */
static int fake_to_pageable(CUmemorytype type, const void *host)
{
    pthread_mutex_lock(&fake_lock);
    int pageable = type == CU_MEMORYTYPE_HOST && fake_find(host) == NULL;
    pthread_mutex_unlock(&fake_lock);
    return pageable;
}

FAKE_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream s)
{
    (void)s;
    return fake_copy_2d(p, fake_to_pageable(p->dstMemoryType, p->dstHost));
}

/* A 3D copy: one 2D copy per slice, each with the slice's start on both sides. */
static CUresult fake_copy_3d(const CUDA_MEMCPY3D *p, int sync)
{
    if (p->srcLOD != 0 || p->dstLOD != 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t z = 0; z < p->Depth; z++) {
        CUDA_MEMCPY2D m;
        memset(&m, 0, sizeof m);
        m.srcXInBytes = p->srcXInBytes;
        m.srcY = p->srcY + (p->srcZ + z) * p->srcHeight;
        m.srcMemoryType = p->srcMemoryType;
        m.srcHost = p->srcHost;
        m.srcDevice = p->srcDevice;
        m.srcPitch = p->srcPitch;
        m.dstXInBytes = p->dstXInBytes;
        m.dstY = p->dstY + (p->dstZ + z) * p->dstHeight;
        m.dstMemoryType = p->dstMemoryType;
        m.dstHost = p->dstHost;
        m.dstDevice = p->dstDevice;
        m.dstPitch = p->dstPitch;
        m.WidthInBytes = p->WidthInBytes;
        m.Height = p->Height;
        CUresult r = fake_copy_2d(&m, sync);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p)
{
    return fake_copy_3d(p, 1);
}

FAKE_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream s)
{
    (void)s;
    return fake_copy_3d(p, fake_to_pageable(p->dstMemoryType, p->dstHost));
}

/* The per-thread default-stream forms: the same copies (the fake has one queue for every
 * stream). */
FAKE_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t bytes)
{
    return cuMemcpyHtoD_v2(dst, src, bytes);
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t bytes)
{
    return cuMemcpyDtoH_v2(dst, src, bytes);
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t bytes,
                                               CUstream s)
{
    return cuMemcpyHtoDAsync_v2(dst, src, bytes, s);
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    return cuMemcpyDtoHAsync_v2(dst, src, bytes, s);
}

FAKE_EXPORT CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *user_data)
{
    (void)s;
    pthread_mutex_lock(&fake_lock);
    fake_enqueue((fake_op){.kind = FAKE_HOST_FN, .fn = fn, .user_data = user_data});
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int flags)
{
    (void)flags;
    uint64_t *done = calloc(2, sizeof *done); /* [0]: done up to, [1]: recorded as */
    if (done == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *event = (CUevent)done;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent event, CUstream s)
{
    (void)s;
    uint64_t *e = (uint64_t *)event;
    pthread_mutex_lock(&fake_lock);
    e[1] = fake_enqueue((fake_op){.kind = FAKE_EVENT, .event_done = &e[0]});
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventSynchronize(CUevent event)
{
    uint64_t *e = (uint64_t *)event;
    pthread_mutex_lock(&fake_lock);
    while (fake_hold_events && !fake_released)
        pthread_cond_wait(&fake_release_cond, &fake_lock);
    fake_wait(e[1]);
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent event)
{
    pthread_mutex_lock(&fake_lock);
    fake_wait(((uint64_t *)event)[1]);
    pthread_mutex_unlock(&fake_lock);
    free(event);
    return CUDA_SUCCESS;
}

static uintptr_t fake_page_of(const void *p)
{
    return (uintptr_t)p / 4096u;
}

/* Registering pageable memory in place: known as pinned host memory until unregistered. An
 * overlap with memory registered already is refused, as the driver does. Unregistering reads
 * the first and last byte of the range: memory given back to the system before its
 * registration was dropped makes the test's child crash there. */
FAKE_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags)
{
    fake_called();
    if (p == NULL || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&fake_lock);
    /* The driver pins whole pages: a registration sharing a page with one made already is
     * refused, even where their bytes do not overlap. */
    for (int i = 0; i < FAKE_ALLOCATIONS; i++) {
        fake_allocation *a = &fake_allocations[i];
        int pages = a->registered && fake_page_of(p) <= fake_page_of(a->base + a->bytes - 1) &&
                    fake_page_of(a->base) <= fake_page_of((char *)p + bytes - 1);
        int bytes_overlap = (char *)p < a->base + a->bytes && a->base < (char *)p + bytes;
        if (a->base != NULL && !a->device && (pages || bytes_overlap)) {
            pthread_mutex_unlock(&fake_lock);
            return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
        }
    }
    for (int i = 0; i < FAKE_ALLOCATIONS; i++) {
        if (fake_allocations[i].base == NULL) {
            int portable = (flags & CU_MEMHOSTREGISTER_PORTABLE) != 0;
            fake_allocations[i] = (fake_allocation){p, bytes, 0, 1, portable};
            if (portable) {
                fake_counts.portable_registers++;
                fake_counts.portable_live++;
            } else {
                fake_counts.registers++;
                fake_counts.registered_live++;
            }
            pthread_mutex_unlock(&fake_lock);
            return CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&fake_lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
}

FAKE_EXPORT CUresult cuMemHostUnregister(void *p)
{
    fake_called();
    pthread_mutex_lock(&fake_lock);
    fake_wait(fake_sequence); /* as the driver's: the work queued on it is done first */
    fake_allocation *a = fake_find(p);
    if (a == NULL || a->base != p || !a->registered) {
        pthread_mutex_unlock(&fake_lock);
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    }
    volatile char first = a->base[0], last = a->base[a->bytes - 1];
    (void)first;
    (void)last;
    a->base = NULL;
    if (a->portable) {
        fake_counts.portable_live--;
    } else {
        fake_counts.unregisters++;
        fake_counts.registered_live--;
    }
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemHostGetFlags(unsigned int *flags, void *p)
{
    pthread_mutex_lock(&fake_lock);
    fake_allocation *a = fake_find(p);
    int host = a != NULL && !a->device;
    pthread_mutex_unlock(&fake_lock);
    if (!host)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = 0;
    return CUDA_SUCCESS;
}

/* Every stream is the one queue: busy while anything is queued and not run. */
FAKE_EXPORT CUresult cuStreamQuery(CUstream s)
{
    (void)s;
    pthread_mutex_lock(&fake_lock);
    int busy = fake_head != fake_tail;
    pthread_mutex_unlock(&fake_lock);
    return busy ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream s)
{
    fake_called();
    (void)s;
    pthread_mutex_lock(&fake_lock);
    fake_counts.stream_syncs++;
    fake_wait(fake_sequence);
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status)
{
    (void)s;
    *status = fake_capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}
