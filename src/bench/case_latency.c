/* SPDX-License-Identifier: Apache-2.0 */
/* Latency cases: small copies, launch + synchronize, a copy-kernel-copy round trip, the GPU's
 * read latency of host memory (pointer chase), and the CPU-GPU flag ping-pong. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"

static const size_t zc__lat_quick[] = {4, 4096, 65536};
static const size_t zc__lat_default[] = {4, 64, 512, 4096, 65536};
static const size_t zc__lat_full[] = {4, 16, 64, 256, 1024, 4096, 16384, 65536};

typedef struct zc__small_arg {
    int dir;
    void *host, *dev;
    size_t bytes;
} zc__small_arg;

static zc_status zc__small_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)ctx;
    (void)slot;
    zc__small_arg *a = varg;
    uint64_t t0 = zc_clock_ns();
    if (a->dir == ZC__DIR_H2D)
        ZC_CUDA_RETURN(cudaMemcpy(a->dev, a->host, a->bytes, cudaMemcpyHostToDevice));
    else
        ZC_CUDA_RETURN(cudaMemcpy(a->host, a->dev, a->bytes, cudaMemcpyDeviceToHost));
    *seconds_p = (double)(zc_clock_ns() - t0) / 1e9;
    return ZC_OK;
}

/* arg: host kind; arg2: direction. Synchronous cudaMemcpy, host clock, fixed sample count. */
zc_status zc__run_small_copy(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const char *key = self->info.key;
    const size_t *sizes;
    size_t nsizes =
        ctx->config.mode == ZC_BENCH_QUICK  ? (sizes = zc__lat_quick, ZC__COUNT(zc__lat_quick))
        : ctx->config.mode == ZC_BENCH_FULL ? (sizes = zc__lat_full, ZC__COUNT(zc__lat_full))
                                            : (sizes = zc__lat_default, ZC__COUNT(zc__lat_default));
    zc__small_arg a;
    memset(&a, 0, sizeof a);
    a.dir = self->arg2;
    zc_status st;
    ZC_CHECK(zc__bench_host(ctx, (zc_buffer_kind)self->arg, 0, 65536, &a.host));
    ZC_CHECK(zc__bench_device(ctx, 0, 65536, &a.dev));
    for (size_t i = 0; i < nsizes; i++) {
        zc__bench_tick(ctx, i, nsizes);
        size_t b = sizes[i];
        a.bytes = b;
        uint32_t seed = zc__bench_seed(ctx);
        if (a.dir == ZC__DIR_H2D) {
            zc__pattern_fill(a.host, b, seed);
            ZC_CHECK(zc__poison_device(ctx, a.dev, b));
        } else {
            ZC_CHECK(zc__k_fill(a.dev, b, seed, ctx->info.sm_count, ctx->streams[0]));
            ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
            memset(a.host, 0xA5, b);
        }
        double *seconds = NULL;
        size_t count = 0, warmups = 0;
        st = zc__measure(ctx, zc__small_sample, &a, ctx->method.latency_samples, &seconds, &count,
                         &warmups);
        ZC_CHECK(st);
        if (zc__bench_corrupt(ctx, key))
            st = a.dir == ZC__DIR_H2D ? zc__corrupt_device(a.dev, b) : zc__corrupt_host(a.host, b);
        if (st == ZC_OK)
            st = a.dir == ZC__DIR_H2D
                     ? zc__verify_device(ctx, key, "device destination", a.dev, b, seed)
                     : zc__verify_host_dst(ctx, key, "host destination", (zc_buffer_kind)self->arg,
                                           a.host, b, seed);
        if (st == ZC_OK)
            st = zc__add_seconds(res, "", b, NULL, 0, ZC_BENCH_LATENCY, (double)b, 1.0, seconds,
                                 count, warmups);
        free(seconds);
        ZC_CHECK(st);
    }
    return ZC_OK;
}

typedef struct zc__launch_arg {
    uint32_t value;
} zc__launch_arg;

static zc_status zc__launch_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)slot;
    zc__launch_arg *a = varg;
    a->value++;
    uint64_t t0 = zc_clock_ns();
    ZC_CHECK(zc__k_touch(ctx->d_slots, a->value, ctx->streams[0]));
    ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
    *seconds_p = (double)(zc_clock_ns() - t0) / 1e9;
    return ZC_OK;
}

