/* SPDX-License-Identifier: Apache-2.0 */
/* Multi-GPU cases: host to every GPU and every GPU to host at once against each GPU alone,
 * GPU-to-GPU copies, and kernels reading and writing a peer GPU's memory through UVA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "bench/kernels.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"
#include "core/c_locale.h"

/* What one job does on its GPU's stream, reps times per sample. */
typedef enum zc__mjob_kind {
    ZC__MJ_H2D = ZC__MULTI_H2D,    /* cudaMemcpyAsync host -> its GPU */
    ZC__MJ_D2H = ZC__MULTI_D2H,    /* cudaMemcpyAsync its GPU -> host */
    ZC__MJ_PEER = ZC__MULTI_PEER,  /* cudaMemcpyPeerAsync its GPU -> peer */
    ZC__MJ_READ = ZC__MULTI_READ,  /* kernel on its GPU reads the peer's memory */
    ZC__MJ_WRITE = ZC__MULTI_WRITE /* kernel on its GPU writes the peer's memory */
} zc__mjob_kind;

/* What the multi-GPU cases hold on one GPU for the whole case. */
typedef struct zc__mdev {
    int device;
    int sm_count;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    void *host;      /* pinned, portable: this GPU's host side */
    void *buf[2];    /* device memory: [0] a source, [1] a destination */
    uint32_t *slots; /* device memory: checksum slot per sample of the read kernels */
    double *spans;   /* seconds per sample slot of the job last run on this GPU (events) */
    int peer_enabled[ZC_BENCH_DEVICES_MAX]; /* 1: this case enabled access to that GPU */
} zc__mdev;

typedef struct zc__mjob {
    zc__mjob_kind kind;
    int at;   /* index into the case's GPUs: whose stream runs it */
    int peer; /* index of the other GPU of peer jobs; -1 otherwise */
    void *dst;
    const void *src;
    uint32_t seed; /* ZC__MJ_WRITE: the pattern the kernel writes */
} zc__mjob;

/* A set of jobs run at the same time from one start; one job per GPU at most. */
typedef struct zc__mset {
    zc__mdev *devs;
    zc__mjob jobs[ZC_BENCH_DEVICES_MAX];
    size_t n;
    size_t bytes;
    size_t reps;
    int home; /* the run's own device, current again after each sample */
} zc__mset;

static const size_t zc__multi_quick[] = {64u << 20};
static const size_t zc__multi_default[] = {256u << 20};
static const size_t zc__multi_full[] = {256u << 20, 1u << 30};

static zc_status zc__mjob_enqueue(const zc__mset *s, const zc__mjob *j, size_t slot)
{
    const zc__mdev *d = &s->devs[j->at];
    switch (j->kind) {
    case ZC__MJ_H2D:
        ZC_CUDA_RETURN(
            cudaMemcpyAsync(j->dst, j->src, s->bytes, cudaMemcpyHostToDevice, d->stream));
        return ZC_OK;
    case ZC__MJ_D2H:
        ZC_CUDA_RETURN(
            cudaMemcpyAsync(j->dst, j->src, s->bytes, cudaMemcpyDeviceToHost, d->stream));
        return ZC_OK;
    case ZC__MJ_PEER:
        ZC_CUDA_RETURN(cudaMemcpyPeerAsync(j->dst, s->devs[j->peer].device, j->src, d->device,
                                           s->bytes, d->stream));
        return ZC_OK;
    case ZC__MJ_READ:
        return zc__k_read(j->src, s->bytes, ZC__ACCESS_16B, 0, 1, &zc__shapes[ZC__SHAPE_DEFAULT],
                          d->sm_count, d->slots + slot, d->stream);
    case ZC__MJ_WRITE:
        return zc__k_write(j->dst, s->bytes, ZC__ACCESS_16B, 0, j->seed,
                           &zc__shapes[ZC__SHAPE_DEFAULT], d->sm_count, d->stream);
    }
    return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__mjob_enqueue: kind %d", (int)j->kind);
}

