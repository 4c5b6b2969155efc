/* SPDX-License-Identifier: Apache-2.0 */
/* The block family: many blocks scattered by index between pinned, mapped host memory and
 * device memory, moved by a naive loop of cudaMemcpyAsync, by each engine of the block mover
 * forced, and by the mover's own choice: to the device, to the host, and both ways at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "bench/blocks_bench.h"
#include "core/c_locale.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"

#define ZC__KIB ((size_t)1 << 10)
#define ZC__MIB ((size_t)1 << 20)

/* Quick: one point, so that zc bench --quick stays short. */
static const size_t zc__blk_quick[] = {64 * ZC__KIB};
static const size_t zc__blk_default[] = {4 * ZC__KIB, 64 * ZC__KIB, ZC__MIB, 4 * ZC__MIB};
static const size_t zc__blk_full[] = {4 * ZC__KIB,  8 * ZC__KIB,   16 * ZC__KIB,  32 * ZC__KIB,
                                      64 * ZC__KIB, 128 * ZC__KIB, 256 * ZC__KIB, 512 * ZC__KIB,
                                      ZC__MIB,      2 * ZC__MIB,   4 * ZC__MIB};

/* The ways a point moves its blocks: the naive loop, each engine forced, the mover's choice. */
typedef struct zc__blk_way {
    const char *name;
    int naive;
    zc_blocks_engine engine;
} zc__blk_way;

static const zc__blk_way zc__blk_ways[] = {{"naive", 1, ZC_BLOCKS_AUTO},
                                           {"copy", 0, ZC_BLOCKS_COPY},
                                           {"batch", 0, ZC_BLOCKS_BATCH},
                                           {"kernel", 0, ZC_BLOCKS_KERNEL},
                                           {"auto", 0, ZC_BLOCKS_AUTO}};
#define ZC__BLK_WAYS ZC__COUNT(zc__blk_ways)

zc_status zc__blk_mover_create(const zc_bench_ctx *ctx, zc_blocks **mover_p)
{
    zc_blocks *mover = NULL;
    ZC_CHECK(zc_blocks_create(ctx->config.device, &mover));
    zc_status st = ctx->config.blocks_profile != NULL
                       ? zc_blocks_set_profile(mover, ctx->config.blocks_profile)
                       : ZC_OK;
    if (st != ZC_OK) {
        zc_blocks_destroy(mover);
        return st;
    }
    *mover_p = mover;
    return ZC_OK;
}

size_t zc__blk_target(const zc_bench_ctx *ctx)
{
    switch (ctx->config.mode) {
    case ZC_BENCH_QUICK:
        return 16 * ZC__MIB;
    case ZC_BENCH_FULL:
        return 512 * ZC__MIB;
    default:
        return 256 * ZC__MIB;
    }
}

size_t zc__blk_cap(const zc_bench_ctx *ctx)
{
    /* Two device regions, and beside them blocks.beside's kernel buffer: a sixteenth of the
     * GPU's memory each leaves the rest to everything else. */
    size_t cap = ctx->info.total_memory / 16;
    return cap > 64 * ZC__MIB ? cap : 64 * ZC__MIB;
}

int zc__can_blocks(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n)
{
    (void)self;
    if (!ctx->info.can_map_host_memory) {
        snprintf(reason, n,
                 "the block mover's kernel engine and the check of host destinations need "
                 "mapped host memory (canMapHostMemory = 0)");
        return 0;
    }
    if (!ctx->info.unified_addressing) {
        snprintf(reason, n, "the block mover needs unified addressing (unifiedAddressing = 0)");
        return 0;
    }
    /* The mode's block sizes all fit; --sizes may give none the family can take. */
    zc__blk_point points[ZC__BENCH_SIZES_MAX];
    char left_out[ZC_BENCH_REASON_MAX / 2];
    if (ctx->size_count > 0 &&
        zc__blk_plan(ctx->sizes, ctx->size_count, zc__blk_target(ctx), zc__blk_cap(ctx), points,
                     left_out, sizeof left_out) == 0) {
        snprintf(reason, n, "no block size to measure: %s", left_out);
        return 0;
    }
    return 1;
}

static zc_status zc__blk_regions(zc_bench_ctx *ctx, zc__blk_move *m, zc_blocks_dir dir,
                                 size_t bytes)
{
    if (dir & ZC_BLOCKS_TO_DEVICE) {
        ZC_CHECK(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 0, bytes, &m->h_src));
        ZC_CHECK(zc__bench_device(ctx, 0, bytes, &m->d_dst));
    }
    if (dir & ZC_BLOCKS_TO_HOST) {
        ZC_CHECK(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 1, bytes, &m->h_dst));
        ZC_CHECK(zc__bench_device(ctx, 1, bytes, &m->d_src));
        ZC_CHECK(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, m->h_dst, &m->h_dst_dev));
    }
    return ZC_OK;
}

