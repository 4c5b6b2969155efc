/* SPDX-License-Identifier: Apache-2.0 */
/* The copy findings: pageable copies, many small copies, synchronous copies beside kernels. */
#include "trace_analyze_internal.h"
#include "core/c_locale.h"

#include <stdio.h>

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

void zc__trace_find_copies(const zc_trace_log *log, const zc_trace_params *params,
                           zc_trace_report *r, zc__trace_busy busy)
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
            sync_hidden_ns += zc__covered(busy.merged, busy.count, c->start, c->end);
        }
    }

    if (pageable_bytes >= ZC_TRACE_PAGEABLE_MIN_BYTES ||
        pageable_count >= ZC_TRACE_PAGEABLE_MIN_COUNT) {
        double time_s = zc__trace_seconds(pageable_ns), saving = -1.0;
        char at[96] = "";
        if (params->ceiling_gbps > 0.0) {
            double pinned_s = (double)pageable_bytes / (params->ceiling_gbps * 1e9);
            saving = time_s > pinned_s ? time_s - pinned_s : 0.0;
            zc__snprintf_c(at, sizeof at, "; from pinned memory at %.1f GB/s they would take %s",
                           params->ceiling_gbps, zc_trace_format_time(pinned_s, s, sizeof s));
        }
        zc__trace_finding(
            r, "pageable_transfers", "Copies from or to pageable memory", ZC_TRACE_WARNING,
            pageable_count, pageable_bytes, time_s, saving,
            "%llu copies touched pageable (malloc'd) host memory: %s in %s, %.1f GB/s "
            "(the driver stages them through its own pinned buffer)%s",
            (unsigned long long)pageable_count, zc_size_format(pageable_bytes, b, sizeof b),
            zc_trace_format_time(time_s, t, sizeof t),
            time_s > 0 ? (double)pageable_bytes / time_s * 1e-9 : 0.0, at);
        zc__trace_fix(
            r, "Allocate the host buffers pinned once (cudaHostAlloc), or pin the existing "
               "ones with cudaHostRegister (about 10x cheaper than cudaHostAlloc), and reuse "
               "them; then cudaMemcpyAsync runs at the link's speed and can overlap kernels.");
    }

    if (small_count >= ZC_TRACE_SMALL_MIN_COUNT) {
        double time_s = zc__trace_seconds(small_ns);
        zc__trace_finding(r, "small_transfers", "Many small copies", ZC_TRACE_WARNING, small_count,
                          small_bytes, time_s, -1.0,
                          "%llu copies under %u KiB moved %s in %s of copy time (%.2f GB/s); each "
                          "also pays several microseconds of call and launch overhead on the host "
                          "that the copy time does not show",
                          (unsigned long long)small_count, ZC_TRACE_SMALL_BYTES / 1024u,
                          zc_size_format(small_bytes, b, sizeof b),
                          zc_trace_format_time(time_s, t, sizeof t),
                          time_s > 0 ? (double)small_bytes / time_s * 1e-9 : 0.0);
        zc__trace_fix(r,
                      "Gather the small pieces into one pinned staging buffer and copy it at once "
                      "(or use cudaMemcpyBatchAsync); for a few bytes read by a kernel, let the "
                      "kernel read mapped host memory instead of copying.");
    }

    uint64_t exposed = sync_ns > sync_hidden_ns ? sync_ns - sync_hidden_ns : 0;
    if (sync_count >= ZC_TRACE_SYNC_MIN_COUNT && r->kernel_count > 0 && r->span_ns > 0 &&
        (double)sync_ns >= ZC_TRACE_SYNC_MIN_SHARE * (double)r->span_ns &&
        (double)sync_hidden_ns <= ZC_TRACE_SYNC_MAX_OVERLAP * (double)sync_ns) {
        uint64_t saving_ns = exposed < r->kernel_ns ? exposed : r->kernel_ns;
        zc__trace_finding(
            r, "sync_copies_serialize", "Synchronous copies serialize with compute",
            ZC_TRACE_WARNING, sync_count, sync_bytes, zc__trace_seconds(sync_ns),
            zc__trace_seconds(saving_ns),
            "%llu synchronous copies (%s) took %s, %.0f%% of the GPU's busy span, and "
            "%.0f%% of that time ran under a kernel; %llu kernels took %s, so up to %s "
            "could be hidden by overlapping copies with kernels",
            (unsigned long long)sync_count, zc_size_format(sync_bytes, b, sizeof b),
            zc_trace_format_time(zc__trace_seconds(sync_ns), t, sizeof t),
            100.0 * (double)sync_ns / (double)r->span_ns,
            sync_ns ? 100.0 * (double)sync_hidden_ns / (double)sync_ns : 0.0,
            (unsigned long long)r->kernel_count,
            zc_trace_format_time(zc__trace_seconds(r->kernel_ns), s, sizeof s),
            zc_trace_format_time(zc__trace_seconds(saving_ns), sv, sizeof sv));
        zc__trace_fix(r,
                      "Use pinned buffers with cudaMemcpyAsync on non-default streams, split the "
                      "work into chunks and pipeline copy-in, kernel and copy-out on two or more "
                      "streams; synchronize once per chunk with events, not with cudaMemcpy.");
    }
}
