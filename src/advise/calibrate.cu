/* A quick measurement of the figures the cost model needs, for machines without a bench
 * profile at hand. Every figure is a median of repeats; the same kernel as the runner's. */
#include "zerocopy/advise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/kernel_internal.h"
#include "device/cuda_check.h"
#include "zerocopy/device.h"
#include "zerocopy/clock.h"

#define ZC__BIG   ((size_t)64 << 20)
#define ZC__SMALL ((size_t)4096)
#define ZC__MIB   (1024.0 * 1024.0)

/* Everything the calibration allocates, freed in one place. */
typedef struct zc__cal {
    void *pageable, *pinned, *registered, *mapped, *managed, *dev_a, *dev_b, *sink;
    int is_registered;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    int have_stream, have_start, have_stop;
} zc__cal;

static double zc__now_us(void)
{
    return (double)zc_clock_ns() / 1e3;
}

static int zc__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double zc__median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], zc__cmp);
    return v[n / 2];
}

static void zc__cal_destroy(zc__cal *c)
{
    if (c->have_stream)
        (void)cudaStreamSynchronize(c->stream);
    if (c->is_registered)
        (void)cudaHostUnregister(c->registered);
    free(c->registered);
    free(c->pageable);
    if (c->pinned != NULL)
        (void)cudaFreeHost(c->pinned);
    if (c->mapped != NULL)
        (void)cudaFreeHost(c->mapped);
    if (c->managed != NULL)
        (void)cudaFree(c->managed);
    if (c->dev_a != NULL)
        (void)cudaFree(c->dev_a);
    if (c->dev_b != NULL)
        (void)cudaFree(c->dev_b);
    if (c->sink != NULL)
        (void)cudaFree(c->sink);
    if (c->have_stop)
        (void)cudaEventDestroy(c->stop);
    if (c->have_start)
        (void)cudaEventDestroy(c->start);
    if (c->have_stream)
        (void)cudaStreamDestroy(c->stream);
}

/* Median time of reps synchronous copies of bytes, host clock. */
static zc_status zc__time_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                               int reps, double *us_p)
{
    double t[16];
    for (int i = 0; i < reps; i++) {
        double t0 = zc__now_us();
        ZC_CUDA_RETURN(cudaMemcpy(dst, src, bytes, kind));
        t[i] = zc__now_us() - t0;
    }
    *us_p = zc__median(t, reps);
    return ZC_OK;
}

/* Median kernel time of reps launches of work, CUDA events. */
static zc_status zc__time_work(zc__cal *c, const zc__work *work, int reps, double *us_p)
{
    double t[16];
    for (int i = 0; i < reps; i++) {
        ZC_CUDA_RETURN(cudaEventRecord(c->start, c->stream));
        zc_status status = zc__work_launch(work, c->stream);
        if (status != ZC_OK)
            return status;
        ZC_CUDA_RETURN(cudaEventRecord(c->stop, c->stream));
        ZC_CUDA_RETURN(cudaEventSynchronize(c->stop));
        float ms = 0.0f;
        ZC_CUDA_RETURN(cudaEventElapsedTime(&ms, c->start, c->stop));
        t[i] = (double)ms * 1e3;
    }
    *us_p = zc__median(t, reps);
    return ZC_OK;
}

static zc__work zc__work_make(void *in, void *out, void *sink, size_t bytes, zc_access pattern,
                              int passes)
{
    zc__work w;
    memset(&w, 0, sizeof w);
    w.in = (const uint32_t *)in;
    w.out = (uint32_t *)out;
    w.sink = (uint32_t *)sink;
    w.words = bytes / 4;
    w.passes = passes;
    w.pattern = pattern;
    w.stride_mul = zc__random_multiplier(w.words);
    w.seed = 7u;
    return w;
}

