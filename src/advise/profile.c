/* SPDX-License-Identifier: Apache-2.0 */
/* The machine profile: measured copy curves, interpolation, and completing a partial profile. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "advise/model_internal.h"
#include "core/error.h"
#include "core/c_locale.h"

ZC_EXTERN zc_status zc_profile_init(zc_profile *profile_p)
{
    ZC_REQUIRE_ARG(profile_p);
    memset(profile_p, 0, sizeof *profile_p);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_curve_add(zc_curve *curve, size_t bytes, double gbps)
{
    ZC_REQUIRE_ARG(curve);
    if (bytes == 0 || !(gbps > 0.0) || !isfinite(gbps))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_curve_add: need bytes > 0 and GB/s > 0, got %zu, %g",
                       bytes, gbps);
    size_t at = 0;
    while (at < curve->count && curve->bytes[at] < bytes)
        at++;
    if (at < curve->count && curve->bytes[at] == bytes) {
        curve->gbps[at] = gbps;
        return ZC_OK;
    }
    if (curve->count >= ZC_CURVE_MAX_POINTS)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_curve_add: curve already holds %d points",
                       ZC_CURVE_MAX_POINTS);
    memmove(&curve->bytes[at + 1], &curve->bytes[at], (curve->count - at) * sizeof curve->bytes[0]);
    memmove(&curve->gbps[at + 1], &curve->gbps[at], (curve->count - at) * sizeof curve->gbps[0]);
    curve->bytes[at] = bytes;
    curve->gbps[at] = gbps;
    curve->count++;
    return ZC_OK;
}

/* Microseconds to move bytes at gbps (1e9 bytes per second). */
double zc__us_at(double bytes, double gbps)
{
    return gbps > 0.0 ? bytes / (gbps * 1e3) : INFINITY;
}

