/* SPDX-License-Identifier: Apache-2.0 */
/* The copy findings: pageable copies, many small copies, synchronous copies beside kernels. */
#include "trace_findings.h"
#include "core/c_locale.h"
#include "core/checked_math.h"

#include <stdio.h>

/* The copies of the log that pass keep, added up. */
typedef struct zc__copies {
    uint64_t count, bytes, ns;
} zc__copies;

static zc__copies zc__sum(const zc_trace_log *log, int (*keep)(const zc_trace_copy *))
{
    zc__copies sum = {0, 0, 0};
    for (size_t i = 0; i < log->copy_count; i++) {
        const zc_trace_copy *c = &log->copies[i];
        if (!keep(c))
            continue;
        sum.count++;
        sum.bytes = zc__u64_add_sat(sum.bytes, c->bytes);
        sum.ns += c->end - c->start;
    }
    return sum;
}

static int zc__is_pageable(const zc_trace_copy *c)
{
    return c->src == ZC_TRACE_MEM_PAGEABLE || c->dst == ZC_TRACE_MEM_PAGEABLE;
}

static int zc__is_small(const zc_trace_copy *c)
{
    return c->bytes < ZC_TRACE_SMALL_BYTES;
}

static int zc__is_sync_over_pcie(const zc_trace_copy *c)
{
    return !c->async && zc_trace_dir_crosses_pcie(c->dir);
}

zc_status zc__trace_find_pageable(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc_trace_params *params = facts->params;
    zc__copies p = zc__sum(facts->log, zc__is_pageable);
    if (p.bytes < ZC_TRACE_PAGEABLE_MIN_BYTES && p.count < ZC_TRACE_PAGEABLE_MIN_COUNT)
        return ZC_OK;
    char b[32], t[32], s[32];
    double time_s = zc__trace_seconds(p.ns), saving = -1.0;
    char at[96] = "";
    if (params->ceiling_gbps > 0.0) {
        double pinned_s = (double)p.bytes / (params->ceiling_gbps * 1e9);
        saving = time_s > pinned_s ? time_s - pinned_s : 0.0;
        zc__snprintf_c(at, sizeof at, "; from pinned memory at %.1f GB/s they would take %s",
                       params->ceiling_gbps, zc_trace_format_time(pinned_s, s, sizeof s));
    }
    zc__trace_evidence_set(ev, p.count, p.bytes, time_s, saving, NULL,
                           "%llu copies touched pageable (malloc'd) host memory: %s in %s, %.1f "
                           "GB/s (the driver stages them through its own pinned buffer)%s",
                           (unsigned long long)p.count, zc_size_format(p.bytes, b, sizeof b),
                           zc_trace_format_time(time_s, t, sizeof t),
                           time_s > 0 ? (double)p.bytes / time_s * 1e-9 : 0.0, at);
    return ZC_OK;
}

zc_status zc__trace_find_small(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    zc__copies p = zc__sum(facts->log, zc__is_small);
    if (p.count < ZC_TRACE_SMALL_MIN_COUNT)
        return ZC_OK;
    char b[32], t[32];
    double time_s = zc__trace_seconds(p.ns);
    zc__trace_evidence_set(ev, p.count, p.bytes, time_s, -1.0, NULL,
                           "%llu copies under %u KiB moved %s in %s of copy time (%.2f GB/s); "
                           "each also pays several microseconds of call and launch overhead on "
                           "the host that the copy time does not show",
                           (unsigned long long)p.count, ZC_TRACE_SMALL_BYTES / 1024u,
                           zc_size_format(p.bytes, b, sizeof b),
                           zc_trace_format_time(time_s, t, sizeof t),
                           time_s > 0 ? (double)p.bytes / time_s * 1e-9 : 0.0);
    return ZC_OK;
}

zc_status zc__trace_find_sync(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc_trace_log *log = facts->log;
    const zc_trace_report *r = facts->report;
    zc__copies p = zc__sum(log, zc__is_sync_over_pcie);
    uint64_t hidden = 0;
    for (size_t i = 0; i < log->copy_count; i++) {
        const zc_trace_copy *c = &log->copies[i];
        if (zc__is_sync_over_pcie(c))
            hidden += zc__trace_busy_covered(&facts->busy, c->start, c->end);
    }
    if (p.count < ZC_TRACE_SYNC_MIN_COUNT || r->kernel_count == 0 || r->span_ns == 0 ||
        (double)p.ns < ZC_TRACE_SYNC_MIN_SHARE * (double)r->span_ns ||
        (double)hidden > ZC_TRACE_SYNC_MAX_OVERLAP * (double)p.ns)
        return ZC_OK;
    char b[32], t[32], s[32], sv[32];
    uint64_t exposed = p.ns > hidden ? p.ns - hidden : 0;
    uint64_t saving_ns = exposed < r->kernel_ns ? exposed : r->kernel_ns;
    zc__trace_evidence_set(
        ev, p.count, p.bytes, zc__trace_seconds(p.ns), zc__trace_seconds(saving_ns), NULL,
        "%llu synchronous copies (%s) took %s, %.0f%% of the GPU's busy span, and "
        "%.0f%% of that time ran under a kernel; %llu kernels took %s, so up to %s "
        "could be hidden by overlapping copies with kernels",
        (unsigned long long)p.count, zc_size_format(p.bytes, b, sizeof b),
        zc_trace_format_time(zc__trace_seconds(p.ns), t, sizeof t),
        100.0 * (double)p.ns / (double)r->span_ns,
        p.ns ? 100.0 * (double)hidden / (double)p.ns : 0.0, (unsigned long long)r->kernel_count,
        zc_trace_format_time(zc__trace_seconds(r->kernel_ns), s, sizeof s),
        zc_trace_format_time(zc__trace_seconds(saving_ns), sv, sizeof sv));
    return ZC_OK;
}
