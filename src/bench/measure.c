/* SPDX-License-Identifier: Apache-2.0 */
/* Timing (the gate, the repeat-until-settled loop), results and verification on the GPU. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_internal.h"
#include "bench/kernels.h"
#include "bench/pattern.h"
#include "core/checked_math.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "zerocopy/clock.h"

zc_status zc__gate_begin(zc_bench_ctx *ctx, int nstreams, uint32_t *slot_ptr)
{
    if (ctx->shared == NULL)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "the timing gate needs mapped host memory, which "
                                           "this GPU cannot map (canMapHostMemory = 0)");
    if (nstreams < 1 || nstreams > ZC__BENCH_STREAMS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__gate_begin: %d streams", nstreams);
    if (slot_ptr)
        ZC_CUDA_RETURN(cudaMemsetAsync(slot_ptr, 0, sizeof *slot_ptr, ctx->streams[0]));
    if (ctx->config.ungated) {
        for (int i = 0; i < nstreams; i++)
            ZC_CUDA_RETURN(cudaEventRecord(ctx->start[i], ctx->streams[i]));
        return ZC_OK;
    }
    ctx->gate_seq++;
    if (ctx->gate_seq == 0)
        ctx->gate_seq = 1;
    ctx->gate_open = 1;
    uint64_t timeout_ns = (uint64_t)(ctx->method.gate_timeout_s * 1e9);
    for (int i = 0; i < nstreams; i++) {
        ZC_CHECK(zc__k_gate(&ctx->d_shared->gate_release, ctx->gate_seq,
                            &ctx->d_shared->gate_status, timeout_ns, ctx->streams[i]));
        ZC_CUDA_RETURN(cudaEventRecord(ctx->start[i], ctx->streams[i]));
    }
    return ZC_OK;
}

zc_status zc__gate_finish(zc_bench_ctx *ctx, int nstreams, double *seconds_p)
{
    for (int i = 0; i < nstreams; i++)
        ZC_CUDA_RETURN(cudaEventRecord(ctx->stop[i], ctx->streams[i]));
    /* Everything is queued: open the gate. A release store, read by the kernel's polls. */
    if (!ctx->config.ungated)
        __atomic_store_n(&ctx->shared->gate_release, ctx->gate_seq, __ATOMIC_RELEASE);
    ctx->gate_open = 0;
    for (int i = 0; i < nstreams; i++)
        ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[i]));
    if (!ctx->config.ungated &&
        __atomic_load_n(&ctx->shared->gate_status, __ATOMIC_ACQUIRE) == ctx->gate_seq)
        return ZC_FAIL(ZC_ERR_TIMEOUT,
                       "the timing gate kernel gave up after %.1f s: the host took longer than "
                       "that to queue one sample's work",
                       ctx->method.gate_timeout_s);
    float first_start = 0.0f, last_stop = 0.0f;
    for (int i = 0; i < nstreams; i++) {
        float ms = 0.0f;
        if (i > 0) {
            ZC_CUDA_RETURN(cudaEventElapsedTime(&ms, ctx->start[0], ctx->start[i]));
            if (ms < first_start)
                first_start = ms;
        }
        ZC_CUDA_RETURN(cudaEventElapsedTime(&ms, ctx->start[0], ctx->stop[i]));
        if (ms > last_stop)
            last_stop = ms;
    }
    double seconds = ((double)last_stop - (double)first_start) / 1e3;
    if (!(seconds > 0.0))
        seconds = 1e-7; /* below the events' resolution (about half a microsecond) */
    *seconds_p = seconds;
    return ZC_OK;
}

void zc__gate_abandon(zc_bench_ctx *ctx)
{
    if (ctx == NULL || ctx->shared == NULL)
        return;
    if (ctx->gate_open) {
        __atomic_store_n(&ctx->shared->gate_release, ctx->gate_seq, __ATOMIC_RELEASE);
        ctx->gate_open = 0;
    }
    /* Errors here are the ones already reported by the failing case. */
    ZC_CUDA_IGNORE(cudaDeviceSynchronize());
    (void)cudaGetLastError();
}