/* Copy curves and queued-copy costs for one host memory kind. */
static zc_status zc__cal_copies(zc__cal *c, zc_profile *p, zc_host_kind kind, void *host)
{
    static const size_t sizes[] = {4096, 65536, (size_t)1 << 20, (size_t)16 << 20, ZC__BIG};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int reps = sizes[i] <= ((size_t)1 << 20) ? 15 : 3;
        double h2d = 0.0, d2h = 0.0;
        zc_status status =
            zc__time_copy(c->dev_a, host, sizes[i], cudaMemcpyHostToDevice, reps, &h2d);
        if (status == ZC_OK)
            status = zc__time_copy(host, c->dev_a, sizes[i], cudaMemcpyDeviceToHost, reps, &d2h);
        if (status == ZC_OK)
            status =
                zc_curve_add(&p->copy[kind][ZC_DIR_H2D], sizes[i], (double)sizes[i] / (h2d * 1e3));
        if (status == ZC_OK)
            status =
                zc_curve_add(&p->copy[kind][ZC_DIR_D2H], sizes[i], (double)sizes[i] / (d2h * 1e3));
        if (status != ZC_OK)
            return status;
    }
    /* The queued cost of a copy: a 4 KiB copy each way around an empty kernel, less the
     * launch and synchronisation that the chain pays once. */
    double t[16];
    for (int i = 0; i < 16; i++) {
        double t0 = zc__now_us();
        ZC_CUDA_RETURN(
            cudaMemcpyAsync(c->dev_a, host, ZC__SMALL, cudaMemcpyHostToDevice, c->stream));
        zc_status status = zc__empty_launch(c->stream);
        if (status != ZC_OK)
            return status;
        ZC_CUDA_RETURN(
            cudaMemcpyAsync(host, c->dev_a, ZC__SMALL, cudaMemcpyDeviceToHost, c->stream));
        ZC_CUDA_RETURN(cudaStreamSynchronize(c->stream));
        t[i] = zc__now_us() - t0;
    }
    double chain = zc__median(t, 16);
    double latency = (chain - p->launch_sync_us) / 2.0;
    p->copy_latency_us[kind] = latency > 0.2 ? latency : 0.2;
    return ZC_OK;
}

static zc_status zc__cal_mapped(zc__cal *c, zc_profile *p)
{
    zc_status status;
    double us = 0.0;
    for (int a = 0; a < ZC_ACCESS_COUNT; a++) {
        /* Scattered patterns are slow over PCIe: a smaller buffer keeps the time short. */
        size_t bytes = a == ZC_ACCESS_COALESCED ? ZC__BIG : ZC__BIG / 16;
        zc__work rd = zc__work_make(c->mapped, NULL, c->sink, bytes, (zc_access)a, 1);
        if ((status = zc__time_work(c, &rd, 3, &us)) != ZC_OK)
            return status;
        p->mapped_read_gbps[a] = (double)bytes / (us * 1e3);
        zc__work wr = zc__work_make(NULL, c->mapped, c->sink, bytes, (zc_access)a, 1);
        if ((status = zc__time_work(c, &wr, 3, &us)) != ZC_OK)
            return status;
        p->mapped_write_gbps[a] = (double)bytes / (us * 1e3);
    }
    /* A launch that reads 4 KiB of mapped memory, less an empty launch: the read's latency. */
    double t[16];
    zc__work small = zc__work_make(c->mapped, NULL, c->sink, ZC__SMALL, ZC_ACCESS_COALESCED, 1);
    for (int i = 0; i < 16; i++) {
        double t0 = zc__now_us();
        if ((status = zc__work_launch(&small, c->stream)) != ZC_OK)
            return status;
        ZC_CUDA_RETURN(cudaStreamSynchronize(c->stream));
        t[i] = zc__now_us() - t0;
    }
    double latency = zc__median(t, 16) - p->launch_sync_us;
    p->mapped_latency_us = latency > 0.1 ? latency : 0.1;
    return ZC_OK;
}