/*
 * One sample: every job of the set from one start. The host clock spans from before the
 * first job is queued to the last job's end (the aggregate); each GPU's events span its own
 * job (its share). Queuing all GPUs takes microseconds against milliseconds of work.
 */
static zc_status zc__mset_sample(zc_bench_ctx *ctx, void *varg, size_t slot, double *seconds_p)
{
    (void)ctx;
    zc__mset *s = varg;
    if (slot >= ZC__BENCH_SLOTS)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__mset_sample: slot %zu", slot);
    zc_status st = ZC_OK;
    uint64_t t0 = zc_clock_ns();
    for (size_t i = 0; i < s->n; i++) {
        zc__mdev *d = &s->devs[s->jobs[i].at];
        ZC_CUDA_GOTO(cudaSetDevice(d->device), st, out);
        ZC_CUDA_GOTO(cudaEventRecord(d->ev0, d->stream), st, out);
    }
    for (size_t r = 0; r < s->reps; r++) {
        for (size_t i = 0; i < s->n; i++) {
            ZC_CUDA_GOTO(cudaSetDevice(s->devs[s->jobs[i].at].device), st, out);
            ZC_CHECK_GOTO(zc__mjob_enqueue(s, &s->jobs[i], slot), st, out);
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        zc__mdev *d = &s->devs[s->jobs[i].at];
        ZC_CUDA_GOTO(cudaSetDevice(d->device), st, out);
        ZC_CUDA_GOTO(cudaEventRecord(d->ev1, d->stream), st, out);
    }
    for (size_t i = 0; i < s->n; i++)
        ZC_CUDA_GOTO(cudaEventSynchronize(s->devs[s->jobs[i].at].ev1), st, out);
    *seconds_p = (double)(zc_clock_ns() - t0) / 1e9;
    for (size_t i = 0; i < s->n; i++) {
        zc__mdev *d = &s->devs[s->jobs[i].at];
        float ms = 0.0f;
        ZC_CUDA_GOTO(cudaEventElapsedTime(&ms, d->ev0, d->ev1), st, out);
        d->spans[slot] = (double)ms / 1e3;
    }
out:
    if (st == ZC_OK)
        st = ZC_CUDA(cudaSetDevice(s->home));
    else
        ZC_CUDA_IGNORE(cudaSetDevice(s->home));
    return st;
}

int zc__can_multi(const zc_bench_ctx *ctx, const zc__bench_case *self, char *reason, size_t n)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        count = 0;
    }
    if (ctx->device_count < 2) {
        if (count < 2)
            zc__snprintf_c(reason, n, "needs two GPUs; this machine has %d", count);
        else
            zc__snprintf_c(
                reason, n,
                "needs two GPUs; this run has GPU %d alone (give --devices all or a list "
                "of two or more)",
                ctx->devices[0]);
        return 0;
    }
    for (size_t i = 0; i < ctx->device_count; i++)
        if (ctx->devices[i] >= count) {
            zc__snprintf_c(reason, n, "GPU %d is not on this machine (%d GPUs)", ctx->devices[i],
                           count);
            return 0;
        }
    if (self->arg == ZC__MJ_READ || self->arg == ZC__MJ_WRITE) {
        /* The ring of pairs i -> i+1 must all reach each other: that is what runs at once. */
        for (size_t i = 0; i < ctx->device_count; i++) {
            int a = ctx->devices[i], b = ctx->devices[(i + 1) % ctx->device_count], can = 0;
            if (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess) {
                (void)cudaGetLastError();
                can = 0;
            }
            if (!can) {
                zc__snprintf_c(
                    reason, n,
                    "GPU %d cannot access GPU %d's memory (cudaDeviceCanAccessPeer = 0): "
                    "kernels cannot reach a peer's memory here",
                    a, b);
                return 0;
            }
        }
    }
    return 1;
}