zc_status zc__blk_prepare(zc_bench_ctx *ctx, zc__blk_move *m, zc_blocks_dir dir,
                          zc__blk_point point)
{
    size_t n = point.count, bs = point.block_bytes, bytes = n * bs;
    m->point = point;
    free(m->index);
    m->index = malloc(4 * n * sizeof *m->index);
    if (m->index == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "blocks: index lists of %zu blocks", n);
    for (int k = 0; k < 4; k++)
        zc__blk_shuffle(m->index + (size_t)k * n, n, &ctx->rng);
    ZC_CHECK(zc__blk_regions(ctx, m, dir, bytes));
    memset(&m->desc, 0, sizeof m->desc);
    m->desc.dir = dir;
    if (dir & ZC_BLOCKS_TO_DEVICE) {
        m->seed[0] = zc__bench_seed(ctx);
        zc__blk_fill(m->h_src, bs, n, m->index, m->index + n, m->seed[0]);
        m->desc.to_device = (zc_blocks_list){.count = n,
                                             .src_base = m->h_src,
                                             .dst_base = m->d_dst,
                                             .block_bytes = bs,
                                             .src_index = m->index,
                                             .dst_index = m->index + n};
    }
    if (dir & ZC_BLOCKS_TO_HOST) {
        /* The device sources through the host destination region, poisoned before any move. */
        m->seed[1] = zc__bench_seed(ctx);
        zc__blk_fill(m->h_dst, bs, n, m->index + 2 * n, m->index + 3 * n, m->seed[1]);
        ZC_CUDA_RETURN(cudaMemcpy(m->d_src, m->h_dst, bytes, cudaMemcpyHostToDevice));
        m->desc.to_host = (zc_blocks_list){.count = n,
                                           .src_base = m->d_src,
                                           .dst_base = m->h_dst,
                                           .block_bytes = bs,
                                           .src_index = m->index + 2 * n,
                                           .dst_index = m->index + 3 * n};
    }
    return ZC_OK;
}

void zc__blk_release(zc__blk_move *m)
{
    free(m->index);
    m->index = NULL;
}

/* One cudaMemcpyAsync per block of a list, as a program without the mover writes it. */
static zc_status zc__blk_naive_list(const zc_blocks_list *l, enum cudaMemcpyKind kind,
                                    cudaStream_t s)
{
    for (size_t i = 0; i < l->count; i++)
        ZC_CUDA_RETURN(cudaMemcpyAsync((char *)l->dst_base + l->dst_index[i] * l->block_bytes,
                                       (const char *)l->src_base + l->src_index[i] * l->block_bytes,
                                       l->block_bytes, kind, s));
    return ZC_OK;
}

/* The naive loop both ways: the to-host copies on a second stream forked from the first and
 * joined back, so that each direction has its copy engine, as the mover's copy engine does. */
static zc_status zc__blk_naive(zc__blk_move *m)
{
    cudaStream_t s = (cudaStream_t)m->opts.stream;
    if (m->desc.dir != ZC_BLOCKS_BOTH)
        return zc__blk_naive_list(
            m->desc.dir == ZC_BLOCKS_TO_DEVICE ? &m->desc.to_device : &m->desc.to_host,
            m->desc.dir == ZC_BLOCKS_TO_DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
            s);
    ZC_CUDA_RETURN(cudaEventRecord(m->fork, s));
    ZC_CUDA_RETURN(cudaStreamWaitEvent(m->naive_side, m->fork, 0));
    ZC_CHECK(zc__blk_naive_list(&m->desc.to_device, cudaMemcpyHostToDevice, s));
    ZC_CHECK(zc__blk_naive_list(&m->desc.to_host, cudaMemcpyDeviceToHost, m->naive_side));
    ZC_CUDA_RETURN(cudaEventRecord(m->join, m->naive_side));
    ZC_CUDA_RETURN(cudaStreamWaitEvent(s, m->join, 0));
    return ZC_OK;
}

zc_status zc__blk_queue(zc__blk_move *m)
{
    if (m->naive)
        return zc__blk_naive(m);
    return zc_blocks_move(m->mover, &m->desc, &m->opts, NULL);
}

zc_status zc__blk_poison(zc_bench_ctx *ctx, const zc__blk_move *m)
{
    size_t bytes = m->point.count * m->point.block_bytes;
    if (m->desc.dir & ZC_BLOCKS_TO_DEVICE)
        ZC_CHECK(zc__poison_device(ctx, m->d_dst, bytes));
    if (m->desc.dir & ZC_BLOCKS_TO_HOST)
        memset(m->h_dst, 0xA5, bytes);
    return ZC_OK;
}

