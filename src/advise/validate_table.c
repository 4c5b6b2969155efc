/* SPDX-License-Identifier: Apache-2.0 */
/* The validation's comparison table in Markdown: verdicts first, then every technique. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdio.h>

#include "advise/model_internal.h"
#include "core/error.h"
#include "zerocopy/version.h"
#include "core/c_locale.h"

/* What the advice picked, against the measured winner and the noise. */
static const char *zc__verdict(const zc_validation_result *r)
{
    if (r->winner < 0)
        return "nothing measured";
    if (r->pick_wins)
        return "winner";
    if (r->pick_tied)
        return (int)r->rec.ranked[0].technique == r->runner_up ? "runner-up, tied"
                                                               : "tied with the winner";
    if ((int)r->rec.ranked[0].technique == r->runner_up)
        return "**runner-up**";
    return "**no**";
}

static const char *zc__key(int t)
{
    return t >= 0 ? zc_technique_key((zc_technique)t) : "-";
}

static void zc__summary(FILE *f, const zc_validation_summary *s)
{
    fprintf(f,
            "Recommended technique measured fastest or tied with the fastest (within the "
            "measured noise): **%zu of %zu** (fastest outright: %zu). Recommended technique's "
            "prediction within 20%% of its median: **%zu of %zu**. |error| over all %zu "
            "techniques measured: median **%.1f%%**, largest **%.1f%%**.\n\n",
            s->pick_wins_or_tied, s->workloads, s->pick_wins, s->pick_within_20pct, s->workloads,
            s->techniques_measured, 100.0 * s->median_abs_error, 100.0 * s->max_abs_error);
}

static void zc__verdicts(FILE *f, const zc_validation_result *results, size_t count)
{
    fprintf(f, "| workload | size | dir | k | pattern | transfers | advice | winner | runner-up "
               "| margin | noise | advice is | predicted | measured | error |\n");
    fprintf(f, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
               "--- | --- |\n");
    for (size_t i = 0; i < count; i++) {
        const zc_validation_result *r = &results[i];
        const zc_workload *w = &r->workload.workload;
        int pick = (int)r->rec.ranked[0].technique;
        const zc_validation_technique *v = &r->tech[pick];
        char size[32];
        zc__size_text((double)w->bytes, size, sizeof size);
        fprintf(f, "| %s | %s | %s | %g | %s | %g | %s | %s | %s | ", r->workload.name, size,
                zc_direction_key(w->direction), w->gpu_accesses, zc_access_key(w->pattern),
                zc_workload_transfer_count(w), zc__key(pick), zc__key(r->winner),
                zc__key(r->runner_up));
        if (r->runner_up >= 0)
            fprintf(f, "%.1f%% | %.1f%% | ", 100.0 * r->margin, 100.0 * r->noise);
        else
            fprintf(f, "- | - | ");
        fprintf(f, "%s | %.4g ms | ", zc__verdict(r), v->predicted.total_us / 1e3);
        if (v->ran == 1 && v->rounds > 0)
            fprintf(f, "%.4g ms | %+.1f%% |\n", v->median_us / 1e3, 100.0 * v->error);
        else
            fprintf(f, "- | - |\n");
    }
}

static void zc__techniques(FILE *f, const zc_validation_result *results, size_t count)
{
    fprintf(f, "\n### Every technique: predicted / measured median (error, noise)\n\n| workload |");
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        fprintf(f, " %s |", zc_technique_key((zc_technique)t));
    fprintf(f, "\n| --- |");
    for (int t = 0; t < ZC_TECH_COUNT; t++)
        fprintf(f, " --- |");
    fprintf(f, "\n");
    for (size_t i = 0; i < count; i++) {
        const zc_validation_result *r = &results[i];
        fprintf(f, "| %s |", r->workload.name);
        for (int t = 0; t < ZC_TECH_COUNT; t++) {
            const zc_validation_technique *v = &r->tech[t];
            if (v->ran == 1 && v->rounds > 0)
                fprintf(f, " %.3g / %.3g ms (%+.0f%%, ±%.1f%%) |", v->predicted.total_us / 1e3,
                        v->median_us / 1e3, 100.0 * v->error, 100.0 * v->noise);
            else if (v->ran == 0)
                fprintf(f, " not in profile |");
            else
                fprintf(f, " failed: %s |", v->why);
        }
        fprintf(f, "\n");
    }
}

ZC_EXTERN zc_status zc_validation_markdown(const zc_profile *profile, const char *title,
                                           const zc_validation_result *results, size_t count,
                                           const zc_validation_summary *summary, FILE *out)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(summary);
    ZC_REQUIRE_ARG(out);
    if (results == NULL && count > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_validation_markdown: %zu results at NULL", count);
    /* Every figure of the table with a decimal point, whatever the caller's locale. */
    locale_t before = zc__c_locale_begin();
    fprintf(out, "## %s\n\n", title != NULL ? title : "zc advise validation");
    fprintf(out, "Profile: %s, from %s. zerocopy %s.\n\n",
            profile->device_name[0] ? profile->device_name : "unnamed GPU", profile->source,
            zc_version_string());
    fprintf(out,
            "Each workload ran for real with every technique the profile prices (the CPU fills "
            "the input, the data moves, a kernel reads each byte k times, the result comes back; "
            "verified) in %zu interleaved rounds (A B C .., then B C .. A, ...); a technique's "
            "figure is the median of its rounds' totals (setup + the timed transfers scaled to "
            "the workload's count). Noise: two standard errors of the difference between the "
            "winner's and the runner-up's medians (from the rounds' median absolute deviation), "
            "at least 1%%; a technique within it of the winner is tied with it. Error = "
            "(predicted - measured) / measured. The CPU's fill, which the predictions price "
            "by size, was measured at 64 MiB first (%.1f GB/s) and at each workload's own size "
            "just before its rounds. Managed memory is priced "
            "along managed.transfer's curves when the profile has them; otherwise the CPU's "
            "writes into managed pages the GPU holds went at %.2f GB/s.\n\n",
            summary->rounds, summary->host_write_gbps, summary->managed_cpu_touch_gbps);
    zc__summary(out, summary);
    zc__verdicts(out, results, count);
    zc__techniques(out, results, count);
    fprintf(out, "\n");
    zc__c_locale_end(before);
    if (ferror(out))
        return ZC_FAIL(ZC_ERR_IO, "zc_validation_markdown: writing the table failed");
    return ZC_OK;
}
