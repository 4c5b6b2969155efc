/* SPDX-License-Identifier: Apache-2.0 */
/* The validation runner: a workload run for real with one technique, timed and verified. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise/kernel_internal.h"
#include "advise/model_internal.h"
#include "core/checked_math.h"
#include "core/sorted.h"
#include "device/cuda_check.h"
#include "device/walk.h"
#include "mem/exact.h"
#include "zerocopy/clock.h"
#include "zerocopy/stats.h"

#define ZC__STREAMS    3
#define ZC__MAX_CHUNKS 4
#define ZC__REPEATS    5
/* Bound on the transfers one timed batch may run, whatever the time budget says. */
#define ZC__MAX_TIMED  200000.0

/* One workload being run: its buffers, streams and events. */
typedef struct zc__run {
    zc_workload w;
    zc_technique tech;
    size_t bytes, words, chunks;
    int in, out, sets;
    uint32_t *h_in[2], *h_out[2]; /* what the CPU writes and reads */
    uint32_t *d_in[2], *d_out[2]; /* what the kernel reads and writes */
    int registered[2][2];         /* [set][in 0 / out 1]: cudaHostRegister done */
    uint32_t *sink;
    cudaStream_t streams[ZC__STREAMS];
    cudaEvent_t done[2][ZC__MAX_CHUNKS];
    int stream_count, event_count[2];
    size_t queued; /* chunks queued so far: successive chunks take successive streams */
    int sm_count;  /* asked once, so that no attribute query lands in the timed loop */
    double setup_us;
} zc__run;

static double zc__now_us(void)
{
    return (double)zc_clock_ns() / 1e3;
}

/* The memory of a technique's host side, from the exact call a user would write (src/mem):
 * registered memory starts as malloc'd memory, pinned in place once touched. */
static zc_buffer_kind zc__tech_host_kind(zc_technique tech)
{
    switch (tech) {
    case ZC_TECH_PINNED:
    case ZC_TECH_OVERLAPPED:
        return ZC_BUFFER_PINNED;
    case ZC_TECH_MAPPED:
        return ZC_BUFFER_MAPPED;
    case ZC_TECH_MANAGED:
        return ZC_BUFFER_MANAGED;
    default:
        return ZC_BUFFER_PAGEABLE;
    }
}

/* Allocate the host side of one buffer the way the technique wants; setup time accumulates. */
static zc_status zc__host_alloc(zc__run *r, int set, int is_out, uint32_t **host_p,
                                uint32_t **dev_p)
{
    zc_buffer_kind kind = zc__tech_host_kind(r->tech);
    void *p = NULL;
    double t0 = zc__now_us();
    ZC_CHECK(zc__mem_exact_alloc(kind, r->bytes, &p));
    if (kind == ZC_BUFFER_PAGEABLE) {
        /* Touch every page first: registration of untouched pages is not what users time. */
        memset(p, 0, r->bytes);
        if (r->tech == ZC_TECH_REGISTERED) {
            t0 = zc__now_us();
            zc_status status = zc__mem_exact_register(p, r->bytes, 0);
            if (status != ZC_OK) {
                zc__mem_exact_free(kind, p);
                return status;
            }
            r->registered[set][is_out] = 1;
            r->setup_us += zc__now_us() - t0;
        }
    } else {
        r->setup_us += zc__now_us() - t0;
    }
    *host_p = (uint32_t *)p;
    void *d = p; /* managed memory: one pointer for both */
    if (kind == ZC_BUFFER_MAPPED)
        ZC_CHECK(zc__mem_exact_device_ptr(kind, p, &d));
    else if (kind != ZC_BUFFER_MANAGED)
        ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, r->bytes, &d));
    *dev_p = (uint32_t *)d;
    return ZC_OK;
}