zc_status zc__run_launch(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    zc__launch_arg a = {zc__bench_seed(ctx)};
    double *seconds = NULL;
    size_t count = 0, warmups = 0;
    zc_status st = zc__measure(ctx, zc__launch_sample, &a, ctx->method.latency_samples, &seconds,
                               &count, &warmups);
    ZC_CHECK(st);
    uint32_t got = 0;
    st = ZC_CUDA(cudaMemcpy(&got, ctx->d_slots, sizeof got, cudaMemcpyDeviceToHost));
    if (st == ZC_OK && got != a.value)
        st = ZC_FAIL(ZC_ERR_VERIFY,
                     "%s: the last kernel should have written %" PRIu32 ", the word holds %" PRIu32,
                     self->info.key, a.value, got);
    if (st == ZC_OK)
        st = zc__add_seconds(res, "empty kernel + cudaStreamSynchronize", 0, NULL, 0,
                             ZC_BENCH_LATENCY, 0.0, 1.0, seconds, count, warmups);
    free(seconds);
    return st;
}

typedef struct zc__rt_arg {
    int pageable;
    void *h_in, *h_out, *d_in, *d_out;
    size_t bytes;
    uint32_t seed;
    const char *key;
} zc__rt_arg;

static zc_status zc__rt_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)slot;
    zc__rt_arg *a = varg;
    memset(a->h_out, 0xA5, a->bytes);
    uint64_t t0 = zc_clock_ns();
    if (a->pageable) {
        /* The legacy default stream orders the synchronous copies and the kernel. */
        ZC_CUDA_RETURN(cudaMemcpy(a->d_in, a->h_in, a->bytes, cudaMemcpyHostToDevice));
        ZC_CHECK(zc__k_increment(a->d_in, a->d_out, a->bytes, ctx->info.sm_count, 0));
        ZC_CUDA_RETURN(cudaMemcpy(a->h_out, a->d_out, a->bytes, cudaMemcpyDeviceToHost));
    } else {
        cudaStream_t s = ctx->streams[0];
        ZC_CUDA_RETURN(cudaMemcpyAsync(a->d_in, a->h_in, a->bytes, cudaMemcpyHostToDevice, s));
        ZC_CHECK(zc__k_increment(a->d_in, a->d_out, a->bytes, ctx->info.sm_count, s));
        ZC_CUDA_RETURN(cudaMemcpyAsync(a->h_out, a->d_out, a->bytes, cudaMemcpyDeviceToHost, s));
        ZC_CUDA_RETURN(cudaStreamSynchronize(s));
    }
    *seconds_p = (double)(zc_clock_ns() - t0) / 1e9;
    size_t bad = 0;
    if (!zc__pattern_check(a->h_out, a->bytes, a->seed, 1, &bad))
        return ZC_FAIL(ZC_ERR_VERIFY,
                       "%s: round trip result: word at byte %zu is not input + 1 (a copy or the "
                       "kernel did not finish before the result was read)",
                       a->key, bad);
    return ZC_OK;
}

/* arg: 1 pageable, 0 pinned. 4 KiB in, a kernel adds one to each word, 4 KiB out. */
zc_status zc__run_roundtrip(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    zc__rt_arg a;
    memset(&a, 0, sizeof a);
    a.pageable = self->arg;
    a.bytes = 4096;
    a.key = self->info.key;
    zc_buffer_kind kind = a.pageable ? ZC_BUFFER_PAGEABLE : ZC_BUFFER_PINNED;
    zc_status st;
    ZC_CHECK(zc__bench_host(ctx, kind, 0, a.bytes, &a.h_in));
    ZC_CHECK(zc__bench_host(ctx, kind, 1, a.bytes, &a.h_out));
    ZC_CHECK(zc__bench_device(ctx, 0, a.bytes, &a.d_in));
    ZC_CHECK(zc__bench_device(ctx, 1, a.bytes, &a.d_out));
    a.seed = zc__bench_seed(ctx);
    zc__pattern_fill(a.h_in, a.bytes, a.seed);
    if (zc__bench_corrupt(ctx, a.key))
        ((uint32_t *)a.h_in)[a.bytes / 8] ^= 0xFFu; /* the expected output no longer follows */
    double *seconds = NULL;
    size_t count = 0, warmups = 0;
    st = zc__measure(ctx, zc__rt_sample, &a, ctx->method.latency_samples, &seconds, &count,
                     &warmups);
    ZC_CHECK(st);
    st = zc__add_seconds(res, "4 KiB H2D + kernel + 4 KiB D2H", a.bytes, NULL, 0, ZC_BENCH_LATENCY,
                         2.0 * (double)a.bytes, 1.0, seconds, count, warmups);
    free(seconds);
    return st;
}

