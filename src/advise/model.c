/* SPDX-License-Identifier: Apache-2.0 */
/* The cost model: what each technique costs for a workload on a measured machine. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/model_internal.h"
#include "core/error.h"
#include "zerocopy/size.h"
#include "core/c_locale.h"

size_t zc__overlap_chunks(size_t bytes)
{
    /* Chunks small enough to pipeline, large enough that the per-copy cost stays small. */
    if (bytes >= (size_t)4 << 20)
        return 4;
    if (bytes >= (size_t)1 << 20)
        return 2;
    return 1;
}

ZC_EXTERN zc_status zc_workload_check(const zc_workload *workload)
{
    ZC_REQUIRE_ARG(workload);
    const zc_workload *w = workload;
    if (w->bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_workload_check: bytes per transfer is 0");
    if ((int)w->direction < 0 || w->direction > ZC_DIR_BOTH)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_workload_check: unknown direction %d",
                       (int)w->direction);
    if ((int)w->pattern < 0 || w->pattern >= ZC_ACCESS_COUNT)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_workload_check: unknown access pattern %d",
                       (int)w->pattern);
    if (!isfinite(w->gpu_accesses) || w->gpu_accesses < 1.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_workload_check: the GPU must access each byte at least once, got %g",
                       w->gpu_accesses);
    if (!isfinite(w->transfers) || w->transfers < 0.0 || !isfinite(w->rate_hz) ||
        w->rate_hz < 0.0 || !isfinite(w->latency_budget_us) || w->latency_budget_us < 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_workload_check: transfers, rate and latency budget must be finite and "
                       "not negative");
    const double max = (double)ZC_WORKLOAD_TRANSFERS_MAX;
    if (w->transfers != floor(w->transfers) || w->transfers > max)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_workload_check: transfers must be a whole number from 1 to %.0f (or 0 "
                       "with a rate: one second's worth), got %g",
                       max, w->transfers);
    if (zc_workload_transfer_count(w) > max)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_workload_check: one second at %g transfers/s is over the largest "
                       "supported count of transfers, %.0f",
                       w->rate_hz, max);
    return ZC_OK;
}

ZC_EXTERN double zc_workload_transfer_count(const zc_workload *workload)
{
    if (workload == NULL)
        return 0.0;
    if (workload->transfers > 0.0)
        return workload->transfers;
    if (workload->rate_hz > 0.0)
        return workload->rate_hz;
    return 1.0;
}

/* The bytes the kernel moves in device memory, and over the link for mapped memory. */
typedef struct zc__traffic {
    int in, out;       /* the input goes to the GPU; a result comes back */
    double reads;      /* bytes the kernel reads */
    double writes;     /* bytes the kernel writes */
    double in_bytes;   /* bytes copied to the GPU */
    double out_bytes;  /* bytes copied back */
    double fill_bytes; /* bytes the CPU writes as input */
    zc_access pattern; /* how the kernel walks its buffers */
    double pass_bytes; /* one pass: the size of each buffer */
} zc__traffic;

static zc__traffic zc__traffic_of(const zc_workload *w)
{
    zc__traffic t;
    double b = (double)w->bytes, k = w->gpu_accesses;
    t.in = w->direction != ZC_DIR_D2H;
    t.out = w->direction != ZC_DIR_H2D;
    /* h2d: the kernel reads the input k times. d2h: it writes the output k times. both: it
     * reads the input k times and writes one result of the same size. */
    t.reads = t.in ? k * b : 0.0;
    t.writes = t.out ? (t.in ? b : k * b) : 0.0;
    t.in_bytes = t.in ? b : 0.0;
    t.out_bytes = t.out ? b : 0.0;
    t.fill_bytes = t.in ? b : 0.0;
    t.pattern = w->pattern;
    t.pass_bytes = b;
    return t;
}

/* A time along a kernel's curve (device or mapped memory) at bytes; below the smallest kernel
 * measured, the time that curve holds is the least a kernel takes, which launch_sync_us (an almost
 * empty kernel) already counts: what the bytes add is priced down to nothing at none. 0 when the
 * curve has no point. */
