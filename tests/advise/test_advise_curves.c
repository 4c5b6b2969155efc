/* SPDX-License-Identifier: Apache-2.0 */
/* The model's measured figures: managed memory priced along managed.transfer's curves, the
 * CPU's fill along its curve by size, both kept by the profile document and made from a bench
 * result; a profile without them keeps the rates it had; the round trip's two modes; a
 * technique's later small pinned buffers priced as carved from the first one's chunk; strided and
 * random kernels on device memory along their own walk curves; pageable copies as pinned ones
 * plus what one alone costs beyond a pinned one. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "advise_files.h"

static zc_profile load_h200(void)
{
    zc_profile p;
    zc_status status =
        zc_test_profile_load(ZC_ADVISE_FIXTURES "/h200.profile.json", &p, NULL, NULL, 0);
    if (status != ZC_OK)
        fail_msg("loading h200.profile.json: %s", zc_last_error());
    return p;
}

static zc_workload workload(size_t bytes, zc_direction dir, double k)
{
    zc_workload w;
    memset(&w, 0, sizeof w);
    w.bytes = bytes;
    w.transfers = 100;
    w.direction = dir;
    w.gpu_accesses = k;
    w.pattern = ZC_ACCESS_COALESCED;
    return w;
}

static zc_prediction predict(const zc_profile *p, size_t bytes, zc_direction dir, double k,
                             zc_technique t)
{
    zc_workload w = workload(bytes, dir, k);
    zc_prediction r;
    if (zc_advise_predict(p, &w, t, &r) != ZC_OK)
        fail_msg("predict %s: %s", zc_technique_key(t), zc_last_error());
    return r;
}

/* p saved as a profile document (which holds key, with member leaf when leaf is not NULL) and
 * read back. */
static zc_profile saved_and_read(const zc_profile *p, const char *key, const char *leaf)
{
    cJSON *doc = NULL;
    assert_int_equal(zc_profile_to_saved_json(p, NULL, &doc), ZC_OK);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, key);
    assert_non_null(leaf != NULL ? cJSON_GetObjectItemCaseSensitive(o, leaf) : o);
    zc_profile back;
    assert_int_equal(zc_profile_from_json(doc, &back), ZC_OK);
    cJSON_Delete(doc);
    return back;
}

/* Curves as managed.transfer and the runner's fill would give them (us), shaped like the H200's:
 * a fixed part of tens of microseconds, then the bytes. */
static void add_curves(zc_profile *p)
{
    static const size_t sizes[] = {4096, 65536, 1 << 20, 16 << 20};
    static const double in[] = {40.0, 70.0, 300.0, 4000.0}, out[] = {60.0, 80.0, 200.0, 2000.0};
    static const double fill[] = {0.4, 6.0, 150.0, 2800.0};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(zc_cost_curve_add(&p->managed_transfer[ZC_DIR_H2D], sizes[i], in[i]),
                         ZC_OK);
        assert_int_equal(zc_cost_curve_add(&p->managed_transfer[ZC_DIR_D2H], sizes[i], out[i]),
                         ZC_OK);
        assert_int_equal(zc_cost_curve_add(&p->host_fill, sizes[i], fill[i]), ZC_OK);
    }
    p->managed_transfer_origin[ZC_DIR_H2D] = ZC_ORIGIN_MEASURED;
    p->managed_transfer_origin[ZC_DIR_D2H] = ZC_ORIGIN_MEASURED;
    p->host_fill_origin = ZC_ORIGIN_MEASURED;
}

static void test_managed_follows_its_curves(void **state)
{
    (void)state;
    zc_profile p = load_h200();
    zc_prediction before = predict(&p, 4096, ZC_DIR_H2D, 1, ZC_TECH_MANAGED);
    add_curves(&p);
    /* One pass in: the measured transfer plus the program's own fill, nothing else. */
    zc_prediction in = predict(&p, 4096, ZC_DIR_H2D, 1, ZC_TECH_MANAGED);
    assert_true(in.usable);
    assert_double_equal(in.per_transfer_us, 40.0 + 0.4, 1e-9);
    assert_double_equal(in.cpu_us, 0.4, 1e-12);
    assert_true(fabs(in.per_transfer_us - before.per_transfer_us) > 1.0);
    /* Out: the measured transfer alone (the CPU fills nothing). */
    zc_prediction out = predict(&p, 65536, ZC_DIR_D2H, 1, ZC_TECH_MANAGED);
    assert_double_equal(out.per_transfer_us, 80.0, 1e-9);
    assert_double_equal(out.cpu_us, 0.0, 1e-12);
    /* Both ways: one launch and synchronisation, not two. */
    zc_prediction both = predict(&p, 1 << 20, ZC_DIR_BOTH, 1, ZC_TECH_MANAGED);
    assert_double_equal(both.per_transfer_us, 300.0 + 200.0 - p.launch_sync_us + 150.0, 1e-6);
    /* Both ways measured as one transfer: that curve, not the sum. */
    assert_int_equal(zc_cost_curve_add(&p.managed_transfer_both, 1 << 20, 720.0), ZC_OK);
    p.managed_transfer_both_origin = ZC_ORIGIN_MEASURED;
    zc_prediction both1 = predict(&p, 1 << 20, ZC_DIR_BOTH, 1, ZC_TECH_MANAGED);
    assert_double_equal(both1.per_transfer_us, 720.0 + 150.0, 1e-6);
    /* and only for both ways */
    assert_double_equal(predict(&p, 65536, ZC_DIR_D2H, 1, ZC_TECH_MANAGED).per_transfer_us, 80.0,
                        1e-9);
    /* Between measured sizes: along the line. */
    zc_prediction mid = predict(&p, (4096 + 65536) / 2, ZC_DIR_D2H, 1, ZC_TECH_MANAGED);
    assert_double_equal(mid.per_transfer_us, 70.0, 1e-6);
    /* More passes cost the kernel's time on device memory, on top. */
    zc_prediction k8 = predict(&p, 16 << 20, ZC_DIR_H2D, 8, ZC_TECH_MANAGED);
    zc_prediction k1 = predict(&p, 16 << 20, ZC_DIR_H2D, 1, ZC_TECH_MANAGED);
    assert_true(k8.per_transfer_us > k1.per_transfer_us);
    assert_double_equal(k1.per_transfer_us, 4000.0 + 2800.0, 1e-6);
}

