/* SPDX-License-Identifier: Apache-2.0 */
/* The pinning findings: pinning over and over (by repetition, not by count), slow pinned
 * allocation, and more pinned at once than RAM can spare. */
#include "trace_findings.h"
#include "core/error.h"
#include "core/checked_math.h"
#include "core/c_locale.h"
#include "core/size_curve.h"
#include "zerocopy/advise.h"
#include "zerocopy/run.h"

#include <stdio.h>
#include <stdlib.h>

/* What the processes did with pinned memory over and over, in time order. */
typedef struct zc__pinning {
    uint64_t churn_calls, churn_bytes, churn_ns; /* pins of a size pinned and freed before */
    uint64_t churn_example_bytes, churn_example_calls;
    uint64_t late_calls, late_ns, late_first, late_last; /* pins while GPU work ran */
} zc__pinning;

/* The first and last GPU activity of process p, for "while the program runs". */
static void zc__gpu_span(const zc_trace_log *log, int p, uint64_t *first_p, uint64_t *last_p)
{
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < log->copy_count; i++) {
        if (log->copies[i].process != p)
            continue;
        first = log->copies[i].start < first ? log->copies[i].start : first;
        last = log->copies[i].end > last ? log->copies[i].end : last;
    }
    for (size_t i = 0; i < log->kernel_count; i++) {
        if (log->kernels[i].process != p)
            continue;
        first = log->kernels[i].start < first ? log->kernels[i].start : first;
        last = log->kernels[i].end > last ? log->kernels[i].end : last;
    }
    *first_p = first;
    *last_p = last;
}

static int zc__holds(const uint64_t *set, size_t count, uint64_t value)
{
    for (size_t j = 0; j < count; j++) {
        if (set[j] == value)
            return 1;
    }
    return 0;
}

/* The sizes of steps[begin, end) that were pinned, freed and pinned again, into churning;
 * their number. */
static size_t zc__churning_sizes(const zc__trace_step *steps, size_t begin, size_t end,
                                 uint64_t *freed, uint64_t *churning)
{
    size_t freed_count = 0, churning_count = 0;
    for (size_t i = begin; i < end; i++) {
        const zc_trace_api *a = steps[i].call;
        if (zc__trace_is_pin(a)) {
            if (zc__holds(freed, freed_count, a->bytes) &&
                !zc__holds(churning, churning_count, a->bytes))
                churning[churning_count++] = a->bytes;
        } else if (steps[i].undoes && !zc__holds(freed, freed_count, steps[i].undone)) {
            freed[freed_count++] = steps[i].undone;
        }
    }
    return churning_count;
}

/*
 * One process's calls steps[begin, end), added to pin: the two signs of pinning in a loop.
 * Churn: a size that was pinned, freed, and pinned again (every pin of such a size counts).
 * Late: pins made after the process's GPU work began, spread over at least half of its GPU
 * span. Pinning a set of buffers once at start-up shows neither.
 */
static zc_status zc__one_process(const zc_trace_log *log, const zc__trace_step *steps, size_t begin,
                                 size_t end, zc__pinning *pin)
{
    size_t n = end - begin;
    uint64_t *freed = calloc(n, sizeof *freed), *churning = calloc(n, sizeof *churning);
    if (freed == NULL || churning == NULL) {
        free(freed);
        free(churning);
        return ZC_ERR_NO_MEMORY;
    }
    size_t churning_count = zc__churning_sizes(steps, begin, end, freed, churning);
    uint64_t gpu_first = UINT64_MAX, gpu_last = 0;
    zc__gpu_span(log, steps[begin].call->process, &gpu_first, &gpu_last);
    zc__pinning here = {0};
    for (size_t i = begin; i < end; i++) {
        const zc_trace_api *a = steps[i].call;
        if (!zc__trace_is_pin(a))
            continue;
        if (zc__holds(churning, churning_count, a->bytes)) {
            here.churn_calls++;
            here.churn_bytes = zc__u64_add_sat(here.churn_bytes, a->bytes);
            here.churn_ns += a->end - a->start;
        }
        if (a->start > gpu_first && a->start < gpu_last) {
            if (here.late_calls == 0)
                here.late_first = a->start;
            here.late_last = a->start;
            here.late_calls++;
            here.late_ns += a->end - a->start;
        }
    }
    /* The size pinned most often again, as the example the evidence names. */
    for (size_t j = 0; j < churning_count; j++) {
        uint64_t calls = 0;
        for (size_t i = begin; i < end; i++)
            calls += zc__trace_is_pin(steps[i].call) && steps[i].call->bytes == churning[j];
        if (calls > here.churn_example_calls) {
            here.churn_example_calls = calls;
            here.churn_example_bytes = churning[j];
        }
    }
    int late_spread = gpu_last > gpu_first && here.late_calls > 0 &&
                      (double)(here.late_last - here.late_first) >=
                          ZC_TRACE_PIN_LATE_MIN_SPAN * (double)(gpu_last - gpu_first);
    pin->churn_calls += here.churn_calls;
    pin->churn_bytes = zc__u64_add_sat(pin->churn_bytes, here.churn_bytes);
    pin->churn_ns += here.churn_ns;
    if (here.churn_example_calls > pin->churn_example_calls) {
        pin->churn_example_calls = here.churn_example_calls;
        pin->churn_example_bytes = here.churn_example_bytes;
    }
    if (late_spread) {
        pin->late_calls += here.late_calls;
        pin->late_ns += here.late_ns;
    }
    free(freed);
    free(churning);
    return ZC_OK;
}

