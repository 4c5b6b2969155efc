/* SPDX-License-Identifier: Apache-2.0 */
/* The mapped-memory note: kernels that were given pointers into pinned host memory read it over
 * PCIe. It says which kernels, how much host memory each could reach, and how long they took
 * against one pass over it; it claims nothing the trace did not see. */
#include "trace_analyze_internal.h"
#include "core/c_locale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZC__MAPPED_KERNELS 3 /* kernels named in the evidence */

static const char zc__mapped_fix[] =
    "Read mapped memory once per byte with coalesced 16-byte loads; if a kernel reads the same "
    "bytes more than once, copy them to device memory first (cudaMemcpyAsync) and read them "
    "there.";

/* One kernel (by name) given pinned host memory. */
typedef struct zc__reader {
    char name[ZC_TRACE_LAUNCH_NAME];
    uint64_t launches;
    uint64_t reach;       /* the most pinned host bytes one launch could reach */
    uint64_t gpu_ns;      /* time of its launches on the GPU (those joined to a kernel record) */
    uint64_t timed_reach; /* reach summed over the launches that were timed */
} zc__reader;

static int zc__by_correlation(const void *a, const void *b)
{
    const zc_trace_kernel *x = a, *y = b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

static const zc_trace_kernel *zc__kernel_of(const zc_trace_kernel *sorted, size_t count,
                                            int process, uint32_t correlation)
{
    zc_trace_kernel key = {.process = process, .correlation = correlation};
    /* bsearch must not be given a NULL array, even for no elements (a log with no kernels). */
    return correlation == 0 || sorted == NULL || count == 0
               ? NULL
               : bsearch(&key, sorted, count, sizeof *sorted, zc__by_correlation);
}

static const char *zc__pcie_counters(const zc_trace_log *log)
{
    return log->pcie_counters[0] != '\0' ? log->pcie_counters
                                         : "not read by this run (the log does not say why)";
}

/* Kernel arguments not seen: say what was pinned and mapped, and that reads were not seen. */
static void zc__without_arguments(const zc_trace_log *log, zc_trace_report *r)
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
    zc__trace_finding(r, "mapped_memory_reads", "Mapped host memory and kernels (reads not seen)",
                      ZC_TRACE_NOTE, r->kernel_count, r->mapped_bytes, 0.0, -1.0,
                      "%s and %llu kernels ran; the kernels' arguments were not seen in this run, "
                      "so zc trace cannot tell whether any kernel read that memory. A kernel "
                      "that does reads it across PCIe (about 51 GB/s at best on the H200 "
                      "machine, against 4 TB/s from device memory). PCIe read counters: %s",
                      what, (unsigned long long)r->kernel_count, zc__pcie_counters(log));
    zc__trace_fix(r, zc__mapped_fix);
}

/* The readers of pinned host memory, by kernel name; their count in *count_p. */
static zc_status zc__readers(const zc_trace_log *log, const zc__trace_allocs *allocs,
                             zc__reader **readers_p, size_t *count_p, uint64_t *launches_p,
                             uint64_t *reached_p)
{
    *readers_p = NULL;
    *count_p = 0;
    *launches_p = 0;
    *reached_p = 0;
    zc_trace_kernel *sorted = NULL;
    size_t sorted_count = log->kernel_count;
    if (sorted_count > 0) {
        sorted = malloc(sorted_count * sizeof *sorted);
        if (sorted == NULL)
            return ZC_ERR_NO_MEMORY;
        memcpy(sorted, log->kernels, sorted_count * sizeof *sorted);
        qsort(sorted, sorted_count, sizeof *sorted, zc__by_correlation);
    }
    zc__reader *readers = log->launch_count ? calloc(log->launch_count, sizeof *readers) : NULL;
    if (log->launch_count > 0 && readers == NULL) {
        free(sorted);
        return ZC_ERR_NO_MEMORY;
    }
    size_t count = 0;
    for (size_t i = 0; i < log->launch_count; i++) {
        const zc_trace_launch *l = &log->launches[i];
        uint64_t reach = 0;
        for (size_t j = 0; j < l->range_count; j++) {
            const zc__trace_alloc *a =
                zc__trace_allocs_at(allocs, l->process, l->ranges[j], l->time);
            if (a != NULL && a->call != ZC_TRACE_CALL_MALLOCMANAGED)
                reach += a->bytes;
        }
        if (reach == 0)
            continue;
        size_t k = 0;
        while (k < count && strcmp(readers[k].name, l->name) != 0)
            k++;
        if (k == count)
            zc__snprintf_c(readers[count++].name, sizeof readers[0].name, "%s", l->name);
        zc__reader *reader = &readers[k];
        reader->launches++;
        reader->reach = reach > reader->reach ? reach : reader->reach;
        const zc_trace_kernel *kernel =
            zc__kernel_of(sorted, sorted_count, l->process, l->correlation);
        if (kernel != NULL) {
            reader->gpu_ns += kernel->end - kernel->start;
            reader->timed_reach += reach;
        }
        (*launches_p)++;
    }
    /* The pinned bytes some launch reached, each allocation counted once. */
    for (size_t i = 0; i < allocs->count; i++) {
        const zc__trace_alloc *a = &allocs->items[i];
        if (a->call != ZC_TRACE_CALL_MALLOCMANAGED && a->launches > 0)
            *reached_p += a->bytes;
    }
    free(sorted);
    *readers_p = readers;
    *count_p = count;
    return ZC_OK;
}

