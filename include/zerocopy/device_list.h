/* SPDX-License-Identifier: Apache-2.0 */
/* Lists of GPUs for the commands that use several at once (--devices all or "0,1"). */
#ifndef ZEROCOPY_DEVICE_LIST_H
#define ZEROCOPY_DEVICE_LIST_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* At most this many GPUs in one list. */
#define ZC_DEVICE_LIST_MAX 64

ZC_BEGIN_DECLS

/*
 * Parse a list of GPUs: "all" (every one of the device_count GPUs, in order) or GPU numbers
 * separated by commas ("1,0"), kept in the order given. Failures, naming the bad item:
 * ZC_ERR_PARSE (empty list or item, not a number, white space), ZC_ERR_INVALID_ARG (a GPU
 * numbered device_count or above, a GPU given twice, more than capacity GPUs), ZC_ERR_NO_DEVICE
 * ("all" with device_count 0). devices and *count_p are written only on success.
 */
ZC_EXTERN zc_status zc_device_list_parse(const char *text, int device_count, int *devices,
                                         size_t capacity, size_t *count_p);

ZC_END_DECLS

#endif