ZC_EXTERN zc_status zc_curve_time_us(const zc_curve *curve, size_t bytes, double *us_p)
{
    ZC_REQUIRE_ARG(curve);
    ZC_REQUIRE_ARG(us_p);
    if (curve->count == 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_curve_time_us: the curve has no points");
    size_t n = curve->count;
    double b = (double)bytes;
    double t;
    if (bytes <= curve->bytes[0]) {
        /* Below the smallest size measured the fixed cost dominates; never extrapolate down. */
        t = zc__us_at((double)curve->bytes[0], curve->gbps[0]);
    } else if (bytes >= curve->bytes[n - 1]) {
        double last = zc__us_at((double)curve->bytes[n - 1], curve->gbps[n - 1]);
        t = last + zc__us_at(b - (double)curve->bytes[n - 1], curve->gbps[n - 1]);
    } else {
        size_t i = 1;
        while (curve->bytes[i] < bytes)
            i++;
        double b0 = (double)curve->bytes[i - 1], b1 = (double)curve->bytes[i];
        double t0 = zc__us_at(b0, curve->gbps[i - 1]), t1 = zc__us_at(b1, curve->gbps[i]);
        t = t0 + (t1 - t0) * (b - b0) / (b1 - b0);
    }
    *us_p = t;
    return ZC_OK;
}

double zc__curve_peak_gbps(const zc_curve *curve)
{
    double peak = 0.0;
    for (size_t i = 0; i < curve->count; i++)
        peak = fmax(peak, curve->gbps[i]);
    return peak;
}

double zc__curve_increment_us(const zc_curve *curve, size_t bytes)
{
    /* The size-dependent part of a copy: what the copy costs beyond the smallest one measured,
     * plus the smallest one's bytes at the curve's best rate. It leaves out the fixed cost that
     * a synchronous copy pays, which a queued copy does not (copy_latency_us prices that). */
    double peak = zc__curve_peak_gbps(curve);
    if (curve->count == 0 || !(peak > 0.0))
        return INFINITY;
    if (bytes <= curve->bytes[0])
        return zc__us_at((double)bytes, peak);
    double t = 0.0, t_small = 0.0;
    (void)zc_curve_time_us(curve, bytes, &t);
    (void)zc_curve_time_us(curve, curve->bytes[0], &t_small);
    return fmax(0.0, t - t_small) + zc__us_at((double)curve->bytes[0], peak);
}

/* Append one formatted line to notes, silently truncating. */
static void zc__note(char *notes, size_t size, const char *fmt, ...) ZC__PRINTF(3, 4);
static void zc__note(char *notes, size_t size, const char *fmt, ...)
{
    if (notes == NULL || size == 0)
        return;
    size_t used = strlen(notes);
    if (used + 1 >= size)
        return;
    va_list args;
    va_start(args, fmt);
    zc__vsnprintf_c(notes + used, size - used, fmt, args);
    va_end(args);
    used = strlen(notes);
    if (used + 1 < size) {
        notes[used] = '\n';
        notes[used + 1] = '\0';
    }
}

/* Fill a figure with fallback when it is unknown, marking it assumed and noting it. */
static void zc__default(zc_profile *p, zc_profile_field field, double fallback, char *notes,
                        size_t size)
{
    double *value = zc_profile_field_value(p, field);
    if (*value > 0.0 || !(fallback > 0.0) || !isfinite(fallback))
        return;
    *value = fallback;
    p->origin[field] = ZC_ORIGIN_ASSUMED;
    zc__note(notes, size, "assumed %s = %.3g (not measured)", zc_profile_field_key(field),
             fallback);
}

/* Whether kind k is one copies start from (its row has ZC_KIND_COPY_SOURCE). */
static int zc__copy_kind(int k)
{
    return (zc_buffer_kind_props((zc_buffer_kind)k) & ZC_KIND_COPY_SOURCE) != 0;
}

/* Page-locked memory other than pinned itself: the copy engines see pinned memory. */
static int zc__pinned_alike(int k)
{
    return k != ZC_BUFFER_PINNED &&
           (zc_buffer_kind_props((zc_buffer_kind)k) & ZC_KIND_PAGE_LOCKED) != 0;
}

/* The copy latency figure of a copy kind, from zerocopy/buffer.h's list as the fields are. */
static zc_profile_field zc__copy_latency_field(zc_buffer_kind kind)
{
#define ZC__LATENCY_CASE(A, NAME, name, key, copy, ...)                                            \
    ZC_BUFFER_KIND_IF_##copy(case ZC_BUFFER_##NAME : return ZC_PF_COPY_LATENCY_##NAME;)
    switch (kind) {
        ZC_BUFFER_KIND_MAP(ZC__LATENCY_CASE, _)
    default:
        break;
    }
#undef ZC__LATENCY_CASE
    return ZC_PF_COUNT;
}

/* What the model prices another way when a profile (an older one, or from fewer bench cases)
 * lacks a curve, said so that a figure is never quietly a stand-in. */
static void zc__note_missing_curves(const zc_profile *p, char *notes, size_t notes_size)
{
    static const char *const walks[2] = {"strided", "random"};
    for (int w = 0; w < 2; w++)
        if (p->device_curve[0].count > 0 &&
            (p->device_walk[w][0].count == 0 || p->device_walk[w][1].count == 0))
            zc__note(notes, notes_size,
                     "%s kernels on device memory priced as coalesced ones (no device.*.%s in the "
                     "profile)",
                     walks[w], walks[w]);
    for (int w = 0; w < 2; w++)
        if (p->mapped_read_gbps[ZC_ACCESS_STRIDED] > 0.0 &&
            (p->mapped_walk[w][0].count == 0 || p->mapped_walk[w][1].count == 0))
            zc__note(notes, notes_size,
                     "%s kernels on mapped memory priced at one word per 128-byte line (no "
                     "zerocopy.*.walk-%s in the profile)",
                     walks[w], walks[w]);
        else if (p->mapped_walk[w][0].count > 0 && p->mapped_walk_reread[w].count == 0)
            zc__note(notes, notes_size,
                     "every pass of a %s kernel over mapped memory priced as its first (no "
                     "zerocopy.read.walk-%s read twice in the profile)",
                     walks[w], walks[w]);
    if (p->alloc[ZC_BUFFER_PINNED].count > 0 && p->alloc_pinned_beside.count == 0)
        zc__note(notes, notes_size,
                 "every pinned buffer priced as a program's first (no cudaHostAlloc beside "
                 "another in the profile)");
    for (int d = 0; d < 2; d++)
        if (p->copy[ZC_BUFFER_PAGEABLE][d].count > 0 &&
            (p->copy_alone[0][d].count == 0 || p->copy_alone[1][d].count == 0))
            zc__note(notes, notes_size,
                     "pageable copies %s priced at the round trip's share and the back-to-back "
                     "curve (no latency.copy.pageable.%s and latency.copy.pinned.%s in the "
                     "profile)",
                     d == ZC_DIR_H2D ? "to the GPU" : "back", zc_direction_key((zc_direction)d),
                     zc_direction_key((zc_direction)d));
    if (p->managed_transfer[ZC_DIR_H2D].count > 0 && p->managed_transfer[ZC_DIR_D2H].count > 0 &&
        p->managed_transfer_both.count == 0)
        zc__note(notes, notes_size,
                 "managed transfers both ways priced as the two directions less a launch (no "
                 "managed.transfer both in the profile)");
}

/* A figure set without an origin (an older profile, a test) counts as measured. */
static void zc__origins_known(zc_profile *p)
{
    for (int f = 0; f < ZC_PF_COUNT; f++) {
        double *v = zc_profile_field_value(p, (zc_profile_field)f);
        if (*v > 0.0 && p->origin[f] == ZC_ORIGIN_NONE)
            p->origin[f] = ZC_ORIGIN_MEASURED;
    }
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        for (int d = 0; d < 2; d++) {
            if (p->copy[k][d].count > 0 && p->copy_origin[k][d] == ZC_ORIGIN_NONE)
                p->copy_origin[k][d] = ZC_ORIGIN_MEASURED;
        }
    }
    for (int a = ZC_BUFFER_KIND_FIRST; a < ZC_BUFFER_KIND_COUNT; a++) {
        if (p->alloc[a].count > 0 && p->alloc_origin[a] == ZC_ORIGIN_NONE)
            p->alloc_origin[a] = ZC_ORIGIN_MEASURED;
    }
}

