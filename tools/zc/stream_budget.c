/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream --budget: the time budget of a zerocopy run, and its table. */
#include "stream_budget.h"

#include <string.h>

uint64_t zc_cli_stream_budget_frames(const zc_cli_stream_opts *o)
{
    if (!o->budget)
        return 0;
    /* All measured frames up to ZC_CLI_STREAM_BUDGET_FRAMES: the stamps take 64 bytes per frame
     * and block on the GPU, and this many give percentiles to p99.9. */
    return o->frames > 0 && o->frames < ZC_CLI_STREAM_BUDGET_FRAMES ? o->frames
                                                                    : ZC_CLI_STREAM_BUDGET_FRAMES;
}

void zc_cli_stream_budget_take(zc_stream *s, zc_cli_stream_result *r)
{
    r->budget_status = zc_stream_budget_get(s, &r->budget);
    if (r->budget_status != ZC_OK)
        snprintf(r->budget_error, sizeof r->budget_error, "%s", zc_last_error());
}

void zc_cli_stream_budget_print(FILE *f, const zc_cli_stream_result *r)
{
    if (!zc_stream_mode_on_ring(r->mode) || r->stats.frames_measured == 0)
        return;
    if (r->budget_status != ZC_OK) {
        fprintf(f, "\ntime budget of %s: none (%s)\n", r->name, r->budget_error);
        return;
    }
    const zc_ring_budget *b = &r->budget;
    const zc_ring_clock_sync *alone = &b->before, *beside = &b->after;
    fprintf(f, "\ntime budget of %s: %llu frames from frame %llu (method: docs/stream.md)\n",
            r->name, (unsigned long long)b->frames, (unsigned long long)b->first_seq);
    fprintf(f, "%-12s %8s %8s %8s %8s\n", "step", "p50 us", "p99 us", "p99.9 us", "mean us");
    for (int k = 0; k < ZC_RING_STEP_COUNT; k++) {
        const zc_stats *s = &b->step_us[k];
        fprintf(f, "%-12s %8.2f %8.2f %8.2f %8.2f\n", zc_ring_step_name((zc_ring_step)k), s->median,
                s->p99, s->p999, s->mean);
    }
    fprintf(f, "%-12s %8.2f %8.2f %8.2f %8.2f\n", "total", b->total_us.median, b->total_us.p99,
            b->total_us.p999, b->total_us.mean);
    fprintf(f,
            "  the stream's own latency p50 %.2f us; flag round trip of the clock measurement "
            "(%u trips) alone min %.2f, p50 %.2f, p99 %.2f us",
            r->stats.latency_us.median, alone->round_trips, alone->rtt_min_us, alone->rtt_p50_us,
            alone->rtt_p99_us);
    if (beside->round_trips > 0)
        fprintf(f, "; beside the running kernel p50 %.2f us\n", beside->rtt_p50_us);
    else
        fprintf(f, "; none beside the running kernel (no room for it)\n");
    const double within = beside->round_trips > 0 && beside->uncertainty_ns > alone->uncertainty_ns
                              ? beside->uncertainty_ns
                              : alone->uncertainty_ns;
    fprintf(f,
            "  to-gpu and to-host each within +-%.2f us of the truth, their sum exact; clocks: "
            "drift %.2f ppm, SM clock %.0f MHz, timer tick %.0f ns, fit residual %.0f ns\n",
            within / 1e3, b->drift_ppm, b->gpu_clock_mhz, alone->tick_ns, b->fit_residual_ns);
}