static void test_a_missing_direction_keeps_the_rates(void **state)
{
    (void)state;
    /* The H200 fixture has no managed figures: managed is not priced, and a curve for one
     * direction prices that direction only, never guesses the other. */
    zc_profile p = load_h200();
    assert_false(predict(&p, 65536, ZC_DIR_H2D, 1, ZC_TECH_MANAGED).usable);
    assert_int_equal(zc_cost_curve_add(&p.managed_transfer[ZC_DIR_D2H], 4096, 60.0), ZC_OK);
    assert_false(predict(&p, 65536, ZC_DIR_H2D, 1, ZC_TECH_MANAGED).usable);
    assert_false(predict(&p, 65536, ZC_DIR_BOTH, 1, ZC_TECH_MANAGED).usable);
    assert_double_equal(predict(&p, 4096, ZC_DIR_D2H, 1, ZC_TECH_MANAGED).per_transfer_us, 60.0,
                        1e-9);
    /* The Gen4 fixture has the rates: without its in curve, h2d is priced from them as before. */
    zc_profile g;
    if (zc_test_profile_load(ZC_ADVISE_FIXTURES "/gen4x8.profile.json", &g, NULL, NULL, 0) != ZC_OK)
        fail_msg("loading gen4x8.profile.json: %s", zc_last_error());
    zc_prediction rates = predict(&g, 65536, ZC_DIR_H2D, 1, ZC_TECH_MANAGED);
    assert_true(rates.usable);
    assert_int_equal(zc_cost_curve_add(&g.managed_transfer[ZC_DIR_D2H], 4096, 60.0), ZC_OK);
    zc_prediction same = predict(&g, 65536, ZC_DIR_H2D, 1, ZC_TECH_MANAGED);
    assert_double_equal(same.per_transfer_us, rates.per_transfer_us, 1e-9);
}

static void test_fill_follows_its_curve(void **state)
{
    (void)state;
    zc_profile p = load_h200();
    zc_prediction rate = predict(&p, 65536, ZC_DIR_H2D, 1, ZC_TECH_PINNED);
    assert_double_equal(rate.cpu_us, 65536 / (p.host_write_gbps * 1e3), 1e-9);
    add_curves(&p);
    for (int t = 0; t < ZC_TECH_MANAGED; t++) {
        zc_prediction r = predict(&p, 65536, ZC_DIR_H2D, 1, (zc_technique)t);
        if (r.usable)
            assert_double_equal(r.cpu_us, 6.0, 1e-9);
    }
    /* Nothing to fill for results coming out. */
    assert_double_equal(predict(&p, 65536, ZC_DIR_D2H, 1, ZC_TECH_PINNED).cpu_us, 0.0, 1e-12);
}

static void test_curves_round_trip(void **state)
{
    (void)state;
    zc_profile p = load_h200();
    add_curves(&p);
    p.managed_transfer_origin[ZC_DIR_D2H] = ZC_ORIGIN_DERIVED;
    assert_int_equal(zc_cost_curve_add(&p.managed_transfer_both, 4096, 120.0), ZC_OK);
    p.managed_transfer_both_origin = ZC_ORIGIN_MEASURED;
    for (int saved = 0; saved < 2; saved++) {
        cJSON *doc = NULL;
        if (saved)
            assert_int_equal(zc_profile_to_saved_json(&p, NULL, &doc), ZC_OK);
        else
            assert_int_equal(zc_profile_to_json(&p, &doc), ZC_OK);
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(doc, "managed_transfer_us");
        assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(mt, "h2d")));
        zc_profile back;
        assert_int_equal(zc_profile_from_json(doc, &back), ZC_OK);
        cJSON_Delete(doc);
        for (int d = 0; d < 2; d++) {
            assert_int_equal(back.managed_transfer[d].count, 4);
            assert_int_equal(back.managed_transfer_origin[d], p.managed_transfer_origin[d]);
            assert_double_equal(back.managed_transfer[d].us[2], p.managed_transfer[d].us[2], 1e-9);
        }
        assert_int_equal(back.managed_transfer_both.count, 1);
        assert_int_equal(back.managed_transfer_both_origin, ZC_ORIGIN_MEASURED);
        assert_int_equal(back.host_fill.count, 4);
        assert_int_equal(back.host_fill.bytes[3], 16 << 20);
        assert_int_equal(back.host_fill_origin, ZC_ORIGIN_MEASURED);
    }
    /* A point that is not [bytes, us] is refused with the curve's name. */
    cJSON *bad = cJSON_Parse("{\"schema\": \"zerocopy.profile/2\", \"device_name\": \"x\", "
                             "\"host_fill_us\": [[4096]]}");
    assert_non_null(bad);
    zc_profile q;
    assert_int_equal(zc_profile_from_json(bad, &q), ZC_ERR_PARSE);
    assert_non_null(strstr(zc_last_error(), "host_fill_us"));
    cJSON_Delete(bad);
}