/* The pointer chase: 16384 nodes 4 KiB apart, linked in one random cycle (Sattolo). */
#define ZC__CHASE_NODES  16384u
#define ZC__CHASE_STRIDE 4096u

zc_status zc__run_chase(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    int device_memory = self->arg;
    const char *key = self->info.key;
    size_t sw = ZC__CHASE_STRIDE / 4, bytes = (size_t)ZC__CHASE_NODES * ZC__CHASE_STRIDE;
    uint32_t *next = malloc(ZC__CHASE_NODES * sizeof *next);
    if (next == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: chain of %u nodes", key, ZC__CHASE_NODES);
    for (uint32_t i = 0; i < ZC__CHASE_NODES; i++)
        next[i] = i;
    for (uint32_t i = ZC__CHASE_NODES - 1; i > 0; i--) {
        uint32_t j = zc__bench_seed(ctx) % i; /* Sattolo: j < i gives a single cycle */
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    void *host = NULL, *dev = NULL;
    double *seconds = NULL;
    zc_status st;
    ZC_CHECK_GOTO(zc__bench_host(ctx, ZC_BUFFER_MAPPED, 1, bytes, &host), st, out);
    for (uint32_t i = 0; i < ZC__CHASE_NODES; i++)
        ((uint32_t *)host)[(size_t)i * sw] = next[i];
    if (device_memory) {
        ZC_CHECK_GOTO(zc__bench_device(ctx, 1, bytes, &dev), st, out);
        ZC_CUDA_GOTO(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), st, out);
    } else {
        ZC_CHECK_GOTO(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, host, &dev), st, out);
    }
    uint32_t hops = ctx->config.mode == ZC_BENCH_QUICK ? 256 : 1000;
    size_t samples = ctx->config.mode == ZC_BENCH_QUICK ? 8 : 15;
    seconds = malloc(samples * sizeof *seconds);
    if (seconds == NULL) {
        st = ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: samples", key);
        goto out;
    }
    /* Each sample carries on from where the last stopped, so no node is visited twice and no
     * cache can answer for memory. The first sample is a warm-up. */
    uint32_t at = 0;
    for (size_t s = 0; s <= samples; s++) {
        double t = 0.0;
        ZC_CHECK_GOTO(zc__gate_begin(ctx, 1, NULL), st, out);
        ZC_CHECK_GOTO(zc__k_chase(dev, sw, at, hops, ctx->d_slots, ctx->streams[0]), st, out);
        ZC_CHECK_GOTO(zc__gate_finish(ctx, 1, &t), st, out);
        uint32_t end = 0;
        ZC_CUDA_GOTO(cudaMemcpy(&end, ctx->d_slots, sizeof end, cudaMemcpyDeviceToHost), st, out);
        uint32_t expect = at;
        for (uint32_t h = 0; h < hops; h++)
            expect = next[expect];
        if (zc__bench_corrupt(ctx, key))
            end ^= 1u;
        if (end != expect) {
            st = ZC_FAIL(ZC_ERR_VERIFY,
                         "%s: after %" PRIu32 " hops from node %" PRIu32
                         " the kernel reached node %" PRIu32 ", the chain leads to %" PRIu32,
                         key, hops, at, end, expect);
            goto out;
        }
        at = expect;
        if (s > 0)
            seconds[s - 1] = t;
    }
    st = zc__add_seconds(res,
                         device_memory ? "dependent loads, device memory"
                                       : "dependent loads, mapped host memory",
                         ZC__CHASE_STRIDE, "hops", (double)hops, ZC_BENCH_LATENCY, 0.0,
                         (double)hops, seconds, samples, 1);
out:
    free(seconds);
    free(next);
    return st;
}

