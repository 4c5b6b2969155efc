/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --pinning: the ways of getting pinned memory priced at one size from their
 * measured curves, ranked, and set against the floor under them. */
#include "zerocopy/advise.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/size_curve.h"

#define ZC__GIB 1073741824.0

/* A curve the pricing can trust: sizes ascending and not 0, figures finite and positive. */
static zc_status zc__curve_check(const zc_pinning_curve *c, zc_pinning_way way)
{
    if (c->count > ZC_PINNING_SIZES_MAX)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_pinning_advise: way %s holds %zu sizes, more than %d",
                       zc_pinning_way_key(way), c->count, ZC_PINNING_SIZES_MAX);
    if (!zc__size_curve_ok(c->bytes, c->seconds, c->count))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_pinning_advise: way %s: its %zu sizes must ascend from 1 byte and "
                       "every figure be a finite positive time",
                       zc_pinning_way_key(way), c->count);
    return ZC_OK;
}

/* One way at bytes; the ratios to the floors are filled in once both are known. */
static zc_pinning_option zc__price(const zc_pinning_curve *c, zc_pinning_way way, size_t bytes)
{
    zc_pinning_option o = {way, NAN, NAN, NAN, NAN, 0};
    if (c->count == 0)
        return o;
    o.seconds = zc__size_curve_seconds(c->bytes, c->seconds, c->count, bytes, &o.extrapolated);
    o.s_per_gib = o.seconds / ((double)bytes / ZC__GIB);
    return o;
}

static void zc__against_floors(zc_pinning_option *o, const zc_pinning_option *floors)
{
    o->x_floor_4k = o->seconds / floors[ZC_PINNING_FLOOR_4K].seconds;
    o->x_floor_thp = o->seconds / floors[ZC_PINNING_FLOOR_THP].seconds;
}

/* Fastest first; a tie keeps the order of the list (insertion sort is stable). */
static void zc__rank(zc_pinning_option *ranked, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        zc_pinning_option o = ranked[i];
        size_t j = i;
        while (j > 0 && ranked[j - 1].seconds > o.seconds) {
            ranked[j] = ranked[j - 1];
            j--;
        }
        ranked[j] = o;
    }
}

/* The smallest and largest size any way was measured at. */
static void zc__span(const zc_pinning_curves *curves, zc_pinning_advice *a)
{
    for (int w = 0; w < ZC_PINNING_WAY_COUNT; w++) {
        const zc_pinning_curve *c = &curves->way[w];
        if (c->count == 0)
            continue;
        if (a->bytes_min == 0 || c->bytes[0] < a->bytes_min)
            a->bytes_min = c->bytes[0];
        if (c->bytes[c->count - 1] > a->bytes_max)
            a->bytes_max = c->bytes[c->count - 1];
    }
}

ZC_EXTERN zc_status zc_pinning_advise(const zc_pinning_curves *curves, size_t bytes,
                                      zc_pinning_advice *advice_p)
{
    ZC_REQUIRE_ARG(curves);
    ZC_REQUIRE_ARG(advice_p);
    if (bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_pinning_advise: a size of 0 bytes pins nothing");
    for (int w = 0; w < ZC_PINNING_WAY_COUNT; w++)
        ZC_CHECK(zc__curve_check(&curves->way[w], (zc_pinning_way)w));
    zc_pinning_advice a;
    memset(&a, 0, sizeof a);
    a.bytes = bytes;
    for (int f = ZC_PINNING_FLOOR_4K; f <= ZC_PINNING_FLOOR_THP; f++) {
        a.floors[f] = zc__price(&curves->way[f], (zc_pinning_way)f, bytes);
        a.extrapolated |= a.floors[f].extrapolated;
    }
    for (int f = ZC_PINNING_FLOOR_4K; f <= ZC_PINNING_FLOOR_THP; f++)
        zc__against_floors(&a.floors[f], a.floors);
    for (int w = ZC_PINNING_HOST_ALLOC; w < ZC_PINNING_WAY_COUNT; w++) {
        if (curves->way[w].count == 0)
            continue;
        zc_pinning_option o = zc__price(&curves->way[w], (zc_pinning_way)w, bytes);
        zc__against_floors(&o, a.floors);
        a.extrapolated |= o.extrapolated;
        a.ranked[a.count++] = o;
    }
    if (a.count == 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_pinning_advise: the curves hold no way of pinning to rank (the floors "
                       "alone are no way to pin)");
    zc__rank(a.ranked, a.count);
    zc__span(curves, &a);
    *advice_p = a;
    return ZC_OK;
}
