/* SPDX-License-Identifier: Apache-2.0 */
/* The kernels of a recorded run that were given pointers into pinned host memory, by name: how
 * many launches, how much host memory one launch could reach, and their time on the GPU (each
 * launch joined to its kernel record by correlation id); the busiest first. */
#include "trace_facts.h"

#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"

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

static int zc__by_gpu_time(const void *a, const void *b)
{
    const zc__trace_reader *x = a, *y = b;
    return x->gpu_ns > y->gpu_ns ? -1 : x->gpu_ns < y->gpu_ns;
}

/* Count launch l for the reader of its kernel's name (added when new), given it could reach
 * reach bytes of pinned host memory. */
static void zc__add_launch(zc__trace_readers *readers, const zc_trace_launch *l, uint64_t reach,
                           const zc_trace_kernel *sorted, size_t sorted_count)
{
    size_t k = 0;
    while (k < readers->count && strcmp(readers->items[k].name, l->name) != 0)
        k++;
    if (k == readers->count)
        zc__snprintf_c(readers->items[readers->count++].name, sizeof readers->items[0].name, "%s",
                       l->name);
    zc__trace_reader *reader = &readers->items[k];
    reader->launches++;
    reader->reach = reach > reader->reach ? reach : reader->reach;
    const zc_trace_kernel *kernel = zc__kernel_of(sorted, sorted_count, l->process, l->correlation);
    if (kernel != NULL) {
        reader->gpu_ns += kernel->end - kernel->start;
        reader->timed_reach += reach;
    }
    readers->launches++;
}

zc_status zc__trace_readers_build(const zc_trace_log *log, const zc__trace_allocs *allocs,
                                  zc__trace_readers *readers_p)
{
    *readers_p = (zc__trace_readers){0};
    zc_trace_kernel *sorted = NULL;
    size_t sorted_count = log->kernel_count;
    if (sorted_count > 0) {
        sorted = malloc(sorted_count * sizeof *sorted);
        if (sorted == NULL)
            return ZC_ERR_NO_MEMORY;
        memcpy(sorted, log->kernels, sorted_count * sizeof *sorted);
        qsort(sorted, sorted_count, sizeof *sorted, zc__by_correlation);
    }
    zc__trace_readers readers = {0};
    readers.items = log->launch_count ? calloc(log->launch_count, sizeof *readers.items) : NULL;
    if (log->launch_count > 0 && readers.items == NULL) {
        free(sorted);
        return ZC_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < log->launch_count; i++) {
        const zc_trace_launch *l = &log->launches[i];
        uint64_t reach = 0;
        for (size_t j = 0; j < l->range_count; j++) {
            const zc__trace_alloc *a =
                zc__trace_allocs_at(allocs, l->process, l->ranges[j], l->time);
            if (a != NULL && a->call != ZC_TRACE_CALL_MALLOCMANAGED)
                reach += a->bytes;
        }
        if (reach > 0)
            zc__add_launch(&readers, l, reach, sorted, sorted_count);
    }
    free(sorted);
    /* The pinned bytes some launch reached, each allocation counted once. */
    for (size_t i = 0; i < allocs->count; i++) {
        const zc__trace_alloc *a = &allocs->items[i];
        if (a->call != ZC_TRACE_CALL_MALLOCMANAGED && a->launches > 0)
            readers.reached += a->bytes;
    }
    if (readers.count > 0)
        qsort(readers.items, readers.count, sizeof *readers.items, zc__by_gpu_time);
    *readers_p = readers;
    return ZC_OK;
}
