/* SPDX-License-Identifier: Apache-2.0 */
/* The frame time budget from stamps: per-block clock fits, the host-GPU offset, each step. */
#include "ring/budget_math.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"

/* A block's %globaltimer as a line in its clock64 over one window of frames: timer = base_timer
 * + intercept + rate (clock - base_clock). Integer bases keep the doubles small. */
typedef struct zc__clock_fit {
    uint64_t base_clock, base_timer;
    double rate, intercept; /* ns per cycle; ns */
    int fitted;             /* 0: too few distinct stamps, the raw timer is used */
} zc__clock_fit;

typedef struct zc__fit_totals {
    double squares; /* of the residuals, ns^2 */
    uint64_t points;
} zc__fit_totals;

static const uint64_t *zc__stamp(const zc__budget_input *in, uint64_t frame, uint32_t block,
                                 uint32_t step)
{
    return in->dev + zc_ring_stamp_index(frame, in->blocks, block, step);
}

/* Least squares over block b's stamps in frames [f0, f1), in two passes about the means (the
 * sums of raw squares would cancel). */
static void zc__fit_window(const zc__budget_input *in, uint32_t b, uint64_t f0, uint64_t f1,
                           zc__clock_fit *fit, zc__fit_totals *totals)
{
    fit->fitted = 0;
    fit->base_clock = fit->base_timer = 0;
    uint64_t n = 0;
    double sx = 0, sy = 0;
    for (uint64_t f = f0; f < f1; f++)
        for (uint32_t s = 0; s < ZC_RING_STAMPS; s++) {
            const uint64_t *p = zc__stamp(in, f, b, s);
            if (p[1] == 0)
                continue;
            if (n == 0) {
                fit->base_clock = p[0];
                fit->base_timer = p[1];
            }
            sx += (double)(int64_t)(p[0] - fit->base_clock);
            sy += (double)(int64_t)(p[1] - fit->base_timer);
            n++;
        }
    if (n < 2)
        return;
    const double mx = sx / (double)n, my = sy / (double)n;
    double sxx = 0, sxy = 0;
    for (uint64_t f = f0; f < f1; f++)
        for (uint32_t s = 0; s < ZC_RING_STAMPS; s++) {
            const uint64_t *p = zc__stamp(in, f, b, s);
            if (p[1] == 0)
                continue;
            double x = (double)(int64_t)(p[0] - fit->base_clock) - mx;
            double y = (double)(int64_t)(p[1] - fit->base_timer) - my;
            sxx += x * x;
            sxy += x * y;
        }
    if (!(sxx > 0) || !(sxy > 0))
        return; /* one clock value, or a clock that ran backwards: no line to fit */
    fit->rate = sxy / sxx;
    fit->intercept = my - fit->rate * mx;
    fit->fitted = 1;
    for (uint64_t f = f0; f < f1; f++)
        for (uint32_t s = 0; s < ZC_RING_STAMPS; s++) {
            const uint64_t *p = zc__stamp(in, f, b, s);
            if (p[1] == 0)
                continue;
            double x = (double)(int64_t)(p[0] - fit->base_clock);
            double r = (double)(int64_t)(p[1] - fit->base_timer) - (fit->intercept + fit->rate * x);
            totals->squares += r * r;
            totals->points++;
        }
}

/* The fitted %globaltimer of one stamp, plus half a tick: the timer holds its last update, so
 * it reads low by half a tick on average, and the offset's bounds assume as much. */
static int64_t zc__fitted_timer(const zc__clock_fit *fit, const uint64_t *p, double tick_ns)
{
    double at = tick_ns / 2.0;
    if (fit->fitted)
        at += fit->intercept + fit->rate * (double)(int64_t)(p[0] - fit->base_clock);
    return (int64_t)(fit->fitted ? fit->base_timer : p[1]) + (int64_t)llround(at);
}

/* The host time of a GPU timer value: the offset interpolated between the two measurements. */
typedef struct zc__offset_line {
    int64_t offset0, host0;
    double slope; /* change of the offset per host ns */
} zc__offset_line;

static int64_t zc__host_time(const zc__offset_line *line, int64_t timer)
{
    int64_t host = timer - line->offset0;
    return host - (int64_t)llround(line->slope * (double)(host - line->host0));
}

static zc__offset_line zc__offset_line_of(const zc__budget_input *in)
{
    zc__offset_line line = {in->before.offset_ns, (int64_t)in->before.host_ns, 0.0};
    if (in->after.round_trips > 0 && in->after.host_ns > in->before.host_ns)
        line.slope = (double)(in->after.offset_ns - in->before.offset_ns) /
                     (double)(in->after.host_ns - in->before.host_ns);
    return line;
}

/* The GPU's four moments of frame f in host time: the first block to see it, the last to finish
 * each later step. 0 when a block missed a stamp. */
static int zc__gpu_moments(const zc__budget_input *in, const zc__clock_fit *fits, uint64_t windows,
                           uint64_t f, const zc__offset_line *line, int64_t moment[ZC_RING_STAMPS])
{
    const uint64_t w = f / ZC__BUDGET_FIT_WINDOW;
    for (uint32_t s = 0; s < ZC_RING_STAMPS; s++)
        moment[s] = s == ZC_RING_STAMP_SEEN ? INT64_MAX : INT64_MIN;
    for (uint32_t b = 0; b < in->blocks; b++)
        for (uint32_t s = 0; s < ZC_RING_STAMPS; s++) {
            const uint64_t *p = zc__stamp(in, f, b, s);
            if (p[1] == 0)
                return 0;
            int64_t t = zc__fitted_timer(&fits[(size_t)b * windows + w], p, in->before.tick_ns);
            if (s == ZC_RING_STAMP_SEEN ? t < moment[s] : t > moment[s])
                moment[s] = t;
        }
    for (uint32_t s = 0; s < ZC_RING_STAMPS; s++)
        moment[s] = zc__host_time(line, moment[s]);
    return 1;
}