static void zc__host_free(zc__run *r, int set, int is_out, uint32_t *host, uint32_t *dev)
{
    if (host == NULL)
        return;
    zc_buffer_kind kind = zc__tech_host_kind(r->tech);
    if (r->registered[set][is_out])
        zc__mem_exact_unregister(host);
    zc__mem_exact_free(kind, host);
    if (kind != ZC_BUFFER_MAPPED && kind != ZC_BUFFER_MANAGED)
        zc__mem_exact_free(ZC_BUFFER_DEVICE, dev);
}

static void zc__run_destroy(zc__run *r)
{
    for (int s = 0; s < 2; s++) {
        for (int e = 0; e < r->event_count[s]; e++)
            ZC_CUDA_IGNORE(cudaEventDestroy(r->done[s][e]));
        zc__host_free(r, s, 1, r->h_out[s], r->d_out[s]);
        zc__host_free(r, s, 0, r->h_in[s], r->d_in[s]);
    }
    for (int i = 0; i < r->stream_count; i++)
        ZC_CUDA_IGNORE(cudaStreamDestroy(r->streams[i]));
    zc__mem_exact_free(ZC_BUFFER_DEVICE, r->sink);
}

static zc_status zc__run_create(zc__run *r)
{
    for (int i = 0; i < ZC__STREAMS; i++) {
        ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&r->streams[i], cudaStreamNonBlocking));
        r->stream_count++;
    }
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_DEVICE, sizeof(uint32_t), (void **)&r->sink));
    for (int s = 0; s < r->sets; s++) {
        if (r->in)
            ZC_CHECK(zc__host_alloc(r, s, 0, &r->h_in[s], &r->d_in[s]));
        if (r->out)
            ZC_CHECK(zc__host_alloc(r, s, 1, &r->h_out[s], &r->d_out[s]));
        for (size_t c = 0; c < r->chunks; c++) {
            ZC_CUDA_RETURN(cudaEventCreateWithFlags(&r->done[s][c], cudaEventDisableTiming));
            r->event_count[s]++;
        }
    }
    return ZC_OK;
}

/* Move managed memory to the GPU (device >= 0) or to the host (device < 0). */
static zc_status zc__prefetch(const void *p, size_t bytes, int device, cudaStream_t stream)
{
#if CUDART_VERSION >= 13000
    struct cudaMemLocation where;
    memset(&where, 0, sizeof where);
    where.type = device >= 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    where.id = device >= 0 ? device : 0;
    return ZC_CUDA(cudaMemPrefetchAsync(p, bytes, where, 0, stream));
#else
    return ZC_CUDA(cudaMemPrefetchAsync(p, bytes, device >= 0 ? device : cudaCpuDeviceId, stream));
#endif
}

/* The kernel's work over words [first, first + count) of set. */
static zc__work zc__work_of(const zc__run *r, int set, size_t first, size_t count, uint32_t seed)
{
    zc__work w;
    memset(&w, 0, sizeof w);
    w.in = r->in ? r->d_in[set] + first : NULL;
    w.out = r->out ? r->d_out[set] + first : NULL;
    w.sink = r->sink;
    w.words = count;
    w.passes = (int)r->w.gpu_accesses;
    w.pattern = r->w.pattern;
    w.stride_mul = zc__walk_multiplier(count);
    w.seed = seed;
    w.sm_count = r->sm_count;
    return w;
}

