/* SPDX-License-Identifier: Apache-2.0 */
/* The pinning findings: pinning over and over (by repetition, not by count), slow pinned
 * allocation, and more pinned at once than RAM can spare. */
#include "trace_analyze_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* One live pinned range, to match frees with the allocations they undo. */
typedef struct zc__live {
    uint64_t pointer;
    uint64_t bytes;
} zc__live;

/* What one process did with pinned memory, in time order. */
typedef struct zc__pinning {
    uint64_t churn_calls, churn_bytes, churn_ns; /* pins of a size pinned and freed before */
    uint64_t churn_example_bytes, churn_example_calls;
    uint64_t late_calls, late_ns, late_first, late_last; /* pins while GPU work ran */
} zc__pinning;

static int zc__api_by_start(const void *a, const void *b)
{
    const zc_trace_api *x = *(const zc_trace_api *const *)a, *y = *(const zc_trace_api *const *)b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int zc__is_pin(const zc_trace_api *a)
{
    return a->ok && (a->call == ZC_TRACE_CALL_HOSTALLOC || a->call == ZC_TRACE_CALL_HOSTREGISTER);
}

/* The first and last GPU activity of process p, for "while the program runs". */
static void zc__gpu_span(const zc_trace_log *log, int p, uint64_t *first_p, uint64_t *last_p)
{
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < log->copy_count; i++) {
        if (log->copies[i].process != p)
            continue;
        first = log->copies[i].start < first ? log->copies[i].start : first;
        last = log->copies[i].end > last ? log->copies[i].end : last;
    }
    for (size_t i = 0; i < log->kernel_count; i++) {
        if (log->kernels[i].process != p)
            continue;
        first = log->kernels[i].start < first ? log->kernels[i].start : first;
        last = log->kernels[i].end > last ? log->kernels[i].end : last;
    }
    *first_p = first;
    *last_p = last;
}

/*
 * One process's calls from order[begin, end): totals, the peak held at once, and the two signs
 * of pinning in a loop. Churn: a size that was pinned, freed, and pinned again (every pin of
 * such a size counts). Late: pins made after the process's GPU work began, spread over at least
 * half of its GPU span. Pinning a set of buffers once at start-up shows neither.
 */