static int zc__kernel_curve_us(const zc_curve *c, double bytes, double *us_p)
{
    double one = 0.0;
    if (c->count == 0 || !(bytes < 1e18) || zc_curve_time_us(c, (size_t)bytes, &one) != ZC_OK)
        return 0;
    *us_p = bytes < (double)c->bytes[0] ? one * bytes / (double)c->bytes[0] : one;
    return 1;
}

/* The row of a walk's curves: [0] strided, [1] random. */
static int zc__walk_row(zc_access pattern)
{
    return pattern == ZC_ACCESS_STRIDED ? 0 : 1;
}

/* A strided or random walk's passes in one direction (d: 0 reads, 1 writes) along its curve
 * from walks (device or mapped memory), each pass at the rate of a buffer of its size: whether
 * the buffer fits the GPU's cache sets that rate, not how many passes there are. 0 when the
 * traffic is coalesced or the profile lacks the curve. */
static int zc__walk_us(const zc_curve walks[2][2], const zc__traffic *t, int d, double *us_p)
{
    double pass = 0.0;
    if (t->pattern == ZC_ACCESS_COALESCED || !(t->pass_bytes > 0.0) ||
        !zc__kernel_curve_us(&walks[zc__walk_row(t->pattern)][d], t->pass_bytes, &pass))
        return 0;
    *us_p = pass * (d ? t->writes : t->reads) / t->pass_bytes;
    return 1;
}

/* The kernel's time on device memory: along the measured read and write curves when the
 * profile has them (a small kernel is launch-bound, far below the peak), else at the peak. The
 * k passes over a transfer are one launch, so they are priced as one launch moving all their
 * bytes, not as k launches of one pass each (which would count the fixed cost k times). A
 * strided or random walk goes word by word along its own curve (zc__walk_us). Without a walk
 * curve the coalesced kernel stands in (with it, every technique of a random workload writing
 * 32 MiB 32 times was priced 30-73% too fast). */
static double zc__device_us(const zc_profile *p, const zc__traffic *t)
{
    double us = 0.0, part = 0.0;
    for (int d = 0; d < 2; d++) {
        double bytes = d ? t->writes : t->reads;
        if (!(bytes > 0.0))
            continue;
        if (zc__walk_us(p->device_walk, t, d, &part))
            us += part;
        else if (zc__kernel_curve_us(&p->device_curve[d], bytes, &part))
            us += part;
        else
            us += zc__us_at(bytes, p->device_gbps);
    }
    return us;
}

/* A kernel's passes over a mapped buffer of bytes: the first at first_us, over the link; every
 * later one at what reread measured one more pass to cost at this size (the GPU's cache keeps a
 * small buffer), never dearer than the first; all at first_us when the curve is empty. */
static double zc__passes_us(double first_us, double passes, const zc_cost_curve *reread,
                            size_t bytes)
{
    if (reread->count == 0 || passes <= 1.0)
        return passes * first_us;
    return first_us + (passes - 1.0) * fmin(zc__cost_curve_at(reread, bytes), first_us);
}

/* The CPU's writes of a transfer's input: along the fill curve measured by size when the
 * profile has it (small inputs stay in the CPU's caches and go several times faster than the
 * memory's rate), else at the one rate. */
static double zc__fill_us(const zc_profile *p, const zc__traffic *t)
{
    if (!(t->fill_bytes > 0.0))
        return 0.0;
    if (p->host_fill.count > 0)
        return zc__cost_curve_at(&p->host_fill, (size_t)t->fill_bytes);
    return zc__us_at(t->fill_bytes, p->host_write_gbps);
}

/* Setup: one call of kind per buffer the technique allocates (sets of input and output
 * buffers), priced along the measured allocation curve, since the cost is not linear in size.
 * The first pinned buffer brings the driver a chunk; the later ones, when small, are carved from
 * it, and cost what alloc.cost measured beside another block. */