static zc_status zc__cal_managed(zc__cal *c, zc_profile *p, int device)
{
    double t0 = zc__now_us();
    ZC_CUDA_RETURN(cudaMallocManaged(&c->managed, ZC__BIG, cudaMemAttachGlobal));
    p->alloc_managed_us_per_mib = (zc__now_us() - t0) / (ZC__BIG / ZC__MIB);
    struct cudaMemLocation gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = device;
    double first = 0.0, prefetch = 0.0, touch = 0.0, small[8], idle[8];
    /* First touch by the GPU: pages written by the CPU, faulted over by a kernel. */
    zc__fill((uint32_t *)c->managed, ZC__BIG / 4, 1u);
    zc__work rd = zc__work_make(c->managed, NULL, c->sink, ZC__BIG, ZC_ACCESS_COALESCED, 1);
    zc_status status = zc__time_work(c, &rd, 1, &first);
    if (status != ZC_OK)
        return status;
    p->managed_first_touch_gbps = (double)ZC__BIG / (first * 1e3);
    for (int round = 0; round < 2; round++) {
        /* The CPU writing pages that live on the GPU faults them back. */
        t0 = zc__now_us();
        zc__fill((uint32_t *)c->managed, ZC__BIG / 4, 2u + (uint32_t)round);
        touch = zc__now_us() - t0;
        t0 = zc__now_us();
#if CUDART_VERSION >= 13000
        ZC_CUDA_RETURN(cudaMemPrefetchAsync(c->managed, ZC__BIG, gpu, 0, c->stream));
#else
        ZC_CUDA_RETURN(cudaMemPrefetchAsync(c->managed, ZC__BIG, device, c->stream));
#endif
        ZC_CUDA_RETURN(cudaStreamSynchronize(c->stream));
        prefetch = zc__now_us() - t0;
    }
    p->managed_cpu_touch_gbps = (double)ZC__BIG / (touch * 1e3);
    p->managed_prefetch_gbps = (double)ZC__BIG / (prefetch * 1e3);
    for (int i = 0; i < 8; i++) {
        zc__fill((uint32_t *)c->managed, ZC__SMALL / 4, 5u);
        t0 = zc__now_us();
#if CUDART_VERSION >= 13000
        ZC_CUDA_RETURN(cudaMemPrefetchAsync(c->managed, ZC__SMALL, gpu, 0, c->stream));
#else
        ZC_CUDA_RETURN(cudaMemPrefetchAsync(c->managed, ZC__SMALL, device, c->stream));
#endif
        ZC_CUDA_RETURN(cudaStreamSynchronize(c->stream));
        small[i] = zc__now_us() - t0;
        t0 = zc__now_us();
        ZC_CUDA_RETURN(cudaStreamSynchronize(c->stream));
        idle[i] = zc__now_us() - t0;
    }
    double fixed = zc__median(small, 8) - zc__median(idle, 8);
    p->managed_prefetch_us = fixed > 0.5 ? fixed : 0.5;
    (void)gpu;
    return ZC_OK;
}

