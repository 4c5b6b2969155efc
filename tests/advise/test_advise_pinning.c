/* SPDX-License-Identifier: Apache-2.0 */
/* The ways of pinning priced: on the committed H100 bench document (its measured figures given
 * back at its sizes, pin.cost's floors preferred, the ranking), on hand-built results (the cost
 * per byte interpolated, extrapolation said, floors missing), the document written, and every
 * refusal. */
#include "test_support.h"
#include "test_pinning_curves.h"

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"
#include "zerocopy/json.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

static zc_pinning_curves h100_curves(void)
{
    return zc_test_pinning_curves(ZC_PINNING_BENCH);
}

static zc_pinning_advice advise(const zc_pinning_curves *c, size_t bytes)
{
    zc_pinning_advice a;
    if (zc_pinning_advise(c, bytes, &a) != ZC_OK)
        fail_msg("pricing refused: %s", zc_last_error());
    return a;
}

static const zc_pinning_option *way_of(const zc_pinning_advice *a, zc_pinning_way way)
{
    for (size_t i = 0; i < a->count; i++) {
        if (a->ranked[i].way == way)
            return &a->ranked[i];
    }
    fail_msg("way %s not ranked", zc_pinning_way_key(way));
    return NULL;
}

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * fabs(want)))
        fail_msg("got %.12g, want %.12g", got, want);
}

/* At a measured size the document's medians come back; pin.cost's floor, not pin.floor's. */
static void test_h100_measured_sizes(void **state)
{
    (void)state;
    zc_pinning_curves c = h100_curves();
    for (int w = 0; w < ZC_PINNING_WAY_COUNT; w++)
        assert_int_equal(c.way[w].count, 3); /* 64 MiB, 1 GiB, 16 GiB */
    zc_pinning_advice a = advise(&c, 16 * GIB);
    assert_int_equal(a.count, 5);
    assert_false(a.extrapolated);
    assert_int_equal(a.bytes_min, 64 * MIB);
    assert_int_equal(a.bytes_max, 16 * GIB);
    /* pin.cost at 16 GiB: zerocopy 898555.9 us, cudaHostAlloc 8344173.406 us, its 4 KiB floor
     * 784314.865 us (pin.floor's own was 839780.841) and THP floor 338527.114 us. */
    const zc_pinning_option *zc = way_of(&a, ZC_PINNING_ZEROCOPY);
    assert_near(zc->seconds, 0.8985559);
    assert_near(zc->s_per_gib, 0.8985559 / 16);
    assert_near(a.floors[ZC_PINNING_FLOOR_4K].seconds, 0.784314865);
    assert_near(zc->x_floor_4k, 898555.9 / 784314.865);
    assert_near(zc->x_floor_thp, 898555.9 / 338527.114);
    assert_near(way_of(&a, ZC_PINNING_HOST_ALLOC)->seconds, 8.344173406);
    /* The bench's own reason at 16 GiB: cudaHostAlloc 0.522 s/GiB, 10.64x / 24.65x. */
    const zc_pinning_option *ha = way_of(&a, ZC_PINNING_HOST_ALLOC);
    assert_true(fabs(ha->s_per_gib - 0.522) < 0.0005);
    assert_true(fabs(ha->x_floor_4k - 10.64) < 0.005);
    assert_true(fabs(ha->x_floor_thp - 24.65) < 0.005);
    /* Fastest first: zerocopy, register fresh, cudaMallocHost, cudaHostAlloc, touch+register. */
    const zc_pinning_way order[] = {ZC_PINNING_ZEROCOPY, ZC_PINNING_REGISTER_FRESH,
                                    ZC_PINNING_MALLOC_HOST, ZC_PINNING_HOST_ALLOC,
                                    ZC_PINNING_TOUCH_REGISTER};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(a.ranked[i].way, order[i]);
    a = advise(&c, GIB);
    assert_near(way_of(&a, ZC_PINNING_HOST_ALLOC)->seconds, 0.507906384);
    assert_near(way_of(&a, ZC_PINNING_TOUCH_REGISTER)->seconds, 0.589928137);
}

