/* SPDX-License-Identifier: Apache-2.0 */
/* blocks.beside: what each engine of the block mover costs a memory-bound kernel running beside
 * it. The kernel (every word of a device buffer read, one added, written to a second buffer,
 * pass after pass) is timed alone, then while blocks move both ways without a pause on another
 * stream by one engine; the kernel's loss of throughput is the engine's cost to a model beside
 * it (the kernel engine takes SMs, the copy engines memory bandwidth). */
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

static const size_t zc__beside_quick[] = {64 * ZC__KIB};
static const size_t zc__beside_default[] = {64 * ZC__KIB, ZC__MIB};

/* The kernel's state and one engine's moves beside it. */
typedef struct zc__beside {
    zc__blk_move *m;
    int with_moves;    /* 0: the kernel alone */
    void *in, *out;    /* the kernel's buffers, half of its memory each */
    size_t half;       /* bytes of each */
    size_t passes;     /* kernel launches per sample */
    cudaStream_t kern; /* the kernel's stream; the moves go on m->opts.stream */
    size_t moves;      /* moves queued in the last sample */
} zc__beside;

/* The kernel's memory: 1 GiB (quick 256 MiB), well above any L2, within a sixteenth of the
 * GPU's memory. Ungated runs are for tools that run one kernel at a time (compute-sanitizer),
 * where every access is checked and no figure means much: 64 MiB there. */
static size_t zc__beside_bytes(const zc_bench_ctx *ctx)
{
    size_t want = ctx->config.ungated                  ? 64 * ZC__MIB
                  : ctx->config.mode == ZC_BENCH_QUICK ? 256 * ZC__MIB
                                                       : 1024 * ZC__MIB;
    size_t cap = zc__blk_cap(ctx);
    return (want < cap ? want : cap) / 32 * 32;
}

/* Kernel time a sample aims at: the moves then cover it but for its first launches' queuing. */
static double zc__beside_span_s(const zc_bench_ctx *ctx)
{
    return ctx->config.mode == ZC_BENCH_QUICK  ? 0.02
           : ctx->config.mode == ZC_BENCH_FULL ? 0.2
                                               : 0.1;
}

static zc_status zc__beside_passes(zc_bench_ctx *ctx, const zc__beside *b, size_t passes)
{
    for (size_t p = 0; p < passes; p++)
        ZC_CHECK(zc__k_increment(b->in, b->out, b->half, ctx->info.sm_count, b->kern));
    return ZC_OK;
}

/* Moves on their stream until the kernel's stop event has passed, two at most in flight so
 * that the host never runs far ahead; then the moves' stream drained. */
static zc_status zc__beside_moves(zc_bench_ctx *ctx, zc__beside *b)
{
    cudaEvent_t flight[2] = {ctx->start[1], ctx->stop[1]};
    cudaStream_t s = (cudaStream_t)b->m->opts.stream;
    b->moves = 0;
    for (;;) {
        /* One move at least, whose blocks the point checks, however short the kernel. */
        cudaError_t q = b->moves > 0 ? cudaEventQuery(ctx->stop[2]) : cudaErrorNotReady;
        if (q == cudaSuccess)
            break;
        if (q != cudaErrorNotReady)
            ZC_CUDA_RETURN(q);
        if (b->moves >= 2)
            ZC_CUDA_RETURN(cudaEventSynchronize(flight[b->moves % 2]));
        ZC_CHECK(zc__blk_queue(b->m));
        ZC_CUDA_RETURN(cudaEventRecord(flight[b->moves % 2], s));
        b->moves++;
    }
    ZC_CUDA_RETURN(cudaStreamSynchronize(s));
    return ZC_OK;
}

/* One sample: the kernel's passes between events on its stream, the moves beside them. */
static zc_status zc__beside_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)slot;
    zc__beside *b = varg;
    ZC_CUDA_RETURN(cudaEventRecord(ctx->start[2], b->kern));
    ZC_CHECK(zc__beside_passes(ctx, b, b->passes));
    ZC_CUDA_RETURN(cudaEventRecord(ctx->stop[2], b->kern));
    if (b->with_moves)
        ZC_CHECK(zc__beside_moves(ctx, b));
    ZC_CUDA_RETURN(cudaEventSynchronize(ctx->stop[2]));
    float ms = 0.0f;
    ZC_CUDA_RETURN(cudaEventElapsedTime(&ms, ctx->start[2], ctx->stop[2]));
    *seconds_p = ms > 0.0f ? (double)ms / 1e3 : 1e-7;
    return ZC_OK;
}

