/* SPDX-License-Identifier: Apache-2.0 */
/* The pinning family: pin.floor, fresh pages first touched by every core (4 KiB pages and
 * transparent huge pages), what the memory itself costs; pin.cost, every way of pinning
 * (pin_ways.c) beside that floor in the same rounds, so each figure reads as a ratio to it. Per
 * size up to a share of the host's memory, placed on the GPU's NUMA node. */
#include <stdio.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "bench/pinning.h"
#include "core/c_locale.h"
#include "core/error.h"

#define ZC__GIB ((size_t)1 << 30)

/* Quick: one size, so that zc bench --quick stays short (every way at 1 GiB costs seconds). */
static const size_t zc__pin_quick[] = {(size_t)64 << 20};
static const size_t zc__pin_default[] = {(size_t)64 << 20, (size_t)256 << 20, ZC__GIB, 4 * ZC__GIB};
static const size_t zc__pin_full[] = {(size_t)64 << 20, (size_t)256 << 20, ZC__GIB, 4 * ZC__GIB,
                                      16 * ZC__GIB};

/* Rounds of every way at a size: enough up to 1 GiB for a median and a spread; one above, where
 * a round of every way takes seconds to a minute (cudaHostAlloc alone about 0.36 s per GiB on
 * the H200 host). */
#define ZC__PIN_ROUNDS_MAX 5
static size_t zc__pin_rounds(const zc_bench_ctx *ctx, size_t bytes)
{
    if (bytes > ZC__GIB)
        return 1;
    return ctx->config.mode == ZC_BENCH_FULL ? ZC__PIN_ROUNDS_MAX : 3;
}

/* What a run of the family keeps from its start to its summary. */
typedef struct zc__pin_run {
    size_t sizes[ZC__BENCH_SIZES_MAX];
    size_t count;
    char left_out[ZC_BENCH_REASON_MAX];
    char placement[160];
    zc__pin_policy policy;
    char thp[16];
    size_t largest;                        /* the size the summary speaks of */
    double median_s[ZC__PIN_WAY_COUNT][2]; /* at largest: phases 0 and 1, seconds */
    double huge_share;                     /* of the THP floor's last sample at largest */
    int register_left_out;                 /* cudaHostRegister not supported here */
} zc__pin_run;

static size_t zc__pin_sizes(const zc_bench_ctx *ctx, const size_t **sizes_p)
{
    return zc__bench_sizes(ctx, zc__pin_quick, ZC__COUNT(zc__pin_quick), zc__pin_default,
                           ZC__COUNT(zc__pin_default), zc__pin_full, ZC__COUNT(zc__pin_full),
                           sizes_p);
}

/* The node the family places its memory on: the GPU's, where the host has several. */
static int zc__pin_node(const zc_bench_ctx *ctx, int nodes)
{
    return nodes > 1 ? ctx->info.numa_node : -1;
}

/* The sizes this machine's memory allows, and why the others are left out. */
static zc_status zc__pin_plan_sizes(const zc_bench_ctx *ctx, int nodes, zc__pin_run *run)
{
    const size_t *sizes = NULL;
    size_t n = zc__pin_sizes(ctx, &sizes);
    size_t cap = 0;
    char what[96];
    ZC_CHECK(zc__pin_memory_cap(zc__pin_node(ctx, nodes), &cap, what, sizeof what));
    run->count = zc__pin_plan(sizes, n < ZC__BENCH_SIZES_MAX ? n : ZC__BENCH_SIZES_MAX, cap, what,
                              run->sizes, run->left_out, sizeof run->left_out);
    return ZC_OK;
}

int zc__can_pin(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n)
{
    (void)self;
    zc__pin_run run;
    memset(&run, 0, sizeof run);
    if (zc__pin_plan_sizes(ctx, zc__pin_numa_nodes(), &run) != ZC_OK) {
        snprintf(reason, n, "the host's available memory cannot be read: %s", zc_last_error());
        return 0;
    }
    if (run.count > 0)
        return 1;
    snprintf(reason, n, "no size fits: %s", run.left_out);
    return 0;
}

