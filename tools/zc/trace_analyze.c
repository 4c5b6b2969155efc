/* zc trace's analysis of a recorded run: totals per path and the pitfalls, with evidence. */
#include "trace_analyze.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *zc_trace_format_bytes(uint64_t bytes, char *out, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = (double)bytes;
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        unit++;
    }
    if (unit == 0)
        snprintf(out, size, "%llu B", (unsigned long long)bytes);
    else
        snprintf(out, size, "%.1f %s", value, units[unit]);
    return out;
}

const char *zc_trace_format_time(double seconds, char *out, size_t size)
{
    if (seconds >= 1.0)
        snprintf(out, size, "%.2f s", seconds);
    else if (seconds >= 1e-3)
        snprintf(out, size, "%.1f ms", seconds * 1e3);
    else
        snprintf(out, size, "%.1f us", seconds * 1e6);
    return out;
}

int zc_trace_dir_crosses_pcie(zc_trace_dir dir)
{
    return dir == ZC_TRACE_DIR_H2D || dir == ZC_TRACE_DIR_D2H || dir == ZC_TRACE_DIR_H2A ||
           dir == ZC_TRACE_DIR_A2H;
}

const zc_trace_finding *zc_trace_report_find(const zc_trace_report *report, const char *key)
{
    for (size_t i = 0; report != NULL && i < report->finding_count; i++) {
        if (strcmp(report->findings[i].key, key) == 0)
            return &report->findings[i];
    }
    return NULL;
}

static double zc__seconds(uint64_t ns)
{
    return (double)ns * 1e-9;
}

/* Add a finding; the evidence is a printf format, the fix fixed text. */
__attribute__((format(printf, 9, 10))) static void
zc__finding(zc_trace_report *report, const char *key, const char *title, zc_trace_severity severity,
            uint64_t count, uint64_t bytes, double time_s, double saving_s, const char *evidence,
            ...)
{
    if (report->finding_count == ZC_TRACE_FINDING_MAX)
        return;
    zc_trace_finding *f = &report->findings[report->finding_count++];
    memset(f, 0, sizeof *f);
    f->key = key;
    f->title = title;
    f->severity = severity;
    f->count = count;
    f->bytes = bytes;
    f->time_s = time_s;
    f->saving_s = saving_s;
    va_list args;
    va_start(args, evidence);
    vsnprintf(f->evidence, sizeof f->evidence, evidence, args);
    va_end(args);
}

static void zc__fix(zc_trace_report *report, const char *fix)
{
    snprintf(report->findings[report->finding_count - 1].fix, sizeof report->findings[0].fix, "%s",
             fix);
}

/* Totals per copy path and per memset kind, the kernels and the run's GPU span. */
static void zc__totals(const zc_trace_log *log, zc_trace_report *r)
{
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < log->copy_count; i++) {
        const zc_trace_copy *c = &log->copies[i];
        size_t p = 0;
        while (p < r->path_count && !(r->paths[p].dir == c->dir && r->paths[p].src == c->src &&
                                      r->paths[p].dst == c->dst))
            p++;
        if (p == r->path_count) {
            if (p == ZC_TRACE_PATH_MAX)
                continue; /* cannot happen: fewer combinations exist */
            r->paths[p] = (zc_trace_path){.dir = c->dir, .src = c->src, .dst = c->dst};
            r->path_count++;
        }
        r->paths[p].count++;
        r->paths[p].sync_count += c->async ? 0 : 1;
        r->paths[p].bytes += c->bytes;
        r->paths[p].time_ns += c->end - c->start;
        first = c->start < first ? c->start : first;
        last = c->end > last ? c->end : last;
    }
    r->copy_count = log->copy_count;
    for (size_t i = 0; i < log->memset_count; i++) {
        const zc_trace_memset *m = &log->memsets[i];
        size_t p = 0;
        while (p < r->memset_count && r->memsets[p].src != m->kind)
            p++;
        if (p == r->memset_count) {
            r->memsets[p] = (zc_trace_path){.dir = ZC_TRACE_DIR_UNKNOWN, .src = m->kind};
            r->memset_count++;
        }
        r->memsets[p].count++;
        r->memsets[p].sync_count += m->async ? 0 : 1;
        r->memsets[p].bytes += m->bytes;
        r->memsets[p].time_ns += m->end - m->start;
        first = m->start < first ? m->start : first;
        last = m->end > last ? m->end : last;
    }
    for (size_t i = 0; i < log->kernel_count; i++) {
        const zc_trace_kernel *k = &log->kernels[i];
        r->kernel_count++;
        r->kernel_ns += k->end - k->start;
        first = k->start < first ? k->start : first;
        last = k->end > last ? k->end : last;
    }
    r->span_ns = last > first ? last - first : 0;
}