/* A managed.transfer case as zc bench writes it, one point per direction and size. */
static cJSON *transfer_case(void)
{
    cJSON *c = cJSON_Parse("{\"key\": \"managed.transfer\", \"group\": \"managed\", "
                           "\"technique\": \"managed\", \"direction\": \"roundtrip\", "
                           "\"title\": \"t\", \"outcome\": \"ok\", \"status\": \"OK\", "
                           "\"reason\": \"\", \"seconds\": 1, \"points\": []}");
    static const char *const dirs[3] = {"h2d", "d2h", "both"};
    static const double sizes[2] = {4096, 1048576}, us[3][2] = {{41, 310}, {62, 190}, {118, 540}};
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < 2; i++) {
            char text[512];
            snprintf(text, sizeof text,
                     "{\"variant\": \"%s\", \"bytes\": %.0f, \"param_name\": null, \"param\": "
                     "null, \"metric\": \"duration\", \"unit\": \"us\", \"bytes_per_sample\": "
                     "%.0f, \"ops_per_sample\": 1, \"warmups\": 1, \"verified\": true, "
                     "\"stats\": {\"count\": 9, \"median\": %g, \"min\": %g, \"max\": %g, "
                     "\"mean\": %g, \"stddev\": 0, \"cov\": 0, \"p90\": %g, \"p99\": %g, "
                     "\"p999\": %g}, \"samples\": null}",
                     dirs[d], sizes[i], sizes[i], us[d][i], us[d][i], us[d][i], us[d][i], us[d][i],
                     us[d][i], us[d][i]);
            cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(c, "points"), cJSON_Parse(text));
        }
    return c;
}

static void test_bench_case_becomes_curves(void **state)
{
    (void)state;
    cJSON *doc = zc_test_read_json(ZC_ADVISE_FIXTURES "/../report/h200.bench.json");
    assert_non_null(doc);
    zc_profile p;
    assert_int_equal(zc_profile_from_bench_json(doc, &p, NULL, 0), ZC_OK);
    assert_int_equal(p.managed_transfer[ZC_DIR_H2D].count, 0);
    assert_int_equal(p.managed_transfer_origin[ZC_DIR_H2D], ZC_ORIGIN_NONE);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(doc, "cases"), transfer_case());
    assert_int_equal(zc_profile_from_bench_json(doc, &p, NULL, 0), ZC_OK);
    cJSON_Delete(doc);
    assert_int_equal(p.managed_transfer[ZC_DIR_H2D].count, 2);
    assert_int_equal(p.managed_transfer[ZC_DIR_D2H].count, 2);
    assert_double_equal(p.managed_transfer[ZC_DIR_H2D].us[1], 310.0, 1e-9);
    assert_double_equal(p.managed_transfer[ZC_DIR_D2H].us[0], 62.0, 1e-9);
    assert_int_equal(p.managed_transfer_origin[ZC_DIR_D2H], ZC_ORIGIN_MEASURED);
    assert_int_equal(p.managed_transfer_both.count, 2);
    assert_double_equal(p.managed_transfer_both.us[0], 118.0, 1e-9);
    assert_int_equal(p.managed_transfer_both_origin, ZC_ORIGIN_MEASURED);
    /* The profile asks zc bench for the case. */
    zc_bench_case_id ids[ZC_BENCH_CASE_ID_COUNT];
    size_t n = 0, found = 0;
    assert_int_equal(zc_profile_bench_cases(ids, ZC_BENCH_CASE_ID_COUNT, &n), ZC_OK);
    for (size_t i = 0; i < n; i++)
        found += ids[i] == ZC_BENCH_CASE_MANAGED_TRANSFER;
    assert_int_equal(found, 1);
}

/* Set a latency case's one point to samples: n_lo of lo then n_hi of hi (us). */
static void set_samples(cJSON *doc, const char *key, double lo, int n_lo, double hi, int n_hi)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "key");
        if (!cJSON_IsString(k) || strcmp(k->valuestring, key) != 0)
            continue;
        cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "points"), 0);
        cJSON *samples = cJSON_CreateArray();
        for (int i = 0; i < n_lo + n_hi; i++)
            cJSON_AddItemToArray(samples, cJSON_CreateNumber(i < n_lo ? lo : hi));
        cJSON_ReplaceItemInObjectCaseSensitive(pt, "samples", samples);
        return;
    }
    fail_msg("no case %s in the fixture", key);
}

/* The pinned round trip in two modes (4 in 10 at 13 us, the rest at 20): a synchronous copy's
 * fixed cost follows the mean, a queued operation's the fast mode (the lower quartile). */
static void test_round_trip_modes(void **state)
{
    (void)state;
    cJSON *doc = zc_test_read_json(ZC_ADVISE_FIXTURES "/../report/h200.bench.json");
    assert_non_null(doc);
    set_samples(doc, "latency.roundtrip.pinned", 13.0, 40, 20.0, 60);
    set_samples(doc, "latency.launch", 9.0, 100, 9.0, 0);
    zc_profile p;
    assert_int_equal(zc_profile_from_bench_json(doc, &p, NULL, 0), ZC_OK);
    cJSON_Delete(doc);
    assert_double_equal(p.copy_latency_us[ZC_BUFFER_PINNED], (17.2 - 9.0) / 2.0, 1e-9);
    assert_double_equal(p.enqueue_us, (13.0 - 9.0) / 2.0, 1e-9);
    assert_int_equal(p.origin[ZC_PF_ENQUEUE_US], ZC_ORIGIN_DERIVED);
}