/* The plan, the placement and what the summary says of the host. */
static zc_status zc__pin_begin(const zc_bench_ctx *ctx, int every_way, zc__pin_run *run)
{
    memset(run, 0, sizeof *run);
    int nodes = zc__pin_numa_nodes();
    ZC_CHECK(zc__pin_plan_sizes(ctx, nodes, run));
    zc__pin_thp_mode(run->thp, sizeof run->thp);
    run->register_left_out = every_way && !ctx->info.host_register_supported;
    int node = zc__pin_node(ctx, nodes);
    if (nodes == 1)
        snprintf(run->placement, sizeof run->placement, "node 0 (one NUMA node)");
    else if (node < 0)
        snprintf(run->placement, sizeof run->placement,
                 "not placed: the GPU's NUMA node is unknown (%d nodes)", nodes);
    else if (zc__pin_numa_prefer(node, &run->policy) == ZC_OK)
        snprintf(run->placement, sizeof run->placement, "node %d, the GPU's (preferred, of %d)",
                 node, nodes);
    else /* a container may refuse the policy: measured where the kernel puts it, and said so */
        snprintf(run->placement, sizeof run->placement, "not placed on node %d: %s", node,
                 zc_last_error());
    return ZC_OK;
}

/* Whether this case runs way w here. */
static int zc__pin_way_runs(const zc_bench_ctx *ctx, const zc__bench_case *self, int w)
{
    const zc__pin_way *way = &zc__pin_ways[w];
    if (self->arg == ZC__PIN_FLOOR_ONLY && !way->floor)
        return 0;
    return !way->needs_register || ctx->info.host_register_supported;
}

/* One sample of a way: make, check, give back; the phases' seconds in t. */
static zc_status zc__pin_sample(zc_bench_ctx *ctx, const char *key, int w, size_t bytes,
                                double t[ZC__PIN_PHASES], size_t *huge_p)
{
    const zc__pin_way *way = &zc__pin_ways[w];
    zc__pin_made made;
    memset(&made, 0, sizeof made);
    ZC_CHECK(way->make(bytes, ctx->config.device, way->option, &made, t));
    zc_status st = zc__pin_check(ctx, key, way, &made, bytes);
    if (st == ZC_OK && w == ZC__PIN_FLOOR_THP)
        st = zc__pin_region_huge_bytes(&made.region, huge_p);
    if (st != ZC_OK) {
        ZC_CHECK_IGNORE(way->undo(&made, NULL));
        return st;
    }
    return way->undo(&made, &t[2]);
}

/* Each phase a point: "cudaHostAlloc: allocate", "floor THP: munmap"; medians kept when bytes
 * is the largest size so far. */
static zc_status zc__pin_points(zc_bench_result *res, zc__pin_run *run, int w, size_t bytes,
                                double s[ZC__PIN_PHASES][ZC__PIN_ROUNDS_MAX], size_t rounds,
                                size_t warmups)
{
    const zc__pin_way *way = &zc__pin_ways[w];
    for (int p = 0; p < ZC__PIN_PHASES; p++) {
        if (way->phases[p] == NULL)
            continue;
        char variant[ZC_BENCH_VARIANT_MAX];
        snprintf(variant, sizeof variant, "%s: %s", way->name, way->phases[p]);
        ZC_CHECK(zc__add_seconds(res, variant, bytes, NULL, 0, ZC_BENCH_DURATION, (double)bytes,
                                 1.0, s[p], rounds, warmups));
        if (p < 2 && bytes >= run->largest)
            run->median_s[w][p] = res->points[res->point_count - 1].stats.median / 1e6;
    }
    return ZC_OK;
}

/* Every way at one size, round after round (the ways interleaved, so that a drift of the
 * machine touches them alike), each on memory fresh to it; a warm-up round first at the first
 * size, which brings in the driver's pinning paths and the touching threads' stacks. */
static zc_status zc__pin_size(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res,
                              zc__pin_run *run, size_t index)
{
    size_t bytes = run->sizes[index];
    size_t rounds = zc__pin_rounds(ctx, bytes), warmups = index == 0 ? 1 : 0;
    double s[ZC__PIN_WAY_COUNT][ZC__PIN_PHASES][ZC__PIN_ROUNDS_MAX];
    size_t huge = 0;
    memset(s, 0, sizeof s);
    for (size_t r = 0; r < warmups + rounds; r++) {
        for (int w = 0; w < ZC__PIN_WAY_COUNT; w++) {
            if (!zc__pin_way_runs(ctx, self, w))
                continue;
            double t[ZC__PIN_PHASES] = {0.0, 0.0, 0.0};
            ZC_CHECK(zc__pin_sample(ctx, self->info.key, w, bytes, t, &huge));
            for (int p = 0; r >= warmups && p < ZC__PIN_PHASES; p++)
                s[w][p][r - warmups] = t[p];
        }
        zc__bench_tick(ctx, index * (ZC__PIN_ROUNDS_MAX + 1) + r,
                       run->count * (ZC__PIN_ROUNDS_MAX + 1));
    }
    for (int w = 0; w < ZC__PIN_WAY_COUNT; w++)
        if (zc__pin_way_runs(ctx, self, w))
            ZC_CHECK(zc__pin_points(res, run, w, bytes, s[w], rounds, warmups));
    if (bytes >= run->largest) {
        run->largest = bytes;
        run->huge_share = (double)huge / (double)bytes;
    }
    return ZC_OK;
}