/* Set up every GPU of the case: stream, events, buffers of bytes, slots and spans. */
static zc_status zc__mdevs_create(zc_bench_ctx *ctx, size_t bytes, int need_host, int need_slots,
                                  zc__mdev *devs)
{
    zc_status st = ZC_OK;
    for (size_t i = 0; i < ctx->device_count; i++) {
        zc__mdev *d = &devs[i];
        d->device = ctx->devices[i];
        d->spans = calloc(ZC__BENCH_SLOTS, sizeof *d->spans);
        if (d->spans == NULL)
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "multi-GPU case: span table");
        ZC_CUDA_RETURN(cudaSetDevice(d->device));
        ZC_CUDA_RETURN(
            cudaDeviceGetAttribute(&d->sm_count, cudaDevAttrMultiProcessorCount, d->device));
        ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
        ZC_CUDA_RETURN(cudaEventCreate(&d->ev0));
        ZC_CUDA_RETURN(cudaEventCreate(&d->ev1));
        ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, bytes, &d->buf[0]));
        ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, bytes, &d->buf[1]));
        if (need_host) {
            /* Allocated with its GPU current, so that the first touch below places its pages
             * where that GPU's process would; portable so that any GPU may copy from it. */
            ZC_CHECK(zc__mem_exact_alloc_portable(ZC_BUFFER_PINNED, bytes, &d->host));
            memset(d->host, 0xA5, bytes);
        }
        if (need_slots) {
            ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, ZC__BENCH_SLOTS * sizeof(uint32_t),
                                         (void **)&d->slots));
            ZC_CUDA_RETURN(cudaMemset(d->slots, 0, ZC__BENCH_SLOTS * sizeof(uint32_t)));
        }
    }
    return st;
}

/* Undo zc__mdevs_create and any peer access the case enabled; the run's device current again. */
static void zc__mdevs_destroy(zc_bench_ctx *ctx, zc__mdev *devs)
{
    for (size_t i = 0; i < ctx->device_count; i++) {
        zc__mdev *d = &devs[i];
        if (cudaSetDevice(d->device) != cudaSuccess) {
            (void)cudaGetLastError();
            free(d->spans);
            continue;
        }
        if (d->stream)
            (void)ZC_CUDA(cudaStreamSynchronize(d->stream));
        for (size_t p = 0; p < ctx->device_count; p++)
            if (d->peer_enabled[p])
                (void)ZC_CUDA(cudaDeviceDisablePeerAccess(devs[p].device));
        zc__mem_exact_free(ZC_BUFFER_DEVICE, d->slots);
        zc__mem_exact_free(ZC_BUFFER_PINNED, d->host);
        for (int b = 1; b >= 0; b--)
            zc__mem_exact_free(ZC_BUFFER_DEVICE, d->buf[b]);
        if (d->ev1)
            (void)ZC_CUDA(cudaEventDestroy(d->ev1));
        if (d->ev0)
            (void)ZC_CUDA(cudaEventDestroy(d->ev0));
        if (d->stream)
            (void)ZC_CUDA(cudaStreamDestroy(d->stream));
        free(d->spans);
    }
    (void)ZC_CUDA(cudaSetDevice(ctx->config.device));
}

/* Turn on access from GPU index a to GPU index b's memory, remembering to turn it off. */
static zc_status zc__mpeer_enable(zc__mdev *devs, int a, int b)
{
    ZC_CUDA_RETURN(cudaSetDevice(devs[a].device));
    cudaError_t e = cudaDeviceEnablePeerAccess(devs[b].device, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError(); /* the caller's own: leave it on after the case */
        return ZC_OK;
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return ZC_FAIL(ZC_ERR_CUDA, "cudaDeviceEnablePeerAccess(%d) with GPU %d current: %s (%s)",
                       devs[b].device, devs[a].device, cudaGetErrorName(e), cudaGetErrorString(e));
    }
    devs[a].peer_enabled[b] = 1;
    return ZC_OK;
}

