/* SPDX-License-Identifier: Apache-2.0 */
/* Byte counts as people write them: the one grammar every zc option, profile and workload file
 * uses ("4096", "4KiB", "4K", "1.5M", "2 GiB"), and the one way they are printed. */
#ifndef ZEROCOPY_SIZE_H
#define ZEROCOPY_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

ZC_BEGIN_DECLS

/*
 * Parse a byte count: a decimal number (digits, an optional fraction: "1.5"), optionally one
 * space, then an optional unit: B, or K, M, G, T, P, E (any case) alone or followed by "iB" or "B",
 * all binary (K = KiB = KB = 1024; transfer rates, not sizes, use GB = 1e9 in zerocopy). The
 * result must be a whole number of bytes from 1 to max. No sign, hex, exponent, "inf" or "nan".
 * ZC_ERR_PARSE (with the text and the grammar in the detail) when it is not one, and *bytes_p is
 * left as it was.
 */
ZC_EXTERN zc_status zc_size_parse(const char *text, uint64_t max, uint64_t *bytes_p);

/* bytes as "512 B", "4 KiB", "1.5 MiB", "64 GiB", "1 PiB", "8 EiB" (at most three significant
 * digits, binary units; from 15.95 EiB, which would round past 2^64, whole PiB rounded down):
 * what zc_size_parse reads back, within the rounding. Writes at most size bytes with the
 * terminating NUL; gives out. */
ZC_EXTERN const char *zc_size_format(uint64_t bytes, char *out, size_t size);

ZC_END_DECLS

#endif