/* Between and beyond the measured sizes: interpolated per byte, extrapolated and said. */
static void test_h100_between_and_beyond(void **state)
{
    (void)state;
    zc_pinning_curves c = h100_curves();
    zc_pinning_advice a = advise(&c, 4 * GIB);
    assert_false(a.extrapolated);
    const double c1 = 0.057786097 / 1.0, c16 = 0.8985559 / 16.0; /* zerocopy, s per GiB */
    assert_near(way_of(&a, ZC_PINNING_ZEROCOPY)->seconds, (c1 + (c16 - c1) * 3.0 / 15.0) * 4.0);
    a = advise(&c, 32 * GIB);
    assert_true(a.extrapolated);
    assert_true(way_of(&a, ZC_PINNING_ZEROCOPY)->extrapolated);
    assert_near(way_of(&a, ZC_PINNING_ZEROCOPY)->seconds, 0.8985559 * 2.0);
    a = advise(&c, 16 * MIB);
    assert_true(a.extrapolated);
    assert_true(a.floors[ZC_PINNING_FLOOR_THP].extrapolated);
    assert_near(way_of(&a, ZC_PINNING_HOST_ALLOC)->seconds, 0.033257387 / 4.0);
}

/* Hand-built results: a point of way `way` at bytes taking seconds. */
typedef struct hand {
    zc_bench_point points[16];
    zc_bench_result results[2];
    size_t n;
} hand;

static void hand_point(hand *h, const char *variant, size_t bytes, double seconds)
{
    zc_bench_point *p = &h->points[h->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->variant, sizeof p->variant, "%s", variant);
    p->bytes = bytes;
    p->metric = ZC_BENCH_DURATION;
    p->stats.median = seconds * 1e6;
}

/* The points so far as one pin.cost result that ran ok (and a pin.floor that was skipped). */
static const zc_bench_result *hand_results(hand *h)
{
    memset(h->results, 0, sizeof h->results);
    snprintf(h->results[0].key, sizeof h->results[0].key, "pin.cost");
    h->results[0].outcome = ZC_BENCH_OK;
    h->results[0].points = h->points;
    h->results[0].point_count = h->n;
    snprintf(h->results[1].key, sizeof h->results[1].key, "pin.floor");
    h->results[1].outcome = ZC_BENCH_SKIPPED;
    return h->results;
}

static void test_hand_interpolation(void **state)
{
    (void)state;
    hand h = {.n = 0};
    /* Out of order, and with points that are not a way's timing (a free, a registration). */
    hand_point(&h, "zc_buffer_alloc pinned: allocate", 3 * GIB, 1.5);
    hand_point(&h, "zc_buffer_alloc pinned: free", 3 * GIB, 9.0);
    hand_point(&h, "zc_buffer_alloc pinned: allocate", GIB, 1.0);
    hand_point(&h, "malloc+touch+cudaHostRegister: register", GIB, 9.0);
    hand_point(&h, "floor 4 KiB pages: touch", GIB, 0.25);
    zc_pinning_curves c;
    assert_int_equal(zc_pinning_curves_from_bench(hand_results(&h), 2, &c), ZC_OK);
    assert_int_equal(c.way[ZC_PINNING_ZEROCOPY].count, 2);
    assert_int_equal(c.way[ZC_PINNING_ZEROCOPY].bytes[0], GIB);
    assert_int_equal(c.way[ZC_PINNING_TOUCH_REGISTER].count, 0);
    /* 1 s/GiB at 1 GiB, 0.5 s/GiB at 3 GiB: 0.75 s/GiB at 2 GiB. */
    zc_pinning_advice a = advise(&c, 2 * GIB);
    assert_int_equal(a.count, 1);
    assert_near(a.ranked[0].seconds, 1.5);
    assert_near(a.ranked[0].s_per_gib, 0.75);
    assert_false(a.ranked[0].extrapolated);
    /* The floor measured at 1 GiB only: extrapolated at 2 GiB, 0.5 s; THP not measured. */
    assert_near(a.floors[ZC_PINNING_FLOOR_4K].seconds, 0.5);
    assert_true(a.floors[ZC_PINNING_FLOOR_4K].extrapolated);
    assert_true(a.extrapolated);
    assert_near(a.ranked[0].x_floor_4k, 3.0);
    assert_true(isnan(a.ranked[0].x_floor_thp));
    assert_true(isnan(a.floors[ZC_PINNING_FLOOR_THP].seconds));
    /* Beyond: the nearest size's cost per byte, said. */
    a = advise(&c, 6 * GIB);
    assert_near(a.ranked[0].seconds, 3.0);
    assert_true(a.ranked[0].extrapolated);
    a = advise(&c, GIB / 2);
    assert_near(a.ranked[0].seconds, 0.5);
    assert_true(a.ranked[0].extrapolated);
}

