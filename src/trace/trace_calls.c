/* SPDX-License-Identifier: Apache-2.0 */
/* The host-memory calls of a recorded run in time order, process by process, each free matched
 * with the pin it undid; and from them the report's pinning totals and the most pinned at once. */
#include "trace_facts.h"

#include <stdlib.h>

#include "core/error.h"
#include "core/checked_math.h"

/* One live pinned range, to match frees with the allocations they undo. */
typedef struct zc__live {
    uint64_t pointer;
    uint64_t bytes;
} zc__live;

static int zc__step_by_start(const void *a, const void *b)
{
    const zc_trace_api *x = ((const zc__trace_step *)a)->call;
    const zc_trace_api *y = ((const zc__trace_step *)b)->call;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

int zc__trace_is_pin(const zc_trace_api *a)
{
    return a->ok && (a->call == ZC_TRACE_CALL_HOSTALLOC || a->call == ZC_TRACE_CALL_HOSTREGISTER) &&
           !(a->flags & ZC_TRACE_FLAG_ZC_RUN);
}

/* One process's steps[begin, end): the pinning totals, its peak, and what each free undid. */
static zc_status zc__one_process(zc__trace_step *steps, size_t begin, size_t end,
                                 zc_trace_report *r, uint64_t *peak_p)
{
    zc__live *live = calloc(end - begin, sizeof *live);
    if (live == NULL)
        return ZC_ERR_NO_MEMORY;
    size_t live_count = 0;
    uint64_t pinned = 0, peak = 0;
    for (size_t i = begin; i < end; i++) {
        const zc_trace_api *a = steps[i].call;
        if (zc__trace_is_pin(a)) {
            r->pin_calls++;
            r->pin_bytes = zc__u64_add_sat(r->pin_bytes, a->bytes);
            r->pin_ns += a->end - a->start;
            if (a->call == ZC_TRACE_CALL_HOSTALLOC) {
                r->alloc_calls++;
                r->alloc_ns += a->end - a->start;
                r->alloc_bytes = zc__u64_add_sat(r->alloc_bytes, a->bytes);
            }
            live[live_count++] = (zc__live){a->pointer, a->bytes};
            pinned += a->bytes;
            peak = pinned > peak ? pinned : peak;
        } else if (a->ok &&
                   (a->call == ZC_TRACE_CALL_FREEHOST || a->call == ZC_TRACE_CALL_HOSTUNREGISTER)) {
            for (size_t j = 0; j < live_count; j++) {
                if (live[j].pointer != a->pointer)
                    continue;
                pinned -= live[j].bytes;
                steps[i].undoes = 1;
                steps[i].undone = live[j].bytes;
                live[j] = live[--live_count];
                break;
            }
        }
    }
    *peak_p = peak;
    free(live);
    return ZC_OK;
}

zc_status zc__trace_calls_build(const zc_trace_log *log, zc_trace_report *report,
                                zc__trace_calls *calls_p)
{
    *calls_p = (zc__trace_calls){0};
    if (log->api_count == 0)
        return ZC_OK;
    zc__trace_step *steps = calloc(log->api_count, sizeof *steps);
    if (steps == NULL)
        return ZC_ERR_NO_MEMORY;
    for (size_t i = 0; i < log->api_count; i++)
        steps[i].call = &log->apis[i];
    qsort(steps, log->api_count, sizeof *steps, zc__step_by_start);
    zc_status status = ZC_OK;
    uint64_t peak_sum = 0;
    for (size_t begin = 0; begin < log->api_count;) {
        size_t end = begin;
        while (end < log->api_count && steps[end].call->process == steps[begin].call->process)
            end++;
        uint64_t peak = 0;
        ZC_CHECK_GOTO(zc__one_process(steps, begin, end, report, &peak), status, free_steps);
        /* Processes may overlap in time: their peaks add up, as an upper bound. */
        peak_sum += peak;
        begin = end;
    }
    report->peak_pinned_bytes = peak_sum;
    calls_p->steps = steps;
    calls_p->count = log->api_count;
    return ZC_OK;
free_steps:
    free(steps);
    return status;
}