/* One transfer, start to result, finished before it returns (all but the overlapped way). */
static zc_status zc__transfer_once(zc__run *r, uint32_t seed, int device)
{
    cudaStream_t s = r->streams[0];
    zc__work work = zc__work_of(r, 0, 0, r->words, seed);
    if (r->in)
        zc__fill(r->h_in[0], r->words, seed);
    int copies =
        r->tech == ZC_TECH_PAGEABLE || r->tech == ZC_TECH_PINNED || r->tech == ZC_TECH_REGISTERED;
    if (copies && r->in)
        ZC_CUDA_RETURN(
            cudaMemcpyAsync(r->d_in[0], r->h_in[0], r->bytes, cudaMemcpyHostToDevice, s));
    if (r->tech == ZC_TECH_MANAGED) {
        if (r->in)
            ZC_CHECK(zc__prefetch(r->h_in[0], r->bytes, device, s));
        if (r->out)
            ZC_CHECK(zc__prefetch(r->h_out[0], r->bytes, device, s));
    }
    ZC_CHECK(zc__work_launch(&work, s));
    if (copies && r->out)
        ZC_CUDA_RETURN(
            cudaMemcpyAsync(r->h_out[0], r->d_out[0], r->bytes, cudaMemcpyDeviceToHost, s));
    if (r->tech == ZC_TECH_MANAGED && r->out)
        ZC_CHECK(zc__prefetch(r->h_out[0], r->bytes, -1, s));
    return ZC_CUDA(cudaStreamSynchronize(s));
}

/* One transfer of the overlapped way, queued in chunks on the streams; not waited for. */
static zc_status zc__transfer_queue(zc__run *r, int set, uint32_t seed)
{
    /* The CPU may refill this set only once the GPU has finished with its last use. */
    for (size_t c = 0; c < r->chunks; c++)
        ZC_CUDA_RETURN(cudaEventSynchronize(r->done[set][c]));
    if (r->in)
        zc__fill(r->h_in[set], r->words, seed);
    size_t chunk_words = r->words / r->chunks, chunk_bytes = chunk_words * 4;
    for (size_t c = 0; c < r->chunks; c++) {
        /* Round robin over the streams, across transfers too, so that even one-chunk
         * transfers overlap each other's copies and kernels. */
        cudaStream_t s = r->streams[r->queued++ % ZC__STREAMS];
        size_t first = c * chunk_words;
        if (r->in)
            ZC_CUDA_RETURN(cudaMemcpyAsync(r->d_in[set] + first, r->h_in[set] + first, chunk_bytes,
                                           cudaMemcpyHostToDevice, s));
        zc__work work = zc__work_of(r, set, first, chunk_words, seed);
        ZC_CHECK(zc__work_launch(&work, s));
        if (r->out)
            ZC_CUDA_RETURN(cudaMemcpyAsync(r->h_out[set] + first, r->d_out[set] + first,
                                           chunk_bytes, cudaMemcpyDeviceToHost, s));
        ZC_CUDA_RETURN(cudaEventRecord(r->done[set][c], s));
    }
    return ZC_OK;
}

static zc_status zc__sync_all(zc__run *r)
{
    for (int i = 0; i < r->stream_count; i++)
        ZC_CUDA_RETURN(cudaStreamSynchronize(r->streams[i]));
    return ZC_OK;
}

/* n transfers back to back, the way the technique would run them. */
static zc_status zc__transfers(zc__run *r, size_t n, uint32_t seed, int device)
{
    zc_status status = ZC_OK;
    for (size_t i = 0; i < n && status == ZC_OK; i++) {
        if (r->tech == ZC_TECH_OVERLAPPED)
            status = zc__transfer_queue(r, (int)(i % 2), seed + (uint32_t)i);
        else
            status = zc__transfer_once(r, seed + (uint32_t)i, device);
    }
    if (status == ZC_OK && r->tech == ZC_TECH_OVERLAPPED)
        status = zc__sync_all(r);
    return status;
}

