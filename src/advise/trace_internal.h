/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: a traced program's copies sorted into groups and unpriced lines (trace_groups.c),
 * for the pricing of zc_advise_traced (trace_advice.c). */
#ifndef ZC_ADVISE_TRACE_INTERNAL_H
#define ZC_ADVISE_TRACE_INTERNAL_H

#if defined(ZC_PART) && !defined(ZC_SEES_advise)
#error "src/advise/ included from below advise: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "zerocopy/advise.h"

/* The power-of-two size class of a copy of bytes: 2^k for sizes 2^k to 2^(k+1) - 1, 0 for 0
 * bytes. One rule for the trace document's copy classes and the groups advice prices. */
uint64_t zc__trace_size_class(uint64_t bytes);

/* Add a part that cannot be priced: into a line of the same what and why when there is one,
 * else a new line; past ZC_TRACE_UNPRICED_MAX into the last line, which then says so. */
void zc__trace_unpriced_add(zc_trace_advice *advice, const char *what, uint64_t count,
                            uint64_t bytes, double time_s, const char *why);

/* Sort every class of program's copies into advice's groups (direction, host kind, size
 * class: counts, bytes, times, smallest and largest copy) or its unpriced lines, with the
 * program's managed and mapped memory used in place. ZC_ERR_INVALID_ARG for a class whose
 * figures disagree. The groups are not priced. */
zc_status zc__trace_group_copies(const zc_traced_program *program, zc_trace_advice *advice);

#endif