/* alloc.cost's point for cudaHostAlloc beside another block, appended to the fixture's case. */
static void add_beside_point(cJSON *doc, double bytes, double us)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "key");
        if (!cJSON_IsString(k) || strcmp(k->valuestring, "alloc.cost") != 0)
            continue;
        cJSON *points = cJSON_GetObjectItemCaseSensitive(c, "points");
        cJSON *pt = cJSON_Duplicate(cJSON_GetArrayItem(points, 0), 1);
        cJSON_ReplaceItemInObjectCaseSensitive(
            pt, "variant", cJSON_CreateString("cudaHostAlloc beside another: allocate"));
        cJSON_ReplaceItemInObjectCaseSensitive(pt, "bytes", cJSON_CreateNumber(bytes));
        cJSON_ReplaceItemInObjectCaseSensitive(pt, "samples", cJSON_CreateNull());
        cJSON *stats = cJSON_GetObjectItemCaseSensitive(pt, "stats");
        cJSON_ReplaceItemInObjectCaseSensitive(stats, "median", cJSON_CreateNumber(us));
        cJSON_AddItemToArray(points, pt);
        return;
    }
    fail_msg("no alloc.cost case in the fixture");
}

/* The first pinned buffer pays for the driver's chunk, later small ones are carved from it. */
static void test_later_pinned_buffers(void **state)
{
    (void)state;
    zc_profile p = load_h200();
    p.alloc[ZC_BUFFER_PINNED].count = 0;
    assert_int_equal(zc_cost_curve_add(&p.alloc[ZC_BUFFER_PINNED], 4096, 600.0), ZC_OK);
    assert_int_equal(zc_cost_curve_add(&p.alloc[ZC_BUFFER_PINNED], 16 << 20, 6000.0), ZC_OK);
    /* Without the curve, every buffer pays the first one's price. */
    assert_double_equal(predict(&p, 4096, ZC_DIR_BOTH, 1, ZC_TECH_PINNED).setup_us, 1200.0, 1e-9);
    assert_double_equal(predict(&p, 4096, ZC_DIR_BOTH, 1, ZC_TECH_OVERLAPPED).setup_us, 2400.0,
                        1e-9);
    assert_int_equal(zc_cost_curve_add(&p.alloc_pinned_beside, 4096, 5.0), ZC_OK);
    assert_int_equal(zc_cost_curve_add(&p.alloc_pinned_beside, 16 << 20, 6000.0), ZC_OK);
    p.alloc_pinned_beside_origin = ZC_ORIGIN_MEASURED;
    assert_double_equal(predict(&p, 4096, ZC_DIR_BOTH, 1, ZC_TECH_PINNED).setup_us, 605.0, 1e-9);
    assert_double_equal(predict(&p, 4096, ZC_DIR_BOTH, 1, ZC_TECH_OVERLAPPED).setup_us,
                        600.0 + 3 * 5.0, 1e-9);
    assert_double_equal(predict(&p, 4096, ZC_DIR_H2D, 1, ZC_TECH_MAPPED).setup_us, 600.0, 1e-9);
    /* Large buffers get chunks of their own: the two curves meet. */
    assert_double_equal(predict(&p, 16 << 20, ZC_DIR_BOTH, 1, ZC_TECH_PINNED).setup_us, 12000.0,
                        1e-9);
    /* The profile document keeps the curve. */
    zc_profile back = saved_and_read(&p, "alloc_pinned_beside_us", NULL);
    assert_int_equal(back.alloc_pinned_beside.count, 2);
    assert_double_equal(back.alloc_pinned_beside.us[0], 5.0, 1e-12);
    assert_int_equal(back.alloc_pinned_beside_origin, ZC_ORIGIN_MEASURED);
    /* And zc bench's alloc.cost makes it. */
    cJSON *bench = zc_test_read_json(ZC_ADVISE_FIXTURES "/../report/h200.bench.json");
    assert_non_null(bench);
    zc_profile q;
    assert_int_equal(zc_profile_from_bench_json(bench, &q, NULL, 0), ZC_OK);
    assert_int_equal(q.alloc_pinned_beside.count, 0);
    add_beside_point(bench, 4096, 4.5);
    assert_int_equal(zc_profile_from_bench_json(bench, &q, NULL, 0), ZC_OK);
    cJSON_Delete(bench);
    assert_int_equal(q.alloc_pinned_beside.count, 1);
    assert_double_equal(q.alloc_pinned_beside.us[0], 4.5, 1e-12);
    assert_int_equal(q.alloc_pinned_beside_origin, ZC_ORIGIN_MEASURED);
}

