/* SPDX-License-Identifier: Apache-2.0 */
/* A traced program's copies sorted into the workloads they form: one direction between host and
 * GPU, one host memory kind, sizes within one power-of-two class; and the parts no technique of
 * the model prices, each with its reason. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "advise/trace_internal.h"
#include "core/error.h"
#include "core/checked_math.h"

/* Directions the model does not price, and why (the trace's names, docs/json.md's PATH). */
static const struct {
    const char *direction;
    const char *why;
} zc__unpriced_directions[] = {
    {"d2d", "device-to-device copies stay on the GPU: no host memory technique changes them"},
    {"p2p", "copies between GPUs: the model prices transfers between host and GPU"},
    {"h2h", "host-to-host copies do not reach the GPU"},
    {"h2a", "copies into CUDA arrays: the profile has no array copy curve"},
    {"a2h", "copies out of CUDA arrays: the profile has no array copy curve"},
    {"a2a", "copies between CUDA arrays stay on the GPU"},
    {"a2d", "copies between CUDA arrays and device memory stay on the GPU"},
    {"d2a", "copies between CUDA arrays and device memory stay on the GPU"},
};

void zc__trace_unpriced_add(zc_trace_advice *a, const char *what, uint64_t count, uint64_t bytes,
                            double time_s, const char *why)
{
    zc_trace_unpriced *u = NULL;
    for (size_t i = 0; i < a->unpriced_count && u == NULL; i++) {
        if (strcmp(a->unpriced[i].what, what) == 0 && strcmp(a->unpriced[i].why, why) == 0)
            u = &a->unpriced[i];
    }
    if (u == NULL && a->unpriced_count < ZC_TRACE_UNPRICED_MAX) {
        u = &a->unpriced[a->unpriced_count++];
        memset(u, 0, sizeof *u);
        snprintf(u->what, sizeof u->what, "%s", what);
        snprintf(u->why, sizeof u->why, "%s", why);
    }
    if (u == NULL) { /* full: the last line holds the rest, so that nothing is dropped */
        u = &a->unpriced[ZC_TRACE_UNPRICED_MAX - 1];
        snprintf(u->what, sizeof u->what, "more parts");
        snprintf(u->why, sizeof u->why,
                 "more unpriced parts than one advice lists (%d): their reasons are left out",
                 ZC_TRACE_UNPRICED_MAX);
    }
    u->count += count;
    u->bytes = zc__u64_add_sat(u->bytes, bytes);
    u->time_s += time_s;
}

uint64_t zc__trace_size_class(uint64_t bytes)
{
    uint64_t c = 1;
    if (bytes == 0)
        return 0;
    while (bytes >= 2) {
        bytes >>= 1;
        c <<= 1;
    }
    return c;
}

/* The figures of one class agree with each other: bytes between count * smallest and count *
 * largest, a non-negative finite time, asynchronous copies among them. */
static zc_status zc__class_check(const zc_traced_copies *c)
{
    if (!isfinite(c->time_s) || c->time_s < 0.0 || c->async_count > c->count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "traced copies %s %s->%s: time %g s and %llu asynchronous of %llu copies "
                       "do not agree",
                       c->direction, c->src_kind, c->dst_kind, c->time_s,
                       (unsigned long long)c->async_count, (unsigned long long)c->count);
    int sized = c->bytes_min > 0 || c->bytes_max > 0;
    double n = (double)c->count, b = (double)c->bytes;
    if (sized && (c->bytes_min > c->bytes_max || b < n * (double)c->bytes_min ||
                  b > n * (double)c->bytes_max))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "traced copies %s %s->%s: %llu bytes in %llu copies of %llu to %llu bytes "
                       "do not agree",
                       c->direction, c->src_kind, c->dst_kind, (unsigned long long)c->bytes,
                       (unsigned long long)c->count, (unsigned long long)c->bytes_min,
                       (unsigned long long)c->bytes_max);
    return ZC_OK;
}