static double zc__setup_us(const zc_profile *p, zc_buffer_kind kind, const zc__traffic *t, int sets)
{
    const zc_cost_curve *later = kind == ZC_BUFFER_PINNED && p->alloc_pinned_beside.count > 0
                                     ? &p->alloc_pinned_beside
                                     : NULL;
    double total = 0.0;
    int first = 1;
    for (int s = 0; s < sets; s++) {
        for (int is_out = 0; is_out < 2; is_out++) {
            if (!(is_out ? t->out : t->in))
                continue;
            size_t bytes = (size_t)(is_out ? t->out_bytes : t->in_bytes);
            double us = 0.0;
            if (!first && later != NULL)
                us = zc__cost_curve_at(later, bytes);
            else
                (void)zc_profile_alloc_us(p, kind, bytes, &us);
            total += us;
            first = 0;
        }
    }
    return total;
}

/* One copy of bytes in direction d between other work: its fixed part (*fixed_p) and its
 * size's (*link_p). A pageable copy is priced as a pinned one plus what one alone cost beyond a
 * pinned one alone, where latency.copy measured both (to its largest size, then along its own
 * curve): the round trip's share (copy_latency_us.pageable, a copy each way) and the curve
 * (timed back to back) priced the H200's workloads of 4-64 KiB pageable copies to the GPU
 * 14-38% too slow, where a small one returns once staged (4 KiB alone: 6.6 us, pinned 7.6) and
 * one back waits for the copy out of the staging buffer (8.8, pinned 6.7). */
static void zc__copy_parts(const zc_profile *p, zc_buffer_kind kind, int d, size_t bytes,
                           double *fixed_p, double *link_p)
{
    const zc_curve *curve = &p->copy[kind][d], *pinned = &p->copy[ZC_BUFFER_PINNED][d];
    const zc_cost_curve *alone = p->copy_alone[0] + d, *alone_pinned = p->copy_alone[1] + d;
    if (kind != ZC_BUFFER_PAGEABLE || alone->count == 0 || alone_pinned->count == 0 ||
        pinned->count == 0) {
        *fixed_p = p->copy_latency_us[kind];
        *link_p = zc__curve_increment_us(curve, bytes);
        return;
    }
    size_t largest = alone->bytes[alone->count - 1];
    size_t within = bytes < largest ? bytes : largest;
    double beyond = bytes > largest ? zc__curve_increment_us(curve, bytes) -
                                          zc__curve_increment_us(curve, largest)
                                    : 0.0;
    double extra = zc__cost_curve_at(alone, within) - zc__cost_curve_at(alone_pinned, within);
    *fixed_p = fmax(0.0, p->copy_latency_us[ZC_BUFFER_PINNED] + extra);
    *link_p = zc__curve_increment_us(pinned, within) + fmax(0.0, beyond);
}

/* Copies from host memory of one kind: one transfer at a time, synchronised each time. */
static void zc__predict_copy(const zc_profile *p, const zc_workload *w, zc_buffer_kind kind,
                             const zc__traffic *t, zc_prediction *r)
{
    const zc_curve *h2d = &p->copy[kind][ZC_DIR_H2D], *d2h = &p->copy[kind][ZC_DIR_D2H];
    if ((t->in && h2d->count == 0) || (t->out && d2h->count == 0) || !(p->device_gbps > 0.0))
        return;
    r->usable = 1;
    r->fixed_us = p->launch_sync_us;
    for (int d = 0; d < 2; d++) {
        if (!(d == ZC_DIR_H2D ? t->in : t->out))
            continue;
        double fixed = 0.0, link = 0.0;
        zc__copy_parts(p, kind, d, w->bytes, &fixed, &link);
        r->fixed_us += fixed;
        r->link_us += link;
    }
    r->compute_us = zc__device_us(p, t);
    r->cpu_us = zc__fill_us(p, t);
    r->per_transfer_us = r->fixed_us + r->link_us + r->compute_us + r->cpu_us;
    r->steady_us = r->per_transfer_us;
    if (kind == ZC_BUFFER_PINNED || kind == ZC_BUFFER_REGISTERED)
        r->setup_us = zc__setup_us(p, kind, t, 1);
}