/* One frame's steps (us) from its host marks and GPU moments; the total is the host's own. */
static void zc__frame_steps(const uint64_t *h, const int64_t g[ZC_RING_STAMPS], double *step,
                            double *total)
{
    const int64_t at[ZC_RING_STEP_COUNT + 1] = {(int64_t)h[ZC__BUDGET_HOST_WRITE],
                                                (int64_t)h[ZC__BUDGET_HOST_PUBLISH],
                                                g[ZC_RING_STAMP_SEEN],
                                                g[ZC_RING_STAMP_READ],
                                                g[ZC_RING_STAMP_COMPUTED],
                                                g[ZC_RING_STAMP_WRITTEN],
                                                (int64_t)h[ZC__BUDGET_HOST_SEEN],
                                                (int64_t)h[ZC__BUDGET_HOST_READ]};
    for (int k = 0; k < ZC_RING_STEP_COUNT; k++)
        step[k] = (double)(at[k + 1] - at[k]) / 1e3;
    *total = (double)(int64_t)(h[ZC__BUDGET_HOST_READ] - h[ZC__BUDGET_HOST_WRITE]) / 1e3;
}

static int zc__host_marks_complete(const uint64_t *h)
{
    for (uint32_t k = 0; k < ZC__BUDGET_HOST_MARKS; k++)
        if (h[k] == 0)
            return 0;
    return 1;
}

zc_status zc__budget_compute(const zc__budget_input *in, zc_ring_budget *budget_p)
{
    if (in == NULL || budget_p == NULL || in->host == NULL || in->dev == NULL || in->frames == 0 ||
        in->blocks == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__budget_compute: no frames or no stamps");
    const uint64_t windows = (in->frames + ZC__BUDGET_FIT_WINDOW - 1) / ZC__BUDGET_FIT_WINDOW;
    zc__clock_fit *fits = calloc((size_t)windows * in->blocks, sizeof *fits);
    double *samples = malloc((size_t)in->frames * (ZC_RING_STEP_COUNT + 1) * sizeof *samples);
    zc_status st = ZC_OK;
    if (fits == NULL || samples == NULL) {
        st = ZC_FAIL(ZC_ERR_NO_MEMORY, "zc__budget_compute: no memory for %llu frames",
                     (unsigned long long)in->frames);
        goto done;
    }
    zc__fit_totals totals = {0, 0};
    for (uint32_t b = 0; b < in->blocks; b++)
        for (uint64_t w = 0; w < windows; w++) {
            uint64_t f0 = w * ZC__BUDGET_FIT_WINDOW, f1 = f0 + ZC__BUDGET_FIT_WINDOW;
            zc__fit_window(in, b, f0, f1 < in->frames ? f1 : in->frames,
                           &fits[(size_t)b * windows + w], &totals);
        }
    const zc__offset_line line = zc__offset_line_of(in);
    /* samples: one column per step and one for the total, frames counted in n. */
    double *column[ZC_RING_STEP_COUNT + 1];
    for (int k = 0; k <= ZC_RING_STEP_COUNT; k++)
        column[k] = samples + (size_t)k * in->frames;
    size_t n = 0;
    for (uint64_t f = 0; f < in->frames; f++) {
        const uint64_t *h = in->host + f * ZC__BUDGET_HOST_MARKS;
        int64_t g[ZC_RING_STAMPS];
        if (!zc__host_marks_complete(h) || !zc__gpu_moments(in, fits, windows, f, &line, g))
            continue;
        double step[ZC_RING_STEP_COUNT], total;
        zc__frame_steps(h, g, step, &total);
        for (int k = 0; k < ZC_RING_STEP_COUNT; k++)
            column[k][n] = step[k];
        column[ZC_RING_STEP_COUNT][n] = total;
        n++;
    }
    if (n == 0) {
        st = ZC_FAIL(ZC_ERR_NOT_FOUND,
                     "zc_ring_budget_get: none of %llu frames has every stamp (a kernel that "
                     "does not call zc_ring_dev_stamp, or results not yet taken)",
                     (unsigned long long)in->frames);
        goto done;
    }
    for (int k = 0; k < ZC_RING_STEP_COUNT && st == ZC_OK; k++)
        st = zc_stats_compute(column[k], n, &budget_p->step_us[k]);
    if (st == ZC_OK)
        st = zc_stats_compute(column[ZC_RING_STEP_COUNT], n, &budget_p->total_us);
    if (st != ZC_OK)
        goto done;
    budget_p->frames = n;
    budget_p->drift_ppm = line.slope * 1e6;
    budget_p->gpu_clock_mhz = fits[0].fitted ? 1e3 / fits[0].rate : 0.0;
    budget_p->fit_residual_ns =
        totals.points > 0 ? sqrt(totals.squares / (double)totals.points) : 0.0;
done:
    free(fits);
    free(samples);
    return st;
}
