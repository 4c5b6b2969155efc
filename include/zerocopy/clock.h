/* SPDX-License-Identifier: Apache-2.0 */
/* The host clock that every host-timed measurement uses. */
#ifndef ZEROCOPY_CLOCK_H
#define ZEROCOPY_CLOCK_H

#include <stdint.h>

#include "zerocopy/export.h"

ZC_BEGIN_DECLS

/* Nanoseconds of CLOCK_MONOTONIC: never steps backwards, unaffected by time-of-day changes. */
ZC_EXTERN uint64_t zc_clock_ns(void);

ZC_END_DECLS

#endif
