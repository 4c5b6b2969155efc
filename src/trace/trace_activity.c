/* SPDX-License-Identifier: Apache-2.0 */
/* CUPTI activity records (copies, memsets, kernels, unified-memory counters) into the log. */
#include "trace_inject.h"

#include <stdlib.h>
#include <string.h>

/* Large enough that a busy program fills few buffers; CUPTI asks for more as it needs them. */
#define ZC__BUFFER_BYTES (4u << 20)
#define ZC__RECORD_ALIGN 8

static zc_trace_dir zc__copy_kind(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return ZC_TRACE_DIR_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return ZC_TRACE_DIR_D2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return ZC_TRACE_DIR_H2A;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return ZC_TRACE_DIR_A2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        return ZC_TRACE_DIR_A2A;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
        return ZC_TRACE_DIR_A2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return ZC_TRACE_DIR_D2A;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return ZC_TRACE_DIR_D2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return ZC_TRACE_DIR_H2H;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return ZC_TRACE_DIR_P2P;
    default:
        return ZC_TRACE_DIR_UNKNOWN;
    }
}

static zc_trace_mem zc__memory_kind(unsigned kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
        return ZC_TRACE_MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
        return ZC_TRACE_MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        return ZC_TRACE_MEM_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
        return ZC_TRACE_MEM_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
        return ZC_TRACE_MEM_MANAGED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        return ZC_TRACE_MEM_DEVICE_STATIC;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return ZC_TRACE_MEM_MANAGED_STATIC;
    default:
        return ZC_TRACE_MEM_UNKNOWN;
    }
}

static zc_trace_um_counter zc__um_counter(CUpti_ActivityUnifiedMemoryCounterKind kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
        return ZC_TRACE_UM_BYTES_H2D;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
        return ZC_TRACE_UM_BYTES_D2H;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
        return ZC_TRACE_UM_CPU_FAULTS;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
        return ZC_TRACE_UM_GPU_FAULTS;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING:
        return ZC_TRACE_UM_THRASHING;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING:
        return ZC_TRACE_UM_THROTTLING;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP:
        return ZC_TRACE_UM_REMOTE_MAP;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD:
        return ZC_TRACE_UM_BYTES_D2D;
    default:
        return ZC_TRACE_UM_UNKNOWN;
    }
}

/* One activity record as one log record. Call with the log locked. */
static void zc__write_record(FILE *log, const CUpti_Activity *record)
{
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *r = (const CUpti_ActivityMemcpy6 *)record;
        zc_trace_copy copy = {
            .dir = zc__copy_kind(r->copyKind),
            .src = zc__memory_kind(r->srcKind),
            .dst = zc__memory_kind(r->dstKind),
            .bytes = r->bytes,
            .start = r->start,
            .end = r->end,
            .stream = r->streamId,
            .async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0,
        };
        zc__trace_write_copy(log, &copy, r->deviceId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *r = (const CUpti_ActivityMemset4 *)record;
        zc_trace_memset memset_record = {
            .kind = zc__memory_kind(r->memoryKind),
            .bytes = r->bytes,
            .start = r->start,
            .end = r->end,
            .stream = r->streamId,
            .async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? 1 : 0,
        };
        zc__trace_write_memset(log, &memset_record);
        break;
    }
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *r = (const CUpti_ActivityKernel10 *)record;
        zc_trace_kernel kernel = {
            .start = r->start,
            .end = r->end,
            .stream = r->streamId,
            .correlation = r->correlationId,
        };
        zc__trace_write_kernel(log, &kernel, r->name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: {
        const CUpti_ActivityUnifiedMemoryCounter3 *r =
            (const CUpti_ActivityUnifiedMemoryCounter3 *)record;
        zc_trace_um um = {
            .counter = zc__um_counter(r->counterKind),
            .value = r->value,
            .start = r->start,
            .end = r->end,
        };
        zc__trace_write_um(log, &um);
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI zc__buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(ZC__RECORD_ALIGN, ZC__BUFFER_BYTES);
    *size = *buffer != NULL ? ZC__BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

static void CUPTIAPI zc__buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                          size_t size, size_t valid_size)
{
    CUpti_Activity *record = NULL;
    FILE *log = zc__trace_writer_lock();
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
        if (log != NULL)
            zc__write_record(log, record);
    }
    size_t dropped = 0;
    if (log != NULL &&
        cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS &&
        dropped > 0)
        zc__trace_write_dropped(log, dropped);
    zc__trace_writer_unlock();
    free(buffer);
}

/* Unified-memory counters must be configured before their activity kind is enabled; drivers
 * and virtual machines that cannot profile unified memory refuse, and the log says so. */
static void zc__enable_um_counters(void)
{
    static const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
    };
    enum { count = sizeof kinds / sizeof kinds[0] };
    CUpti_ActivityUnifiedMemoryCounterConfig config[count];
    memset(config, 0, sizeof config);
    for (int i = 0; i < count; i++) {
        config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
        config[i].kind = kinds[i];
        config[i].deviceId = 0;
        config[i].enable = 1;
    }
    CUptiResult result = cuptiActivityConfigureUnifiedMemoryCounter(config, count);
    if (result != CUPTI_SUCCESS) {
        zc__trace_note_cupti("um_counters_unavailable",
                             "cuptiActivityConfigureUnifiedMemoryCounter", result);
        return;
    }
    result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (result != CUPTI_SUCCESS)
        zc__trace_note_cupti("um_counters_unavailable",
                             "cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)", result);
}

void zc__trace_activity_start(void)
{
    CUptiResult result = cuptiActivityRegisterCallbacks(zc__buffer_requested, zc__buffer_completed);
    if (result != CUPTI_SUCCESS) {
        zc__trace_note_cupti("activity_unavailable", "cuptiActivityRegisterCallbacks", result);
        return;
    }
    static const struct {
        CUpti_ActivityKind kind;
        const char *name;
    } kinds[] = {
        {CUPTI_ACTIVITY_KIND_MEMCPY, "cuptiActivityEnable(MEMCPY)"},
        {CUPTI_ACTIVITY_KIND_MEMSET, "cuptiActivityEnable(MEMSET)"},
        {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "cuptiActivityEnable(CONCURRENT_KERNEL)"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        result = cuptiActivityEnable(kinds[i].kind);
        if (result != CUPTI_SUCCESS)
            zc__trace_note_cupti("activity_unavailable", kinds[i].name, result);
    }
    zc__enable_um_counters();
}

void zc__trace_activity_flush(void)
{
    CUptiResult result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (result != CUPTI_SUCCESS)
        zc__trace_note_cupti("flush_failed", "cuptiActivityFlushAll", result);
}