static zc_status zc__one_process(const zc_trace_log *log, const zc_trace_api **order, size_t begin,
                                 size_t end, zc_trace_report *r, uint64_t *peak_p, zc__pinning *pin)
{
    size_t n = end - begin;
    zc__live *live = calloc(n, sizeof *live);
    uint64_t *freed = calloc(n, sizeof *freed), *churning = calloc(n, sizeof *churning);
    if (live == NULL || freed == NULL || churning == NULL) {
        free(live);
        free(freed);
        free(churning);
        return ZC_ERR_NO_MEMORY;
    }
    size_t live_count = 0, freed_count = 0, churning_count = 0;
    uint64_t pinned = 0, peak = 0;
    for (size_t i = begin; i < end; i++) {
        const zc_trace_api *a = order[i];
        if (zc__is_pin(a)) {
            r->pin_calls++;
            r->pin_bytes += a->bytes;
            r->pin_ns += a->end - a->start;
            if (a->call == ZC_TRACE_CALL_HOSTALLOC) {
                r->alloc_calls++;
                r->alloc_ns += a->end - a->start;
                r->alloc_bytes += a->bytes;
            }
            live[live_count++] = (zc__live){a->pointer, a->bytes};
            pinned += a->bytes;
            peak = pinned > peak ? pinned : peak;
            int was_freed = 0, known = 0;
            for (size_t j = 0; j < freed_count && !was_freed; j++)
                was_freed = freed[j] == a->bytes;
            for (size_t j = 0; j < churning_count && !known; j++)
                known = churning[j] == a->bytes;
            if (was_freed && !known)
                churning[churning_count++] = a->bytes;
        } else if (a->ok &&
                   (a->call == ZC_TRACE_CALL_FREEHOST || a->call == ZC_TRACE_CALL_HOSTUNREGISTER)) {
            for (size_t j = 0; j < live_count; j++) {
                if (live[j].pointer != a->pointer)
                    continue;
                pinned -= live[j].bytes;
                int known = 0;
                for (size_t k = 0; k < freed_count && !known; k++)
                    known = freed[k] == live[j].bytes;
                if (!known)
                    freed[freed_count++] = live[j].bytes;
                live[j] = live[--live_count];
                break;
            }
        }
    }
    /* Second pass: every pin of a churning size, and the pins made while GPU work ran. */
    uint64_t gpu_first = UINT64_MAX, gpu_last = 0;
    if (n > 0)
        zc__gpu_span(log, order[begin]->process, &gpu_first, &gpu_last);
    zc__pinning here = {0};
    for (size_t i = begin; i < end; i++) {
        const zc_trace_api *a = order[i];
        if (!zc__is_pin(a))
            continue;
        for (size_t j = 0; j < churning_count; j++) {
            if (churning[j] != a->bytes)
                continue;
            here.churn_calls++;
            here.churn_bytes += a->bytes;
            here.churn_ns += a->end - a->start;
            break;
        }
        if (a->start > gpu_first && a->start < gpu_last) {
            if (here.late_calls == 0)
                here.late_first = a->start;
            here.late_last = a->start;
            here.late_calls++;
            here.late_ns += a->end - a->start;
        }
    }
    /* The size pinned most often again, as the example the evidence names. */
    for (size_t j = 0; j < churning_count; j++) {
        uint64_t calls = 0;
        for (size_t i = begin; i < end; i++)
            calls += zc__is_pin(order[i]) && order[i]->bytes == churning[j];
        if (calls > here.churn_example_calls) {
            here.churn_example_calls = calls;
            here.churn_example_bytes = churning[j];
        }
    }
    int late_spread = gpu_last > gpu_first && here.late_calls > 0 &&
                      (double)(here.late_last - here.late_first) >=
                          ZC_TRACE_PIN_LATE_MIN_SPAN * (double)(gpu_last - gpu_first);
    pin->churn_calls += here.churn_calls;
    pin->churn_bytes += here.churn_bytes;
    pin->churn_ns += here.churn_ns;
    if (here.churn_example_calls > pin->churn_example_calls) {
        pin->churn_example_calls = here.churn_example_calls;
        pin->churn_example_bytes = here.churn_example_bytes;
    }
    if (late_spread) {
        pin->late_calls += here.late_calls;
        pin->late_ns += here.late_ns;
    }
    *peak_p = peak;
    free(live);
    free(freed);
    free(churning);
    return ZC_OK;
}

static void zc__find_loop(const zc__pinning *pin, zc_trace_report *r)
{
    char b[32], t[32], e[32];
    int churn = pin->churn_calls >= ZC_TRACE_PIN_LOOP_MIN_CALLS &&
                pin->churn_ns >= ZC_TRACE_PIN_LOOP_MIN_NS;
    int late =
        pin->late_calls >= ZC_TRACE_PIN_LATE_MIN_CALLS && pin->late_ns >= ZC_TRACE_PIN_LOOP_MIN_NS;
    if (churn) {
        zc__trace_finding(
            r, "pinned_alloc_in_loop", "Pinned memory allocated over and over", ZC_TRACE_WARNING,
            pin->churn_calls, pin->churn_bytes, zc__trace_seconds(pin->churn_ns),
            zc__trace_seconds(pin->churn_ns),
            "%llu calls pinned host memory of sizes that were pinned, freed and pinned again "
            "(%s pinned %llu times), %s in all, taking %s; pinning maps and locks every page "
            "and is far slower than malloc",
            (unsigned long long)pin->churn_calls,
            zc_size_format(pin->churn_example_bytes, e, sizeof e),
            (unsigned long long)pin->churn_example_calls,
            zc_size_format(pin->churn_bytes, b, sizeof b),
            zc_trace_format_time(zc__trace_seconds(pin->churn_ns), t, sizeof t));
    } else if (late) {
        zc__trace_finding(
            r, "pinned_alloc_in_loop", "Pinned memory allocated over and over", ZC_TRACE_WARNING,
            pin->late_calls, 0, zc__trace_seconds(pin->late_ns), zc__trace_seconds(pin->late_ns),
            "%llu calls pinned host memory while the GPU work ran, spread over most of it, "
            "taking %s; pinning maps and locks every page and is far slower than malloc",
            (unsigned long long)pin->late_calls,
            zc_trace_format_time(zc__trace_seconds(pin->late_ns), t, sizeof t));
    } else {
        return;
    }
    zc__trace_fix(r, "Pin once at start-up, outside the loop, and reuse the buffers (a pool of "
                     "pinned buffers for varying sizes); free them at exit.");
}

