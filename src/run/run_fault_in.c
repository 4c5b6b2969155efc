/* SPDX-License-Identifier: Apache-2.0 */
/* Faulting a destination's pages in over the copying threads (run_fault_in.h). */
#include "run_fault_in.h"

#include "core/host.h"
#include "core/page_touch.h"
#include "run_counts.h"
#include "run_workers.h"

/* A transparent huge page, and the part of a range each thread faults in when it is large:
 * whole huge pages, so that no two threads fault within one. */
#define ZC__HUGE ((uintptr_t)2 << 20)

/* The copying threads rather than threads of their own: they are the ones that drain the copy
 * into these pages next, so faulting the pages in with them uses no core the copy would not,
 * starts no thread, and takes turns with the staged copies of other program threads like any
 * copy. */
typedef struct zc__fault_range {
    uintptr_t first, end, page;
} zc__fault_range;

/* Where part k of parts starts: whole huge pages when every part gets one, else whole pages. */
static uintptr_t zc__bound(const zc__fault_range *p, unsigned k, unsigned parts)
{
    if (k == 0)
        return p->first;
    if (k >= parts)
        return p->end;
    uintptr_t span = p->end - p->first;
    uintptr_t grain = span / parts >= ZC__HUGE ? ZC__HUGE : p->page;
    uintptr_t at = (p->first + span / parts * k) / grain * grain;
    return at < p->first ? p->first : at;
}

static void zc__fault_part(void *arg, unsigned part, unsigned parts)
{
    zc__fault_range *p = arg;
    uintptr_t from = zc__bound(p, part, parts), to = zc__bound(p, part + 1, parts);
    if (to > from)
        zc__touch_pages((void *)from, to - from);
}

uint64_t zc__run_fault_in(const void *host, size_t bytes)
{
    if (host == NULL || bytes == 0)
        return 0;
    uint64_t start = zc__run_now_ns();
    uintptr_t page = (uintptr_t)zc__page_size(), at = (uintptr_t)host;
    zc__fault_range range = {
        .first = at / page * page, .end = (at + bytes - 1) / page * page + page, .page = page};
    zc__run_parallel_each(zc__fault_part, &range, range.end - range.first);
    return zc__run_now_ns() - start;
}