/* Fill a device buffer with the pattern on its GPU, and wait. */
static zc_status zc__mfill(zc__mdev *d, void *p, size_t bytes, uint32_t seed)
{
    ZC_CUDA_RETURN(cudaSetDevice(d->device));
    ZC_CHECK(zc__k_fill(p, bytes, seed, d->sm_count, d->stream));
    ZC_CUDA_RETURN(cudaStreamSynchronize(d->stream));
    return ZC_OK;
}

/* Poison a destination: 0xA5 in every byte, with its owner current for device memory. */
static zc_status zc__mpoison(zc__mdev *owner, void *p, size_t bytes, int host)
{
    if (host) {
        memset(p, 0xA5, bytes);
        return ZC_OK;
    }
    ZC_CUDA_RETURN(cudaSetDevice(owner->device));
    ZC_CUDA_RETURN(cudaMemsetAsync(p, 0xA5, bytes, owner->stream));
    ZC_CUDA_RETURN(cudaStreamSynchronize(owner->stream));
    return ZC_OK;
}

/*
 * Check a destination on the host: device memory is copied back first (a check kernel on
 * another GPU could not reach it without peer access). scratch holds bytes.
 */
static zc_status zc__mverify(const char *key, const char *what, int gpu, const void *p,
                             size_t bytes, int host, uint32_t seed, void *scratch)
{
    const void *at = p;
    if (!host) {
        ZC_CUDA_RETURN(cudaMemcpy(scratch, p, bytes, cudaMemcpyDefault));
        at = scratch;
    }
    size_t bad = 0;
    if (!zc__pattern_check(at, bytes, seed, 0, &bad)) {
        char where[160];
        zc__snprintf_c(where, sizeof where, "%s of GPU %d", what, gpu);
        return zc__verify_fail_host(key, where, bytes, at, bad, seed);
    }
    return ZC_OK;
}

/* Median of the kept samples of one GPU's spans, as bandwidth in GB/s. */
static double zc__median_gbps(const double *seconds, size_t count, double bytes)
{
    double *v = malloc(count * sizeof *v);
    if (v == NULL || count == 0) {
        free(v);
        return 0.0;
    }
    for (size_t i = 0; i < count; i++)
        v[i] = bytes / (seconds[i] > 0.0 ? seconds[i] : 1e-9) / 1e9;
    zc_stats stats;
    double m = zc_stats_compute(v, count, &stats) == ZC_OK ? stats.median : 0.0;
    free(v);
    return m;
}

/* A host-to-GPU or GPU-to-host job of GPU index i. */
static zc__mjob zc__mjob_host(zc__mdev *devs, int i, int d2h)
{
    zc__mjob j;
    memset(&j, 0, sizeof j);
    j.kind = d2h ? ZC__MJ_D2H : ZC__MJ_H2D;
    j.at = i;
    j.peer = -1;
    j.src = d2h ? devs[i].buf[0] : devs[i].host;
    j.dst = d2h ? devs[i].host : devs[i].buf[1];
    return j;
}

/* Measure a set, verify what it moved, and add its points. alone: one job, its own point. */
typedef struct zc__mrun {
    zc_bench_ctx *ctx;
    const char *key;
    zc__mdev *devs;
    void *scratch;
    uint32_t seeds[ZC_BENCH_DEVICES_MAX]; /* per GPU index: its source's pattern */
    zc_bench_result *res;
} zc__mrun;

