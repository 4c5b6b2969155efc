/* SPDX-License-Identifier: Apache-2.0 */
/* The allocations of a recorded run (pinned host and managed memory), each with its lifetime,
 * the first prefetch or advice on it, and the kernel launches that were given a pointer into it:
 * what the managed and mapped findings decide on, one allocation at a time. */
#include "trace_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void zc__trace_allocs_free(zc__trace_allocs *allocs)
{
    free(allocs->items);
    allocs->items = NULL;
    allocs->count = 0;
}

zc__trace_alloc *zc__trace_allocs_at(const zc__trace_allocs *allocs, int process, uint64_t pointer,
                                     uint64_t t)
{
    /* The newest allocation that held the pointer then: addresses are reused after a free. */
    for (size_t i = allocs->count; i-- > 0;) {
        zc__trace_alloc *a = &allocs->items[i];
        if (a->process == process && a->pointer == pointer && a->born <= t && t < a->died)
            return a;
    }
    return NULL;
}

/* The allocations of process overlapping [pointer, pointer + bytes) at time t: mark them
 * prepared (a prefetch or an advice) unless they were already. */
static void zc__prepare(zc__trace_allocs *allocs, int process, uint64_t pointer, uint64_t bytes,
                        uint64_t t)
{
    uint64_t end = bytes > UINT64_MAX - pointer ? UINT64_MAX : pointer + bytes;
    for (size_t i = 0; i < allocs->count; i++) {
        zc__trace_alloc *a = &allocs->items[i];
        uint64_t a_end = a->bytes > UINT64_MAX - a->pointer ? UINT64_MAX : a->pointer + a->bytes;
        if (a->process != process || a->born > t || t >= a->died)
            continue;
        /* A call without its range (a version 1 log) counts for every allocation. */
        int covers = pointer == 0 || (pointer < a_end && a->pointer < end);
        if (covers && a->prepared == UINT64_MAX)
            a->prepared = t;
    }
}

zc_status zc__trace_allocs_build(const zc_trace_log *log, const zc__trace_calls *calls,
                                 zc__trace_allocs *allocs)
{
    allocs->items = NULL;
    allocs->count = 0;
    if (calls->count == 0)
        return ZC_OK;
    allocs->items = calloc(calls->count, sizeof *allocs->items);
    if (allocs->items == NULL)
        return ZC_ERR_NO_MEMORY;
    for (size_t i = 0; i < calls->count; i++) {
        const zc_trace_api *c = calls->steps[i].call;
        /* zc run's own pins are none of the program's allocations. */
        if (!c->ok || (c->flags & ZC_TRACE_FLAG_ZC_RUN))
            continue;
        switch (c->call) {
        case ZC_TRACE_CALL_HOSTALLOC:
        case ZC_TRACE_CALL_HOSTREGISTER:
        case ZC_TRACE_CALL_MALLOCMANAGED:
            allocs->items[allocs->count++] = (zc__trace_alloc){
                .process = c->process,
                .call = c->call,
                .flags = c->flags,
                .runtime = c->runtime,
                .pointer = c->pointer,
                .bytes = c->bytes,
                .born = c->start,
                .died = UINT64_MAX,
                .prepared = UINT64_MAX,
                .first_use = UINT64_MAX,
            };
            break;
        case ZC_TRACE_CALL_FREEHOST:
        case ZC_TRACE_CALL_HOSTUNREGISTER: {
            zc__trace_alloc *a = zc__trace_allocs_at(allocs, c->process, c->pointer, c->start);
            if (a != NULL && a->call != ZC_TRACE_CALL_MALLOCMANAGED)
                a->died = c->start;
            break;
        }
        case ZC_TRACE_CALL_PREFETCH:
        case ZC_TRACE_CALL_ADVISE:
            zc__prepare(allocs, c->process, c->pointer, c->bytes, c->start);
            break;
        default:
            break;
        }
    }
    for (size_t i = 0; i < log->launch_count; i++) {
        const zc_trace_launch *l = &log->launches[i];
        for (size_t j = 0; j < l->range_count; j++) {
            zc__trace_alloc *a = zc__trace_allocs_at(allocs, l->process, l->ranges[j], l->time);
            if (a == NULL)
                continue;
            a->launches++;
            if (l->time < a->first_use) {
                a->first_use = l->time;
                snprintf(a->first_kernel, sizeof a->first_kernel, "%s", l->name);
            }
        }
    }
    return ZC_OK;
}