/* The ping-pong's words, one 128-byte line each: ping and stop are written by the CPU, pong
 * and status by the GPU. */
typedef struct zc__pp_words {
    uint32_t ping;
    uint32_t pad0[31];
    uint32_t pong;
    uint32_t pad1[31];
    uint32_t stop;
    uint32_t pad2[31];
    uint32_t status;
    uint32_t pad3[31];
} zc__pp_words;

/* arg: 1 for ld.acquire.sys / st.release.sys on the GPU, 0 for volatile. */
zc_status zc__run_pingpong(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const char *key = self->info.key;
    const uint32_t warm = 200;
    size_t samples = ctx->method.pingpong_samples;
    uint32_t rounds = (uint32_t)samples + warm;
    const uint64_t timeout_ns = 2000000000ull;
    zc__pp_words *w = NULL, *dw = NULL;
    double *seconds = malloc(samples * sizeof *seconds);
    if (seconds == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: %zu samples", key, samples);
    zc_status st;
    int launched = 0;
    ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_MAPPED, sizeof *w, (void **)&w), st, out);
    memset(w, 0, sizeof *w);
    w->status = 0xFFFFFFFFu; /* written by the host only while no kernel runs */
    ZC_CHECK_GOTO(zc__mem_exact_device_ptr(ZC_BUFFER_MAPPED, w, (void **)&dw), st, out);
    cudaStream_t s = ctx->streams[1];
    ZC_CHECK_GOTO(zc__k_pingpong(&dw->ping, &dw->pong, &dw->stop, &dw->status, rounds, timeout_ns,
                                 self->arg, s),
                  st, out);
    launched = 1;
    for (uint32_t seq = 1; seq <= rounds; seq++) {
        uint64_t t0 = zc_clock_ns(), t1 = t0;
        __atomic_store_n(&w->ping, seq, __ATOMIC_RELEASE);
        uint32_t v;
        uint32_t spins = 0;
        for (;;) {
            v = __atomic_load_n(&w->pong, __ATOMIC_ACQUIRE);
            if (v == seq)
                break;
            if (v != seq - 1) {
                st = ZC_FAIL(ZC_ERR_VERIFY,
                             "%s: round %" PRIu32 ": the GPU answered %" PRIu32
                             ", neither this round nor the last",
                             key, seq, v);
                goto out;
            }
            if ((++spins & 255u) == 0 && zc_clock_ns() - t0 > timeout_ns) {
                st = ZC_FAIL(ZC_ERR_TIMEOUT,
                             "%s: round %" PRIu32 ": no answer from the GPU within %.1f s", key,
                             seq, (double)timeout_ns / 1e9);
                goto out;
            }
        }
        t1 = zc_clock_ns();
        if (seq > warm)
            seconds[seq - warm - 1] = (double)(t1 - t0) / 1e9;
    }
    ZC_CUDA_GOTO(cudaStreamSynchronize(s), st, out);
    launched = 0;
    {
        uint32_t status = __atomic_load_n(&w->status, __ATOMIC_ACQUIRE);
        if (status != 0) {
            st = ZC_FAIL(status == 1 ? ZC_ERR_TIMEOUT : ZC_ERR_KERNEL,
                         "%s: the ping-pong kernel ended with status %" PRIu32
                         " (1 timed out, 2 stopped)",
                         key, status);
            goto out;
        }
    }
    st = zc__add_seconds(res, self->arg ? "ld.acquire.sys / st.release.sys" : "volatile", 4, NULL,
                         0, ZC_BENCH_LATENCY, 0.0, 1.0, seconds, samples, warm);
out:
    if (launched) {
        /* Stop the responder before its words go away; its own timeout bounds the wait. */
        __atomic_store_n(&w->stop, 1u, __ATOMIC_RELEASE);
        ZC_CUDA_IGNORE(cudaStreamSynchronize(ctx->streams[1]));
    }
    zc__mem_exact_free(ZC_BUFFER_MAPPED, w);
    free(seconds);
    return st;
}