/* A device walk case as zc bench writes it: one point at 1 MiB. */
static cJSON *walk_case(const char *key, double gbps)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"key\": \"%s\", \"group\": \"device\", \"technique\": \"device\", "
             "\"direction\": \"read\", \"title\": \"t\", \"outcome\": \"ok\", \"status\": "
             "\"OK\", \"reason\": \"\", \"seconds\": 1, \"points\": [{\"variant\": \"\", "
             "\"bytes\": 1048576, \"param_name\": null, \"param\": null, \"metric\": "
             "\"bandwidth\", \"unit\": \"GB/s\", \"bytes_per_sample\": 1048576, "
             "\"ops_per_sample\": 1, \"warmups\": 1, \"verified\": true, \"stats\": "
             "{\"count\": 9, \"median\": %g, \"min\": %g, \"max\": %g, \"mean\": %g, "
             "\"stddev\": 0, \"cov\": 0, \"p90\": %g, \"p99\": %g, \"p999\": %g}, "
             "\"samples\": null}]}",
             key, gbps, gbps, gbps, gbps, gbps, gbps, gbps);
    return cJSON_Parse(text);
}

/* The profile zc bench's H200 fixture makes with two cases of its own added (each a case
 * object, owned by the call). */
static zc_profile bench_profile_with(cJSON *first, cJSON *second)
{
    cJSON *bench = zc_test_read_json(ZC_ADVISE_FIXTURES "/../report/h200.bench.json");
    assert_non_null(bench);
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(bench, "cases");
    cJSON_AddItemToArray(cases, first);
    cJSON_AddItemToArray(cases, second);
    zc_profile q;
    assert_int_equal(zc_profile_from_bench_json(bench, &q, NULL, 0), ZC_OK);
    cJSON_Delete(bench);
    return q;
}

/* A walk read once (gbps) and twice in one launch (twice_gbps, over both passes' bytes) at
 * 1 MiB, as zc bench's zerocopy.read.walk-* cases write it. */
static cJSON *walk_twice_case(const char *key, double gbps, double twice_gbps)
{
    cJSON *c = walk_case(key, gbps);
    cJSON *points = cJSON_GetObjectItemCaseSensitive(c, "points");
    cJSON *two = cJSON_Duplicate(cJSON_GetArrayItem(points, 0), 1);
    cJSON_ReplaceItemInObjectCaseSensitive(two, "variant", cJSON_CreateString("2 passes"));
    cJSON_ReplaceItemInObjectCaseSensitive(two, "param_name", cJSON_CreateString("passes"));
    cJSON_ReplaceItemInObjectCaseSensitive(two, "param", cJSON_CreateNumber(2));
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(two, "stats"), "median",
                                           cJSON_CreateNumber(twice_gbps));
    cJSON_AddItemToArray(points, two);
    return c;
}

/* A strided or random kernel on device memory: each pass along the walk's curve at the
 * buffer's size; without the curve, the coalesced kernel as before. */
static void test_walks_follow_their_curves(void **state)
{
    (void)state;
    zc_profile p = load_h200();
    zc_prediction coalesced = predict(&p, 1 << 20, ZC_DIR_H2D, 4, ZC_TECH_PINNED);
    zc_prediction before = predict(&p, 1 << 20, ZC_DIR_H2D, 4, ZC_TECH_REGISTERED);
    zc_workload w = workload(1 << 20, ZC_DIR_H2D, 4);
    w.pattern = ZC_ACCESS_STRIDED;
    zc_prediction r;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_PINNED, &r), ZC_OK);
    assert_double_equal(r.compute_us, coalesced.compute_us, 1e-9);
    assert_int_equal(zc_curve_add(&p.device_walk[0][0], 1 << 20, 20.0), ZC_OK);
    assert_int_equal(zc_curve_add(&p.device_walk[0][0], 64 << 20, 100.0), ZC_OK);
    p.device_walk_origin[0][0] = ZC_ORIGIN_MEASURED;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_PINNED, &r), ZC_OK);
    assert_double_equal(r.compute_us, 4 * (1 << 20) / (20.0 * 1e3), 1e-6);
    /* The random walk has no curve: the coalesced kernel still prices it. */
    w.pattern = ZC_ACCESS_RANDOM;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_REGISTERED, &r), ZC_OK);
    assert_double_equal(r.compute_us, before.compute_us, 1e-9);
    /* The coalesced kernel never reads the walk's curve. */
    assert_double_equal(predict(&p, 1 << 20, ZC_DIR_H2D, 4, ZC_TECH_PINNED).compute_us,
                        coalesced.compute_us, 1e-9);
    /* Kept by the profile document. */
    zc_profile back = saved_and_read(&p, "device_gbps_curve_strided", "read");
    assert_int_equal(back.device_walk[0][0].count, 2);
    assert_double_equal(back.device_walk[0][0].gbps[1], 100.0, 1e-9);
    assert_int_equal(back.device_walk_origin[0][0], ZC_ORIGIN_MEASURED);
    assert_int_equal(back.device_walk[1][1].count, 0);
    /* Made from zc bench's device.*.strided and device.*.random cases. */
    zc_profile q = bench_profile_with(walk_case("device.read.random", 35.0),
                                      walk_case("device.write.strided", 60.0));
    assert_int_equal(q.device_walk[1][0].count, 1);
    assert_double_equal(q.device_walk[1][0].gbps[0], 35.0, 1e-9);
    assert_int_equal(q.device_walk[0][1].count, 1);
    assert_double_equal(q.device_walk[0][1].gbps[0], 60.0, 1e-9);
    assert_int_equal(q.device_walk_origin[0][1], ZC_ORIGIN_MEASURED);
    assert_int_equal(q.device_walk[0][0].count, 0);
}

/* A strided or random kernel on mapped memory: every pass along the mapped walk's curve at the
 * buffer's size, across the link each time; without the curve, the pattern's rate as before. */
