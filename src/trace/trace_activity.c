/* CUPTI activity records (copies, memsets, kernels, unified-memory counters) into the log. */
#include "trace_inject.h"

#include <stdlib.h>
#include <string.h>

/* Large enough that a busy program fills few buffers; CUPTI asks for more as it needs them. */
#define ZC__BUFFER_BYTES    (4u << 20)
#define ZC__RECORD_ALIGN    8
#define ZC__KERNEL_NAME_MAX 160

static const char *zc__copy_kind(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "h2d";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "d2h";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return "h2a";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return "a2h";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        return "a2a";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
        return "a2d";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return "d2a";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "d2d";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return "h2h";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return "p2p";
    default:
        return "unknown";
    }
}

static const char *zc__memory_kind(unsigned kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
        return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
        return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
        return "array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
        return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        return "device_static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return "managed_static";
    default:
        return "unknown";
    }
}

static const char *zc__um_counter(CUpti_ActivityUnifiedMemoryCounterKind kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
        return "bytes_h2d";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
        return "bytes_d2h";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
        return "cpu_faults";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
        return "gpu_faults";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING:
        return "thrashing";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING:
        return "throttling";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP:
        return "remote_map";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD:
        return "bytes_d2d";
    default:
        return "unknown";
    }
}

/* Kernel names go on one line as one word: keep printable characters other than spaces. */
static void zc__kernel_name(const char *name, char out[ZC__KERNEL_NAME_MAX])
{
    size_t n = 0;
    for (const char *c = name ? name : "?"; *c != '\0' && n + 1 < ZC__KERNEL_NAME_MAX; c++)
        out[n++] = (*c > ' ' && *c < 127) ? *c : '_';
    if (n == 0)
        out[n++] = '?';
    out[n] = '\0';
}

static void zc__write_record(const CUpti_Activity *record)
{
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *r = (const CUpti_ActivityMemcpy6 *)record;
        zc__trace_writer_line("copy %s %s %s %llu %llu %llu %u %d %u", zc__copy_kind(r->copyKind),
                              zc__memory_kind(r->srcKind), zc__memory_kind(r->dstKind),
                              (unsigned long long)r->bytes, (unsigned long long)r->start,
                              (unsigned long long)r->end, r->streamId,
                              (r->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0, r->deviceId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *r = (const CUpti_ActivityMemset4 *)record;
        zc__trace_writer_line("memset %s %llu %llu %llu %u %d", zc__memory_kind(r->memoryKind),
                              (unsigned long long)r->bytes, (unsigned long long)r->start,
                              (unsigned long long)r->end, r->streamId,
                              (r->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? 1 : 0);
        break;
    }
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *r = (const CUpti_ActivityKernel10 *)record;
        char name[ZC__KERNEL_NAME_MAX];
        zc__kernel_name(r->name, name);
        zc__trace_writer_line("kernel %llu %llu %u %s", (unsigned long long)r->start,
                              (unsigned long long)r->end, r->streamId, name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: {
        const CUpti_ActivityUnifiedMemoryCounter3 *r =
            (const CUpti_ActivityUnifiedMemoryCounter3 *)record;
        zc__trace_writer_line("um %s %llu %llu %llu", zc__um_counter(r->counterKind),
                              (unsigned long long)r->value, (unsigned long long)r->start,
                              (unsigned long long)r->end);
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
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS)
        zc__write_record(record);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS &&
        dropped > 0)
        zc__trace_writer_line("dropped %zu", dropped);
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