/* The destination of job j: where it is, whose it is, and which seed it must hold. */
static void zc__mjob_dst(const zc__mrun *m, const zc__mjob *j, int *owner_p, int *host_p,
                         uint32_t *seed_p)
{
    switch (j->kind) {
    case ZC__MJ_H2D:
        *owner_p = j->at, *host_p = 0, *seed_p = m->seeds[j->at];
        return;
    case ZC__MJ_D2H:
        *owner_p = j->at, *host_p = 1, *seed_p = m->seeds[j->at];
        return;
    case ZC__MJ_PEER:
        *owner_p = j->peer, *host_p = 0, *seed_p = m->seeds[j->at];
        return;
    case ZC__MJ_WRITE:
        *owner_p = j->peer, *host_p = 0, *seed_p = j->seed;
        return;
    case ZC__MJ_READ:
        break;
    }
    *owner_p = j->at, *host_p = 0, *seed_p = 0;
}

/*
 * Take the samples of one set. *median_p: median total GB/s over the host clock; rates_p (n
 * values, may be NULL): each job's median GB/s over its own events.
 */
static zc_status zc__mrun_set(zc__mrun *m, zc__mset *s, const char *variant, double *median_p,
                              double *rates_p)
{
    zc_bench_ctx *ctx = m->ctx;
    for (size_t i = 0; i < s->n; i++) {
        const zc__mjob *j = &s->jobs[i];
        int owner, host;
        uint32_t seed;
        zc__mjob_dst(m, j, &owner, &host, &seed);
        if (j->kind == ZC__MJ_READ) {
            zc__mdev *d = &m->devs[j->at];
            ZC_CUDA_RETURN(cudaSetDevice(d->device));
            ZC_CUDA_RETURN(cudaMemset(d->slots, 0, ZC__BENCH_SLOTS * sizeof(uint32_t)));
        } else {
            ZC_CHECK(zc__mpoison(&m->devs[owner], j->dst, s->bytes, host));
        }
    }
    ZC_CUDA_RETURN(cudaSetDevice(s->home));
    double *seconds = NULL;
    size_t count = 0, warmups = 0;
    ZC_CHECK(zc__measure(ctx, zc__mset_sample, s, 0, &seconds, &count, &warmups));
    zc_status st = ZC_OK;
    if (zc__bench_corrupt(ctx, m->key)) {
        const zc__mjob *j = &s->jobs[0];
        int owner, host;
        uint32_t seed;
        zc__mjob_dst(m, j, &owner, &host, &seed);
        /* A read's evidence is its checksums: corrupt one of them. */
        if (j->kind == ZC__MJ_READ)
            st = zc__corrupt_device(m->devs[j->at].slots, (warmups + count) * sizeof(uint32_t));
        else
            st = host ? zc__corrupt_host(j->dst, s->bytes) : zc__corrupt_device(j->dst, s->bytes);
        if (st != ZC_OK)
            goto out;
    }
    for (size_t i = 0; i < s->n && st == ZC_OK; i++) {
        const zc__mjob *j = &s->jobs[i];
        if (j->kind == ZC__MJ_READ) {
            /* Every sample's checksum: what the reads saw, sample by sample. */
            zc__mdev *d = &m->devs[j->at];
            uint32_t expected = zc__pattern_sum(s->bytes, m->seeds[j->peer], 1) * (uint32_t)s->reps;
            uint32_t *got = malloc((warmups + count) * sizeof *got);
            if (got == NULL) {
                st = ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: checksum table", m->key);
                break;
            }
            st = ZC_CUDA(
                cudaMemcpy(got, d->slots, (warmups + count) * sizeof *got, cudaMemcpyDeviceToHost));
            for (size_t k = 0; st == ZC_OK && k < warmups + count; k++)
                if (got[k] != expected)
                    st = ZC_FAIL(ZC_ERR_VERIFY,
                                 "%s: GPU %d reading GPU %d's memory: sample %zu summed 0x%08x, "
                                 "expected 0x%08x",
                                 m->key, d->device, m->devs[j->peer].device, k, got[k], expected);
            free(got);
            continue;
        }
        int owner, host;
        uint32_t seed;
        zc__mjob_dst(m, j, &owner, &host, &seed);
        st = zc__mverify(m->key, host ? "host destination" : "device destination",
                         m->devs[owner].device, j->dst, s->bytes, host, seed, m->scratch);
    }
    if (st != ZC_OK)
        goto out;
    double moved = (double)s->bytes * (double)s->reps;
    ZC_CHECK_GOTO(zc__add_seconds(m->res, variant, s->bytes, NULL, 0, ZC_BENCH_BANDWIDTH,
                                  moved * (double)s->n, (double)s->reps * (double)s->n, seconds,
                                  count, warmups),
                  st, out);
    /* With several jobs at once, each GPU's own figure over its own events: its share. */
    for (size_t i = 0; s->n > 1 && i < s->n; i++) {
        const zc__mjob *j = &s->jobs[i];
        char each[ZC_BENCH_VARIANT_MAX];
        if (j->peer >= 0)
            zc__snprintf_c(each, sizeof each, "GPU %d -> GPU %d, at once", m->devs[j->at].device,
                           m->devs[j->peer].device);
        else
            zc__snprintf_c(each, sizeof each, "GPU %d, at once", m->devs[j->at].device);
        ZC_CHECK_GOTO(zc__add_seconds(m->res, each, s->bytes, NULL, 0, ZC_BENCH_BANDWIDTH, moved,
                                      (double)s->reps, m->devs[j->at].spans + warmups, count,
                                      warmups),
                      st, out);
    }
    *median_p = zc__median_gbps(seconds, count, moved * (double)s->n);
    if (rates_p != NULL)
        for (size_t i = 0; i < s->n; i++)
            rates_p[i] = zc__median_gbps(m->devs[s->jobs[i].at].spans + warmups, count, moved);
out:
    free(seconds);
    ZC_CUDA_IGNORE(cudaSetDevice(s->home));
    return st;
}