zc_status zc__measure(zc_bench_ctx *ctx, zc__sample_fn fn, void *arg, size_t fixed,
                      double **seconds_p, size_t *count_p, size_t *warmups_p)
{
    size_t warmups = fixed ? ctx->method.warmups * 10 : ctx->method.warmups;
    size_t cap = fixed ? fixed : ctx->method.max_samples;
    double *seconds = malloc(cap * sizeof *seconds);
    if (seconds == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc__measure: %zu samples", cap);
    zc_status st = ZC_OK;
    size_t slot = 0;
    double scratch = 0.0;
    for (size_t w = 0; w < warmups; w++) {
        ZC_CHECK_GOTO(fn(ctx, arg, slot++, &scratch), st, fail);
    }
    uint64_t begin = zc_clock_ns();
    size_t n = 0;
    while (n < cap) {
        ZC_CHECK_GOTO(fn(ctx, arg, slot++, &seconds[n]), st, fail);
        n++;
        if (fixed || n < ctx->method.min_samples)
            continue;
        zc_stats stats;
        ZC_CHECK_GOTO(zc_stats_compute(seconds, n, &stats), st, fail);
        if (stats.cov <= ctx->method.cov_target)
            break;
        if ((double)(zc_clock_ns() - begin) / 1e9 > ctx->method.point_cap_s)
            break;
    }
    *seconds_p = seconds;
    *count_p = n;
    *warmups_p = warmups;
    return ZC_OK;
fail:
    free(seconds);
    return st;
}

zc_status zc__add_seconds(zc_bench_result *res, const char *variant, size_t bytes,
                          const char *param_name, double param, zc_bench_metric metric,
                          double bytes_per_sample, double ops_per_sample, const double *seconds,
                          size_t count, size_t warmups)
{
    double *values = malloc(count * sizeof *values);
    if (values == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc__add_seconds: %zu samples", count);
    for (size_t i = 0; i < count; i++) {
        double s = seconds[i] > 0.0 ? seconds[i] : 1e-9;
        if (metric == ZC_BENCH_BANDWIDTH)
            values[i] = bytes_per_sample / s / 1e9;
        else
            values[i] = s * 1e6 / (ops_per_sample > 0.0 ? ops_per_sample : 1.0);
    }
    zc_status st = zc_bench_result_add(res, variant, bytes, param_name, param, metric,
                                       bytes_per_sample, ops_per_sample, values, count, warmups, 1);
    free(values);
    return st;
}

ZC_EXTERN zc_status zc_bench_result_init(zc_bench_result *result_p, const char *key)
{
    ZC_REQUIRE_ARG(result_p);
    ZC_REQUIRE_ARG(key);
    if (strlen(key) >= ZC_BENCH_KEY_MAX)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_result_init: key '%s' is too long", key);
    memset(result_p, 0, sizeof *result_p);
    strcpy(result_p->key, key);
    result_p->outcome = ZC_BENCH_OK;
    result_p->status = ZC_OK;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_bench_result_add(zc_bench_result *result, const char *variant, size_t bytes,
                                        const char *param_name, double param,
                                        zc_bench_metric metric, double bytes_per_sample,
                                        double ops_per_sample, const double *samples, size_t count,
                                        size_t warmups, int verified)
{
    ZC_REQUIRE_ARG(result);
    ZC_REQUIRE_ARG(samples);
    if (count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_result_add: no samples");
    if (metric < ZC_BENCH_BANDWIDTH || metric > ZC_BENCH_DURATION)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_result_add: unknown metric %d", (int)metric);
    size_t sample_bytes;
    if (!zc__size_mul(count, sizeof(double), &sample_bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_bench_result_add: %zu samples", count);
    zc_stats stats;
    ZC_CHECK(zc_stats_compute(samples, count, &stats));
    double *copy = malloc(sample_bytes);
    if (copy == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_bench_result_add: %zu samples", count);
    memcpy(copy, samples, sample_bytes);
    zc_bench_point *points =
        realloc(result->points, (result->point_count + 1) * sizeof *result->points);
    if (points == NULL) {
        free(copy);
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_bench_result_add: points");
    }
    result->points = points;
    zc_bench_point *p = &points[result->point_count];
    memset(p, 0, sizeof *p);
    if (variant)
        snprintf(p->variant, sizeof p->variant, "%s", variant);
    p->bytes = bytes;
    p->param_name = param_name;
    p->param = param_name ? param : 0.0;
    p->metric = metric;
    p->bytes_per_sample = bytes_per_sample;
    p->ops_per_sample = ops_per_sample;
    p->stats = stats;
    p->samples = copy;
    p->warmups = warmups;
    p->verified = verified ? 1 : 0;
    result->point_count++;
    return ZC_OK;
}

ZC_EXTERN void zc_bench_result_clear(zc_bench_result *result)
{
    if (result == NULL)
        return;
    for (size_t i = 0; i < result->point_count; i++)
        free(result->points[i].samples);
    free(result->points);
    result->points = NULL;
    result->point_count = 0;
}

zc_status zc__poison_device(zc_bench_ctx *ctx, void *p, size_t bytes)
{
    /* On the run's own stream and waited for: the legacy stream's cudaMemset would not be
     * ordered before work on the non-blocking streams. */
    ZC_CUDA_RETURN(cudaMemsetAsync(p, 0xA5, bytes, ctx->streams[0]));
    ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[0]));
    return ZC_OK;
}

zc_status zc__verify_device(zc_bench_ctx *ctx, const char *key, const char *what,
                            const void *dev_ptr, size_t bytes, uint32_t seed)
{
    return zc__verify_device_delta(ctx, key, what, dev_ptr, bytes, seed, 0);
}

zc_status zc__verify_device_delta(zc_bench_ctx *ctx, const char *key, const char *what,
                                  const void *dev_ptr, size_t bytes, uint32_t seed, uint32_t delta)
{
    cudaStream_t s = ctx->streams[0];
    /* Everything before must be finished, the legacy stream's copies included: a pageable
     * cudaMemcpy may return before its last DMA has landed. */
    ZC_CUDA_RETURN(cudaDeviceSynchronize());
    ZC_CUDA_RETURN(cudaMemsetAsync(ctx->d_report, 0, sizeof(unsigned long long), s));
    ZC_CUDA_RETURN(cudaMemsetAsync(ctx->d_report + 1, 0xFF, sizeof(unsigned long long), s));
    ZC_CHECK(zc__k_check(dev_ptr, bytes, seed, delta, ctx->d_report, ctx->info.sm_count, s));
    unsigned long long report[2];
    ZC_CUDA_RETURN(
        cudaMemcpyAsync(report, ctx->d_report, sizeof report, cudaMemcpyDeviceToHost, s));
    ZC_CUDA_RETURN(cudaStreamSynchronize(s));
    if (report[0] == 0)
        return ZC_OK;
    uint8_t got = 0;
    size_t bad = (size_t)report[1];
    ZC_CUDA_RETURN(cudaMemcpy(&got, (const uint8_t *)dev_ptr + bad, 1, cudaMemcpyDefault));
    char sz[32];
    return ZC_FAIL(ZC_ERR_VERIFY,
                   "%s: %s of %s: %llu wrong word(s); the first, at byte %zu, holds 0x%02x where "
                   "0x%02x was expected (pattern seed 0x%08" PRIx32 ")",
                   key, what, zc__bench_size_str(bytes, sz, sizeof sz), report[0], bad, got,
                   (unsigned)(uint8_t)((zc__pattern32(seed, bad / 4) + delta) >> (8 * (bad % 4))),
                   seed);
}

zc_status zc__verify_slots(zc_bench_ctx *ctx, const char *key, const char *what, size_t n,
                           uint32_t expected)
{
    if (n > ZC__BENCH_SLOTS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__verify_slots: %zu slots", n);
    /* The bench's streams are non-blocking, so the legacy-stream copy below would not wait
     * for a kernel still writing its checksum there: wait for every stream first. */
    for (int i = 0; i < ZC__BENCH_STREAMS; i++)
        ZC_CUDA_RETURN(cudaStreamSynchronize(ctx->streams[i]));
    uint32_t *slots = malloc(n * sizeof *slots);
    if (slots == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc__verify_slots: %zu slots", n);
    zc_status st =
        ZC_CUDA(cudaMemcpy(slots, ctx->d_slots, n * sizeof *slots, cudaMemcpyDeviceToHost));
    for (size_t i = 0; st == ZC_OK && i < n; i++)
        if (slots[i] != expected)
            st = ZC_FAIL(ZC_ERR_VERIFY,
                         "%s: %s: the checksum of the words the kernel read in sample %zu is "
                         "0x%08" PRIx32 ", expected 0x%08" PRIx32
                         " (the kernel read data that is not what the host wrote)",
                         key, what, i, slots[i], expected);
    free(slots);
    return st;
}

zc_status zc__corrupt_device(void *p, size_t bytes)
{
    if (p == NULL || bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__corrupt_device: empty buffer");
    uint8_t b = 0;
    uint8_t *at = (uint8_t *)p + bytes / 2;
    ZC_CUDA_RETURN(cudaMemcpy(&b, at, 1, cudaMemcpyDefault));
    b ^= 0xFF;
    ZC_CUDA_RETURN(cudaMemcpy(at, &b, 1, cudaMemcpyDefault));
    return ZC_OK;
}