zc_status zc__blk_verify(zc_bench_ctx *ctx, const char *key, const char *what,
                         const zc__blk_move *m)
{
    size_t bytes = m->point.count * m->point.block_bytes;
    char where[96];
    if (zc__bench_corrupt(ctx, key))
        ZC_CHECK(m->desc.dir & ZC_BLOCKS_TO_DEVICE ? zc__corrupt_device(m->d_dst, bytes)
                                                   : zc__corrupt_host(m->h_dst, bytes));
    /* Every byte of each destination region, on the GPU (the host one through its mapping):
     * each block must hold the pattern of the slot it was sent to. */
    if (m->desc.dir & ZC_BLOCKS_TO_DEVICE) {
        snprintf(where, sizeof where, "%s, device blocks", what);
        ZC_CHECK(zc__verify_device(ctx, key, where, m->d_dst, bytes, m->seed[0]));
    }
    if (m->desc.dir & ZC_BLOCKS_TO_HOST) {
        snprintf(where, sizeof where, "%s, host blocks", what);
        ZC_CHECK(zc__verify_device(ctx, key, where, m->h_dst_dev, bytes, m->seed[1]));
    }
    return ZC_OK;
}

zc_status zc__blk_reach(zc__blk_move *m, int *reach_p, zc_blocks_engine *engine_p, char *why,
                        size_t why_size)
{
    *reach_p = 1;
    *engine_p = m->opts.engine;
    if (m->naive)
        return ZC_OK;
    zc_blocks_choice choice;
    zc_status st = zc_blocks_plan(m->mover, &m->desc, &m->opts, &choice);
    if (st == ZC_ERR_UNSUPPORTED) {
        *reach_p = 0;
        snprintf(why, why_size, "%s", zc_last_error());
        zc_clear_error();
        return ZC_OK;
    }
    ZC_CHECK(st);
    *engine_p = choice.engine;
    return ZC_OK;
}

/* One sample: one move, timed by events on the caller's stream, not behind the gate: the
 * host's queuing of a per-block loop is its cost as much as the copies are. */
static zc_status zc__blk_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)slot;
    zc__blk_move *m = varg;
    cudaStream_t s = (cudaStream_t)m->opts.stream;
    ZC_CUDA_RETURN(cudaEventRecord(ctx->start[0], s));
    ZC_CHECK(zc__blk_queue(m));
    ZC_CUDA_RETURN(cudaEventRecord(ctx->stop[0], s));
    ZC_CUDA_RETURN(cudaEventSynchronize(ctx->stop[0]));
    float ms = 0.0f;
    ZC_CUDA_RETURN(cudaEventElapsedTime(&ms, ctx->start[0], ctx->stop[0]));
    *seconds_p = ms > 0.0f ? (double)ms / 1e3 : 1e-7;
    return ZC_OK;
}

/* What a run of a case keeps for its finding. */
typedef struct zc__blk_run {
    char unreachable[ZC_BENCH_REASON_MAX / 2];
    char points[ZC_BENCH_REASON_MAX];
    char left_out[ZC_BENCH_REASON_MAX / 4];
} zc__blk_run;

/* An engine that cannot reach the memory: said once in the finding, not a failure. */
static void zc__blk_say_unreachable(zc__blk_run *run, const char *name, const char *why)
{
    size_t used = strlen(run->unreachable);
    if (strstr(run->unreachable, name) != NULL || used + 1 >= sizeof run->unreachable)
        return;
    snprintf(run->unreachable + used, sizeof run->unreachable - used, "%s%s not measured: %.150s",
             used ? "; " : "", name, why);
}

/* "64 KiB x4096: auto kernel 0.98x fastest (kernel), 2.41x naive": short, so that the line
 * holds many sizes (a full run's eleven may still be cut; the points hold every figure). */
static void zc__blk_say_point(zc__blk_run *run, const zc__blk_point *p, const double *median,
                              zc_blocks_engine chosen)
{
    size_t best = 1;
    for (size_t w = 1; w + 1 < ZC__BLK_WAYS; w++)
        if (median[w] > median[best])
            best = w;
    char sz[32];
    size_t used = strlen(run->points);
    if (used + 1 >= sizeof run->points || !(median[best] > 0.0))
        return;
    double a = median[ZC__BLK_WAYS - 1];
    zc__snprintf_c(run->points + used, sizeof run->points - used,
                   "%s%s x%zu: auto %s %.2fx fastest (%s), %.2fx naive", used ? "; " : "",
                   zc__bench_size_str(p->block_bytes, sz, sizeof sz), p->count,
                   zc_blocks_engine_name(chosen), a / median[best], zc__blk_ways[best].name,
                   median[0] > 0.0 ? a / median[0] : 0.0);
}