static size_t zc__mreps(const zc_bench_ctx *ctx, size_t bytes)
{
    size_t reps = (zc__copy_target(ctx) + bytes - 1) / bytes;
    return reps > ZC__BENCH_QUEUE_MAX ? ZC__BENCH_QUEUE_MAX : reps ? reps : 1;
}

/* Host to every GPU, or every GPU to host: each alone, then all at once from one start. */
static zc_status zc__mrun_host(zc__mrun *m, size_t bytes, int d2h)
{
    zc_bench_ctx *ctx = m->ctx;
    size_t n = ctx->device_count;
    double alone[ZC_BENCH_DEVICES_MAX], during[ZC_BENCH_DEVICES_MAX], sum = 0.0, total = 0.0;
    zc__mset s;
    memset(&s, 0, sizeof s);
    s.devs = m->devs;
    s.bytes = bytes;
    s.reps = zc__mreps(ctx, bytes);
    s.home = ctx->config.device;
    char variant[ZC_BENCH_VARIANT_MAX];
    for (size_t i = 0; i < n; i++) {
        s.jobs[0] = zc__mjob_host(m->devs, (int)i, d2h);
        s.n = 1;
        zc__snprintf_c(variant, sizeof variant, "GPU %d alone", m->devs[i].device);
        ZC_CHECK(zc__mrun_set(m, &s, variant, &alone[i], NULL));
        sum += alone[i];
    }
    for (size_t i = 0; i < n; i++)
        s.jobs[i] = zc__mjob_host(m->devs, (int)i, d2h);
    s.n = n;
    zc__snprintf_c(variant, sizeof variant, "all %zu GPUs at once, total", n);
    ZC_CHECK(zc__mrun_set(m, &s, variant, &total, during));
    /* Each GPU's share while all ran: its own rate over its own events. */
    double during_sum = 0.0;
    for (size_t i = 0; i < n; i++)
        during_sum += during[i];
    char finding[ZC_BENCH_REASON_MAX];
    size_t used = (size_t)zc__snprintf_c(
        finding, sizeof finding,
        "all %zu GPUs at once: %.1f GB/s, %.0f%% of the sum of each alone (%.1f GB/s);", n, total,
        sum > 0.0 ? 100.0 * total / sum : 0.0, sum);
    for (size_t i = 0; i < n && used < sizeof finding; i++)
        used += (size_t)zc__snprintf_c(finding + used, sizeof finding - used,
                                       " GPU %d %.1f GB/s (%.0f%%)%s", m->devs[i].device, during[i],
                                       during_sum > 0.0 ? 100.0 * during[i] / during_sum : 0.0,
                                       i + 1 < n ? "," : ";");
    if (used < sizeof finding)
        zc__snprintf_c(finding + used, sizeof finding - used, "%s",
                       total < 0.85 * sum
                           ? " well below the sum: the host (its memory or PCIe root), not each "
                             "GPU's link, is the limit"
                           : " near the sum: each GPU's own link is the limit, the host keeps up");
    zc__snprintf_c(m->res->reason, sizeof m->res->reason, "%s", finding);
    return ZC_OK;
}

