/* SPDX-License-Identifier: Apache-2.0 */
/* The managed-memory finding, decided per allocation: which managed allocations did kernels use
 * before (or without) any prefetch or advice on them, and how large are they. */
#include "trace_findings.h"
#include "core/checked_math.h"

#include <stdio.h>
#include <string.h>

/* What the unified-memory counters add to the evidence, when they were recorded. */
static void zc__counters(const zc_trace_log *log, const zc_trace_report *r, char *out, size_t size)
{
    char b[32], t[32];
    if (r->um_counters)
        snprintf(out, size,
                 "; unified-memory counters: %llu page-fault records and %s migrated "
                 "(GPU fault groups took %s)",
                 (unsigned long long)r->um_fault_records, zc_size_format(r->um_bytes, b, sizeof b),
                 zc_trace_format_time(zc__trace_seconds(r->um_ns), t, sizeof t));
    else if (log->um_unavailable)
        snprintf(out, size,
                 " (the driver refused unified-memory counters here, so the faults "
                 "themselves could not be counted)");
    else
        out[0] = '\0';
}

/* The rule when kernel arguments were not seen: the program as a whole (the counters, or
 * managed memory, kernels and no prefetch at all). */
static void zc__whole_program(const zc_trace_log *log, const zc_trace_report *r,
                              zc__trace_evidence *ev)
{
    char b[32], t[32];
    if (r->um_counters &&
        (r->um_fault_records >= ZC_TRACE_UM_MIN_FAULTS || r->um_bytes >= ZC_TRACE_UM_MIN_BYTES)) {
        zc__trace_evidence_set(
            ev, r->um_fault_records, r->um_bytes, zc__trace_seconds(r->um_ns), -1.0,
            "Managed memory moved by page faults",
            "%llu page-fault records and %s migrated on demand (GPU fault groups "
            "took %s); %llu prefetch calls",
            (unsigned long long)r->um_fault_records, zc_size_format(r->um_bytes, b, sizeof b),
            zc_trace_format_time(zc__trace_seconds(r->um_ns), t, sizeof t),
            (unsigned long long)r->prefetch_calls);
    } else if (!r->um_counters && r->managed_bytes >= ZC_TRACE_MANAGED_MIN_BYTES &&
               r->prefetch_calls == 0 && r->advise_calls == 0 && r->kernel_count > 0) {
        zc__trace_evidence_set(
            ev, r->managed_calls, r->managed_bytes, 0.0, -1.0,
            "Managed memory used without prefetch",
            "%s of managed memory in %llu allocations, kernels ran, and no "
            "cudaMemPrefetchAsync call: every first touch faults%s",
            zc_size_format(r->managed_bytes, b, sizeof b), (unsigned long long)r->managed_calls,
            log->um_unavailable ? " (the driver refused unified-memory counters here, so the "
                                  "faults themselves could not be counted)"
                                : "");
    }
}

zc_status zc__trace_find_managed(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc_trace_log *log = facts->log;
    const zc_trace_report *r = facts->report;
    const zc__trace_allocs *allocs = &facts->allocs;
    if (!r->launch_args_seen) {
        zc__whole_program(log, r, ev);
        return ZC_OK;
    }
    uint64_t bad_count = 0, bad_bytes = 0, used = 0, prepared = 0;
    char list[400] = "";
    size_t at = 0;
    for (size_t i = 0; i < allocs->count; i++) {
        const zc__trace_alloc *a = &allocs->items[i];
        if (a->call != ZC_TRACE_CALL_MALLOCMANAGED || a->launches == 0)
            continue;
        used++;
        if (a->prepared <= a->first_use) {
            prepared++;
            continue;
        }
        bad_count++;
        bad_bytes = zc__u64_add_sat(bad_bytes, a->bytes);
        char b[32];
        if (bad_count <= 3 && at < sizeof list) {
            int n = snprintf(list + at, sizeof list - at,
                             "%s%s at 0x%llx (first used by %s, %llu launch%s, %s)",
                             bad_count > 1 ? "; " : "", zc_size_format(a->bytes, b, sizeof b),
                             (unsigned long long)a->pointer, a->first_kernel,
                             (unsigned long long)a->launches, a->launches == 1 ? "" : "es",
                             a->prepared == UINT64_MAX ? "never prefetched or advised"
                                                       : "prefetched only after");
            at += n > 0 ? (size_t)n : 0;
        }
    }
    if (bad_bytes < ZC_TRACE_MANAGED_MIN_BYTES)
        return ZC_OK;
    char b[32], counters[200];
    zc__counters(log, r, counters, sizeof counters);
    zc__trace_evidence_set(ev, bad_count, bad_bytes, 0.0, -1.0, NULL,
                           "%llu of the %llu managed allocations kernels used (%s) %s used before "
                           "any cudaMemPrefetchAsync or cudaMemAdvise on them, so their pages "
                           "moved by faults: %s%s%s%s",
                           (unsigned long long)bad_count, (unsigned long long)used,
                           zc_size_format(bad_bytes, b, sizeof b), bad_count == 1 ? "was" : "were",
                           list, bad_count > 3 ? "; ..." : "",
                           prepared > 0 ? "; the others were prefetched or advised first" : "",
                           counters);
    return ZC_OK;
}
