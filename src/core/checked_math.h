/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: size arithmetic that reports overflow instead of wrapping. */
#ifndef ZC_CORE_CHECKED_MATH_H
#define ZC_CORE_CHECKED_MATH_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* a * b into *out_p; false (and *out_p untouched) when the product does not fit in size_t. */
static inline bool zc__size_mul(size_t a, size_t b, size_t *out_p)
{
    size_t product;
    if (__builtin_mul_overflow(a, b, &product))
        return false;
    *out_p = product;
    return true;
}

/* a + b into *out_p; false when the sum does not fit in size_t. */
static inline bool zc__size_add(size_t a, size_t b, size_t *out_p)
{
    size_t sum;
    if (__builtin_add_overflow(a, b, &sum))
        return false;
    *out_p = sum;
    return true;
}

/* a + b, or UINT64_MAX when the sum does not fit: for totals of byte counts that are shown or
 * written, where a total that wrapped (2 x 2^63 bytes as 0 B) would be a wrong figure and the
 * most a uint64_t holds is the honest one. */
static inline uint64_t zc__u64_add_sat(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

#endif