/* A job of GPU index a on GPU index b's memory: a copy from a's source into b's destination,
 * a kernel on a reading b's source, or a kernel on a writing b's destination. */
static void zc__mjob_peer(zc__mdev *devs, zc__mjob *j, zc__mjob_kind kind, int a, int b,
                          uint32_t wseed)
{
    memset(j, 0, sizeof *j);
    j->kind = kind;
    j->at = a;
    j->peer = b;
    j->seed = wseed;
    j->src = kind == ZC__MJ_READ ? devs[b].buf[0] : kind == ZC__MJ_PEER ? devs[a].buf[0] : NULL;
    j->dst = kind == ZC__MJ_READ ? NULL : devs[b].buf[1];
}

/*
 * GPU-to-GPU: every ordered pair alone, then the ring i -> i+1 of all GPUs at once (with two
 * GPUs: both directions at once). kind: ZC__MJ_PEER, ZC__MJ_READ or ZC__MJ_WRITE.
 */
static zc_status zc__mrun_peer(zc__mrun *m, size_t bytes, zc__mjob_kind kind, uint32_t wseed)
{
    zc_bench_ctx *ctx = m->ctx;
    size_t n = ctx->device_count;
    zc__mset s;
    memset(&s, 0, sizeof s);
    s.devs = m->devs;
    s.bytes = bytes;
    s.reps = zc__mreps(ctx, bytes);
    s.home = ctx->config.device;
    char variant[ZC_BENCH_VARIANT_MAX];
    double rate = 0.0, rates[ZC_BENCH_DEVICES_MAX];
    size_t used = 0;
    char *finding = m->res->reason;
    size_t cap = sizeof m->res->reason;
    for (size_t a = 0; a < n; a++) {
        for (size_t b = 0; b < n; b++) {
            if (a == b)
                continue;
            int can = 0;
            ZC_CUDA_RETURN(cudaDeviceCanAccessPeer(&can, m->devs[a].device, m->devs[b].device));
            if (kind != ZC__MJ_PEER && !can)
                continue; /* a kernel cannot reach that GPU's memory at all */
            zc__mjob_peer(m->devs, &s.jobs[0], kind, (int)a, (int)b, wseed);
            s.n = 1;
            zc__snprintf_c(variant, sizeof variant, "GPU %d -> GPU %d%s", m->devs[a].device,
                           m->devs[b].device, kind == ZC__MJ_PEER && !can ? " (no P2P)" : "");
            ZC_CHECK(zc__mrun_set(m, &s, variant, &rate, NULL));
            if (used < cap)
                used += (size_t)zc__snprintf_c(finding + used, cap - used, "%s%d->%d %.1f GB/s",
                                               used ? ", " : "", m->devs[a].device,
                                               m->devs[b].device, rate);
        }
    }
    for (size_t a = 0; a < n; a++) {
        size_t b = (a + 1) % n;
        zc__mjob_peer(m->devs, &s.jobs[a], kind, (int)a, (int)b, wseed);
    }
    s.n = n;
    if (n == 2)
        zc__snprintf_c(variant, sizeof variant, "both directions at once, total");
    else
        zc__snprintf_c(variant, sizeof variant, "ring of %zu GPUs at once, total", n);
    ZC_CHECK(zc__mrun_set(m, &s, variant, &rate, rates));
    if (used < cap)
        used +=
            (size_t)zc__snprintf_c(finding + used, cap - used, "; %s %.1f GB/s",
                                   n == 2 ? "both directions at once" : "the ring at once", rate);
    return ZC_OK;
}