/* A chunk's copy queued behind others, as the copy engine takes them back to back: the copy
 * curve's own time at the size, which zc bench measured so (on the H200 a 1 MiB copy 20.7 us
 * there, where the fixed cost of a copy between other work and its bytes add up to 25 us). */
static double zc__queued_copy_us(const zc_profile *p, const zc_curve *curve, size_t bytes)
{
    double us = 0.0;
    if (zc_curve_time_us(curve, bytes, &us) != ZC_OK)
        us = p->copy_latency_us[ZC_BUFFER_PINNED] + zc__curve_increment_us(curve, bytes);
    return us;
}

/* Pinned copies in chunks on streams: copy-in, kernel and copy-out of successive chunks and
 * transfers overlap; the CPU fills the next transfer while the GPU works on this one. */
static void zc__predict_overlapped(const zc_profile *p, const zc_workload *w, const zc__traffic *t,
                                   zc_prediction *r)
{
    const zc_curve *h2d = &p->copy[ZC_BUFFER_PINNED][ZC_DIR_H2D];
    const zc_curve *d2h = &p->copy[ZC_BUFFER_PINNED][ZC_DIR_D2H];
    if (!(p->device_gbps > 0.0))
        return;
    r->usable = 1;
    size_t chunks = zc__overlap_chunks(w->bytes);
    size_t chunk = w->bytes / chunks;
    double lat = p->copy_latency_us[ZC_BUFFER_PINNED];
    double c_in = t->in ? lat + zc__curve_increment_us(h2d, chunk) : 0.0;
    double c_out = t->out ? lat + zc__curve_increment_us(d2h, chunk) : 0.0;
    double c_kernel = p->enqueue_us + zc__device_us(p, t) / (double)chunks;
    double n = (double)chunks;
    /* The host queues per chunk: the copies, the launch and the event that frees the set. */
    double cpu = zc__fill_us(p, t) + n * (t->in + 1 + t->out + 1) * p->enqueue_us;
    /* Back to back, a chunk's copies queue behind the last transfer's: each at the queued rate. */
    double q_in = t->in ? zc__queued_copy_us(p, h2d, chunk) : 0.0;
    double q_out = t->out ? zc__queued_copy_us(p, d2h, chunk) : 0.0;
    double parts[4] = {n * q_in, n * c_kernel, n * q_out, cpu};
    double both =
        t->in && t->out ? zc__us_at(t->in_bytes + t->out_bytes, p->both_directions_gbps) : 0.0;
    double sum = 0.0, max = both;
    for (int i = 0; i < 4; i++) {
        sum += parts[i];
        max = fmax(max, parts[i]);
    }
    double stage_max = fmax(c_in, fmax(c_kernel, c_out));
    r->fixed_us = p->launch_sync_us + n * (t->in + t->out) * lat;
    r->link_us = n * ((t->in ? zc__curve_increment_us(h2d, chunk) : 0.0) +
                      (t->out ? zc__curve_increment_us(d2h, chunk) : 0.0));
    r->compute_us = zc__device_us(p, t);
    r->cpu_us = zc__fill_us(p, t);
    /* One transfer alone: its chunks pipeline through the three stages. */
    r->per_transfer_us =
        p->launch_sync_us + r->cpu_us + c_in + c_kernel + c_out + (n - 1.0) * stage_max;
    /* Back to back: the slowest part sets the pace; imperfect overlap adds part of the rest. */
    r->steady_us = max + (1.0 - p->overlap_efficiency) * (sum - max);
    /* Two sets of buffers, so that the CPU fills one while the GPU works on the other. */
    r->setup_us = zc__setup_us(p, ZC_BUFFER_PINNED, t, 2);
}

/* The kernel's reads (d 0) or writes (d 1) of mapped memory: a walk along the mapped walk
 * curve, a read's later passes along what the walk read twice measured one more pass to cost
 * (the coalesced kernel's reread stands in badly: with it the H200's validation found 16 and 32
 * MiB walked twice 36-42% slower than predicted); without the walk curve, or coalesced, at the
 * pattern's rate, a read's later passes along crossover.read_k's reread. Every write pass
 * crosses the link. 0 when the profile has neither rate. */