/* Passes per sample: one timed alone after a warm-up, then as many as the span asks for. */
static zc_status zc__beside_calibrate(zc_bench_ctx *ctx, zc__beside *b)
{
    b->with_moves = 0;
    b->passes = 1;
    double one = 0.0;
    ZC_CHECK(zc__beside_sample(ctx, b, 0, &one));
    ZC_CHECK(zc__beside_sample(ctx, b, 0, &one));
    double n = zc__beside_span_s(ctx) / one;
    b->passes = n < 1.0 ? 1 : n > 512.0 ? 512 : (size_t)n;
    return ZC_OK;
}

/* The kernel's output, each word its input's plus one, checked after a point's samples. */
static zc_status zc__beside_check(zc_bench_ctx *ctx, const char *key, const char *what,
                                  const zc__beside *b, uint32_t seed)
{
    return zc__verify_device_delta(ctx, key, what, b->out, b->half, seed, 1);
}

/* The kernel alone or beside one engine: a point of the kernel's GB/s (read and written), its
 * output and the moved blocks checked. *median_p: its median. */
static zc_status zc__beside_point(zc_bench_ctx *ctx, const zc__bench_case *self,
                                  zc_bench_result *res, zc__beside *b, const char *variant,
                                  uint32_t seed, double *median_p)
{
    ZC_CUDA_RETURN(cudaMemsetAsync(b->out, 0xA5, b->half, b->kern));
    ZC_CUDA_RETURN(cudaStreamSynchronize(b->kern));
    if (b->with_moves)
        ZC_CHECK(zc__blk_poison(ctx, b->m));
    double *seconds = NULL;
    size_t count = 0, warmups = 0;
    ZC_CHECK(zc__measure(ctx, zc__beside_sample, b, 0, &seconds, &count, &warmups));
    zc_status st = zc__beside_check(ctx, self->info.key, variant, b, seed);
    if (st == ZC_OK && b->with_moves)
        st = zc__blk_verify(ctx, self->info.key, variant, b->m);
    if (st == ZC_OK)
        st = zc__add_seconds(res, variant, b->m->point.block_bytes, "blocks",
                             (double)b->m->point.count, ZC_BENCH_BANDWIDTH,
                             2.0 * (double)b->half * (double)b->passes, (double)b->passes, seconds,
                             count, warmups);
    free(seconds);
    ZC_CHECK(st);
    *median_p = res->points[res->point_count - 1].stats.median;
    return ZC_OK;
}

/* "64 KiB x4096: compute 2890 GB/s alone, lost beside copy 3.1% kernel 12.0%". */
static void zc__beside_say(char *buf, size_t n, const zc__blk_point *p, double alone,
                           const char *const *names, const double *beside, size_t count)
{
    char sz[32];
    size_t used = strlen(buf);
    if (used + 1 >= n)
        return;
    zc__snprintf_c(buf + used, n - used, "%s%s x%zu: compute %.0f GB/s alone, lost beside",
                   used ? "; " : "", zc__bench_size_str(p->block_bytes, sz, sizeof sz), p->count,
                   alone);
    for (size_t i = 0; i < count; i++) {
        used = strlen(buf);
        if (used + 1 < n && alone > 0.0)
            zc__snprintf_c(buf + used, n - used, " %s %.1f%%", names[i],
                           100.0 * (1.0 - beside[i] / alone));
    }
}