static int zc__by_gpu_time(const void *a, const void *b)
{
    const zc__reader *x = a, *y = b;
    return x->gpu_ns > y->gpu_ns ? -1 : x->gpu_ns < y->gpu_ns;
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
static double zc__ratio(const zc_trace_kernel_reads *m, const zc__reader *x)
{
    return x->reach ? (double)m->max_read_bytes / (double)x->reach : 0.0;
}

/* What the counters said, or why there are none, into out. */
static void zc__counters_text(const zc_trace_log *log, const zc_trace_counters *counters,
                              const zc__reader *readers, size_t count, char *out, size_t size)
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

/* A warning for each kernel measured to read its host memory again and again. */
static void zc__rereads(const zc_trace_counters *counters, const zc__reader *readers, size_t count,
                        zc_trace_report *r)
{
    char list[480] = "", b[32], h[32];
    size_t at = 0, found = 0;
    uint64_t launches = 0, bytes = 0;
    double worst = 0.0;
    for (size_t k = 0; k < count; k++) {
        const zc_trace_kernel_reads *m = zc__measured(counters, readers[k].name);
        double ratio = m != NULL ? zc__ratio(m, &readers[k]) : 0.0;
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
                                   zc_size_format(readers[k].reach, h, sizeof h), ratio);
            at += n > 0 ? (size_t)n : 0;
        }
    }
    if (found == 0)
        return;
    zc__trace_finding(r, "mapped_memory_rereads", "Kernels read mapped host memory again and again",
                      ZC_TRACE_WARNING, launches, bytes, 0.0, -1.0,
                      "measured with Nsight Compute's pcie__read_bytes: %s; each byte crossed PCIe "
                      "up to %.1f times where one copy to device memory would cross it once",
                      list, worst);
    zc__trace_fix(r, "Copy the host memory to device memory once (cudaMemcpyAsync from the "
                     "pinned buffer) and let the kernel read it there; keep zero-copy for data "
                     "each kernel reads once, with coalesced loads.");
}

zc_status zc__trace_find_mapped(const zc_trace_log *log, const zc_trace_params *params,
                                const zc_trace_counters *counters, const zc__trace_allocs *allocs,
                                zc_trace_report *r)
{
    if (!r->launch_args_seen) {
        zc__without_arguments(log, r);
        return ZC_OK;
    }
    zc__reader *readers = NULL;
    size_t count = 0;
    uint64_t launches = 0, reached = 0;
    zc_status status = zc__readers(log, allocs, &readers, &count, &launches, &reached);
    if (status != ZC_OK || count == 0) {
        free(readers);
        return status;
    }
    qsort(readers, count, sizeof *readers, zc__by_gpu_time);
    char list[480] = "", b[32], t[32], o[32], measured[400];
    size_t at = 0;
    for (size_t k = 0; k < count && k < ZC__MAPPED_KERNELS && at < sizeof list; k++) {
        const zc__reader *x = &readers[k];
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
        int n = zc__snprintf_c(list + at, sizeof list - at,
                               "%s%s (%llu launch%s, up to %s of host "
                               "memory%s)",
                               k > 0 ? "; " : "", x->name, (unsigned long long)x->launches,
                               x->launches == 1 ? "" : "es", zc_size_format(x->reach, b, sizeof b),
                               pass);
        at += n > 0 ? (size_t)n : 0;
    }
    zc__counters_text(log, counters, readers, count, measured, sizeof measured);
    zc__trace_finding(r, "mapped_memory_reads", "Mapped host memory read by kernels", ZC_TRACE_NOTE,
                      launches, reached, 0.0, -1.0,
                      "%zu kernel%s %s given pointers into pinned host memory (%s), so every "
                      "read of it crosses PCIe (about 51 GB/s at best on the H200 machine, "
                      "against 4 TB/s from device memory): %s%s. %s",
                      count, count == 1 ? "" : "s", count == 1 ? "was" : "were",
                      zc_size_format(reached, o, sizeof o), list,
                      count > ZC__MAPPED_KERNELS ? "; ..." : "", measured);
    zc__trace_fix(r, zc__mapped_fix);
    zc__rereads(counters, readers, count, r);
    free(readers);
    return ZC_OK;
}