/* Why copies of c cannot be priced, or NULL when they can (then *direction_p and *kind_p). */
static const char *zc__why_unpriced(const zc_traced_copies *c, zc_direction *direction_p,
                                    zc_buffer_kind *kind_p, char *why, size_t size)
{
    for (size_t i = 0; i < sizeof zc__unpriced_directions / sizeof zc__unpriced_directions[0]; i++)
        if (strcmp(c->direction, zc__unpriced_directions[i].direction) == 0)
            return zc__unpriced_directions[i].why;
    int h2d = strcmp(c->direction, "h2d") == 0;
    if (!h2d && strcmp(c->direction, "d2h") != 0)
        return "the trace does not say which way these copies went";
    if (c->bytes == 0)
        return "copies of 0 bytes move nothing";
    const char *host = h2d ? c->src_kind : c->dst_kind;
    const char *device = h2d ? c->dst_kind : c->src_kind;
    if (strcmp(device, "device") != 0 && strcmp(device, "device_static") != 0) {
        snprintf(why, size,
                 "copies %s %s memory on the GPU side: the model prices copies to and from "
                 "device memory",
                 h2d ? "into" : "out of", device);
        return why;
    }
    if (strcmp(host, "managed") == 0 || strcmp(host, "managed_static") == 0)
        return "copies from managed memory: the model prices managed memory by prefetch, not "
               "by copy";
    if (zc_copy_kind_from_key(host, kind_p) != ZC_OK) {
        snprintf(why, size, "host memory of kind '%s': the model has no copy curve for it", host);
        return why;
    }
    *direction_p = h2d ? ZC_DIR_H2D : ZC_DIR_D2H;
    return NULL;
}

/* The group of direction, kind and class, made when new; NULL when the groups are full. */
static zc_trace_group *zc__group_of(zc_trace_advice *a, zc_direction direction, zc_buffer_kind kind,
                                    uint64_t size_class)
{
    for (size_t i = 0; i < a->group_count; i++) {
        zc_trace_group *g = &a->groups[i];
        if (g->workload.direction == direction && g->host_kind == kind &&
            g->size_class == size_class)
            return g;
    }
    if (a->group_count >= ZC_TRACE_GROUP_MAX)
        return NULL;
    zc_trace_group *g = &a->groups[a->group_count++];
    memset(g, 0, sizeof *g);
    g->workload.direction = direction;
    g->host_kind = kind;
    g->size_class = size_class;
    g->reuse = -1; /* the trace records no host address of a copy */
    return g;
}

/* One class of copies into its group, or an unpriced line. */
static zc_status zc__add_class(zc_trace_advice *a, const zc_traced_copies *c)
{
    ZC_CHECK(zc__class_check(c));
    if (c->count == 0)
        return ZC_OK;
    char what[64], buf[192];
    snprintf(what, sizeof what, "%s %s->%s", c->direction, c->src_kind, c->dst_kind);
    zc_direction direction = ZC_DIR_H2D;
    zc_buffer_kind kind = ZC_BUFFER_PAGEABLE;
    const char *why = zc__why_unpriced(c, &direction, &kind, buf, sizeof buf);
    if (why != NULL) {
        zc__trace_unpriced_add(a, what, c->count, c->bytes, c->time_s, why);
        return ZC_OK;
    }
    int sized = c->bytes_min > 0;
    uint64_t lo = sized ? c->bytes_min : c->bytes / c->count;
    uint64_t hi = sized ? c->bytes_max : lo;
    zc_trace_group *g = zc__group_of(a, direction, kind, zc__trace_size_class(lo > 0 ? lo : 1));
    if (g == NULL) {
        snprintf(buf, sizeof buf,
                 "more workloads than one advice prices (%d): these are counted, not priced",
                 ZC_TRACE_GROUP_MAX);
        zc__trace_unpriced_add(a, what, c->count, c->bytes, c->time_s, buf);
        return ZC_OK;
    }
    g->bytes_min = g->count == 0 || lo < g->bytes_min ? lo : g->bytes_min;
    g->bytes_max = hi > g->bytes_max ? hi : g->bytes_max;
    g->count += c->count;
    g->bytes = zc__u64_add_sat(g->bytes, c->bytes);
    g->async_count += c->async_count;
    g->measured_us += c->time_s * 1e6;
    return ZC_OK;
}

/* Managed and mapped memory the program's kernels used in place: the trace counts it but does
 * not say what workloads it formed. */
static void zc__add_in_place(zc_trace_advice *a, const zc_traced_program *p)
{
    if (p->managed_bytes > 0 || p->managed_faults > 0)
        zc__trace_unpriced_add(a, "managed memory migrated on demand", p->managed_faults,
                               p->managed_bytes, 0.0,
                               "the trace counts page faults and bytes migrated, not the sizes "
                               "and counts of the transfers behind them");
    if (p->mapped_reads)
        zc__trace_unpriced_add(a, "kernels reading mapped host memory", 0, p->mapped_bytes, 0.0,
                               "the trace does not measure the bytes kernels read in place "
                               "(zc trace --pcie-counters measures them)");
}

zc_status zc__trace_group_copies(const zc_traced_program *program, zc_trace_advice *advice)
{
    for (size_t i = 0; i < program->copy_count; i++)
        ZC_CHECK(zc__add_class(advice, &program->copies[i]));
    zc__add_in_place(advice, program);
    return ZC_OK;
}
