/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark context: device, streams, events, the gate's words and the run's buffers. */
#include <stdlib.h>
#include <string.h>

#include "bench/bench_internal.h"
#include "core/checked_math.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"

ZC_EXTERN zc_status zc_bench_ctx_create(const zc_bench_config *config, zc_bench_ctx **ctx_p)
{
    ZC_REQUIRE_ARG(config);
    ZC_REQUIRE_ARG(ctx_p);
    if (!(config->gate_timeout_s >= 0.0 && config->gate_timeout_s <= 3600.0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_bench_ctx_create: gate_timeout_s %g is not 0 (the default) to 3600",
                       config->gate_timeout_s);
    if (config->size_count > ZC__BENCH_SIZES_MAX)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_ctx_create: %zu sizes, at most %d",
                       config->size_count, ZC__BENCH_SIZES_MAX);
    if (config->size_count > 0 && config->sizes == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_ctx_create: size_count without sizes");
    /* The cases divide by the size (copies per sample, launches per sample). */
    for (size_t i = 0; i < config->size_count; i++)
        if (config->sizes[i] == 0)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_ctx_create: size %zu is 0 bytes", i);
    if (config->device_count > ZC_BENCH_DEVICES_MAX ||
        (config->device_count > 0 && !config->devices))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_ctx_create: %zu devices%s, at most %d",
                       config->device_count, config->devices ? "" : " without a list",
                       ZC_BENCH_DEVICES_MAX);
    for (size_t i = 0; i < config->device_count; i++) {
        if (config->devices[i] < 0)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_ctx_create: device %d",
                           config->devices[i]);
        for (size_t j = 0; j < i; j++)
            if (config->devices[j] == config->devices[i])
                return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_bench_ctx_create: GPU %d listed twice",
                               config->devices[i]);
    }
    if (config->corrupt_key && strlen(config->corrupt_key) >= ZC__CORRUPT_LIST_MAX)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_bench_ctx_create: corrupt_key is %zu characters, at most %d allowed",
                       strlen(config->corrupt_key), ZC__CORRUPT_LIST_MAX - 1);
    zc_bench_method method;
    ZC_CHECK(zc_bench_method_get(config->mode, &method));
    if (config->cov_target > 0.0)
        method.cov_target = config->cov_target;
    if (config->gate_timeout_s > 0.0)
        method.gate_timeout_s = config->gate_timeout_s;

    zc_bench_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_bench_ctx_create: out of memory");
    ctx->config = *config;
    ctx->config.sizes = NULL;
    ctx->config.corrupt_key = NULL;
    ctx->method = method;
    for (size_t i = 0; i < config->size_count; i++)
        ctx->sizes[i] = config->sizes[i];
    ctx->size_count = config->size_count;
    if (config->corrupt_key)
        strcpy(ctx->corrupt_key, config->corrupt_key);
    ctx->rng = zc_clock_ns() | 1u;
    ctx->config.devices = NULL;
    ctx->device_count = config->device_count ? config->device_count : 1;
    for (size_t i = 0; i < ctx->device_count; i++)
        ctx->devices[i] = config->device_count ? config->devices[i] : config->device;

    zc_status st = ZC_OK;
    ZC_CHECK_GOTO(zc_device_info_get(config->device, &ctx->info), st, fail);
    ZC_CUDA_GOTO(cudaSetDevice(config->device), st, fail);
    for (int i = 0; i < ZC__BENCH_STREAMS; i++) {
        ZC_CUDA_GOTO(cudaStreamCreateWithFlags(&ctx->streams[i], cudaStreamNonBlocking), st, fail);
        ZC_CUDA_GOTO(cudaEventCreate(&ctx->start[i]), st, fail);
        ZC_CUDA_GOTO(cudaEventCreate(&ctx->stop[i]), st, fail);
    }
    if (ctx->info.can_map_host_memory) {
        /* Registered rather than cudaHostAlloc'd where it can be: a small cudaHostAlloc block
         * alive for the whole run would hold the driver's pinned chunk that every later small
         * cudaHostAlloc is carved from, and alloc.cost would time the carving (2 us) instead of
         * what a program's first pinned buffer costs (hundreds of us). */
        ctx->shared_kind =
            ctx->info.host_register_supported ? ZC_BUFFER_REGISTERED : ZC_BUFFER_MAPPED;
        void *shared = NULL;
        ZC_CHECK_GOTO(zc__mem_exact_alloc(ctx->shared_kind, sizeof *ctx->shared, &shared), st,
                      fail);
        ctx->shared = shared;
        memset(ctx->shared, 0, sizeof *ctx->shared);
        void *dev = NULL;
        ZC_CHECK_GOTO(zc__mem_exact_device_ptr(ctx->shared_kind, shared, &dev), st, fail);
        ctx->d_shared = dev;
    }
    ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, ZC__BENCH_SLOTS * sizeof(uint32_t),
                                      (void **)&ctx->d_slots),
                  st, fail);
    ZC_CHECK_GOTO(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, 2 * sizeof(unsigned long long),
                                      (void **)&ctx->d_report),
                  st, fail);
    *ctx_p = ctx;
    return ZC_OK;
fail:
    zc_bench_ctx_destroy(ctx);
    return st;
}