/* One block size: the kernel alone, then beside each engine that reaches the memory. */
static zc_status zc__beside_size(zc_bench_ctx *ctx, const zc__bench_case *self,
                                 zc_bench_result *res, zc__beside *b, uint32_t seed, char *note,
                                 size_t note_size)
{
    static const zc_blocks_engine engines[] = {ZC_BLOCKS_COPY, ZC_BLOCKS_BATCH, ZC_BLOCKS_KERNEL};
    const char *names[3];
    double beside[3], alone = 0.0;
    size_t measured = 0;
    b->with_moves = 0;
    ZC_CHECK(zc__beside_point(ctx, self, res, b, "compute alone", seed, &alone));
    for (size_t e = 0; e < ZC__COUNT(engines); e++) {
        b->m->naive = 0;
        b->m->opts.engine = engines[e];
        int reach = 1;
        zc_blocks_engine planned;
        char why[ZC_BENCH_REASON_MAX], variant[ZC_BENCH_VARIANT_MAX];
        ZC_CHECK(zc__blk_reach(b->m, &reach, &planned, why, sizeof why));
        if (!reach) {
            size_t used = strlen(note);
            if (strstr(note, zc_blocks_engine_name(engines[e])) == NULL && used + 1 < note_size)
                snprintf(note + used, note_size - used, "%s%s not measured: %.150s",
                         used ? "; " : "", zc_blocks_engine_name(engines[e]), why);
            continue;
        }
        snprintf(variant, sizeof variant, "compute beside %s", zc_blocks_engine_name(engines[e]));
        b->with_moves = 1;
        ZC_CHECK(zc__beside_point(ctx, self, res, b, variant, seed, &beside[measured]));
        names[measured++] = zc_blocks_engine_name(engines[e]);
    }
    zc__beside_say(res->reason, sizeof res->reason, &b->m->point, alone, names, beside, measured);
    return ZC_OK;
}

/* The kernel's buffers, its input filled; the mover; every block size in turn. */
static zc_status zc__beside_sizes(zc_bench_ctx *ctx, const zc__bench_case *self,
                                  zc_bench_result *res, zc__beside *b, const zc__blk_point *pts,
                                  size_t n, char *note, size_t note_size)
{
    uint32_t seed = zc__bench_seed(ctx);
    ZC_CHECK(zc__k_fill(b->in, b->half, seed, ctx->info.sm_count, b->kern));
    ZC_CUDA_RETURN(cudaStreamSynchronize(b->kern));
    ZC_CHECK(zc__beside_calibrate(ctx, b));
    for (size_t i = 0; i < n; i++) {
        zc__bench_tick(ctx, i, n);
        ZC_CHECK(zc__blk_prepare(ctx, b->m, ZC_BLOCKS_BOTH, pts[i]));
        ZC_CHECK(zc__beside_size(ctx, self, res, b, seed, note, note_size));
    }
    return ZC_OK;
}

zc_status zc__run_blocks_beside(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const size_t *sizes = NULL;
    size_t n = zc__bench_sizes(ctx, zc__beside_quick, ZC__COUNT(zc__beside_quick),
                               zc__beside_default, ZC__COUNT(zc__beside_default),
                               zc__beside_default, ZC__COUNT(zc__beside_default), &sizes);
    zc__blk_point pts[ZC__BENCH_SIZES_MAX];
    char left_out[ZC_BENCH_REASON_MAX / 4], note[ZC_BENCH_REASON_MAX / 2] = "";
    n = zc__blk_plan(sizes, n, zc__blk_target(ctx), zc__blk_cap(ctx), pts, left_out,
                     sizeof left_out);
    if (n == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: no block size to measure: %s", self->info.key,
                       left_out);
    zc__blk_move m;
    memset(&m, 0, sizeof m);
    m.opts.stream = (struct CUstream_st *)ctx->streams[0];
    zc__beside b;
    memset(&b, 0, sizeof b);
    b.m = &m;
    b.kern = ctx->streams[2];
    size_t total = zc__beside_bytes(ctx);
    b.half = total / 2;
    void *buf = NULL;
    zc_status st = ZC_OK;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, total, &buf));
    b.in = buf;
    b.out = (char *)buf + b.half;
    ZC_CHECK_GOTO(zc__blk_mover_create(ctx, &m.mover), st, free_buf);
    res->reason[0] = '\0';
    ZC_CHECK_GOTO(zc__beside_sizes(ctx, self, res, &b, pts, n, note, sizeof note), st, out);
    char findings[ZC_BENCH_REASON_MAX];
    char sz[32];
    zc__snprintf_c(findings, sizeof findings, "%s%s%s%sboth ways beside a %s read+write kernel: %s",
                   left_out, left_out[0] ? "; " : "", note, note[0] ? "; " : "",
                   zc__bench_size_str(total, sz, sizeof sz), res->reason);
    snprintf(res->reason, sizeof res->reason, "%s", findings);
out:
    zc__blk_release(&m);
    zc_blocks_destroy(m.mover);
free_buf:
    zc__mem_exact_free(ZC_BUFFER_DEVICE, buf);
    return st;
}