/* Run one transfer with a known seed and check what the kernel read and wrote. */
static zc_status zc__verify(zc__run *r, int device)
{
    const uint32_t seed = 0x1234567u;
    /* On the stream the kernels use: the legacy default stream does not order non-blocking
     * streams, so a plain cudaMemset could land after the kernel's first additions. */
    ZC_CUDA_RETURN(cudaMemsetAsync(r->sink, 0, sizeof(uint32_t), r->streams[0]));
    ZC_CUDA_RETURN(cudaStreamSynchronize(r->streams[0]));
    ZC_CHECK(zc__transfers(r, 1, seed, device));
    uint32_t sink = 0;
    ZC_CUDA_RETURN(cudaMemcpy(&sink, r->sink, sizeof sink, cudaMemcpyDeviceToHost));
    uint32_t passes = (uint32_t)r->w.gpu_accesses;
    if (r->in) {
        uint32_t sum = 0;
        for (size_t i = 0; i < r->words; i++)
            sum += zc__fill_word(seed, i);
        if (sink != sum * passes)
            return ZC_FAIL(ZC_ERR_VERIFY,
                           "zc_advise_run %s: the kernel read a sum of 0x%08x, expected 0x%08x",
                           zc_technique_key(r->tech), sink, sum * passes);
    }
    if (r->out) {
        const uint32_t *out = r->h_out[0];
        for (size_t i = 0; i < r->words; i++) {
            uint32_t want = r->in ? zc__fill_word(seed, i) ^ 0x5a5a5a5au
                                  : (seed ^ (uint32_t)(i % (r->words / r->chunks))) + passes - 1;
            if (out[i] != want)
                return ZC_FAIL(ZC_ERR_VERIFY,
                               "zc_advise_run %s: result word %zu is 0x%08x, expected 0x%08x",
                               zc_technique_key(r->tech), i, out[i], want);
        }
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_advise_run(int device, const zc_workload *workload, zc_technique technique,
                                  double max_seconds, zc_measurement *measurement_p)
{
    ZC_REQUIRE_ARG(measurement_p);
    ZC_CHECK(zc_workload_check(workload));
    if ((int)technique < 0 || technique >= ZC_TECH_COUNT)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_run: unknown technique %d", (int)technique);
    if (!(max_seconds > 0.0) || max_seconds > 600.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_run: max_seconds %g is not in (0, 600]",
                       max_seconds);
    size_t granule = zc__pattern_granule(workload->pattern);
    if (workload->bytes % granule != 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_advise_run: %zu bytes is not a multiple of %zu, which the %s pattern "
                       "needs",
                       workload->bytes, granule, zc_access_key(workload->pattern));
    if (workload->gpu_accesses != floor(workload->gpu_accesses) || workload->gpu_accesses > 1000.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_advise_run: the runner needs a whole number of accesses up to 1000, "
                       "got %g",
                       workload->gpu_accesses);
    ZC_CUDA_RETURN(cudaSetDevice(device));
    int attr = 0;
    if (technique == ZC_TECH_MANAGED) {
        ZC_CUDA_RETURN(cudaDeviceGetAttribute(&attr, cudaDevAttrConcurrentManagedAccess, device));
        if (!attr)
            return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                           "zc_advise_run: GPU %d lacks concurrentManagedAccess, which managed "
                           "prefetch needs",
                           device);
    }
    if (technique == ZC_TECH_MAPPED) {
        ZC_CUDA_RETURN(cudaDeviceGetAttribute(&attr, cudaDevAttrCanMapHostMemory, device));
        if (!attr)
            return ZC_FAIL(ZC_ERR_UNSUPPORTED, "zc_advise_run: GPU %d cannot map host memory",
                           device);
    }

    zc__run r;
    memset(&r, 0, sizeof r);
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&r.sm_count, cudaDevAttrMultiProcessorCount, device));
    r.w = *workload;
    r.tech = technique;
    r.bytes = workload->bytes;
    r.words = workload->bytes / 4;
    r.in = workload->direction != ZC_DIR_D2H;
    r.out = workload->direction != ZC_DIR_H2D;
    r.sets = technique == ZC_TECH_OVERLAPPED ? 2 : 1;
    r.chunks = 1;
    if (technique == ZC_TECH_OVERLAPPED) {
        size_t chunks = zc__overlap_chunks(r.bytes);
        if (r.bytes % (chunks * granule) == 0)
            r.chunks = chunks;
    }
    double samples[ZC__REPEATS];
    double batch_us = 0.0, timed = 0.0;
    zc_status status = ZC_OK;
    ZC_CHECK_GOTO(zc__run_create(&r), status, destroy);
    /* Warm up: first launch, first touch of every buffer, managed pages placed once. */
    ZC_CHECK_GOTO(zc__transfers(&r, 2, 1u, device), status, destroy);
    for (int i = 0; i < ZC__REPEATS && status == ZC_OK; i++) {
        double t0 = zc__now_us();
        status = zc__transfers(&r, 1, 100u + (uint32_t)i, device);
        samples[i] = zc__now_us() - t0;
    }
    if (status != ZC_OK)
        goto destroy;
    zc__sort_doubles(samples, ZC__REPEATS);
    {
        double count = zc_workload_transfer_count(workload);
        timed = floor(max_seconds * 1e6 / fmax(samples[ZC__REPEATS / 2], 1.0));
        /* Whole transfers only: the batch runs (size_t)timed of them, and the scaling below
         * must divide by that many (a count such as 2.5 would otherwise scale 2 as 2.5). */
        timed = floor(fmin(fmin(timed, count), ZC__MAX_TIMED));
        if (timed < 1.0)
            timed = 1.0;
        double t0 = zc__now_us();
        status = zc__transfers(&r, (size_t)timed, 1000u, device);
        batch_us = zc__now_us() - t0;
        if (status != ZC_OK)
            goto destroy;
        ZC_CHECK_GOTO(zc__verify(&r, device), status, destroy);
        zc_measurement m;
        memset(&m, 0, sizeof m);
        m.technique = technique;
        m.transfers = timed;
        m.setup_us = r.setup_us;
        m.per_transfer_us = samples[ZC__REPEATS / 2];
        m.total_us = r.setup_us + batch_us * count / timed;
        m.verified = 1;
        *measurement_p = m;
    }