static void test_mapped_walks_follow_their_curves(void **state)
{
    (void)state;
    zc_profile p = load_h200();
    zc_workload w = workload(1 << 20, ZC_DIR_H2D, 4);
    w.pattern = ZC_ACCESS_RANDOM;
    zc_prediction before, r;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_MAPPED, &before), ZC_OK);
    assert_true(before.usable);
    assert_int_equal(zc_curve_add(&p.mapped_walk[1][0], 1 << 20, 3.0), ZC_OK);
    assert_int_equal(zc_curve_add(&p.mapped_walk[1][0], 64 << 20, 2.0), ZC_OK);
    p.mapped_walk_origin[1][0] = ZC_ORIGIN_MEASURED;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_MAPPED, &r), ZC_OK);
    /* Four passes of 1 MiB at 3 GB/s, none of them cheaper for being a reread. */
    assert_double_equal(r.link_us, 4 * (1 << 20) / (3.0 * 1e3), 1e-6);
    assert_double_equal(r.fixed_us, before.fixed_us, 1e-9);
    /* A buffer of 64 MiB walks at that size's rate. */
    w.bytes = (size_t)64 << 20;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_MAPPED, &r), ZC_OK);
    assert_double_equal(r.link_us, 4 * (double)(64 << 20) / (2.0 * 1e3), 1e-3);
    /* With what one more pass costs, the later passes go at it, never dearer than the first. */
    assert_int_equal(zc_cost_curve_add(&p.mapped_walk_reread[1], 1 << 20, 50.0), ZC_OK);
    assert_int_equal(zc_cost_curve_add(&p.mapped_walk_reread[1], 64 << 20, 1e9), ZC_OK);
    p.mapped_walk_reread_origin[1] = ZC_ORIGIN_DERIVED;
    w.bytes = 1 << 20;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_MAPPED, &r), ZC_OK);
    assert_double_equal(r.link_us, (1 << 20) / (3.0 * 1e3) + 3 * 50.0, 1e-6);
    w.bytes = (size_t)64 << 20;
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_MAPPED, &r), ZC_OK);
    assert_double_equal(r.link_us, 4 * (double)(64 << 20) / (2.0 * 1e3), 1e-3);
    /* A write pass crosses the link every time: no reread for it. */
    zc_workload written = workload(1 << 20, ZC_DIR_D2H, 4);
    written.pattern = ZC_ACCESS_RANDOM;
    assert_int_equal(zc_curve_add(&p.mapped_walk[1][1], 1 << 20, 5.0), ZC_OK);
    assert_int_equal(zc_advise_predict(&p, &written, ZC_TECH_MAPPED, &r), ZC_OK);
    assert_double_equal(r.link_us, 4 * (1 << 20) / (5.0 * 1e3), 1e-6);
    /* The strided walk and the writes have no curve: the pattern's rates still price them. */
    zc_workload out = workload(1 << 20, ZC_DIR_D2H, 2);
    out.pattern = ZC_ACCESS_STRIDED;
    assert_int_equal(zc_advise_predict(&p, &out, ZC_TECH_MAPPED, &r), ZC_OK);
    assert_double_equal(r.link_us, 2 * (1 << 20) / (p.mapped_write_gbps[ZC_ACCESS_STRIDED] * 1e3),
                        1e-6);
    assert_int_equal(zc_curve_add(&p.mapped_walk[0][1], 1 << 20, 4.0), ZC_OK);
    p.mapped_walk_origin[0][1] = ZC_ORIGIN_MEASURED;
    assert_int_equal(zc_advise_predict(&p, &out, ZC_TECH_MAPPED, &r), ZC_OK);
    assert_double_equal(r.link_us, 2 * (1 << 20) / (4.0 * 1e3), 1e-6);
    /* The copies' kernels run on device memory: the mapped walks are not theirs. */
    zc_prediction pinned_before, pinned_after;
    zc_profile plain = load_h200();
    w.bytes = 1 << 20;
    assert_int_equal(zc_advise_predict(&plain, &w, ZC_TECH_PINNED, &pinned_before), ZC_OK);
    assert_int_equal(zc_advise_predict(&p, &w, ZC_TECH_PINNED, &pinned_after), ZC_OK);
    assert_double_equal(pinned_after.total_us, pinned_before.total_us, 1e-9);
    /* Kept by the profile document. */
    zc_profile back = saved_and_read(&p, "mapped_gbps_curve_random", "read");
    assert_int_equal(back.mapped_walk[1][0].count, 2);
    assert_double_equal(back.mapped_walk[1][0].gbps[1], 2.0, 1e-9);
    assert_int_equal(back.mapped_walk_origin[1][0], ZC_ORIGIN_MEASURED);
    assert_int_equal(back.mapped_walk[0][1].count, 1);
    assert_int_equal(back.mapped_walk_reread[1].count, 2);
    assert_double_equal(back.mapped_walk_reread[1].us[0], 50.0, 1e-9);
    assert_int_equal(back.mapped_walk_reread_origin[1], ZC_ORIGIN_DERIVED);
    assert_int_equal(back.mapped_walk_reread[0].count, 0);
    assert_int_equal(back.device_walk[1][0].count, 0);
    /* Made from zc bench's zerocopy.*.walk-strided and zerocopy.*.walk-random cases. */
    zc_profile q = bench_profile_with(walk_twice_case("zerocopy.read.walk-random", 2.5, 4.0),
                                      walk_case("zerocopy.write.walk-strided", 3.5));
    assert_int_equal(q.mapped_walk[1][0].count, 1);
    assert_double_equal(q.mapped_walk[1][0].gbps[0], 2.5, 1e-9);
    assert_int_equal(q.mapped_walk[0][1].count, 1);
    assert_double_equal(q.mapped_walk[0][1].gbps[0], 3.5, 1e-9);
    assert_int_equal(q.mapped_walk_origin[0][1], ZC_ORIGIN_MEASURED);
    assert_int_equal(q.mapped_walk[0][0].count, 0);
    assert_int_equal(q.device_walk[1][0].count, 0);
    /* The second pass: 2 MiB at 4 GB/s less 1 MiB at 2.5 GB/s. */
    assert_int_equal(q.mapped_walk_reread[1].count, 1);
    assert_double_equal(q.mapped_walk_reread[1].us[0],
                        2.0 * (1 << 20) / (4.0 * 1e3) - (1 << 20) / (2.5 * 1e3), 1e-6);
    assert_int_equal(q.mapped_walk_reread_origin[1], ZC_ORIGIN_DERIVED);
    assert_int_equal(q.mapped_walk_reread[0].count, 0);
}