/* Every way at one point: measured, verified, a point each. */
static zc_status zc__blk_point_run(zc_bench_ctx *ctx, const zc__bench_case *self,
                                   zc_bench_result *res, zc__blk_move *m, zc__blk_run *run)
{
    double median[ZC__BLK_WAYS] = {0.0};
    zc_blocks_engine chosen = ZC_BLOCKS_AUTO;
    double per = m->desc.dir == ZC_BLOCKS_BOTH ? 2.0 : 1.0;
    double moved = (double)m->point.count * (double)m->point.block_bytes * per;
    for (size_t w = 0; w < ZC__BLK_WAYS; w++) {
        const zc__blk_way *way = &zc__blk_ways[w];
        m->naive = way->naive;
        m->opts.engine = way->engine;
        int reach = 1;
        zc_blocks_engine engine = ZC_BLOCKS_AUTO;
        char why[ZC_BENCH_REASON_MAX], variant[ZC_BENCH_VARIANT_MAX];
        ZC_CHECK(zc__blk_reach(m, &reach, &engine, why, sizeof why));
        if (!reach) {
            zc__blk_say_unreachable(run, way->name, why);
            continue;
        }
        if (way->engine == ZC_BLOCKS_AUTO && !way->naive) {
            chosen = engine;
            snprintf(variant, sizeof variant, "auto: %s", zc_blocks_engine_name(engine));
        } else {
            snprintf(variant, sizeof variant, "%s", way->name);
        }
        ZC_CHECK(zc__blk_poison(ctx, m));
        double *seconds = NULL;
        size_t count = 0, warmups = 0;
        ZC_CHECK(zc__measure(ctx, zc__blk_sample, m, 0, &seconds, &count, &warmups));
        zc_status st = zc__blk_verify(ctx, self->info.key, variant, m);
        if (st == ZC_OK)
            st = zc__add_seconds(res, variant, m->point.block_bytes, "blocks",
                                 (double)m->point.count, ZC_BENCH_BANDWIDTH, moved,
                                 (double)m->point.count * per, seconds, count, warmups);
        free(seconds);
        ZC_CHECK(st);
        median[w] = res->points[res->point_count - 1].stats.median;
    }
    zc__blk_say_point(run, &m->point, median, chosen);
    return ZC_OK;
}

/* The finding: the sizes left out and the engines not measured first, then each point. */
static void zc__blk_summary(const zc_bench_ctx *ctx, const zc__blk_run *run, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%sauto on the %s profile: %s", run->left_out,
             run->left_out[0] ? "; " : "", run->unreachable, run->unreachable[0] ? "; " : "",
             ctx->config.blocks_profile != NULL ? "given" : "placeholder", run->points);
}

zc_status zc__run_blocks(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const size_t *sizes = NULL;
    size_t n =
        zc__bench_sizes(ctx, zc__blk_quick, ZC__COUNT(zc__blk_quick), zc__blk_default,
                        ZC__COUNT(zc__blk_default), zc__blk_full, ZC__COUNT(zc__blk_full), &sizes);
    zc__blk_point points[2 * ZC__BENCH_SIZES_MAX];
    zc__blk_run run;
    memset(&run, 0, sizeof run);
    n = zc__blk_plan(sizes, n, zc__blk_target(ctx), zc__blk_cap(ctx), points, run.left_out,
                     sizeof run.left_out);
    if (n == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: no block size to measure: %s", self->info.key,
                       run.left_out);
    /* One way, the mover's fit reads the points: a small move of each size beside the large
     * one, so that a move's fixed cost is measured, not guessed (a quick run fits nothing). */
    if ((zc_blocks_dir)self->arg != ZC_BLOCKS_BOTH && ctx->config.mode != ZC_BENCH_QUICK)
        n = zc__blk_add_small_moves(points, n, sizeof points / sizeof points[0]);
    zc__blk_move m;
    memset(&m, 0, sizeof m);
    m.opts.stream = (struct CUstream_st *)ctx->streams[0];
    m.naive_side = ctx->streams[1];
    m.fork = ctx->start[1];
    m.join = ctx->stop[1];
    zc_status st = ZC_OK;
    ZC_CHECK(zc__blk_mover_create(ctx, &m.mover));
    for (size_t i = 0; i < n; i++) {
        zc__bench_tick(ctx, i, n);
        ZC_CHECK_GOTO(zc__blk_prepare(ctx, &m, (zc_blocks_dir)self->arg, points[i]), st, out);
        ZC_CHECK_GOTO(zc__blk_point_run(ctx, self, res, &m, &run), st, out);
    }
    zc__blk_summary(ctx, &run, res->reason, sizeof res->reason);
out:
    zc__blk_release(&m);
    zc_blocks_destroy(m.mover);
    return st;
}
