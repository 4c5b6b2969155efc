/* SPDX-License-Identifier: Apache-2.0 */
/* The monotonic host clock. */
#define _POSIX_C_SOURCE 200809L
#include "zerocopy/clock.h"

#include <time.h>

ZC_EXTERN uint64_t zc_clock_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