/* A latency.copy case as zc bench writes it: one synchronous copy's microseconds at bytes. */
static cJSON *alone_case(const char *key, double bytes, double us)
{
    cJSON *c = walk_case(key, us);
    cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "points"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(pt, "bytes", cJSON_CreateNumber(bytes));
    cJSON_ReplaceItemInObjectCaseSensitive(pt, "metric", cJSON_CreateString("latency"));
    cJSON_ReplaceItemInObjectCaseSensitive(pt, "unit", cJSON_CreateString("us"));
    return c;
}

/* A pageable copy between other work: the pinned copy's price plus what one alone cost beyond a
 * pinned one alone (latency.copy), to the largest size measured, then along the pageable curve;
 * without those curves, the round trip's share and the pageable curve as before. */
static void test_pageable_copies_follow_the_alone_curves(void **state)
{
    (void)state;
    zc_profile p = load_h200();
    zc_prediction before = predict(&p, 4096, ZC_DIR_H2D, 1, ZC_TECH_PAGEABLE);
    zc_prediction pinned = predict(&p, 4096, ZC_DIR_H2D, 1, ZC_TECH_PINNED);
    assert_double_equal(before.fixed_us, p.launch_sync_us + p.copy_latency_us[ZC_BUFFER_PAGEABLE],
                        1e-9);
    static const struct {
        int kind, dir;
        size_t bytes;
        double us;
    } alone[] = {{0, ZC_DIR_H2D, 4096, 6.6}, {0, ZC_DIR_H2D, 65536, 15.7},
                 {1, ZC_DIR_H2D, 4096, 7.6}, {1, ZC_DIR_H2D, 65536, 9.1},
                 {0, ZC_DIR_D2H, 4096, 8.8}, {1, ZC_DIR_D2H, 4096, 6.7}};
    for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
        assert_int_equal(zc_cost_curve_add(&p.copy_alone[alone[i].kind][alone[i].dir],
                                           alone[i].bytes, alone[i].us),
                         ZC_OK);
        p.copy_alone_origin[alone[i].kind][alone[i].dir] = ZC_ORIGIN_MEASURED;
    }
    /* 4 KiB to the GPU: the pinned copy less the microsecond a staged copy saves. */
    zc_prediction r = predict(&p, 4096, ZC_DIR_H2D, 1, ZC_TECH_PAGEABLE);
    assert_double_equal(r.fixed_us, pinned.fixed_us + (6.6 - 7.6), 1e-9);
    assert_double_equal(r.link_us, pinned.link_us, 1e-9);
    assert_true(r.per_transfer_us < before.per_transfer_us);
    /* Both ways: each direction its own difference. */
    zc_prediction both = predict(&p, 4096, ZC_DIR_BOTH, 1, ZC_TECH_PAGEABLE);
    zc_prediction both_pinned = predict(&p, 4096, ZC_DIR_BOTH, 1, ZC_TECH_PINNED);
    assert_double_equal(both.fixed_us, both_pinned.fixed_us + (6.6 - 7.6) + (8.8 - 6.7), 1e-9);
    /* Past the largest size measured alone, the pageable curve's own increments carry on. */
    const zc_curve *pg = &p.copy[ZC_BUFFER_PAGEABLE][ZC_DIR_H2D];
    const zc_curve *pin = &p.copy[ZC_BUFFER_PINNED][ZC_DIR_H2D];
    double t_pg_1m = 0.0, t_pg_64k = 0.0, t_pin_64k = 0.0, t_pin_4k = 0.0;
    assert_int_equal(zc_curve_time_us(pg, 1 << 20, &t_pg_1m), ZC_OK);
    assert_int_equal(zc_curve_time_us(pg, 65536, &t_pg_64k), ZC_OK);
    assert_int_equal(zc_curve_time_us(pin, 65536, &t_pin_64k), ZC_OK);
    assert_int_equal(zc_curve_time_us(pin, 4096, &t_pin_4k), ZC_OK);
    zc_prediction big = predict(&p, 1 << 20, ZC_DIR_H2D, 1, ZC_TECH_PAGEABLE);
    assert_double_equal(big.fixed_us, pinned.fixed_us + (15.7 - 9.1), 1e-9);
    assert_double_equal(big.link_us, pinned.link_us + (t_pin_64k - t_pin_4k) + (t_pg_1m - t_pg_64k),
                        1e-6);
    /* The pinned copy itself does not move. */
    assert_double_equal(predict(&p, 4096, ZC_DIR_H2D, 1, ZC_TECH_PINNED).per_transfer_us,
                        pinned.per_transfer_us, 1e-12);
    /* Kept by the profile document. */
    zc_profile back = saved_and_read(&p, "copy_alone_us", "pageable_h2d");
    assert_int_equal(back.copy_alone[0][ZC_DIR_H2D].count, 2);
    assert_double_equal(back.copy_alone[1][ZC_DIR_D2H].us[0], 6.7, 1e-12);
    assert_int_equal(back.copy_alone_origin[0][ZC_DIR_D2H], ZC_ORIGIN_MEASURED);
    /* Made from zc bench's latency.copy.* cases. */
    zc_profile q = bench_profile_with(alone_case("latency.copy.pageable.h2d", 4096, 6.6),
                                      alone_case("latency.copy.pinned.d2h", 4096, 6.7));
    assert_int_equal(q.copy_alone[0][ZC_DIR_H2D].count, 1);
    assert_double_equal(q.copy_alone[0][ZC_DIR_H2D].us[0], 6.6, 1e-12);
    assert_int_equal(q.copy_alone_origin[0][ZC_DIR_H2D], ZC_ORIGIN_MEASURED);
    assert_int_equal(q.copy_alone[1][ZC_DIR_D2H].count, 1);
    assert_int_equal(q.copy_alone[0][ZC_DIR_D2H].count, 0);
    assert_int_equal(q.copy_alone[1][ZC_DIR_H2D].count, 0);
}