/* No floor at all: the ratios are not known, the ways still ranked. */
static void test_hand_missing_floor(void **state)
{
    (void)state;
    hand h = {.n = 0};
    hand_point(&h, "cudaHostAlloc: allocate", GIB, 0.5);
    hand_point(&h, "malloc+cudaHostRegister: register", GIB, 0.4);
    zc_pinning_curves c;
    assert_int_equal(zc_pinning_curves_from_bench(hand_results(&h), 2, &c), ZC_OK);
    zc_pinning_advice a = advise(&c, GIB);
    assert_int_equal(a.count, 2);
    assert_int_equal(a.ranked[0].way, ZC_PINNING_REGISTER_FRESH);
    assert_true(isnan(a.ranked[0].x_floor_4k));
    assert_true(isnan(a.floors[ZC_PINNING_FLOOR_4K].seconds));
    cJSON *doc = NULL;
    assert_int_equal(zc_pinning_advice_to_json(&c, "hand", &a, &doc), ZC_OK);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring,
                        "zerocopy.advise-pinning/1");
    assert_string_equal(cJSON_GetObjectItem(doc, "fastest")->valuestring, "register_fresh");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "floors"), "floor_4k")));
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "ranked"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(first, "x_floor_4k")));
    assert_near(cJSON_GetObjectItem(first, "seconds")->valuedouble, 0.4);
    cJSON_Delete(doc);
}

static void expect_refused(zc_status got, zc_status want, const char *words)
{
    assert_int_equal(got, want);
    if (strstr(zc_last_error(), words) == NULL)
        fail_msg("detail '%s' lacks '%s'", zc_last_error(), words);
}