static void zc__find_slow_and_over(const zc_trace_params *params, zc_trace_report *r)
{
    char b[32], t[32], s[32];
    if (r->alloc_ns >= ZC_TRACE_SLOW_ALLOC_NS) {
        zc__trace_finding(
            r, "slow_pinned_alloc", "cudaHostAlloc time", ZC_TRACE_WARNING, r->alloc_calls,
            r->alloc_bytes, zc__trace_seconds(r->alloc_ns), -1.0,
            "%llu cudaHostAlloc/cudaMallocHost calls took %s for %s (%.0f ms per GiB)",
            (unsigned long long)r->alloc_calls,
            zc_trace_format_time(zc__trace_seconds(r->alloc_ns), t, sizeof t),
            zc_size_format(r->alloc_bytes, b, sizeof b),
            r->alloc_bytes ? zc__trace_seconds(r->alloc_ns) * 1e3 /
                                 ((double)r->alloc_bytes / (1024.0 * 1024.0 * 1024.0))
                           : 0.0);
        zc__trace_fix(r, "Allocate with mmap and huge pages, touch the pages from several "
                         "threads, then cudaHostRegister the range (zc_buffer_alloc does it): on "
                         "the H200 machine that pinned 1 GiB in 58 ms against 360 ms for "
                         "cudaHostAlloc; or pin in the background before the data is needed.");
    }
    uint64_t ram = params->ram_bytes ? params->ram_bytes : r->ram_bytes;
    r->ram_bytes = ram;
    if (ram > 0 && (double)r->peak_pinned_bytes > ZC_TRACE_OVERPIN_SHARE * (double)ram) {
        zc__trace_finding(
            r, "over_pinning", "Pinned memory out of proportion to RAM", ZC_TRACE_WARNING,
            r->pin_calls, r->peak_pinned_bytes, zc__trace_seconds(r->pin_ns), -1.0,
            "up to %s was pinned at once, %.0f%% of the %s of RAM; pinned pages "
            "cannot be swapped or moved, so the rest of the system runs short",
            zc_size_format(r->peak_pinned_bytes, b, sizeof b),
            100.0 * (double)r->peak_pinned_bytes / (double)ram, zc_size_format(ram, s, sizeof s));
        zc__trace_fix(r, "Pin only the staging buffers that copies go through (a few chunks of "
                         "tens of MiB, double-buffered), not whole data sets; stream large data "
                         "through them with cudaMemcpyAsync.");
    }
}

zc_status zc__trace_find_pinning(const zc_trace_log *log, const zc_trace_params *params,
                                 zc_trace_report *r)
{
    zc__pinning pin = {0};
    if (log->api_count > 0) {
        const zc_trace_api **order = calloc(log->api_count, sizeof *order);
        if (order == NULL)
            return ZC_ERR_NO_MEMORY;
        for (size_t i = 0; i < log->api_count; i++)
            order[i] = &log->apis[i];
        qsort(order, log->api_count, sizeof *order, zc__api_by_start);
        uint64_t peak_sum = 0;
        for (size_t begin = 0; begin < log->api_count;) {
            size_t end = begin;
            while (end < log->api_count && order[end]->process == order[begin]->process)
                end++;
            uint64_t peak = 0;
            zc_status status = zc__one_process(log, order, begin, end, r, &peak, &pin);
            if (status != ZC_OK) {
                free(order);
                return status;
            }
            /* Processes may overlap in time: their peaks add up, as an upper bound. */
            peak_sum += peak;
            begin = end;
        }
        r->peak_pinned_bytes = peak_sum;
        free(order);
    }
    zc__find_loop(&pin, r);
    zc__find_slow_and_over(params, r);
    return ZC_OK;
}
