/* SPDX-License-Identifier: Apache-2.0 */
/* The CPU's part of every transfer the runner makes, measured: filling its input the way the
 * runner's producer does, by size (small inputs stay in the CPU's caches). */
#include "zerocopy/advise.h"

#include <stdlib.h>
#include <string.h>

#include "advise/kernel_internal.h"
#include "core/error.h"
#include "core/sorted.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"

#define ZC__FILL_LARGEST  ((size_t)64 << 20) /* well past the caches: the memory's rate */
#define ZC__FILL_BATCH    ((size_t)1 << 20)  /* small fills timed in runs of this many bytes */
#define ZC__FILL_REPEATS  9
#define ZC__FILL_WARMUP_S 0.2 /* long enough for an idle CPU's clock to come up */

static double zc__seconds_since(uint64_t t0)
{
    return (double)(zc_clock_ns() - t0) / 1e9;
}

/* The median over ZC__FILL_REPEATS runs of one fill of bytes (us), each run filling the same
 * bytes again until about ZC__FILL_BATCH have been written, so that the clock's own cost
 * stays small beside a 4 KiB fill. */
static double zc__fill_us(uint32_t *buf, size_t bytes)
{
    size_t per_run = bytes >= ZC__FILL_BATCH ? 1 : ZC__FILL_BATCH / bytes;
    double t[ZC__FILL_REPEATS];
    for (int r = 0; r < ZC__FILL_REPEATS; r++) {
        uint64_t t0 = zc_clock_ns();
        for (size_t i = 0; i < per_run; i++)
            zc__fill(buf, bytes / 4, (uint32_t)(r * per_run + i));
        t[r] = zc__seconds_since(t0) * 1e6 / (double)per_run;
    }
    zc__sort_doubles(t, ZC__FILL_REPEATS);
    return t[ZC__FILL_REPEATS / 2];
}

/* A touched buffer of ZC__FILL_LARGEST bytes, filled again and again for the warm-up. */
static zc_status zc__fill_buffer(const char *who, uint32_t **buf_p)
{
    uint32_t *buf = (uint32_t *)malloc(ZC__FILL_LARGEST);
    if (buf == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: malloc(%zu) failed", who, ZC__FILL_LARGEST);
    memset(buf, 0, ZC__FILL_LARGEST); /* touched first: the runner's buffers are, after warm-up */
    uint64_t t0 = zc_clock_ns();
    for (uint32_t i = 0; zc__seconds_since(t0) < ZC__FILL_WARMUP_S && i < 1000; i++)
        zc__fill(buf, ZC__FILL_LARGEST / 4, i);
    *buf_p = buf;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_advise_measure_host_fill(zc_cost_curve *curve_p)
{
    ZC_REQUIRE_ARG(curve_p);
    uint32_t *buf = NULL;
    ZC_CHECK(zc__fill_buffer("zc_advise_measure_host_fill", &buf));
    zc_cost_curve c;
    memset(&c, 0, sizeof c);
    zc_status st = ZC_OK;
    for (size_t bytes = (size_t)4 << 10; bytes <= ZC__FILL_LARGEST && st == ZC_OK; bytes *= 4)
        st = zc_cost_curve_add(&c, bytes, zc__fill_us(buf, bytes));
    free(buf);
    if (st == ZC_OK)
        *curve_p = c;
    return st;
}

ZC_EXTERN zc_status zc_advise_measure_host_write(double *gbps_p)
{
    ZC_REQUIRE_ARG(gbps_p);
    uint32_t *buf = NULL;
    ZC_CHECK(zc__fill_buffer("zc_advise_measure_host_write", &buf));
    double us = zc__fill_us(buf, ZC__FILL_LARGEST);
    free(buf);
    *gbps_p = (double)ZC__FILL_LARGEST / (us * 1e3);
    return ZC_OK;
}

zc_status zc__host_fill_at(size_t bytes, double *us_p)
{
    ZC_REQUIRE_ARG(us_p);
    if (bytes < 4)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__host_fill_at: %zu bytes", bytes);
    /* Pinned memory, as the pinned, overlapped and mapped runs fill: the pages a process gets
     * from malloc can fill at half the rate for a while after another process gave back a lot
     * of memory, which the runner's own buffers do not show. */
    void *p = NULL;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_PINNED, bytes, &p));
    uint32_t *buf = (uint32_t *)p;
    memset(buf, 0, bytes);
    uint64_t t0 = zc_clock_ns();
    for (uint32_t i = 0; i < 3 || (zc__seconds_since(t0) < 0.05 && i < 1000); i++)
        zc__fill(buf, bytes / 4, i);
    *us_p = zc__fill_us(buf, bytes);
    zc__mem_exact_free(ZC_BUFFER_PINNED, p);
    return ZC_OK;
}
