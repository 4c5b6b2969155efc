/* SPDX-License-Identifier: Apache-2.0 */
/* The mapped-memory note: kernels that were given pointers into pinned host memory read it over
 * PCIe. It says which kernels, how much host memory each could reach, and how long they took
 * against one pass over it; it claims nothing the trace did not see. */
#include "trace_findings.h"
#include "core/c_locale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZC__MAPPED_KERNELS 3 /* kernels named in the evidence */

static const char *zc__pcie_counters(const zc_trace_log *log)
{
    return log->pcie_counters[0] != '\0' ? log->pcie_counters
                                         : "not read by this run (the log does not say why)";
}

/* Kernel arguments not seen: say what was pinned and mapped, and that reads were not seen. */
static void zc__without_arguments(const zc_trace_log *log, const zc_trace_report *r,
                                  zc__trace_evidence *ev)
{
    char b[32], what[256];
    if ((r->mapped_bytes == 0 && r->devptr_calls == 0) || r->kernel_count == 0)
        return;
    if (r->mapped_bytes > 0)
        zc__snprintf_c(what, sizeof what, "%s was pinned with the mapped flag",
                       zc_size_format(r->mapped_bytes, b, sizeof b));
    else
        zc__snprintf_c(what, sizeof what,
                       "the program asked for %llu device pointers of pinned host memory "
                       "(cudaHostGetDevicePointer; under unified addressing all pinned memory, "
                       "cudaMallocHost's too, is mapped)",
                       (unsigned long long)r->devptr_calls);
    zc__trace_evidence_set(ev, r->kernel_count, r->mapped_bytes, 0.0, -1.0,
                           "Mapped host memory and kernels (reads not seen)",
                           "%s and %llu kernels ran; the kernels' arguments were not seen in this "
                           "run, so zc trace cannot tell whether any kernel read that memory. A "
                           "kernel that does reads it across PCIe (about 51 GB/s at best on the "
                           "H200 machine, against 4 TB/s from device memory). PCIe read "
                           "counters: %s",
                           what, (unsigned long long)r->kernel_count, zc__pcie_counters(log));
}

/* The measured reads of the kernel named name, or NULL. */
static const zc_trace_kernel_reads *zc__measured(const zc_trace_counters *counters,
                                                 const char *name)
{
    for (size_t i = 0; counters->reads != NULL && i < counters->count; i++) {
        if (strcmp(counters->reads[i].name, name) == 0 && counters->reads[i].launches > 0)
            return &counters->reads[i];
    }
    return NULL;
}

/* The most bytes one launch read over PCIe against the host memory one launch could reach. */
static double zc__ratio(const zc_trace_kernel_reads *m, const zc__trace_reader *x)
{
    return x->reach ? (double)m->max_read_bytes / (double)x->reach : 0.0;
}

/* What the counters said, or why there are none, into out. */
static void zc__counters_text(const zc_trace_log *log, const zc_trace_counters *counters,
                              const zc__trace_reader *readers, size_t count, char *out, size_t size)
{
    char b[32];
    size_t at = 0;
    for (size_t k = 0; k < count && at < size; k++) {
        const zc_trace_kernel_reads *m = zc__measured(counters, readers[k].name);
        if (m == NULL)
            continue;
        int n = zc__snprintf_c(out + at, size - at,
                               "%s%s read up to %s over PCIe in one launch, %.1fx the "
                               "host memory it was given",
                               at == 0 ? "PCIe reads measured by Nsight Compute: " : "; ", m->name,
                               zc_size_format(m->max_read_bytes, b, sizeof b),
                               zc__ratio(m, &readers[k]));
        at += n > 0 ? (size_t)n : 0;
    }
    if (at > 0)
        return;
    zc__snprintf_c(out, size,
                   "How often each byte was read was not measured; PCIe read counters: %s",
                   counters->why != NULL ? counters->why : zc__pcie_counters(log));
}

/* Each kernel's line of the note: launches, host memory it could reach and, with a ceiling,
 * its GPU time against one pass over that memory. */