zc_status zc__run_multi(zc_bench_ctx *ctx, const zc__bench_case *self, zc_bench_result *res)
{
    const size_t *sizes;
    size_t nsizes = zc__bench_sizes(ctx, zc__multi_quick, ZC__COUNT(zc__multi_quick),
                                    zc__multi_default, ZC__COUNT(zc__multi_default), zc__multi_full,
                                    ZC__COUNT(zc__multi_full), &sizes);
    zc__mjob_kind kind = (zc__mjob_kind)self->arg;
    int kernel = kind == ZC__MJ_READ || kind == ZC__MJ_WRITE;
    size_t maxb = 0;
    for (size_t i = 0; i < nsizes; i++)
        if (sizes[i] > maxb)
            maxb = sizes[i];
    zc__mdev devs[ZC_BENCH_DEVICES_MAX];
    memset(devs, 0, sizeof devs);
    zc__mrun m;
    memset(&m, 0, sizeof m);
    m.ctx = ctx;
    m.key = self->info.key;
    m.devs = devs;
    m.res = res;
    zc_status st = ZC_OK;
    m.scratch = malloc(maxb);
    if (m.scratch == NULL) {
        st = ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: %zu bytes of scratch", m.key, maxb);
        goto out;
    }
    ZC_CHECK_GOTO(zc__mdevs_create(ctx, maxb, kind == ZC__MJ_H2D || kind == ZC__MJ_D2H,
                                   kind == ZC__MJ_READ, devs),
                  st, out);
    if (kind != ZC__MJ_H2D && kind != ZC__MJ_D2H) {
        /* Peer copies go over the direct path where there is one (else through the host, which
         * the variant says); kernels need it. */
        for (size_t a = 0; a < ctx->device_count; a++)
            for (size_t b = 0; b < ctx->device_count; b++) {
                int can = 0;
                if (a == b)
                    continue;
                ZC_CUDA_GOTO(cudaDeviceCanAccessPeer(&can, devs[a].device, devs[b].device), st,
                             out);
                if (can)
                    ZC_CHECK_GOTO(zc__mpeer_enable(devs, (int)a, (int)b), st, out);
            }
    }
    for (size_t i = 0; i < nsizes; i++) {
        zc__bench_tick(ctx, i, nsizes);
        /* Kernels move 16-byte words; copies any size. */
        size_t b = kernel ? sizes[i] & ~(size_t)15 : sizes[i];
        if (b == 0)
            continue;
        for (size_t d = 0; d < ctx->device_count; d++) {
            m.seeds[d] = zc__bench_seed(ctx);
            if (kind == ZC__MJ_H2D)
                zc__pattern_fill(devs[d].host, b, m.seeds[d]);
            else if (kind != ZC__MJ_WRITE)
                ZC_CHECK_GOTO(zc__mfill(&devs[d], devs[d].buf[0], b, m.seeds[d]), st, out);
        }
        ZC_CHECK_GOTO(kind == ZC__MJ_H2D || kind == ZC__MJ_D2H
                          ? zc__mrun_host(&m, b, kind == ZC__MJ_D2H)
                          : zc__mrun_peer(&m, b, kind, zc__bench_seed(ctx)),
                      st, out);
    }
out:
    zc__mdevs_destroy(ctx, devs);
    free(m.scratch);
    return st;
}
