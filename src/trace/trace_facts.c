/* SPDX-License-Identifier: Apache-2.0 */
/* The facts every trace finding reads, built once per analysis: the run's totals per copy path
 * and memset kind, kernels, managed and mapped memory calls and unified-memory counters; the
 * kernels merged in time; and the calls, allocations and readers of trace_calls.c,
 * trace_allocs.c and trace_readers.c. */
#include "trace_facts.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/checked_math.h"

int zc_trace_dir_crosses_pcie(zc_trace_dir dir)
{
    return dir == ZC_TRACE_DIR_H2D || dir == ZC_TRACE_DIR_D2H || dir == ZC_TRACE_DIR_H2A ||
           dir == ZC_TRACE_DIR_A2H;
}

void zc__trace_evidence_set(zc__trace_evidence *ev, uint64_t count, uint64_t bytes, double time_s,
                            double saving_s, const char *title, const char *fmt, ...)
{
    ev->found = 1;
    ev->title = title;
    ev->count = count;
    ev->bytes = bytes;
    ev->time_s = time_s;
    ev->saving_s = saving_s;
    va_list args;
    va_start(args, fmt);
    vsnprintf(ev->text, sizeof ev->text, fmt, args);
    va_end(args);
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
        r->paths[p].bytes = zc__u64_add_sat(r->paths[p].bytes, c->bytes);
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
        r->memsets[p].bytes = zc__u64_add_sat(r->memsets[p].bytes, m->bytes);
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

/* Call counts of managed memory and mapping, and whether launches were inspected: every
 * process must say so, or the findings that rest on kernel arguments fall back to counts. */
static void zc__call_counts(const zc_trace_log *log, zc_trace_report *r)
{
    for (size_t i = 0; i < log->api_count; i++) {
        const zc_trace_api *a = &log->apis[i];
        if (!a->ok)
            continue;
        switch (a->call) {
        case ZC_TRACE_CALL_MALLOCMANAGED:
            r->managed_calls++;
            r->managed_bytes = zc__u64_add_sat(r->managed_bytes, a->bytes);
            break;
        case ZC_TRACE_CALL_HOSTGETDEVICEPTR:
            /* The runtime asks the driver for device pointers of its own allocations. */
            if (a->runtime)
                r->devptr_calls++;
            break;
        case ZC_TRACE_CALL_PREFETCH:
            r->prefetch_calls++;
            break;
        case ZC_TRACE_CALL_ADVISE:
            r->advise_calls++;
            break;
        case ZC_TRACE_CALL_HOSTCOPY:
            r->host_copy_calls++;
            r->host_copy_bytes = zc__u64_add_sat(r->host_copy_bytes, a->bytes);
            r->host_copy_ns += a->end > a->start ? a->end - a->start : 0;
            break;
        case ZC_TRACE_CALL_HOSTALLOC:
        case ZC_TRACE_CALL_HOSTREGISTER:
            if (a->flags & ZC_TRACE_FLAG_ZC_RUN) {
                r->zc_run_pin_calls++;
                break;
            }
            /* The runtime may ask the driver for mapped memory on its own (every pinned
             * allocation is mapped under UVA): only the program's own request counts. */
            if (a->runtime && (a->flags & ZC_TRACE_FLAG_MAPPED))
                r->mapped_bytes = zc__u64_add_sat(r->mapped_bytes, a->bytes);
            break;
        default:
            break;
        }
    }
    int seen = log->process_count > 0;
    for (size_t p = 0; p < log->process_count; p++) {
        const zc_trace_process *proc = &log->processes[p];
        r->launches_inspected += proc->launches_inspected;
        r->launches_failed += proc->launches_failed;
        /* A process that ran kernels and does not say it inspected their launches (a version
         * 1 log, one killed before its closing lines, a driver that hid the launches) cannot
         * say which allocations they used; one that ran none has nothing to hide. */
        int launched = proc->launches_runtime > 0 || proc->kernels > 0;
        if (launched && (!proc->launch_counts || proc->launches_inspected == 0))
            seen = 0;
    }
    r->launch_args_seen = seen;
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

/* Kernel intervals merged into disjoint, sorted ones; NULL with count 0 when there are none. */
static zc_status zc__merge_kernels(const zc_trace_log *log, zc__trace_busy *busy_p)
{
    busy_p->merged = NULL;
    busy_p->count = 0;
    if (log->kernel_count == 0)
        return ZC_OK;
    zc_trace_kernel *merged = malloc(log->kernel_count * sizeof *merged);
    if (merged == NULL)
        return ZC_ERR_NO_MEMORY;
    memcpy(merged, log->kernels, log->kernel_count * sizeof *merged);
    qsort(merged, log->kernel_count, sizeof *merged, zc__by_kernel_start);
    size_t count = 0;
    for (size_t i = 0; i < log->kernel_count; i++) {
        if (count > 0 && merged[i].start <= merged[count - 1].end) {
            if (merged[i].end > merged[count - 1].end)
                merged[count - 1].end = merged[i].end;
        } else {
            merged[count++] = merged[i];
        }
    }
    busy_p->merged = merged;
    busy_p->count = count;
    return ZC_OK;
}

uint64_t zc__trace_busy_covered(const zc__trace_busy *busy, uint64_t start, uint64_t end)
{
    /* The first interval that ends after start, by binary search. */
    const zc_trace_kernel *merged = busy->merged;
    size_t lo = 0, hi = busy->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (merged[mid].end <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t covered = 0;
    for (size_t i = lo; i < busy->count && merged[i].start < end; i++) {
        uint64_t s = merged[i].start > start ? merged[i].start : start;
        uint64_t e = merged[i].end < end ? merged[i].end : end;
        covered += e > s ? e - s : 0;
    }
    return covered;
}

zc_status zc__trace_facts_build(const zc_trace_log *log, const zc_trace_params *params,
                                const zc_trace_counters *counters, zc_trace_report *report,
                                zc__trace_facts *facts_p)
{
    zc__trace_facts facts = {.log = log, .params = params, .counters = counters, .report = report};
    zc_status status;
    report->ram_bytes = params->ram_bytes ? params->ram_bytes : log->ram_bytes;
    zc__totals(log, report);
    zc__call_counts(log, report);
    zc__unified_memory(log, report);
    ZC_CHECK_GOTO(zc__merge_kernels(log, &facts.busy), status, fail);
    ZC_CHECK_GOTO(zc__trace_calls_build(log, report, &facts.calls), status, fail);
    ZC_CHECK_GOTO(zc__trace_allocs_build(log, &facts.calls, &facts.allocs), status, fail);
    if (report->launch_args_seen)
        ZC_CHECK_GOTO(zc__trace_readers_build(log, &facts.allocs, &facts.readers), status, fail);
    *facts_p = facts;
    return ZC_OK;
fail:
    zc__trace_facts_free(&facts);
    return status;
}

void zc__trace_facts_free(zc__trace_facts *facts)
{
    free(facts->readers.items);
    facts->readers = (zc__trace_readers){0};
    zc__trace_allocs_free(&facts->allocs);
    free(facts->calls.steps);
    facts->calls = (zc__trace_calls){0};
    free(facts->busy.merged);
    facts->busy = (zc__trace_busy){0};
}