/* Allocation costs: a small and a large allocation of each kind, fixed part and per MiB. */
static zc_status zc__cal_alloc(zc__cal *c, zc_profile *p)
{
    void *small = NULL;
    double t0 = zc__now_us();
    ZC_CUDA_RETURN(cudaHostAlloc(&small, ZC__SMALL, cudaHostAllocDefault));
    p->alloc_pinned_fixed_us = zc__now_us() - t0;
    (void)cudaFreeHost(small);
    t0 = zc__now_us();
    ZC_CUDA_RETURN(cudaHostAlloc(&c->pinned, ZC__BIG, cudaHostAllocDefault));
    double big = zc__now_us() - t0;
    p->alloc_pinned_us_per_mib = (big - p->alloc_pinned_fixed_us) / (ZC__BIG / ZC__MIB);
    c->registered = malloc(ZC__BIG);
    if (c->registered == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_advise_calibrate: malloc(%zu) failed", ZC__BIG);
    memset(c->registered, 1, ZC__BIG);
    t0 = zc__now_us();
    ZC_CUDA_RETURN(cudaHostRegister(c->registered, ZC__SMALL, cudaHostRegisterDefault));
    p->register_fixed_us = zc__now_us() - t0;
    ZC_CUDA_RETURN(cudaHostUnregister(c->registered));
    t0 = zc__now_us();
    ZC_CUDA_RETURN(cudaHostRegister(c->registered, ZC__BIG, cudaHostRegisterDefault));
    c->is_registered = 1;
    big = zc__now_us() - t0;
    p->register_us_per_mib = (big - p->register_fixed_us) / (ZC__BIG / ZC__MIB);
    t0 = zc__now_us();
    ZC_CUDA_RETURN(cudaMalloc(&c->dev_a, ZC__BIG));
    p->alloc_device_us_per_mib = (zc__now_us() - t0) / (ZC__BIG / ZC__MIB);
    return ZC_OK;
}

static zc_status zc__calibrate(zc__cal *c, int device, zc_profile *p)
{
    zc_status status;
    struct cudaDeviceProp prop;
    ZC_CUDA_RETURN(cudaGetDeviceProperties(&prop, device));
    snprintf(p->device_name, sizeof p->device_name, "%.127s", prop.name);
    snprintf(p->source, sizeof p->source, "calibration (zc advise, about one second)");
    ZC_CUDA_RETURN(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    c->have_stream = 1;
    ZC_CUDA_RETURN(cudaEventCreate(&c->start));
    c->have_start = 1;
    ZC_CUDA_RETURN(cudaEventCreate(&c->stop));
    c->have_stop = 1;
    if ((status = zc__cal_alloc(c, p)) != ZC_OK)
        return status;
    ZC_CUDA_RETURN(cudaMalloc(&c->dev_b, ZC__BIG));
    ZC_CUDA_RETURN(cudaMalloc(&c->sink, sizeof(uint32_t)));
    ZC_CUDA_RETURN(cudaHostAlloc(&c->mapped, ZC__BIG, cudaHostAllocMapped));
    c->pageable = malloc(ZC__BIG);
    if (c->pageable == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_advise_calibrate: malloc(%zu) failed", ZC__BIG);

    /* The CPU's part: filling its own, already touched memory. */
    memset(c->pageable, 0, ZC__BIG);
    double t[16];
    for (int i = 0; i < 3; i++) {
        double t0 = zc__now_us();
        zc__fill((uint32_t *)c->pageable, ZC__BIG / 4, (uint32_t)i);
        t[i] = zc__now_us() - t0;
    }
    p->host_write_gbps = (double)ZC__BIG / (zc__median(t, 3) * 1e3);
    memset(c->pinned, 0, ZC__BIG);
    memset(c->mapped, 0, ZC__BIG);

    /* Launch and synchronisation, after a warm-up that loads the module. */
    for (int i = 0; i < 16 + 4; i++) {
        double t0 = zc__now_us();
        if ((status = zc__empty_launch(c->stream)) != ZC_OK)
            return status;
        ZC_CUDA_RETURN(cudaStreamSynchronize(c->stream));
        if (i >= 4)
            t[i - 4] = zc__now_us() - t0;
    }
    p->launch_sync_us = zc__median(t, 16);

    if ((status = zc__cal_copies(c, p, ZC_HOST_PAGEABLE, c->pageable)) != ZC_OK ||
        (status = zc__cal_copies(c, p, ZC_HOST_PINNED, c->pinned)) != ZC_OK ||
        (status = zc__cal_copies(c, p, ZC_HOST_REGISTERED, c->registered)) != ZC_OK)
        return status;

    /* Host cost of queuing one asynchronous copy. */
    double t0 = zc__now_us();
    for (int i = 0; i < 64; i++)
        ZC_CUDA_RETURN(
            cudaMemcpyAsync(c->dev_b, c->pinned, ZC__SMALL, cudaMemcpyHostToDevice, c->stream));
    p->enqueue_us = (zc__now_us() - t0) / 64.0;
    ZC_CUDA_RETURN(cudaStreamSynchronize(c->stream));

    /* Device memory: the workload kernel reading it four times over. */
    double us = 0.0;
    zc__work dev = zc__work_make(c->dev_a, NULL, c->sink, ZC__BIG, ZC_ACCESS_COALESCED, 4);
    if ((status = zc__time_work(c, &dev, 3, &us)) != ZC_OK)
        return status;
    p->device_gbps = 4.0 * (double)ZC__BIG / (us * 1e3);

    if ((status = zc__cal_mapped(c, p)) != ZC_OK)
        return status;
    int managed = 0;
    ZC_CUDA_RETURN(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, device));
    if (managed && (status = zc__cal_managed(c, p, device)) != ZC_OK)
        return status;
    return zc_profile_fill_gaps(p, NULL, 0);
}

/* A GPU to measure on: without one, say why (no driver, too old, no GPU), as zc_device_count
 * does, rather than the runtime's "insufficient driver" for a machine that has none. */
static zc_status zc__cal_device(int device)
{
    int count = 0;
    zc_status status = zc_device_count(&count);
    if (status != ZC_OK)
        return status;
    return ZC_CUDA(cudaSetDevice(device));
}

ZC_EXTERN zc_status zc_advise_calibrate(int device, zc_profile *profile_p)
{
    ZC_REQUIRE_ARG(profile_p);
    zc_status st = zc__cal_device(device);
    if (st != ZC_OK)
        return st;
    zc_profile p;
    zc_status status = zc_profile_init(&p);
    if (status != ZC_OK)
        return status;
    zc__cal c;
    memset(&c, 0, sizeof c);
    status = zc__calibrate(&c, device, &p);
    zc__cal_destroy(&c);
    if (status == ZC_OK)
        *profile_p = p;
    return status;
}

ZC_EXTERN zc_status zc_advise_measure_host_write(double *gbps_p)
{
    ZC_REQUIRE_ARG(gbps_p);
    uint32_t *buf = (uint32_t *)malloc(ZC__BIG);
    if (buf == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_advise_measure_host_write: malloc(%zu) failed",
                       ZC__BIG);
    memset(buf, 0, ZC__BIG);
    double t[3];
    for (int i = 0; i < 3; i++) {
        double t0 = zc__now_us();
        zc__fill(buf, ZC__BIG / 4, (uint32_t)i);
        t[i] = zc__now_us() - t0;
    }
    free(buf);
    *gbps_p = (double)ZC__BIG / (zc__median(t, 3) * 1e3);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_advise_measure_alloc(int device, zc_profile *profile)
{
    ZC_REQUIRE_ARG(profile);
    zc_status st = zc__cal_device(device);
    if (st != ZC_OK)
        return st;
    zc_profile p = *profile;
    zc__cal c;
    memset(&c, 0, sizeof c);
    zc_status status = zc__cal_alloc(&c, &p);
    if (status == ZC_OK) {
        double t0 = zc__now_us();
        status = ZC_CUDA(cudaMallocManaged(&c.managed, ZC__BIG, cudaMemAttachGlobal));
        if (status == ZC_OK)
            p.alloc_managed_us_per_mib = (zc__now_us() - t0) / (ZC__BIG / ZC__MIB);
    }
    zc__cal_destroy(&c);
    if (status != ZC_OK)
        return status;
    /* A per-MiB figure can come out at or below zero when the fixed part dominates. */
    if (p.alloc_pinned_us_per_mib < 0.0)
        p.alloc_pinned_us_per_mib = 0.0;
    if (p.register_us_per_mib < 0.0)
        p.register_us_per_mib = 0.0;
    *profile = p;
    return ZC_OK;
}