static int zc__mapped_us(const zc_profile *p, const zc_workload *w, const zc__traffic *t, int d,
                         double *us_p)
{
    double bytes = d ? t->writes : t->reads, all = 0.0;
    *us_p = 0.0;
    if (!(bytes > 0.0))
        return 1;
    const zc_cost_curve *reread = &p->mapped_reread;
    if (zc__walk_us(p->mapped_walk, t, d, &all)) {
        reread = &p->mapped_walk_reread[zc__walk_row(t->pattern)];
    } else {
        double gbps = d ? p->mapped_write_gbps[w->pattern] : p->mapped_read_gbps[w->pattern];
        if (!(gbps > 0.0))
            return 0;
        all = zc__us_at(bytes, gbps);
    }
    double passes = bytes / t->pass_bytes;
    *us_p = d ? all : zc__passes_us(all / passes, passes, reread, w->bytes);
    return 1;
}

/* The kernel reads and writes mapped host memory in place: every access crosses the link. */
static void zc__predict_mapped(const zc_profile *p, const zc_workload *w, const zc__traffic *t,
                               zc_prediction *r)
{
    double reads_us = 0.0, writes_us = 0.0;
    if (!zc__mapped_us(p, w, t, 0, &reads_us) || !zc__mapped_us(p, w, t, 1, &writes_us))
        return;
    r->usable = 1;
    /* A persistent kernel answers a flag instead of being launched for every transfer. */
    r->fixed_us = w->concurrent && p->pingpong_us > 0.0 ? p->pingpong_us
                                                        : p->launch_sync_us + p->mapped_latency_us;
    r->link_us = reads_us + writes_us;
    r->compute_us = 0.0;
    r->cpu_us = zc__fill_us(p, t);
    r->per_transfer_us = r->fixed_us + r->link_us + r->cpu_us;
    r->steady_us = r->per_transfer_us;
    r->setup_us = zc__setup_us(p, ZC_BUFFER_PINNED, t, 1);
}

/* Managed memory along managed.transfer's curves: each measured transfer held one launch and
 * synchronisation and one kernel pass over the bytes; a transfer both ways pays one of each,
 * and the kernel's passes are priced on device memory as for the copies. */
static void zc__predict_managed_measured(const zc_profile *p, const zc_workload *w,
                                         const zc__traffic *t, zc_prediction *r)
{
    const zc_cost_curve *in = &p->managed_transfer[ZC_DIR_H2D];
    const zc_cost_curve *out = &p->managed_transfer[ZC_DIR_D2H];
    zc__traffic one = *t; /* one coalesced pass each way: what the measured transfers' kernels
                             did */
    one.reads = t->in ? (double)w->bytes : 0.0;
    one.writes = t->out ? (double)w->bytes : 0.0;
    one.pattern = ZC_ACCESS_COALESCED;
    /* Both ways measured as one transfer when the profile has it: zc advise --validate on the
     * H200 found it 30-50% dearer at 8-16 KiB than the two directions' sum less a launch. */
    int as_one = t->in && t->out && p->managed_transfer_both.count > 0;
    double measured = as_one ? zc__cost_curve_at(&p->managed_transfer_both, w->bytes)
                             : (t->in ? zc__cost_curve_at(in, w->bytes) : 0.0) +
                                   (t->out ? zc__cost_curve_at(out, w->bytes) : 0.0);
    double launches = as_one ? 1.0 : (double)(t->in + t->out);
    double held = launches * p->launch_sync_us + zc__device_us(p, &one);
    r->usable = 1;
    r->fixed_us = p->launch_sync_us;
    r->link_us = fmax(measured - held, 0.0);
    r->compute_us = zc__device_us(p, t);
    r->cpu_us = t->in ? zc__fill_us(p, t) : 0.0;
}