/* Seconds per GiB of a median at the largest size. */
static double zc__pin_per_gib(const zc__pin_run *run, int w, int phase)
{
    return run->median_s[w][phase] / ((double)run->largest / (double)ZC__GIB);
}

/* "cudaHostAlloc 0.361 (3.4x/8.8x)": a way's seconds per GiB and its ratio to each floor. */
static void zc__pin_say_way(char *buf, size_t n, const zc__pin_run *run, int w)
{
    int phase = zc__pin_ways[w].phases[1] != NULL ? 1 : 0;
    double floor4k = run->median_s[ZC__PIN_FLOOR_4K][0];
    double thp = run->median_s[ZC__PIN_FLOOR_THP][0];
    double s = run->median_s[w][phase];
    size_t used = strlen(buf);
    if (used + 1 < n)
        zc__snprintf_c(buf + used, n - used, "; %s %.3f (%.2fx/%.2fx)", zc__pin_ways[w].brief,
                       zc__pin_per_gib(run, w, phase), floor4k > 0 ? s / floor4k : 0.0,
                       thp > 0 ? s / thp : 0.0);
}

/* The finding: what was left out first (never cut), then every way's seconds per GiB at the
 * largest size and its ratio to the two floors, then where and how it was measured. */
static void zc__pin_summary(const zc_bench_ctx *ctx, const zc__bench_case *self,
                            const zc__pin_run *run, char *buf, size_t n)
{
    char sz[32];
    zc__snprintf_c(
        buf, n,
        "%s%s%sat %s, seconds per GiB (2^30 B), x the 4 KiB / THP floor: floor 4 KiB "
        "%.3f, THP %.3f (%.0f%% in huge pages)",
        run->left_out, run->left_out[0] ? "; " : "",
        run->register_left_out ? "cudaHostRegister unsupported: its ways left out; " : "",
        zc__bench_size_str(run->largest, sz, sizeof sz), zc__pin_per_gib(run, ZC__PIN_FLOOR_4K, 0),
        zc__pin_per_gib(run, ZC__PIN_FLOOR_THP, 0), 100.0 * run->huge_share);
    for (int w = ZC__PIN_FLOOR_THP + 1; w < ZC__PIN_WAY_COUNT; w++)
        if (zc__pin_way_runs(ctx, self, w))
            zc__pin_say_way(buf, n, run, w);
    size_t used = strlen(buf);
    if (used + 1 < n)
        zc__snprintf_c(buf + used, n - used,
                       "; %s; %u CPUs touch the floor; THP %s; %u rounds to 1 GiB, 1 above, "
                       "after a warm-up round at the first size",
                       run->placement, zc__pin_cpus(), run->thp,
                       (unsigned)zc__pin_rounds(ctx, ZC__GIB));
}

zc_status zc__run_pin(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    zc__pin_run run;
    ZC_CHECK(zc__pin_begin(ctx, self->arg == ZC__PIN_EVERY_WAY, &run));
    zc_status st = ZC_OK;
    if (run.count == 0) {
        st = ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no size fits: %s", self->info.key, run.left_out);
        goto restore;
    }
    /* The buffers earlier cases keep would sit beside the ones timed here (alloc.cost's reason). */
    if (self->arg != ZC__PIN_FLOOR_ONLY)
        zc__bench_host_release(ctx);
    for (size_t i = 0; i < run.count; i++)
        ZC_CHECK_GOTO(zc__pin_size(ctx, self, res, &run, i), st, restore);
    zc__pin_summary(ctx, self, &run, res->reason, sizeof res->reason);
restore:
    zc__pin_numa_restore(&run.policy);
    return st;
}