static void zc__buffer_free(zc_buffer_kind kind, zc__buffer *b)
{
    zc__mem_exact_free(kind, b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
}

ZC_EXTERN void zc_bench_ctx_destroy(zc_bench_ctx *ctx)
{
    if (ctx == NULL)
        return;
    zc__gate_abandon(ctx);
    zc__bench_host_release(ctx);
    for (int s = 0; s < 2; s++)
        zc__buffer_free(ZC_BUFFER_DEVICE, &ctx->device[s]);
    zc__mem_exact_free(ZC_BUFFER_DEVICE, ctx->d_report);
    zc__mem_exact_free(ZC_BUFFER_DEVICE, ctx->d_slots);
    zc__mem_exact_free(ctx->shared_kind, (void *)ctx->shared);
    for (int i = ZC__BENCH_STREAMS - 1; i >= 0; i--) {
        if (ctx->stop[i])
            (void)ZC_CUDA(cudaEventDestroy(ctx->stop[i]));
        if (ctx->start[i])
            (void)ZC_CUDA(cudaEventDestroy(ctx->start[i]));
        if (ctx->streams[i])
            (void)ZC_CUDA(cudaStreamDestroy(ctx->streams[i]));
    }
    free(ctx);
}

ZC_EXTERN zc_status zc_bench_ctx_plan(zc_bench_ctx *ctx, size_t case_total)
{
    ZC_REQUIRE_ARG(ctx);
    ctx->case_total = case_total;
    ctx->case_done = 0;
    return ZC_OK;
}

size_t zc__bench_sizes(const zc_bench_ctx *ctx, const size_t *quick, size_t nq, const size_t *deflt,
                       size_t nd, const size_t *full, size_t nf, const size_t **sizes_p)
{
    if (ctx->size_count > 0) {
        *sizes_p = ctx->sizes;
        return ctx->size_count;
    }
    switch (ctx->config.mode) {
    case ZC_BENCH_QUICK:
        *sizes_p = quick;
        return nq;
    case ZC_BENCH_FULL:
        *sizes_p = full;
        return nf;
    default:
        *sizes_p = deflt;
        return nd;
    }
}

uint32_t zc__bench_seed(zc_bench_ctx *ctx)
{
    /* xorshift64: a new seed for every fill, never zero. */
    uint64_t x = ctx->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ctx->rng = x;
    uint32_t seed = (uint32_t)(x >> 32);
    return seed ? seed : 0x6A09E667u;
}

int zc__bench_corrupt(const zc_bench_ctx *ctx, const char *key)
{
    /* A comma-separated list of patterns, as --case takes. */
    const char *p = ctx->corrupt_key;
    while (*p != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char one[ZC__CORRUPT_LIST_MAX];
        if (len > 0 && len < sizeof one) {
            memcpy(one, p, len);
            one[len] = '\0';
            if (zc_bench_key_matches(one, key))
                return 1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

void zc__bench_tick(zc_bench_ctx *ctx, size_t done, size_t total)
{
    if (ctx->config.progress == NULL || ctx->case_total == 0)
        return;
    double within = total ? (double)done / (double)total : 0.0;
    double fraction = ((double)ctx->case_done + within) / (double)ctx->case_total;
    if (fraction > 1.0)
        fraction = 1.0;
    ctx->config.progress(ctx->config.progress_user, ctx->current_key ? ctx->current_key : "",
                         fraction);
}

zc_status zc__bench_host(zc_bench_ctx *ctx, zc_buffer_kind kind, int slot, size_t bytes,
                         void **ptr_p)
{
    const zc__mem_exact *row = zc__mem_exact_of(kind);
    if (row == NULL || !row->host || slot < 0 || slot >= ZC__BENCH_HOST_SLOTS || bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__bench_host: kind %d slot %d bytes %zu", kind, slot,
                       bytes);
    zc__buffer *b = &ctx->host[kind][slot];
    if (b->ptr != NULL && b->bytes >= bytes) {
        *ptr_p = b->ptr;
        return ZC_OK;
    }
    zc__buffer_free(kind, b);
    void *p = NULL;
    ZC_CHECK(zc__mem_exact_alloc(kind, bytes, &p));
    if (kind == ZC_BUFFER_PAGEABLE || kind == ZC_BUFFER_REGISTERED)
        memset(p, 0xA5, bytes); /* touch every page, as a program that uses its buffer would */
    b->ptr = p;
    b->bytes = bytes;
    *ptr_p = p;
    return ZC_OK;
}

void zc__bench_host_release(zc_bench_ctx *ctx)
{
    for (int k = 0; k < ZC_BUFFER_KIND_COUNT; k++)
        for (int s = 0; s < ZC__BENCH_HOST_SLOTS; s++)
            zc__buffer_free((zc_buffer_kind)k, &ctx->host[k][s]);
}

zc_status zc__bench_device(zc_bench_ctx *ctx, int slot, size_t bytes, void **ptr_p)
{
    if (slot < 0 || slot > 1 || bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__bench_device: slot %d bytes %zu", slot, bytes);
    zc__buffer *b = &ctx->device[slot];
    if (b->ptr != NULL && b->bytes >= bytes) {
        *ptr_p = b->ptr;
        return ZC_OK;
    }
    zc__buffer_free(ZC_BUFFER_DEVICE, b);
    void *p = NULL;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, bytes, &p));
    b->ptr = p;
    b->bytes = bytes;
    *ptr_p = p;
    return ZC_OK;
}