destroy:
    ZC_CUDA_IGNORE(cudaDeviceSynchronize());
    zc__run_destroy(&r);
    return status;
}

ZC_EXTERN zc_status zc_advise_measure_managed_touch(int device, double *gbps_p)
{
    ZC_REQUIRE_ARG(gbps_p);
    /* The runner's managed transfers start with the CPU writing pages that the last prefetch
     * put on the GPU: each faults back first. zc bench measures the GPU's faults, not these. */
    const size_t bytes = (size_t)64 << 20;
    int managed = 0;
    ZC_CUDA_RETURN(cudaSetDevice(device));
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, device));
    if (!managed)
        return ZC_FAIL(ZC_ERR_UNSUPPORTED,
                       "zc_advise_measure_managed_touch: GPU %d lacks concurrentManagedAccess",
                       device);
    uint32_t *p = NULL;
    cudaStream_t s = NULL;
    ZC_CHECK(zc__mem_exact_alloc(ZC_BUFFER_MANAGED, bytes, (void **)&p));
    zc_status status = ZC_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    double t[3];
    zc__fill(p, bytes / 4, 9u); /* the pages start on the host */
    for (int i = 0; i < 3 && status == ZC_OK; i++) {
        status = zc__prefetch(p, bytes, device, s);
        if (status == ZC_OK)
            status = ZC_CUDA(cudaStreamSynchronize(s));
        if (status != ZC_OK)
            break;
        double t0 = zc__now_us();
        zc__fill(p, bytes / 4, (uint32_t)i);
        t[i] = zc__now_us() - t0;
    }
    if (s != NULL)
        ZC_CUDA_IGNORE(cudaStreamDestroy(s));
    zc__mem_exact_free(ZC_BUFFER_MANAGED, p);
    ZC_CHECK(status);
    zc__sort_doubles(t, 3);
    *gbps_p = (double)bytes / (t[1] * 1e3);
    return ZC_OK;
}
