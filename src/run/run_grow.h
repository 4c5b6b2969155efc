/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: room for one more item in a table that grows. */
#ifndef ZC_RUN_GROW_H
#define ZC_RUN_GROW_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdint.h>
#include <stdlib.h>

/* Make room for item count + 1 in *items_p (capacity *capacity_p items of item_size bytes),
 * doubling it from first; 0 when the memory cannot be had (the table as it was). */
static inline int zc__run_grow(void **items_p, size_t *capacity_p, size_t count, size_t item_size,
                               size_t first)
{
    if (count < *capacity_p)
        return 1;
    size_t capacity = *capacity_p ? *capacity_p * 2 : first;
    if (capacity < *capacity_p || capacity > SIZE_MAX / item_size)
        return 0;
    void *grown = realloc(*items_p, capacity * item_size);
    if (grown == NULL)
        return 0;
    *items_p = grown;
    *capacity_p = capacity;
    return 1;
}

#endif