zc_status zc__trace_find_pin_loop(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc__trace_calls *calls = &facts->calls;
    zc__pinning pin = {0};
    for (size_t begin = 0; begin < calls->count;) {
        size_t end = begin;
        while (end < calls->count &&
               calls->steps[end].call->process == calls->steps[begin].call->process)
            end++;
        ZC_CHECK(zc__one_process(facts->log, calls->steps, begin, end, &pin));
        begin = end;
    }
    char b[32], t[32], e[32];
    if (pin.churn_calls >= ZC_TRACE_PIN_LOOP_MIN_CALLS &&
        pin.churn_ns >= ZC_TRACE_PIN_LOOP_MIN_NS) {
        zc__trace_evidence_set(
            ev, pin.churn_calls, pin.churn_bytes, zc__trace_seconds(pin.churn_ns),
            zc__trace_seconds(pin.churn_ns), NULL,
            "%llu calls pinned host memory of sizes that were pinned, freed and pinned again "
            "(%s pinned %llu times), %s in all, taking %s; pinning maps and locks every page "
            "and is far slower than malloc",
            (unsigned long long)pin.churn_calls,
            zc_size_format(pin.churn_example_bytes, e, sizeof e),
            (unsigned long long)pin.churn_example_calls,
            zc_size_format(pin.churn_bytes, b, sizeof b),
            zc_trace_format_time(zc__trace_seconds(pin.churn_ns), t, sizeof t));
    } else if (pin.late_calls >= ZC_TRACE_PIN_LATE_MIN_CALLS &&
               pin.late_ns >= ZC_TRACE_PIN_LOOP_MIN_NS) {
        zc__trace_evidence_set(
            ev, pin.late_calls, 0, zc__trace_seconds(pin.late_ns), zc__trace_seconds(pin.late_ns),
            NULL,
            "%llu calls pinned host memory while the GPU work ran, spread over most of it, "
            "taking %s; pinning maps and locks every page and is far slower than malloc",
            (unsigned long long)pin.late_calls,
            zc_trace_format_time(zc__trace_seconds(pin.late_ns), t, sizeof t));
    }
    return ZC_OK;
}

/* cudaHostAllocWriteCombined, the same bit as the driver's CU_MEMHOSTALLOC_WRITECOMBINED: the
 * fastpin cure leaves such allocations to the driver (docs/run.md, "The fastpin cure"). */
#define ZC__HOSTALLOC_WRITE_COMBINED 0x4u

/* What the fastpin cure would make of the program's pinned allocations, priced with zerocopy's
 * curve as zc bench's pinning family measured it. */
typedef struct zc__fastpin_price {
    uint64_t calls, bytes, ns; /* the allocations it serves: their count, bytes and time now */
    double predicted_s;        /* zerocopy's path predicted for the same sizes */
    double saving_s;           /* summed per call, none negative */
    int extrapolated;          /* 1: some size lies outside the sizes measured */
} zc__fastpin_price;