static void zc__readers_text(const zc_trace_params *params, const zc__trace_readers *readers,
                             char *list, size_t size)
{
    char b[32], t[32], o[32];
    size_t at = 0;
    for (size_t k = 0; k < readers->count && k < ZC__MAPPED_KERNELS && at < size; k++) {
        const zc__trace_reader *x = &readers->items[k];
        char pass[160] = "";
        if (params->ceiling_gbps > 0 && x->timed_reach > 0 && x->gpu_ns > 0) {
            /* One pass over what it could reach at the link's best, against its GPU time:
             * far more time suggests reading bytes again (or work that is not reading). */
            double once_s = (double)x->timed_reach / (params->ceiling_gbps * 1e9);
            zc__snprintf_c(pass, sizeof pass,
                           ", %s on the GPU where one pass over that memory at %.1f "
                           "GB/s takes %s (%.1fx)",
                           zc_trace_format_time(zc__trace_seconds(x->gpu_ns), t, sizeof t),
                           params->ceiling_gbps, zc_trace_format_time(once_s, o, sizeof o),
                           zc__trace_seconds(x->gpu_ns) / once_s);
        }
        int n = zc__snprintf_c(list + at, size - at,
                               "%s%s (%llu launch%s, up to %s of host "
                               "memory%s)",
                               k > 0 ? "; " : "", x->name, (unsigned long long)x->launches,
                               x->launches == 1 ? "" : "es", zc_size_format(x->reach, b, sizeof b),
                               pass);
        at += n > 0 ? (size_t)n : 0;
    }
}

zc_status zc__trace_find_mapped_reads(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc__trace_readers *readers = &facts->readers;
    if (!facts->report->launch_args_seen) {
        zc__without_arguments(facts->log, facts->report, ev);
        return ZC_OK;
    }
    if (readers->count == 0)
        return ZC_OK;
    char list[480] = "", o[32], measured[400];
    zc__readers_text(facts->params, readers, list, sizeof list);
    zc__counters_text(facts->log, facts->counters, readers->items, readers->count, measured,
                      sizeof measured);
    size_t count = readers->count;
    zc__trace_evidence_set(ev, readers->launches, readers->reached, 0.0, -1.0, NULL,
                           "%zu kernel%s %s given pointers into pinned host memory (%s), so "
                           "every read of it crosses PCIe (about 51 GB/s at best on the H200 "
                           "machine, against 4 TB/s from device memory): %s%s. %s",
                           count, count == 1 ? "" : "s", count == 1 ? "was" : "were",
                           zc_size_format(readers->reached, o, sizeof o), list,
                           count > ZC__MAPPED_KERNELS ? "; ..." : "", measured);
    return ZC_OK;
}

/* A warning for the kernels measured to read their host memory again and again (readers are
 * only known when launch arguments were seen). */
zc_status zc__trace_find_mapped_rereads(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc__trace_readers *readers = &facts->readers;
    char list[480] = "", b[32], h[32];
    size_t at = 0, found = 0;
    uint64_t launches = 0, bytes = 0;
    double worst = 0.0;
    for (size_t k = 0; k < readers->count; k++) {
        const zc_trace_kernel_reads *m = zc__measured(facts->counters, readers->items[k].name);
        double ratio = m != NULL ? zc__ratio(m, &readers->items[k]) : 0.0;
        if (ratio < ZC_TRACE_REREAD_MIN_RATIO)
            continue;
        found++;
        launches += m->launches;
        bytes += m->read_bytes;
        worst = ratio > worst ? ratio : worst;
        if (at < sizeof list) {
            int n = zc__snprintf_c(list + at, sizeof list - at,
                                   "%s%s read up to %s over PCIe in one launch "
                                   "from %s of host memory (%.1fx)",
                                   found > 1 ? "; " : "", m->name,
                                   zc_size_format(m->max_read_bytes, b, sizeof b),
                                   zc_size_format(readers->items[k].reach, h, sizeof h), ratio);
            at += n > 0 ? (size_t)n : 0;
        }
    }
    if (found == 0)
        return ZC_OK;
    zc__trace_evidence_set(ev, launches, bytes, 0.0, -1.0, NULL,
                           "measured with Nsight Compute's pcie__read_bytes: %s; each byte "
                           "crossed PCIe up to %.1f times where one copy to device memory would "
                           "cross it once",
                           list, worst);
    return ZC_OK;
}
