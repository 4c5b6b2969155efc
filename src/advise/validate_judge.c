/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict of a validation: medians, measured noise, winner, ties, and the summary. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/sorted.h"

/* A difference smaller than this share of the winner is never told apart: the timer and the
 * scheduler move single runs by about that much even when the rounds happen to agree. */
#define ZC__NOISE_FLOOR 0.01

/* The median of v[0 .. n-1] (sorted in place), the middle two averaged for even n. */
static double zc__median(double *v, size_t n)
{
    zc__sort_doubles(v, n);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * A technique's median over its rounds and that median's standard error: from the median
 * absolute deviation (1.4826 MAD estimates the standard deviation without letting one slow
 * round set it), times 1.2533 / sqrt(n), the standard error of a median of n samples.
 */
static void zc__technique_stats(zc_validation_technique *v)
{
    double s[ZC_VALIDATION_ROUNDS_MAX], dev[ZC_VALIDATION_ROUNDS_MAX];
    size_t n = v->rounds;
    memcpy(s, v->total_us, n * sizeof s[0]);
    v->median_us = zc__median(s, n);
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(v->total_us[i] - v->median_us);
    double mad = zc__median(dev, n);
    double se = n > 1 ? 1.2533 * 1.4826 * mad / sqrt((double)n) : 0.0;
    v->noise = v->median_us > 0.0 ? se / v->median_us : 0.0;
    v->error = v->median_us > 0.0 ? (v->predicted.total_us - v->median_us) / v->median_us : NAN;
}

/* The difference (relative to the winner) that a technique's median must beat to count as
 * slower: two standard errors of the difference, or the floor. */
static double zc__threshold(const zc_validation_technique *win, const zc_validation_technique *t)
{
    double a = win->noise * win->median_us, b = t->noise * t->median_us;
    double diff = 2.0 * sqrt(a * a + b * b) / win->median_us;
    return diff > ZC__NOISE_FLOOR ? diff : ZC__NOISE_FLOOR;
}

static void zc__judge_one(zc_validation_result *r)
{
    r->winner = r->runner_up = -1;
    r->margin = r->noise = 0.0;
    r->pick_wins = r->pick_tied = r->runner_up_tied = 0;
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        zc_validation_technique *v = &r->tech[t];
        if (v->ran != 1 || v->rounds == 0)
            continue;
        zc__technique_stats(v);
        if (r->winner < 0 || v->median_us < r->tech[r->winner].median_us) {
            r->runner_up = r->winner;
            r->winner = t;
        } else if (r->runner_up < 0 || v->median_us < r->tech[r->runner_up].median_us) {
            r->runner_up = t;
        }
    }
    if (r->winner < 0)
        return;
    const zc_validation_technique *win = &r->tech[r->winner];
    int pick = (int)r->rec.ranked[0].technique;
    r->pick_wins = pick == r->winner;
    if (r->runner_up >= 0) {
        const zc_validation_technique *next = &r->tech[r->runner_up];
        r->margin = (next->median_us - win->median_us) / win->median_us;
        r->noise = zc__threshold(win, next);
        r->runner_up_tied = r->margin <= r->noise;
    } else {
        r->noise = ZC__NOISE_FLOOR + 2.0 * win->noise;
    }
    const zc_validation_technique *chosen = &r->tech[pick];
    r->pick_tied = r->pick_wins || (chosen->ran == 1 && chosen->rounds > 0 &&
                                    (chosen->median_us - win->median_us) / win->median_us <=
                                        zc__threshold(win, chosen));
}

ZC_EXTERN zc_status zc_validation_judge(zc_validation_result *results, size_t count,
                                        zc_validation_summary *summary_p)
{
    ZC_REQUIRE_ARG(summary_p);
    if (results == NULL && count > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_validation_judge: %zu results at NULL", count);
    zc_validation_summary s;
    memset(&s, 0, sizeof s);
    size_t cap = count * ZC_TECH_COUNT;
    double *errors = cap > 0 ? malloc(cap * sizeof *errors) : NULL;
    if (cap > 0 && errors == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_validation_judge: %zu errors", cap);
    for (size_t i = 0; i < count; i++) {
        zc_validation_result *r = &results[i];
        for (int t = 0; t < ZC_TECH_COUNT; t++) {
            if (r->tech[t].rounds > ZC_VALIDATION_ROUNDS_MAX) {
                free(errors);
                return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_validation_judge: %zu rounds in result %zu",
                               r->tech[t].rounds, i);
            }
        }
        zc__judge_one(r);
        s.workloads++;
        s.pick_wins += (size_t)r->pick_wins;
        s.pick_wins_or_tied += (size_t)r->pick_tied;
        const zc_validation_technique *chosen = &r->tech[r->rec.ranked[0].technique];
        s.pick_within_20pct +=
            chosen->ran == 1 && chosen->rounds > 0 && fabs(chosen->error) <= 0.2 ? 1u : 0u;
        for (int t = 0; t < ZC_TECH_COUNT; t++) {
            if (r->tech[t].ran == 1 && r->tech[t].rounds > 0 && isfinite(r->tech[t].error))
                errors[s.techniques_measured++] = fabs(r->tech[t].error);
        }
    }
    if (s.techniques_measured > 0) {
        s.median_abs_error = zc__median(errors, s.techniques_measured);
        s.max_abs_error = errors[s.techniques_measured - 1];
    }
    free(errors);
    *summary_p = s;
    return ZC_OK;
}