static void test_refusals(void **state)
{
    (void)state;
    zc_pinning_curves c = h100_curves();
    zc_pinning_advice a;
    expect_refused(zc_pinning_advise(NULL, GIB, &a), ZC_ERR_INVALID_ARG, "curves");
    expect_refused(zc_pinning_advise(&c, GIB, NULL), ZC_ERR_INVALID_ARG, "advice_p");
    expect_refused(zc_pinning_advise(&c, 0, &a), ZC_ERR_INVALID_ARG,
                   "zc_pinning_advise: a size of 0");
    zc_pinning_curves bad = c;
    bad.way[ZC_PINNING_ZEROCOPY].bytes[1] = bad.way[ZC_PINNING_ZEROCOPY].bytes[0];
    expect_refused(zc_pinning_advise(&bad, GIB, &a), ZC_ERR_INVALID_ARG, "way zerocopy");
    bad = c;
    bad.way[ZC_PINNING_HOST_ALLOC].seconds[0] = NAN;
    expect_refused(zc_pinning_advise(&bad, GIB, &a), ZC_ERR_INVALID_ARG, "way cudaHostAlloc");
    /* Floors alone rank nothing. */
    zc_pinning_curves floors;
    memset(&floors, 0, sizeof floors);
    floors.way[ZC_PINNING_FLOOR_4K] = c.way[ZC_PINNING_FLOOR_4K];
    expect_refused(zc_pinning_advise(&floors, GIB, &a), ZC_ERR_NOT_FOUND, "no way of pinning");

    hand h = {.n = 0};
    zc_pinning_curves out;
    expect_refused(zc_pinning_curves_from_bench(NULL, 0, &out), ZC_ERR_INVALID_ARG, "results");
    /* pin.cost empty, pin.floor skipped: no way measured. */
    expect_refused(zc_pinning_curves_from_bench(hand_results(&h), 2, &out), ZC_ERR_NOT_FOUND,
                   "holds no way of pinning");
    /* Neither case ran ok. */
    const zc_bench_result *rs = hand_results(&h);
    expect_refused(zc_pinning_curves_from_bench(rs + 1, 1, &out), ZC_ERR_NOT_FOUND,
                   "no pin.cost or pin.floor result");
    hand_point(&h, "floor THP: touch", GIB, 0.02);
    expect_refused(zc_pinning_curves_from_bench(hand_results(&h), 2, &out), ZC_ERR_NOT_FOUND,
                   "only the floors");
    hand_point(&h, "cudaHostAlloc: allocate", GIB, 0.0);
    expect_refused(zc_pinning_curves_from_bench(hand_results(&h), 2, &out), ZC_ERR_INVALID_ARG,
                   "cudaHostAlloc: allocate at 1073741824 bytes");
    h.n--;
    hand_point(&h, "cudaHostAlloc: allocate", GIB, 0.5);
    hand_point(&h, "cudaHostAlloc: allocate", GIB, 0.6);
    expect_refused(zc_pinning_curves_from_bench(hand_results(&h), 2, &out), ZC_ERR_INVALID_ARG,
                   "measured twice");
    /* Not a bench document. */
    cJSON *doc = zc_test_json_file(ZC_ADVISE_FIXTURES "/h200.profile.json");
    expect_refused(zc_pinning_bench_from_json(doc, &out), ZC_ERR_PARSE,
                   "not a zerocopy.bench/1 document");
    cJSON_Delete(doc);
    /* A bench document without the pinning family. */
    doc = zc_test_json_file(ZC_BLOCKS_BENCH);
    expect_refused(zc_pinning_bench_from_json(doc, &out), ZC_ERR_NOT_FOUND,
                   "no pin.cost or pin.floor result");
    cJSON_Delete(doc);
    a = advise(&c, GIB);
    a.count = 0;
    cJSON *json = NULL;
    expect_refused(zc_pinning_advice_to_json(&c, "x", &a, &json), ZC_ERR_INVALID_ARG,
                   "ranks 0 ways");
}

static void test_way_names(void **state)
{
    (void)state;
    for (int w = 0; w < ZC_PINNING_WAY_COUNT; w++) {
        assert_non_null(zc_pinning_way_key((zc_pinning_way)w));
        assert_non_null(zc_pinning_way_name((zc_pinning_way)w));
        assert_non_null(zc_pinning_way_how((zc_pinning_way)w));
    }
    assert_null(zc_pinning_way_key(ZC_PINNING_WAY_COUNT));
    assert_null(zc_pinning_way_name((zc_pinning_way)-1));
    assert_non_null(strstr(zc_pinning_way_how(ZC_PINNING_HOST_ALLOC), "zc run --fix fastpin"));
    assert_non_null(strstr(zc_pinning_way_how(ZC_PINNING_ZEROCOPY), "ZC_BUFFER_PINNED"));
    assert_non_null(strstr(zc_pinning_way_how(ZC_PINNING_ZEROCOPY), "kind=\"pinned\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_measured_sizes),
        cmocka_unit_test(test_h100_between_and_beyond),
        cmocka_unit_test(test_hand_interpolation),
        cmocka_unit_test(test_hand_missing_floor),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_way_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
