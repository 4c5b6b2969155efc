/* SPDX-License-Identifier: Apache-2.0 */
/* The ways of getting pinned memory as zc bench's pinning family names them, one row each, and
 * their curves read from its results (zc advise --pinning, zc trace's slow_pinned_alloc). */
#include "zerocopy/advise.h"

#include <math.h>
#include <string.h>

#include "advise/bench_results.h"
#include "core/error.h"

/* One way: the point of the bench that times getting the memory ("<variant>: <phase>", as
 * src/bench/pin_ways.c names them), the key of documents, the name for people, and how a
 * program gets it. */
typedef struct zc__pinning_row {
    const char *variant;
    const char *phase;
    const char *key;
    const char *name;
    const char *how;
} zc__pinning_row;

static const zc__pinning_row zc__pinning_rows[ZC_PINNING_WAY_COUNT] = {
    [ZC_PINNING_FLOOR_4K] = {"floor 4 KiB pages", "touch", "floor_4k", "floor 4 KiB",
                             "no pinning: fresh 4 KiB pages first touched by every CPU, the "
                             "least that faulting the pages in costs"},
    [ZC_PINNING_FLOOR_THP] = {"floor THP", "touch", "floor_thp", "floor THP",
                              "no pinning: fresh transparent huge pages first touched by every "
                              "CPU"},
    [ZC_PINNING_HOST_ALLOC] = {"cudaHostAlloc", "allocate", "cudaHostAlloc", "cudaHostAlloc",
                               "the program's own cudaHostAlloc; zc run --fix fastpin serves it "
                               "from zerocopy's path (64 MiB and more)"},
    [ZC_PINNING_MALLOC_HOST] = {"cudaMallocHost", "allocate", "cudaMallocHost", "cudaMallocHost",
                                "the program's own cudaMallocHost; zc run --fix fastpin serves it "
                                "from zerocopy's path (64 MiB and more)"},
    [ZC_PINNING_REGISTER_FRESH] = {"malloc+cudaHostRegister", "register", "register_fresh",
                                   "register fresh",
                                   "malloc'd memory registered before it is written (PyTorch's "
                                   "register knob); zc run --fix fastpin faults its pages in "
                                   "from every CPU first"},
    [ZC_PINNING_TOUCH_REGISTER] = {"malloc+touch+cudaHostRegister", "touch+register",
                                   "touch_register", "touch+register",
                                   "malloc'd memory filled on one thread, then registered: the "
                                   "one thread's touch is most of it; zc_buffer_alloc "
                                   "ZC_BUFFER_PINNED touches with every CPU"},
    [ZC_PINNING_ZEROCOPY] = {"zc_buffer_alloc pinned", "allocate", "zerocopy", "zerocopy",
                             "zc_buffer_alloc(SIZE, ZC_BUFFER_PINNED, ...) in C, "
                             "zerocopy.empty(shape, kind=\"pinned\") in Python; zc run --fix "
                             "fastpin gives a program's cudaHostAlloc this path"},
};

static const zc__pinning_row *zc__row(zc_pinning_way way)
{
    return (int)way >= 0 && way < ZC_PINNING_WAY_COUNT ? &zc__pinning_rows[way] : NULL;
}

ZC_EXTERN const char *zc_pinning_way_key(zc_pinning_way way)
{
    return zc__row(way) != NULL ? zc__row(way)->key : NULL;
}

ZC_EXTERN const char *zc_pinning_way_name(zc_pinning_way way)
{
    return zc__row(way) != NULL ? zc__row(way)->name : NULL;
}

ZC_EXTERN const char *zc_pinning_way_how(zc_pinning_way way)
{
    return zc__row(way) != NULL ? zc__row(way)->how : NULL;
}

/* The way whose timing point this variant is ("cudaHostAlloc: allocate"), or -1 (its free, a
 * registration alone, another family's point). */
static int zc__way_of(const char *variant)
{
    for (int w = 0; w < ZC_PINNING_WAY_COUNT; w++) {
        const zc__pinning_row *r = &zc__pinning_rows[w];
        size_t n = strlen(r->variant);
        if (strncmp(variant, r->variant, n) == 0 && strncmp(variant + n, ": ", 2) == 0 &&
            strcmp(variant + n + 2, r->phase) == 0)
            return w;
    }
    return -1;
}