ZC_EXTERN zc_status zc_profile_fill_gaps(zc_profile *profile, char *notes, size_t notes_size)
{
    ZC_REQUIRE_ARG(profile);
    if (notes != NULL && notes_size > 0)
        notes[0] = '\0';
    zc_profile *p = profile;
    if (p->copy[ZC_BUFFER_PINNED][ZC_DIR_H2D].count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_profile_fill_gaps: the profile has no pinned host-to-device copy curve");
    if (!(p->launch_sync_us > 0.0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_profile_fill_gaps: the profile has no kernel launch + sync latency");
    zc__origins_known(p);
    /* A missing direction mirrors the other: PCIe is symmetric to within a few percent. */
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        if (!zc__copy_kind(k))
            continue;
        zc_curve *h2d = &p->copy[k][ZC_DIR_H2D], *d2h = &p->copy[k][ZC_DIR_D2H];
        if (h2d->count > 0 && d2h->count == 0) {
            *d2h = *h2d;
            p->copy_origin[k][ZC_DIR_D2H] = ZC_ORIGIN_ASSUMED;
            zc__note(notes, notes_size, "assumed %s D2H copies run as fast as H2D",
                     zc_buffer_kind_key((zc_buffer_kind)k));
        } else if (d2h->count > 0 && h2d->count == 0) {
            *h2d = *d2h;
            p->copy_origin[k][ZC_DIR_H2D] = ZC_ORIGIN_ASSUMED;
            zc__note(notes, notes_size, "assumed %s H2D copies run as fast as D2H",
                     zc_buffer_kind_key((zc_buffer_kind)k));
        }
    }
    /* Registered and write-combined memory (every page-locked copy kind) is pinned memory to
     * the copy engines. */
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        if (zc__copy_kind(k) && zc__pinned_alike(k) && p->copy[k][ZC_DIR_H2D].count == 0) {
            p->copy[k][ZC_DIR_H2D] = p->copy[ZC_BUFFER_PINNED][ZC_DIR_H2D];
            p->copy[k][ZC_DIR_D2H] = p->copy[ZC_BUFFER_PINNED][ZC_DIR_D2H];
            p->copy_origin[k][ZC_DIR_H2D] = ZC_ORIGIN_ASSUMED;
            p->copy_origin[k][ZC_DIR_D2H] = ZC_ORIGIN_ASSUMED;
            zc__note(notes, notes_size, "assumed %s copies run as pinned ones",
                     zc_buffer_kind_key((zc_buffer_kind)k));
        }
    }
    /* A queued copy's fixed cost: the baseline saw about a quarter of a synchronous small
     * copy's time (2 us of 8.3 us) once the synchronisation is paid by the whole chain.
     * Write-combined and registered memory are pinned memory to the copy engine, so they take
     * pinned memory's figure (defaulted first, kinds run in order) rather than a guess. */
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        const zc_curve *c = &p->copy[k][ZC_DIR_H2D];
        if (!zc__copy_kind(k) || c->count == 0)
            continue;
        double small = zc__us_at((double)c->bytes[0], c->gbps[0]);
        int locked = (zc_buffer_kind_props((zc_buffer_kind)k) & ZC_KIND_PAGE_LOCKED) != 0;
        double guess = 0.25 * small * (locked ? 1.0 : 2.0);
        if (zc__pinned_alike(k) && p->copy_latency_us[ZC_BUFFER_PINNED] > 0.0)
            guess = p->copy_latency_us[ZC_BUFFER_PINNED];
        zc__default(p, zc__copy_latency_field((zc_buffer_kind)k), guess, notes, notes_size);
    }
    zc__default(p, ZC_PF_ENQUEUE_US, p->copy_latency_us[ZC_BUFFER_PINNED], notes, notes_size);
    double pinned_peak = zc__curve_peak_gbps(&p->copy[ZC_BUFFER_PINNED][ZC_DIR_H2D]);
    zc__default(p, ZC_PF_BOTH_DIRECTIONS_GBPS, 1.8 * pinned_peak, notes, notes_size);
    /* Mapped access patterns: the strided and random figures fall back to a fraction of the
     * coalesced one (one useful 4-byte word per 32-byte sector or worse). */
    zc__default(p, ZC_PF_MAPPED_WRITE_COALESCED, p->mapped_read_gbps[ZC_ACCESS_COALESCED], notes,
                notes_size);
    for (int w = 0; w < 2; w++) {
        const double *v = w ? p->mapped_write_gbps : p->mapped_read_gbps;
        zc_profile_field base = w ? ZC_PF_MAPPED_WRITE_COALESCED : ZC_PF_MAPPED_READ_COALESCED;
        zc__default(p, (zc_profile_field)(base + ZC_ACCESS_STRIDED), v[ZC_ACCESS_COALESCED] / 8.0,
                    notes, notes_size);
        zc__default(p, (zc_profile_field)(base + ZC_ACCESS_RANDOM), v[ZC_ACCESS_COALESCED] / 16.0,
                    notes, notes_size);
    }
    zc__default(p, ZC_PF_MAPPED_LATENCY_US, p->pingpong_us > 0.0 ? p->pingpong_us / 2.0 : 1.2,
                notes, notes_size);
    zc__default(p, ZC_PF_HOST_WRITE_GBPS, 10.0, notes, notes_size);
    zc__default(p, ZC_PF_OVERLAP_EFFICIENCY, 0.9, notes, notes_size);
    zc__default(p, ZC_PF_MANAGED_PREFETCH_US, p->launch_sync_us, notes, notes_size);
    zc__default(p, ZC_PF_MANAGED_PREFETCHED_GBPS, p->device_gbps, notes, notes_size);
    zc__default(p, ZC_PF_MANAGED_CPU_TOUCH_GBPS, p->managed_first_touch_gbps, notes, notes_size);
    /* Allocation costs: without them pinning would look free. The fallbacks are what an H200
     * host measured (a program's first small cudaHostAlloc 0.87 ms, then 0.6 s per GiB;
     * cudaHostRegister 55 ms per GiB); a profile from zc bench has alloc.cost's measured curves
     * instead, and these are not used. */
    zc__default(p, ZC_PF_ALLOC_PINNED_FIXED_US, 870.0, notes, notes_size);
    zc__default(p, ZC_PF_ALLOC_PINNED_US_PER_MIB, 580.0, notes, notes_size);
    zc__default(p, ZC_PF_REGISTER_FIXED_US, 10.0, notes, notes_size);
    zc__default(p, ZC_PF_REGISTER_US_PER_MIB, 54.0, notes, notes_size);
    zc__default(p, ZC_PF_ALLOC_MANAGED_US_PER_MIB, 2.0, notes, notes_size);
    zc__default(p, ZC_PF_ALLOC_DEVICE_US_PER_MIB, 1.5, notes, notes_size);
    zc__note_missing_curves(p, notes, notes_size);
    return ZC_OK;
}