/* One live pinned range, to match frees with the allocations they undo. */
typedef struct zc__live {
    int process;
    uint64_t pointer;
    uint64_t bytes;
} zc__live;

static int zc__by_start(const void *a, const void *b)
{
    const zc_trace_api *x = *(const zc_trace_api *const *)a, *y = *(const zc_trace_api *const *)b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Host-memory totals and the peak of pinned memory held at once. */
static zc_status zc__host_memory(const zc_trace_log *log, zc_trace_report *r)
{
    if (log->api_count == 0)
        return ZC_OK;
    const zc_trace_api **order = calloc(log->api_count, sizeof *order);
    zc__live *live = calloc(log->api_count, sizeof *live);
    if (order == NULL || live == NULL) {
        free(order);
        free(live);
        return ZC_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < log->api_count; i++)
        order[i] = &log->apis[i];
    qsort(order, log->api_count, sizeof *order, zc__by_start);

    size_t live_count = 0;
    uint64_t pinned = 0, peak = 0, peak_sum = 0;
    int process = order[0]->process;
    for (size_t i = 0; i < log->api_count; i++) {
        const zc_trace_api *a = order[i];
        if (a->process != process) {
            /* Processes may overlap in time: their peaks add up, as an upper bound. */
            peak_sum += peak;
            peak = pinned = 0;
            process = a->process;
        }
        if (!a->ok)
            continue;
        switch (a->call) {
        case ZC_TRACE_CALL_HOSTALLOC:
        case ZC_TRACE_CALL_HOSTREGISTER:
            r->pin_calls++;
            r->pin_bytes += a->bytes;
            r->pin_ns += a->end - a->start;
            if (a->call == ZC_TRACE_CALL_HOSTALLOC) {
                r->alloc_calls++;
                r->alloc_ns += a->end - a->start;
                r->alloc_bytes += a->bytes;
            }
            /* The runtime may ask the driver for mapped memory on its own (every pinned
             * allocation is mapped under UVA): only the program's own request counts. */
            if (a->runtime && (a->flags & ZC_TRACE_FLAG_MAPPED))
                r->mapped_bytes += a->bytes;
            live[live_count++] = (zc__live){a->process, a->pointer, a->bytes};
            pinned += a->bytes;
            peak = pinned > peak ? pinned : peak;
            break;
        case ZC_TRACE_CALL_FREEHOST:
        case ZC_TRACE_CALL_HOSTUNREGISTER:
            for (size_t j = 0; j < live_count; j++) {
                if (live[j].process == a->process && live[j].pointer == a->pointer) {
                    pinned -= live[j].bytes;
                    live[j] = live[--live_count];
                    break;
                }
            }
            break;
        case ZC_TRACE_CALL_MALLOCMANAGED:
            r->managed_calls++;
            r->managed_bytes += a->bytes;
            break;
        case ZC_TRACE_CALL_HOSTGETDEVICEPTR:
            /* The runtime asks the driver for device pointers of its own allocations. */
            if (a->runtime)
                r->devptr_calls++;
            break;
        case ZC_TRACE_CALL_PREFETCH:
            r->prefetch_calls++;
            break;
        default:
            break;
        }
    }
    r->peak_pinned_bytes = peak_sum + peak;
    free(order);
    free(live);
    return ZC_OK;
}

static void zc__unified_memory(const zc_trace_log *log, zc_trace_report *r)
{
    for (size_t i = 0; i < log->um_count; i++) {
        const zc_trace_um *u = &log->ums[i];
        r->um_counters = 1;
        switch (u->counter) {
        case ZC_TRACE_UM_GPU_FAULTS:
            r->um_fault_records++;
            r->um_ns += u->end - u->start;
            break;
        case ZC_TRACE_UM_CPU_FAULTS:
            r->um_fault_records += u->value ? u->value : 1;
            break;
        case ZC_TRACE_UM_BYTES_H2D:
        case ZC_TRACE_UM_BYTES_D2H:
            r->um_bytes += u->value;
            break;
        default:
            break;
        }
    }
}

static int zc__by_kernel_start(const void *a, const void *b)
{
    const zc_trace_kernel *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Time of [start, end) covered by the merged, sorted intervals. */
static uint64_t zc__covered(const zc_trace_kernel *merged, size_t count, uint64_t start,
                            uint64_t end)
{
    /* The first interval that ends after start, by binary search. */
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (merged[mid].end <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t covered = 0;
    for (size_t i = lo; i < count && merged[i].start < end; i++) {
        uint64_t s = merged[i].start > start ? merged[i].start : start;
        uint64_t e = merged[i].end < end ? merged[i].end : end;
        covered += e > s ? e - s : 0;
    }
    return covered;
}

static void zc__find_copies(const zc_trace_log *log, const zc_trace_params *params,
                            zc_trace_report *r, const zc_trace_kernel *merged, size_t merged_count)
{
    char b[32], t[32], s[32], sv[32];
    uint64_t pageable_count = 0, pageable_bytes = 0, pageable_ns = 0;
    uint64_t small_count = 0, small_bytes = 0, small_ns = 0;
    uint64_t sync_count = 0, sync_bytes = 0, sync_ns = 0, sync_hidden_ns = 0;
    for (size_t i = 0; i < log->copy_count; i++) {
        const zc_trace_copy *c = &log->copies[i];
        uint64_t ns = c->end - c->start;
        if (c->src == ZC_TRACE_MEM_PAGEABLE || c->dst == ZC_TRACE_MEM_PAGEABLE) {
            pageable_count++;
            pageable_bytes += c->bytes;
            pageable_ns += ns;
        }
        if (c->bytes < ZC_TRACE_SMALL_BYTES) {
            small_count++;
            small_bytes += c->bytes;
            small_ns += ns;
        }
        if (!c->async && zc_trace_dir_crosses_pcie(c->dir)) {
            sync_count++;
            sync_bytes += c->bytes;
            sync_ns += ns;
            sync_hidden_ns += zc__covered(merged, merged_count, c->start, c->end);
        }
    }

    if (pageable_bytes >= ZC_TRACE_PAGEABLE_MIN_BYTES ||
        pageable_count >= ZC_TRACE_PAGEABLE_MIN_COUNT) {
        double time_s = zc__seconds(pageable_ns), saving = -1.0;
        char at[96] = "";
        if (params->ceiling_gbps > 0.0) {
            double pinned_s = (double)pageable_bytes / (params->ceiling_gbps * 1e9);
            saving = time_s > pinned_s ? time_s - pinned_s : 0.0;
            snprintf(at, sizeof at, "; from pinned memory at %.1f GB/s they would take %s",
                     params->ceiling_gbps, zc_trace_format_time(pinned_s, s, sizeof s));
        }
        zc__finding(r, "pageable_transfers", "Copies from or to pageable memory", ZC_TRACE_WARNING,
                    pageable_count, pageable_bytes, time_s, saving,
                    "%llu copies touched pageable (malloc'd) host memory: %s in %s, %.1f GB/s "
                    "(the driver stages them through its own pinned buffer)%s",
                    (unsigned long long)pageable_count,
                    zc_trace_format_bytes(pageable_bytes, b, sizeof b),
                    zc_trace_format_time(time_s, t, sizeof t),
                    time_s > 0 ? (double)pageable_bytes / time_s * 1e-9 : 0.0, at);
        zc__fix(r, "Allocate the host buffers pinned once (cudaHostAlloc), or pin the existing "
                   "ones with cudaHostRegister (about 10x cheaper than cudaHostAlloc), and reuse "
                   "them; then cudaMemcpyAsync runs at the link's speed and can overlap kernels.");
    }

    if (small_count >= ZC_TRACE_SMALL_MIN_COUNT) {
        double time_s = zc__seconds(small_ns);
        zc__finding(r, "small_transfers", "Many small copies", ZC_TRACE_WARNING, small_count,
                    small_bytes, time_s, -1.0,
                    "%llu copies under %u KiB moved %s in %s of copy time (%.2f GB/s); each "
                    "also pays several microseconds of call and launch overhead on the host "
                    "that the copy time does not show",
                    (unsigned long long)small_count, ZC_TRACE_SMALL_BYTES / 1024u,
                    zc_trace_format_bytes(small_bytes, b, sizeof b),
                    zc_trace_format_time(time_s, t, sizeof t),
                    time_s > 0 ? (double)small_bytes / time_s * 1e-9 : 0.0);
        zc__fix(r, "Gather the small pieces into one pinned staging buffer and copy it at once "
                   "(or use cudaMemcpyBatchAsync); for a few bytes read by a kernel, let the "
                   "kernel read mapped host memory instead of copying.");
    }

    uint64_t exposed = sync_ns > sync_hidden_ns ? sync_ns - sync_hidden_ns : 0;
    if (sync_count >= ZC_TRACE_SYNC_MIN_COUNT && r->kernel_count > 0 && r->span_ns > 0 &&
        (double)sync_ns >= ZC_TRACE_SYNC_MIN_SHARE * (double)r->span_ns &&
        (double)sync_hidden_ns <= ZC_TRACE_SYNC_MAX_OVERLAP * (double)sync_ns) {
        uint64_t saving_ns = exposed < r->kernel_ns ? exposed : r->kernel_ns;
        zc__finding(r, "sync_copies_serialize", "Synchronous copies serialize with compute",
                    ZC_TRACE_WARNING, sync_count, sync_bytes, zc__seconds(sync_ns),
                    zc__seconds(saving_ns),
                    "%llu synchronous copies (%s) took %s, %.0f%% of the GPU's busy span, and "
                    "%.0f%% of that time ran under a kernel; %llu kernels took %s, so up to %s "
                    "could be hidden by overlapping copies with kernels",
                    (unsigned long long)sync_count, zc_trace_format_bytes(sync_bytes, b, sizeof b),
                    zc_trace_format_time(zc__seconds(sync_ns), t, sizeof t),
                    100.0 * (double)sync_ns / (double)r->span_ns,
                    sync_ns ? 100.0 * (double)sync_hidden_ns / (double)sync_ns : 0.0,
                    (unsigned long long)r->kernel_count,
                    zc_trace_format_time(zc__seconds(r->kernel_ns), s, sizeof s),
                    zc_trace_format_time(zc__seconds(saving_ns), sv, sizeof sv));
        zc__fix(r, "Use pinned buffers with cudaMemcpyAsync on non-default streams, split the "
                   "work into chunks and pipeline copy-in, kernel and copy-out on two or more "
                   "streams; synchronize once per chunk with events, not with cudaMemcpy.");
    }
}

static void zc__find_host_memory(const zc_trace_params *params, zc_trace_report *r)
{
    char b[32], t[32], s[32];
    if (r->pin_calls >= ZC_TRACE_PIN_LOOP_MIN_CALLS && r->pin_ns >= ZC_TRACE_PIN_LOOP_MIN_NS) {
        zc__finding(
            r, "pinned_alloc_in_loop", "Pinned memory allocated over and over", ZC_TRACE_WARNING,
            r->pin_calls, r->pin_bytes, zc__seconds(r->pin_ns), zc__seconds(r->pin_ns),
            "%llu calls pinned host memory (%s in all) and took %s; pinning maps and "
            "locks every page and is far slower than malloc",
            (unsigned long long)r->pin_calls, zc_trace_format_bytes(r->pin_bytes, b, sizeof b),
            zc_trace_format_time(zc__seconds(r->pin_ns), t, sizeof t));
        zc__fix(r, "Pin once at start-up, outside the loop, and reuse the buffers (a pool of "
                   "pinned buffers for varying sizes); free them at exit.");
    }
    if (r->alloc_ns >= ZC_TRACE_SLOW_ALLOC_NS) {
        zc__finding(r, "slow_pinned_alloc", "cudaHostAlloc time", ZC_TRACE_WARNING, r->alloc_calls,
                    r->alloc_bytes, zc__seconds(r->alloc_ns), -1.0,
                    "%llu cudaHostAlloc/cudaMallocHost calls took %s for %s (%.0f ms per GiB)",
                    (unsigned long long)r->alloc_calls,
                    zc_trace_format_time(zc__seconds(r->alloc_ns), t, sizeof t),
                    zc_trace_format_bytes(r->alloc_bytes, b, sizeof b),
                    r->alloc_bytes ? zc__seconds(r->alloc_ns) * 1e3 /
                                         ((double)r->alloc_bytes / (1024.0 * 1024.0 * 1024.0))
                                   : 0.0);
        zc__fix(r, "Allocate with mmap and huge pages, touch the pages from several threads, then "
                   "cudaHostRegister the range (zc_buffer_alloc does it): on the H200 machine "
                   "that pinned 1 GiB in 58 ms against 360 ms for cudaHostAlloc; or pin in the "
                   "background before the data is needed.");
    }
    uint64_t ram = params->ram_bytes ? params->ram_bytes : r->ram_bytes;
    r->ram_bytes = ram;
    if (ram > 0 && (double)r->peak_pinned_bytes > ZC_TRACE_OVERPIN_SHARE * (double)ram) {
        zc__finding(r, "over_pinning", "Pinned memory out of proportion to RAM", ZC_TRACE_WARNING,
                    r->pin_calls, r->peak_pinned_bytes, zc__seconds(r->pin_ns), -1.0,
                    "up to %s was pinned at once, %.0f%% of the %s of RAM; pinned pages cannot "
                    "be swapped or moved, so the rest of the system runs short",
                    zc_trace_format_bytes(r->peak_pinned_bytes, b, sizeof b),
                    100.0 * (double)r->peak_pinned_bytes / (double)ram,
                    zc_trace_format_bytes(ram, s, sizeof s));
        zc__fix(r, "Pin only the staging buffers that copies go through (a few chunks of tens "
                   "of MiB, double-buffered), not whole data sets; stream large data through "
                   "them with cudaMemcpyAsync.");
    }
}

static void zc__find_managed(const zc_trace_log *log, zc_trace_report *r)
{
    char b[32], t[32];
    if (r->um_counters &&
        (r->um_fault_records >= ZC_TRACE_UM_MIN_FAULTS || r->um_bytes >= ZC_TRACE_UM_MIN_BYTES)) {
        zc__finding(r, "managed_faults", "Managed memory moved by page faults", ZC_TRACE_WARNING,
                    r->um_fault_records, r->um_bytes, zc__seconds(r->um_ns), -1.0,
                    "%llu page-fault records and %s migrated on demand (GPU fault groups took "
                    "%s); %llu prefetch calls",
                    (unsigned long long)r->um_fault_records,
                    zc_trace_format_bytes(r->um_bytes, b, sizeof b),
                    zc_trace_format_time(zc__seconds(r->um_ns), t, sizeof t),
                    (unsigned long long)r->prefetch_calls);
    } else if (!r->um_counters && r->managed_bytes >= ZC_TRACE_MANAGED_MIN_BYTES &&
               r->prefetch_calls == 0 && r->kernel_count > 0) {
        zc__finding(r, "managed_faults", "Managed memory used without prefetch", ZC_TRACE_WARNING,
                    r->managed_calls, r->managed_bytes, 0.0, -1.0,
                    "%s of managed memory in %llu allocations, kernels ran, and no "
                    "cudaMemPrefetchAsync call: every first touch faults%s",
                    zc_trace_format_bytes(r->managed_bytes, b, sizeof b),
                    (unsigned long long)r->managed_calls,
                    log->um_unavailable ? " (the driver refused unified-memory counters here, so "
                                          "the faults themselves could not be counted)"
                                        : "");
    } else {
        return;
    }
    zc__fix(r, "Prefetch with cudaMemPrefetchAsync to the GPU before the kernels and back to "
               "the CPU before the host reads, or give advice (cudaMemAdviseSetReadMostly, "
               "SetPreferredLocation); for data streamed once, use pinned buffers and explicit "
               "copies instead.");
}

static void zc__find_mapped(zc_trace_report *r)
{
    char b[32];
    if ((r->mapped_bytes == 0 && r->devptr_calls == 0) || r->kernel_count == 0)
        return;
    zc__finding(r, "mapped_memory_reads", "Mapped host memory read by kernels (not measured)",
                ZC_TRACE_NOTE, r->kernel_count, r->mapped_bytes, 0.0, -1.0,
                "%s was pinned with the mapped flag (%llu cudaHostGetDevicePointer calls) and "
                "%llu kernels ran; every kernel read of it crosses PCIe (about 51 GB/s at best "
                "on the H200 machine, against 4 TB/s from device memory). zc trace cannot see "
                "how often each byte is read: that needs the kernels' PCIe read counters "
                "(Nsight Compute's pcie__read_bytes metric, or CUPTI's profiling API)",
                zc_trace_format_bytes(r->mapped_bytes, b, sizeof b),
                (unsigned long long)r->devptr_calls, (unsigned long long)r->kernel_count);
    zc__fix(r, "Read mapped memory once per byte with coalesced 16-byte loads; if a kernel "
               "reads the same bytes more than once, copy them to device memory first "
               "(cudaMemcpyAsync) and read them there.");
}

zc_status zc_trace_analyze(const zc_trace_log *log, const zc_trace_params *params,
                           zc_trace_report *report_p)
{
    if (log == NULL || params == NULL || report_p == NULL)
        return ZC_ERR_INVALID_ARG;
    zc_trace_report *r = calloc(1, sizeof *r);
    zc_trace_kernel *merged = NULL;
    if (r == NULL)
        return ZC_ERR_NO_MEMORY;
    r->ram_bytes = log->ram_bytes;
    zc__totals(log, r);
    zc_status status = zc__host_memory(log, r);
    if (status != ZC_OK)
        goto free_report;
    zc__unified_memory(log, r);

    /* Kernel intervals merged into disjoint, sorted ones, to measure what copies overlap. */
    size_t merged_count = 0;
    if (log->kernel_count > 0) {
        merged = malloc(log->kernel_count * sizeof *merged);
        if (merged == NULL) {
            status = ZC_ERR_NO_MEMORY;
            goto free_report;
        }
        memcpy(merged, log->kernels, log->kernel_count * sizeof *merged);
        qsort(merged, log->kernel_count, sizeof *merged, zc__by_kernel_start);
        for (size_t i = 0; i < log->kernel_count; i++) {
            if (merged_count > 0 && merged[i].start <= merged[merged_count - 1].end) {
                if (merged[i].end > merged[merged_count - 1].end)
                    merged[merged_count - 1].end = merged[i].end;
            } else {
                merged[merged_count++] = merged[i];
            }
        }
    }
    zc__find_copies(log, params, r, merged, merged_count);
    zc__find_host_memory(params, r);
    zc__find_managed(log, r);
    zc__find_mapped(r);
    *report_p = *r;
    free(merged);
free_report:
    free(r);
    return status;
}