/* Point p of result key into its way's curve, in order of size. */
static zc_status zc__add_point(const char *key, const zc_bench_point *p, zc_pinning_curve *c)
{
    double s = p->stats.median * 1e-6; /* durations are in microseconds */
    if (p->bytes == 0 || p->metric != ZC_BENCH_DURATION || !isfinite(s) || !(s > 0.0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_pinning_curves_from_bench: %s, %s at %zu bytes: no size, or a median "
                       "(%g) that is not a finite positive duration",
                       key, p->variant, p->bytes, p->stats.median);
    if (c->count == ZC_PINNING_SIZES_MAX)
        return ZC_FAIL(ZC_ERR_OVERFLOW,
                       "zc_pinning_curves_from_bench: %s, %s: more than %d sizes measured", key,
                       p->variant, ZC_PINNING_SIZES_MAX);
    size_t at = 0;
    while (at < c->count && c->bytes[at] < p->bytes)
        at++;
    if (at < c->count && c->bytes[at] == p->bytes)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_pinning_curves_from_bench: %s, %s: %zu bytes measured twice", key,
                       p->variant, p->bytes);
    memmove(&c->bytes[at + 1], &c->bytes[at], (c->count - at) * sizeof c->bytes[0]);
    memmove(&c->seconds[at + 1], &c->seconds[at], (c->count - at) * sizeof c->seconds[0]);
    c->bytes[at] = p->bytes;
    c->seconds[at] = s;
    c->count++;
    return ZC_OK;
}

/* The ways of result r not already taken from an earlier result (taken marks them). */
static zc_status zc__add_result(const zc_bench_result *r, zc_pinning_curves *curves, int *taken)
{
    int here[ZC_PINNING_WAY_COUNT] = {0};
    for (size_t i = 0; i < r->point_count; i++) {
        int w = zc__way_of(r->points[i].variant);
        if (w < 0 || taken[w])
            continue;
        ZC_CHECK(zc__add_point(r->key, &r->points[i], &curves->way[w]));
        here[w] = 1;
    }
    for (int w = 0; w < ZC_PINNING_WAY_COUNT; w++)
        taken[w] |= here[w];
    return ZC_OK;
}

ZC_EXTERN zc_status zc_pinning_curves_from_bench(const zc_bench_result *results, size_t count,
                                                 zc_pinning_curves *curves_p)
{
    ZC_REQUIRE_ARG(results);
    ZC_REQUIRE_ARG(curves_p);
    /* pin.cost first: its floors ran beside the ways they are set against. */
    const zc_bench_result *r[2] = {zc__advise_ok_result(results, count, ZC_BENCH_CASE_PIN_COST),
                                   zc__advise_ok_result(results, count, ZC_BENCH_CASE_PIN_FLOOR)};
    if (r[0] == NULL && r[1] == NULL)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_pinning_curves_from_bench: no pin.cost or pin.floor result that ran "
                       "ok among the %zu cases (zc bench --case pin measures them)",
                       count);
    zc_pinning_curves c;
    memset(&c, 0, sizeof c);
    int taken[ZC_PINNING_WAY_COUNT] = {0};
    for (int i = 0; i < 2; i++) {
        if (r[i] != NULL)
            ZC_CHECK(zc__add_result(r[i], &c, taken));
    }
    int ways = 0;
    for (int w = ZC_PINNING_HOST_ALLOC; w < ZC_PINNING_WAY_COUNT; w++)
        ways += c.way[w].count > 0;
    if (ways == 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_pinning_curves_from_bench: %s holds no way of pinning, only %s (zc "
                       "bench --case pin.cost measures them)",
                       r[0] != NULL ? "pin.cost" : "pin.floor",
                       c.way[ZC_PINNING_FLOOR_4K].count + c.way[ZC_PINNING_FLOOR_THP].count > 0
                           ? "the floors"
                           : "nothing");
    *curves_p = c;
    return ZC_OK;
}