/* Managed memory moved by cudaMemPrefetchAsync each way; the CPU's writes fault the pages
 * back. */
static void zc__predict_managed(const zc_profile *p, const zc_workload *w, const zc__traffic *t,
                                zc_prediction *r)
{
    if (!(p->device_gbps > 0.0))
        return;
    if ((!t->in || p->managed_transfer[ZC_DIR_H2D].count > 0) &&
        (!t->out || p->managed_transfer[ZC_DIR_D2H].count > 0)) {
        zc__predict_managed_measured(p, w, t, r);
    } else {
        /* Without the curves (a profile from before managed.transfer): from the rates. */
        if (!(p->managed_prefetch_gbps > 0.0) || (t->in && !(p->managed_cpu_touch_gbps > 0.0)))
            return;
        r->usable = 1;
        /* The output is prefetched to the GPU before the kernel and back after it. */
        double prefetches = t->in + 2.0 * t->out;
        r->fixed_us = p->launch_sync_us + prefetches * p->managed_prefetch_us;
        r->link_us = zc__us_at(t->in_bytes + 2.0 * t->out_bytes, p->managed_prefetch_gbps);
        /* The kernel reads pages that were prefetched: the rate managed.prefetched measured. */
        double on_gpu =
            p->managed_prefetched_gbps > 0.0 ? p->managed_prefetched_gbps : p->device_gbps;
        r->compute_us = zc__us_at(t->reads + t->writes, on_gpu);
        /* The CPU's fill finds the pages on the GPU (the last prefetch put them there) and
         * faults each back before writing it. Measured, the rate is of the whole fill;
         * assumed (the GPU's fault rate standing in), the write itself comes on top. */
        double fill = zc__us_at(t->fill_bytes, p->managed_cpu_touch_gbps);
        if (p->origin[ZC_PF_MANAGED_CPU_TOUCH_GBPS] != ZC_ORIGIN_MEASURED)
            fill += zc__fill_us(p, t);
        r->cpu_us = t->in ? fill : 0.0;
    }
    r->per_transfer_us = r->fixed_us + r->link_us + r->compute_us + r->cpu_us;
    r->steady_us = r->per_transfer_us;
    r->setup_us = zc__setup_us(p, ZC_BUFFER_MANAGED, t, 1);
}

