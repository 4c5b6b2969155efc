/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise's text output. */
#include "advise_print.h"

#include <string.h>

#include "advise_input.h"

/* A time in microseconds in at most 11 characters: one decimal while that fits, else four
 * significant digits, so that a huge workload widens no column. */
static const char *zc__us(double us, char *out, size_t size)
{
    snprintf(out, size, us < 1e8 && us > -1e8 ? "%.1f" : "%.4g", us);
    return out;
}

void zc_cli_advise_print(FILE *out, const zc_profile *profile, const char *notes,
                         const zc_workload *w, const zc_recommendation *rec)
{
    int assumed = 0;
    for (const char *c = notes; c != NULL && *c; c++)
        assumed += *c == '\n';
    char size[32];
    zc_cli_advise_size_text((double)w->bytes, size, sizeof size);
    fprintf(out, "Profile   %s, from %s",
            profile->device_name[0] ? profile->device_name : "unnamed GPU", profile->source);
    if (assumed > 0)
        fprintf(out, " (%d note%s on what was assumed or missing; --json lists them)", assumed,
                assumed == 1 ? "" : "s");
    double n = zc_workload_transfer_count(w);
    fprintf(out, "\nWorkload  %s %s per transfer, %g transfer%s", size,
            zc_direction_key(w->direction), n, n == 1.0 ? "" : "s");
    if (w->rate_hz > 0.0)
        fprintf(out, " at %g per second", w->rate_hz);
    fprintf(out, ", the GPU %s each byte %g time%s (%s)",
            w->direction == ZC_DIR_D2H ? "writes" : "reads", w->gpu_accesses,
            w->gpu_accesses == 1.0 ? "" : "s", zc_access_key(w->pattern));
    if (w->concurrent)
        fprintf(out, ", CPU and GPU at the same time");
    if (w->latency_budget_us > 0.0)
        fprintf(out, ", latency budget %g us", w->latency_budget_us);
    fprintf(out, "\n\n  %-4s %-34s %14s %14s %12s  %s\n", "rank", "technique", "per transfer",
            "total", "setup", "fits");
    for (size_t i = 0; i < rec->count; i++) {
        const zc_prediction *r = &rec->ranked[i];
        if (!r->usable) {
            fprintf(out, "  %-4s %-34s %14s %14s %12s  %s\n", "-", zc_technique_title(r->technique),
                    "", "", "", "not measured in this profile");
            continue;
        }
        const char *fits = !r->meets_budget ? "misses the budget"
                                            : (!r->meets_rate ? "cannot keep the rate" : "yes");
        char per[32], setup[32];
        fprintf(out, "  %-4zu %-34s %11s us %11.4g ms %9s us  %s\n", i + 1,
                zc_technique_title(r->technique), zc__us(r->per_transfer_us, per, sizeof per),
                r->total_us / 1e3, zc__us(r->setup_us, setup, sizeof setup), fits);
    }
    fprintf(out, "\nAdvice    %s\n", rec->explanation);
}

void zc_cli_stream_advice_print(FILE *out, const zc_profile *profile, const zc_stream_workload *w,
                                const zc_stream_advice *a)
{
    char size[32];
    zc_cli_advise_size_text((double)w->frame_bytes, size, sizeof size);
    fprintf(out, "Profile   %s, %zu zc stream runs\n",
            profile->device_name[0] ? profile->device_name : "unnamed GPU", profile->stream_count);
    if (w->rate_hz > 0.0)
        fprintf(out, "Stream    %s frames at %g per second\n\n", size, w->rate_hz);
    else
        fprintf(out, "Stream    %s frames, as fast as possible\n\n", size);
    fprintf(out, "  %-4s %-18s %10s %10s %10s %12s %8s %6s  %s\n", "rank", "mode", "p50 us",
            "p99 us", "GB/s", "frames/s", "blocks", "in fl.", "fits");
    for (size_t i = 0; i < a->count; i++) {
        const zc_stream_option *o = &a->ranked[i];
        char name[48];
        (void)zc_stream_option_name(o->mode, o->protocol, name, sizeof name);
        if (!o->usable) {
            fprintf(out, "  %-4s %-18s %s\n", "-", name, "no zc stream run in the profile");
            continue;
        }
        fprintf(out, "  %-4zu %-18s %10.2f %10.2f %10.2f %12.4g %8u %6u  %s\n", i + 1, name,
                o->p50_us, o->p99_us, o->gbps, o->max_hz, o->gpu_blocks, o->in_flight,
                o->meets_rate ? "yes" : "cannot keep the rate");
    }
    fprintf(out, "\nAdvice    %s\n", a->explanation);
}

void zc_cli_stream_check_print(FILE *out, const zc_stream_check *checks, size_t count)
{
    size_t wins = 0, tied = 0;
    for (size_t i = 0; i < count; i++) {
        wins += (size_t)checks[i].pick_wins;
        tied += (size_t)checks[i].pick_tied;
    }
    fprintf(out, "## Stream advice against zc stream runs it was not made from\n\n");
    fprintf(out,
            "Advised mode measured best or tied with the best (within the noise): **%zu of "
            "%zu** (best outright: %zu).\n\n",
            tied, count, wins);
    fprintf(out, "| frame | rate | judged by | advice | advice measured | best | best measured | "
                 "noise | advice is |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < count; i++) {
        const zc_stream_check *c = &checks[i];
        char size[32], pick[48], best[48];
        zc_cli_advise_size_text((double)c->workload.frame_bytes, size, sizeof size);
        (void)zc_stream_option_name(c->pick.mode, c->pick.protocol, pick, sizeof pick);
        (void)zc_stream_option_name(c->best.mode, c->best.protocol, best, sizeof best);
        int lat = c->workload.rate_hz > 0.0;
        char rate[32];
        if (lat)
            snprintf(rate, sizeof rate, "%g/s", c->workload.rate_hz);
        else
            snprintf(rate, sizeof rate, "max");
        fprintf(out, "| %s | %s | %s | %s | %.4g %s | %s | %.4g %s | %.1f%% | %s |\n", size, rate,
                lat ? "p50 latency" : "GB/s", pick, lat ? c->pick.p50_us : c->pick.gbps,
                lat ? "us" : "GB/s", best, lat ? c->best.p50_us : c->best.gbps, lat ? "us" : "GB/s",
                100.0 * c->noise, c->pick_wins ? "best" : (c->pick_tied ? "tied" : "**no**"));
    }
    fprintf(out, "\n");
}