static void zc__fastpin_price_of(const zc__trace_calls *calls, const zc_pinning_curve *zc,
                                 zc__fastpin_price *p)
{
    for (size_t i = 0; i < calls->count; i++) {
        const zc_trace_api *a = calls->steps[i].call;
        if (!zc__trace_is_pin(a) || a->call != ZC_TRACE_CALL_HOSTALLOC ||
            a->bytes < ZC_RUN_FASTPIN_BYTES_DEFAULT || (a->flags & ZC__HOSTALLOC_WRITE_COMBINED))
            continue;
        int outside = 0;
        double now = zc__trace_seconds(a->end - a->start);
        double cured =
            zc__size_curve_seconds(zc->bytes, zc->seconds, zc->count, (size_t)a->bytes, &outside);
        p->calls++;
        p->bytes = zc__u64_add_sat(p->bytes, a->bytes);
        p->ns += a->end - a->start;
        p->predicted_s += cured;
        p->saving_s += now > cured ? now - cured : 0.0;
        p->extrapolated |= outside;
    }
}

/* The price of the cure in words, into out; the saving, or -1 with no curve to price it. */
static double zc__fastpin_words(const zc__trace_facts *facts, char *out, size_t size)
{
    const zc_pinning_curves *curves = facts->params->pinning_curves;
    out[0] = '\0';
    if (curves == NULL || curves->way[ZC_PINNING_ZEROCOPY].count == 0)
        return -1.0;
    zc__fastpin_price p = {0};
    zc__fastpin_price_of(&facts->calls, &curves->way[ZC_PINNING_ZEROCOPY], &p);
    char min[32], b[32], t[32], m[32], s[32];
    zc_size_format(ZC_RUN_FASTPIN_BYTES_DEFAULT, min, sizeof min);
    if (p.calls == 0) {
        zc__snprintf_c(out, size,
                       "; none of them is of %s or more (not write-combined), the allocations "
                       "zc run --fix fastpin serves from zerocopy's path, so it saves nothing here",
                       min);
        return 0.0;
    }
    zc__snprintf_c(out, size,
                   "; zerocopy's path, as zc bench's pinning family measured it%s, predicts %s "
                   "for the %llu allocation%s of %s or more that zc run --fix fastpin serves (%s, "
                   "%s now), so up to %s saved",
                   p.extrapolated ? " (extrapolated beyond its measured sizes)" : "",
                   zc_trace_format_time(p.predicted_s, m, sizeof m), (unsigned long long)p.calls,
                   p.calls == 1 ? "" : "s", min, zc_size_format(p.bytes, b, sizeof b),
                   zc_trace_format_time(zc__trace_seconds(p.ns), t, sizeof t),
                   zc_trace_format_time(p.saving_s, s, sizeof s));
    return p.saving_s;
}

zc_status zc__trace_find_slow_pin(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc_trace_report *r = facts->report;
    if (r->alloc_ns < ZC_TRACE_SLOW_ALLOC_NS)
        return ZC_OK;
    char b[32], t[32], price[384];
    double saving = zc__fastpin_words(facts, price, sizeof price);
    zc__trace_evidence_set(
        ev, r->alloc_calls, r->alloc_bytes, zc__trace_seconds(r->alloc_ns), saving, NULL,
        "%llu cudaHostAlloc/cudaMallocHost calls took %s for %s (%.0f ms per GiB)%s",
        (unsigned long long)r->alloc_calls,
        zc_trace_format_time(zc__trace_seconds(r->alloc_ns), t, sizeof t),
        zc_size_format(r->alloc_bytes, b, sizeof b),
        r->alloc_bytes ? zc__trace_seconds(r->alloc_ns) * 1e3 /
                             ((double)r->alloc_bytes / (1024.0 * 1024.0 * 1024.0))
                       : 0.0,
        price);
    return ZC_OK;
}

zc_status zc__trace_find_over_pinning(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc_trace_report *r = facts->report;
    uint64_t ram = r->ram_bytes; /* --ram's figure, else the log's (zc__trace_facts_build) */
    if (ram == 0 || (double)r->peak_pinned_bytes <= ZC_TRACE_OVERPIN_SHARE * (double)ram)
        return ZC_OK;
    char b[32], s[32];
    zc__trace_evidence_set(
        ev, r->pin_calls, r->peak_pinned_bytes, zc__trace_seconds(r->pin_ns), -1.0, NULL,
        "up to %s was pinned at once, %.0f%% of the %s of RAM; pinned pages "
        "cannot be swapped or moved, so the rest of the system runs short",
        zc_size_format(r->peak_pinned_bytes, b, sizeof b),
        100.0 * (double)r->peak_pinned_bytes / (double)ram, zc_size_format(ram, s, sizeof s));
    return ZC_OK;
}