ZC_EXTERN zc_status zc_advise_predict(const zc_profile *profile, const zc_workload *workload,
                                      zc_technique technique, zc_prediction *prediction_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(prediction_p);
    ZC_CHECK(zc_workload_check(workload));
    if ((int)technique < 0 || technique >= ZC_TECH_COUNT)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_predict: unknown technique %d",
                       (int)technique);
    if (!(profile->launch_sync_us > 0.0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_advise_predict: incomplete profile (run zc_profile_fill_gaps first)");
    zc_prediction r;
    memset(&r, 0, sizeof r);
    r.technique = technique;
    zc__traffic t = zc__traffic_of(workload);
    switch (technique) {
    case ZC_TECH_PAGEABLE:
        zc__predict_copy(profile, workload, ZC_BUFFER_PAGEABLE, &t, &r);
        break;
    case ZC_TECH_PINNED:
        zc__predict_copy(profile, workload, ZC_BUFFER_PINNED, &t, &r);
        break;
    case ZC_TECH_REGISTERED:
        zc__predict_copy(profile, workload, ZC_BUFFER_REGISTERED, &t, &r);
        break;
    case ZC_TECH_OVERLAPPED:
        zc__predict_overlapped(profile, workload, &t, &r);
        break;
    case ZC_TECH_MAPPED:
        zc__predict_mapped(profile, workload, &t, &r);
        break;
    default:
        zc__predict_managed(profile, workload, &t, &r);
        break;
    }
    if (r.usable) {
        double n = zc_workload_transfer_count(workload);
        r.total_us = r.setup_us + r.per_transfer_us + (n - 1.0) * r.steady_us;
        r.meets_budget =
            workload->latency_budget_us <= 0.0 || r.per_transfer_us <= workload->latency_budget_us;
        r.meets_rate = workload->rate_hz <= 0.0 || r.steady_us <= 1e6 / workload->rate_hz;
        if (!isfinite(r.total_us))
            r.usable = 0;
    }
    *prediction_p = r;
    return ZC_OK;
}

/* Usable first, then those meeting the budget and the rate, then by total time. */
static int zc__compare_predictions(const void *a, const void *b)
{
    const zc_prediction *x = a, *y = b;
    if (x->usable != y->usable)
        return y->usable - x->usable;
    int fx = x->meets_budget && x->meets_rate, fy = y->meets_budget && y->meets_rate;
    if (fx != fy)
        return fy - fx;
    if (x->total_us != y->total_us)
        return x->total_us < y->total_us ? -1 : 1;
    return (int)x->technique - (int)y->technique;
}

void zc__size_text(double bytes, char *out, size_t size)
{
    /* In range before the cast: a double past 2^64 does not convert. */
    uint64_t b = bytes > 0.0 ? (bytes < 1.8e19 ? (uint64_t)bytes : UINT64_MAX) : 0;
    (void)zc_size_format(b, out, size);
}

/* "2.4 us", "3.1 ms", "1.20 s". */
static void zc__time_text(double us, char *out, size_t size)
{
    if (us < 1000.0)
        zc__snprintf_c(out, size, "%.3g us", us);
    else if (us < 1e6)
        zc__snprintf_c(out, size, "%.3g ms", us / 1e3);
    else
        zc__snprintf_c(out, size, "%.3g s", us / 1e6);
}

/* Why top beats next: the part of the cost where the difference is largest, as a clause. */
static void zc__reason(const zc_workload *w, const zc_prediction *top, const zc_prediction *next,
                       char *out, size_t size)
{
    double n = zc_workload_transfer_count(w);
    const char *name = zc_technique_title(next->technique);
    double gain[6] = {
        next->setup_us - top->setup_us,
        (next->fixed_us - top->fixed_us) * n,
        (next->link_us - top->link_us) * n,
        (next->compute_us - top->compute_us) * n,
        (next->cpu_us - top->cpu_us) * n,
        /* What running back to back hides, beyond what next hides. */
        ((top->per_transfer_us - top->steady_us) - (next->per_transfer_us - next->steady_us)) *
            (n - 1.0),
    };
    int best = 0;
    for (int i = 1; i < 6; i++) {
        if (gain[i] > gain[best])
            best = i;
    }
    char a[32], b[32];
    switch (best) {
    case 0:
        zc__time_text(next->setup_us, a, sizeof a);
        zc__time_text(top->setup_us, b, sizeof b);
        zc__snprintf_c(out, size,
                       "%s spends %s on allocation or registration first, against %s here", name, a,
                       b);
        break;
    case 1:
        zc__time_text(next->fixed_us, a, sizeof a);
        zc__time_text(top->fixed_us, b, sizeof b);
        zc__snprintf_c(
            out, size,
            "%s pays %s per transfer in launch, synchronisation and per-copy costs, against "
            "%s here",
            name, a, b);
        break;
    case 2:
        zc__time_text(next->link_us, a, sizeof a);
        zc__time_text(top->link_us, b, sizeof b);
        zc__snprintf_c(out, size, "%s spends %s per transfer on the PCIe link, against %s here",
                       name, a, b);
        break;
    case 3:
        zc__time_text(next->compute_us, a, sizeof a);
        zc__time_text(top->compute_us, b, sizeof b);
        zc__snprintf_c(out, size, "the kernel spends %s per transfer with %s, against %s here", a,
                       name, b);
        break;
    case 4:
        zc__time_text(next->cpu_us, a, sizeof a);
        zc__time_text(top->cpu_us, b, sizeof b);
        zc__snprintf_c(out, size,
                       "the CPU spends %s per transfer writing the input with %s, against %s", a,
                       name, b);
        break;
    default:
        zc__time_text(top->steady_us, a, sizeof a);
        zc__time_text(top->per_transfer_us, b, sizeof b);
        zc__snprintf_c(out, size,
                       "back to back on streams each transfer adds only %s of its %s, while %s "
                       "adds all of it",
                       a, b, name);
        break;
    }
}

static void zc__explain(const zc_workload *w, const zc_recommendation *a, char *out, size_t size)
{
    const zc_prediction *top = &a->ranked[0];
    char bytes[32], per[32], total[32];
    zc__size_text((double)w->bytes, bytes, sizeof bytes);
    zc__time_text(top->per_transfer_us, per, sizeof per);
    zc__time_text(top->total_us, total, sizeof total);
    const char *verb = w->direction == ZC_DIR_D2H ? "write" : "read";
    double k = w->gpu_accesses;
    const char *none = "";
    if (!top->meets_budget)
        none = "No technique meets the latency budget; the closest is ";
    else if (!top->meets_rate)
        none = "No technique keeps up with the rate; the closest is ";
    int len = zc__snprintf_c(out, size, "%s%s: %g %s%s of %s per transfer, %s each, %s in all",
                             none, zc_technique_key(top->technique), k, verb, k == 1.0 ? "" : "s",
                             bytes, per, total);
    if (len < 0 || (size_t)len >= size)
        return;
    if (a->count < 2 || !a->ranked[1].usable) {
        zc__snprintf_c(out + len, size - (size_t)len, ".");
        return;
    }
    const zc_prediction *next = &a->ranked[1];
    char next_total[32], reason[256];
    zc__time_text(next->total_us, next_total, sizeof next_total);
    zc__reason(w, top, next, reason, sizeof reason);
    int fits = top->meets_budget && top->meets_rate;
    int next_fits = next->meets_budget && next->meets_rate;
    if (fits && !next_fits) {
        char next_per[32];
        zc__time_text(!next->meets_budget ? next->per_transfer_us : next->steady_us, next_per,
                      sizeof next_per);
        zc__snprintf_c(out + len, size - (size_t)len,
                       ". The next best, %s, misses the %s (%s per transfer): %s.",
                       zc_technique_title(next->technique),
                       !next->meets_budget ? "latency budget" : "transfer rate", next_per, reason);
    } else {
        double ratio = top->total_us > 0.0 ? next->total_us / top->total_us : 0.0;
        if (ratio < 1.05)
            zc__snprintf_c(out + len, size - (size_t)len,
                           ", about as fast as %s (%s); the model cannot tell them apart reliably.",
                           zc_technique_title(next->technique), next_total);
        else
            zc__snprintf_c(out + len, size - (size_t)len, ", %.2gx below %s (%s): %s.", ratio,
                           zc_technique_title(next->technique), next_total, reason);
    }
}

ZC_EXTERN zc_status zc_advise_rank(const zc_profile *profile, const zc_workload *workload,
                                   zc_recommendation *recommendation_p)
{
    ZC_REQUIRE_ARG(recommendation_p);
    zc_recommendation a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < ZC_TECH_COUNT; i++) {
        ZC_CHECK(zc_advise_predict(profile, workload, (zc_technique)i, &a.ranked[i]));
    }
    a.count = ZC_TECH_COUNT;
    qsort(a.ranked, a.count, sizeof a.ranked[0], zc__compare_predictions);
    if (!a.ranked[0].usable) {
        /* zc_advise_predict leaves a total that overflowed in place: the figures were there. */
        int overflowed = 0;
        for (size_t i = 0; i < a.count; i++)
            overflowed |= !isfinite(a.ranked[i].total_us);
        if (overflowed) {
            char bytes[32];
            zc__size_text((double)workload->bytes, bytes, sizeof bytes);
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "zc_advise_rank: the predicted time overflows (%g transfers of %s, "
                           "each byte accessed %g times): make the workload smaller",
                           zc_workload_transfer_count(workload), bytes, workload->gpu_accesses);
        }
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_advise_rank: the profile lacks the figures every technique needs");
    }
    zc__explain(workload, &a, a.explanation, sizeof a.explanation);
    *recommendation_p = a;
    return ZC_OK;
}