/* A profile without a curve the model prefers says what stands in for it; with it, nothing. */
static void test_missing_curves_are_said(void **state)
{
    (void)state;
    cJSON *bench = zc_test_read_json(ZC_ADVISE_FIXTURES "/../report/h200.bench.json");
    assert_non_null(bench);
    zc_profile p;
    assert_int_equal(zc_profile_from_bench_json(bench, &p, NULL, 0), ZC_OK);
    cJSON_Delete(bench);
    char notes[4096];
    assert_int_equal(zc_profile_fill_gaps(&p, notes, sizeof notes), ZC_OK);
    assert_non_null(strstr(notes, "strided kernels on device memory priced as coalesced ones"));
    assert_non_null(strstr(notes, "random kernels on device memory priced as coalesced ones"));
    assert_non_null(strstr(notes, "every pinned buffer priced as a program's first"));
    assert_non_null(strstr(notes, "strided kernels on mapped memory priced at one word per"));
    assert_non_null(strstr(notes, "random kernels on mapped memory priced at one word per"));
    assert_non_null(strstr(notes, "pageable copies to the GPU priced at the round trip's share"));
    assert_non_null(strstr(notes, "pageable copies back priced at the round trip's share"));
    for (int w = 0; w < 2; w++)
        for (int d = 0; d < 2; d++) {
            assert_int_equal(zc_curve_add(&p.device_walk[w][d], 1 << 20, 100.0), ZC_OK);
            assert_int_equal(zc_curve_add(&p.mapped_walk[w][d], 1 << 20, 3.0), ZC_OK);
        }
    assert_int_equal(zc_cost_curve_add(&p.alloc_pinned_beside, 4096, 3.0), ZC_OK);
    assert_int_equal(zc_profile_fill_gaps(&p, notes, sizeof notes), ZC_OK);
    assert_null(strstr(notes, "priced as coalesced"));
    assert_null(strstr(notes, "priced at one word per"));
    assert_non_null(strstr(notes, "every pass of a strided kernel over mapped memory priced as"));
    for (int w = 0; w < 2; w++)
        assert_int_equal(zc_cost_curve_add(&p.mapped_walk_reread[w], 1 << 20, 10.0), ZC_OK);
    assert_int_equal(zc_profile_fill_gaps(&p, notes, sizeof notes), ZC_OK);
    assert_null(strstr(notes, "priced as its first"));
    assert_null(strstr(notes, "program's first"));
    assert_non_null(strstr(notes, "pageable copies back priced"));
    for (int k = 0; k < 2; k++)
        assert_int_equal(zc_cost_curve_add(&p.copy_alone[k][ZC_DIR_H2D], 4096, 7.0), ZC_OK);
    assert_int_equal(zc_profile_fill_gaps(&p, notes, sizeof notes), ZC_OK);
    assert_null(strstr(notes, "pageable copies to the GPU priced"));
    assert_non_null(strstr(notes, "pageable copies back priced"));
    /* Managed both ways: said only when the two directions are measured and both is not. */
    assert_null(strstr(notes, "managed transfers both ways"));
    add_curves(&p);
    assert_int_equal(zc_profile_fill_gaps(&p, notes, sizeof notes), ZC_OK);
    assert_non_null(strstr(notes, "managed transfers both ways priced as the two directions"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_managed_follows_its_curves),
        cmocka_unit_test(test_a_missing_direction_keeps_the_rates),
        cmocka_unit_test(test_fill_follows_its_curve),
        cmocka_unit_test(test_curves_round_trip),
        cmocka_unit_test(test_bench_case_becomes_curves),
        cmocka_unit_test(test_round_trip_modes),
        cmocka_unit_test(test_later_pinned_buffers),
        cmocka_unit_test(test_walks_follow_their_curves),
        cmocka_unit_test(test_mapped_walks_follow_their_curves),
        cmocka_unit_test(test_pageable_copies_follow_the_alone_curves),
        cmocka_unit_test(test_missing_curves_are_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
