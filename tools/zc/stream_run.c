/* One measured run of zc stream: frames from the source through one mode's path, latency from
 * publish to result seen by the CPU, throughput, drops, and every result (or a sample of them)
 * checked against the double-precision reference FIR. */
#include "stream_cli.h"

#include <math.h> /* INFINITY only: the tool does not link libm */
#include <stdlib.h>
#include <string.h>

/* Reference checks may cost this many multiply-adds per run (sampled verification). */
#define ZC__VERIFY_BUDGET 1.5e9

/* Deferred checks of measured frames copy at most this share of the run's bytes, and this
 * much memory. */
#define ZC__DEFER_SHARE 0.002
#define ZC__DEFER_BYTES ((double)(64u << 20))

/* Everything a run holds while it goes. */
typedef struct zc__run {
    const zc_stream_opts *o;
    zc_stream_result *r;
    zc_filter *f;
    FILE *out;
    size_t words, halo;
    uint32_t pending_cap; /* in_flight + 1 */
    uint64_t *t_pub;
    unsigned char *measured, *check;
    float *vin, *vhist; /* inputs and histories of frames to check, by seq % pending_cap */
    double *ref;
    /* Sampled checks of measured frames are deferred: input, history and result are copied
     * aside (a small share of the run's bytes) and checked after the timed loop, so that the
     * reference FIR's CPU time never counts against a mode's throughput. */
    float *deferred; /* per record: input (words), history (halo), result (words) */
    uint64_t *deferred_seq;
    size_t deferred_count, deferred_cap;
    double *lat;
    size_t lat_count, lat_cap;
    uint64_t last_result_ns;
} zc__run;

/* Histogram edges: 0.25 us times 2^(i/4), four bins per octave (computed by multiplication so
 * that the tool needs no libm). */
static double zc__histo_edge(int i)
{
    double e = 0.25;
    for (int k = 0; k < i; k++)
        e *= 1.18920711500272106672; /* 2^(1/4) */
    return e;
}

static int zc__histo_bin(double us)
{
    double edge = 0.25 * 1.18920711500272106672;
    int i = 0;
    while (i < ZC_STREAM_HISTO_BINS - 1 && us >= edge) {
        edge *= 1.18920711500272106672;
        i++;
    }
    return i;
}

static double zc__abs(double x)
{
    return x < 0 ? -x : x;
}

static zc_status zc__fail_run(zc__run *run, zc_status st, const char *what)
{
    run->r->status = st;
    snprintf(run->r->error, sizeof run->r->error, "%s: %s: %s", what, zc_status_str(st),
             zc_last_error());
    return st;
}

/* Check one result against the reference; keep the worst error. */
static void zc__verify(zc__run *run, const float *in, const float *hist, const float *res)
{
    zc_fir_reference(run->o->taps, run->o->ntaps, run->o->channels, hist, in, run->o->frame_samples,
                     run->ref);
    double peak = 0.0;
    for (size_t i = 0; i < run->words; i++)
        peak = zc__abs(in[i]) > peak ? zc__abs(in[i]) : peak;
    for (size_t i = 0; i < run->halo; i++)
        peak = zc__abs(hist[i]) > peak ? zc__abs(hist[i]) : peak;
    double err = zc_fir_error(run->ref, res, run->words, run->o->taps, run->o->ntaps, peak);
    if (!(err <= run->r->max_rel_error))
        run->r->max_rel_error = err != err ? INFINITY : err;
    run->r->verified++;
}

static float *zc__deferred_record(zc__run *run, size_t k)
{
    return run->deferred + k * (2 * run->words + run->halo);
}

/* Take the oldest result: blocking (up to the timeout) or as a poll. ZC_ERR_TIMEOUT from a
 * poll means none was ready. */
static zc_status zc__take(zc__run *run, int blocking)
{
    const float *res = NULL;
    uint64_t seq = 0;
    zc_status st = zc_filter_result_wait(run->f, blocking ? run->o->timeout_ns : 0, &res, &seq);
    if (st == ZC_ERR_TIMEOUT && !blocking)
        return st;
    if (st != ZC_OK)
        return zc__fail_run(run, st, "waiting for a result");
    uint64_t now = zc_clock_ns();
    run->last_result_ns = now;
    uint32_t slot = (uint32_t)(seq % run->pending_cap);
    if (run->measured[slot]) {
        if (run->lat_count == run->lat_cap) {
            run->lat_cap = run->lat_cap ? run->lat_cap * 2 : 65536;
            double *grown = realloc(run->lat, run->lat_cap * sizeof *grown);
            if (grown == NULL)
                return zc__fail_run(run, ZC_ERR_NO_MEMORY, "recording latencies");
            run->lat = grown;
        }
        run->lat[run->lat_count++] = (double)(now - run->t_pub[slot]) / 1e3;
    }
    if (run->check[slot] == 1) {
        zc__verify(run, run->vin + (size_t)slot * run->words, run->vhist + (size_t)slot * run->halo,
                   res);
    } else if (run->check[slot] == 2) {
        /* Deferred: the record was opened at publish; find it from the end. */
        for (size_t k = run->deferred_count; k-- > 0;) {
            if (run->deferred_seq[k] == seq) {
                memcpy(zc__deferred_record(run, k) + run->words + run->halo, res,
                       run->words * sizeof(float));
                break;
            }
        }
    }
    if (run->out != NULL && fwrite(res, sizeof(float), run->words, run->out) != run->words)
        return zc__fail_run(run, ZC_ERR_IO, "writing the output");
    st = zc_filter_result_release(run->f);
    if (st != ZC_OK)
        return zc__fail_run(run, st, "releasing a result");
    return ZC_OK;
}

static void zc__name(zc_stream_result *r)
{
    if (r->mode == ZC_STREAM_ZEROCOPY)
        snprintf(r->name, sizeof r->name, "zerocopy-%s",
                 r->protocol == ZC_RING_PROTO_LL ? "ll" : "flag");
    else
        snprintf(r->name, sizeof r->name, "%s", zc_stream_mode_name(r->mode));
}

/* The main loop; returns the run's status (also in r->status). */
static zc_status zc__loop(zc__run *run, zc_stream_source *src, float *frame, float *replay,
                          float *tail, uint32_t buffers)
{
    const zc_stream_opts *o = run->o;
    zc_stream_result *r = run->r;
    const uint64_t total = o->frames ? o->warmup + o->frames : UINT64_MAX;
    const double frames_planned =
        o->frames ? (double)o->frames
                  : (o->paced_rate > 0 ? o->duration_s * o->paced_rate / (double)o->frame_samples
                                       : 100000.0);
    const double per_frame = (double)run->words * (double)o->ntaps;
    const double frame_bytes = (double)run->words * sizeof(float);
    const uint64_t inline_budget =
        per_frame > 0 ? (uint64_t)(ZC__VERIFY_BUDGET / per_frame) + 3 : UINT64_MAX;
    double defer_frames = frames_planned * ZC__DEFER_SHARE;
    if (defer_frames * 2 * frame_bytes > ZC__DEFER_BYTES)
        defer_frames = ZC__DEFER_BYTES / (2 * frame_bytes);
    if (defer_frames * per_frame > ZC__VERIFY_BUDGET)
        defer_frames = ZC__VERIFY_BUDGET / per_frame;
    if (defer_frames < 2)
        defer_frames = 2;
    const uint64_t dstep = (uint64_t)(frames_planned / defer_frames) + 1;
    if (o->verify == 1) {
        run->deferred_cap = (size_t)defer_frames + 1;
        run->deferred = malloc(run->deferred_cap * (2 * run->words + run->halo) * sizeof(float));
        run->deferred_seq = malloc(run->deferred_cap * sizeof(uint64_t));
        if (run->deferred == NULL || run->deferred_seq == NULL)
            return zc__fail_run(run, ZC_ERR_NO_MEMORY, "allocating deferred checks");
    }
    const uint64_t period_ns =
        o->paced_rate > 0 ? (uint64_t)(1e9 * (double)o->frame_samples / o->paced_rate) : 0;
    uint64_t start = zc_clock_ns(), measure_start = start, seq_next = 0;
    zc_filter_counters base;
    memset(&base, 0, sizeof base);
    zc_status st = ZC_OK;
    for (uint64_t idx = 0; idx < total; idx++) {
        const int measuring = idx >= o->warmup;
        if (idx == o->warmup) {
            measure_start = zc_clock_ns();
            zc_filter_counters_get(run->f, &base);
        }
        if (!o->frames && measuring &&
            (double)(zc_clock_ns() - measure_start) / 1e9 >= o->duration_s)
            break;
        const int fill = !o->reuse || seq_next < buffers;
        if (fill) {
            st = zc_stream_source_next(src, frame);
            if (st == ZC_ERR_NOT_FOUND)
                break;
            if (st != ZC_OK)
                return zc__fail_run(run, st, "reading the source");
        }
        if (period_ns) {
            /* Real time: the frame exists at its due time and not before; meanwhile results
             * are taken as they come. */
            uint64_t due = start + idx * period_ns;
            while (zc_clock_ns() < due) {
                uint64_t outstanding = 0;
                zc_filter_outstanding(run->f, &outstanding);
                if (outstanding && (st = zc__take(run, 0)) != ZC_OK && st != ZC_ERR_TIMEOUT)
                    return st;
            }
        }
        uint64_t outstanding = 0;
        zc_filter_outstanding(run->f, &outstanding);
        while (outstanding >= o->in_flight) {
            if (period_ns) {
                /* A real-time source cannot wait: the frame is lost, and counted. */
                break;
            }
            if ((st = zc__take(run, 1)) != ZC_OK)
                return st;
            zc_filter_outstanding(run->f, &outstanding);
        }
        if (outstanding >= o->in_flight) {
            if (measuring) {
                r->dropped++;
                r->offered++;
            }
            continue;
        }
        uint64_t seq = 0, t0 = zc_clock_ns();
        if (o->reuse) {
            float *buf = NULL;
            st = zc_filter_acquire(run->f, &buf);
            if (st == ZC_OK && fill)
                memcpy(buf, frame, run->words * sizeof(float));
            if (st == ZC_OK)
                st = zc_filter_publish(run->f, &seq);
        } else {
            st = zc_filter_submit(run->f, frame, &seq);
        }
        if (measuring)
            r->offered++;
        if (st == ZC_ERR_DROPPED)
            continue; /* counted by the filter */
        if (st != ZC_OK)
            return zc__fail_run(run, st, "publishing a frame");
        seq_next = seq + 1;
        const float *input = frame;
        if (o->reuse) {
            if (fill)
                memcpy(replay + (seq % buffers) * run->words, frame, run->words * sizeof(float));
            input = replay + (seq % buffers) * run->words;
        }
        uint32_t slot = (uint32_t)(seq % run->pending_cap);
        run->t_pub[slot] = t0;
        run->measured[slot] = (unsigned char)measuring;
        /* verify all: every frame, inline. sample: warm-up frames inline, up to the budget;
         * measured frames every dstep-th, deferred. */
        unsigned char check = 0;
        if (o->verify == 2 || (o->verify == 1 && !measuring && seq < inline_budget))
            check = 1;
        else if (o->verify == 1 && measuring && (idx - o->warmup) % dstep == 0 &&
                 run->deferred_count < run->deferred_cap)
            check = 2;
        run->check[slot] = check;
        if (check == 1) {
            memcpy(run->vin + (size_t)slot * run->words, input, run->words * sizeof(float));
            memcpy(run->vhist + (size_t)slot * run->halo, tail, run->halo * sizeof(float));
        } else if (check == 2) {
            float *rec = zc__deferred_record(run, run->deferred_count);
            memcpy(rec, input, run->words * sizeof(float));
            memcpy(rec + run->words, tail, run->halo * sizeof(float));
            run->deferred_seq[run->deferred_count++] = seq;
        }
        memcpy(tail, input + run->words - run->halo, run->halo * sizeof(float));
        if (o->in_flight == 1 && !period_ns) {
            if ((st = zc__take(run, 1)) != ZC_OK)
                return st;
        } else {
            while ((st = zc__take(run, 0)) == ZC_OK) {
                zc_filter_outstanding(run->f, &outstanding);
                if (!outstanding)
                    break;
            }
            if (st != ZC_OK && st != ZC_ERR_TIMEOUT)
                return st;
        }
    }
    uint64_t outstanding = 0;
    while (zc_filter_outstanding(run->f, &outstanding) == ZC_OK && outstanding > 0) {
        if ((st = zc__take(run, 1)) != ZC_OK)
            return st;
    }
    for (size_t k = 0; k < run->deferred_count; k++) {
        const float *rec = zc__deferred_record(run, k);
        zc__verify(run, rec, rec + run->words, rec + run->words + run->halo);
    }
    zc_filter_counters c;
    zc_filter_counters_get(run->f, &c);
    r->dropped += c.dropped - base.dropped;
    r->full_waits = c.full_waits - base.full_waits;
    r->seconds = (double)(run->last_result_ns - measure_start) / 1e9;
    return ZC_OK;
}

void zc_stream_run(const zc_stream_opts *o, zc_stream_mode mode, zc_ring_protocol protocol,
                   zc_stream_source *src, FILE *out, zc_stream_result *r)
{
    memset(r, 0, sizeof *r);
    r->mode = mode;
    r->protocol = protocol;
    zc__name(r);
    zc__run run;
    memset(&run, 0, sizeof run);
    run.o = o;
    run.r = r;
    run.out = out;
    run.words = o->frame_samples * o->channels;
    run.halo = (o->ntaps - 1) * o->channels;
    run.pending_cap = o->in_flight + 1;

    zc_filter_config fc;
    zc_filter_config_init(&fc);
    fc.device = o->device;
    fc.mode = mode;
    fc.frame_samples = o->frame_samples;
    fc.channels = o->channels;
    fc.taps = o->taps;
    fc.ntaps = o->ntaps;
    fc.in_flight = o->in_flight;
    fc.protocol = protocol;
    fc.policy = o->paced_rate > 0 ? ZC_RING_FULL_DROP : o->policy;
    fc.gpu_blocks = o->gpu_blocks;
    fc.timeout_ns = o->timeout_ns;
    zc_status st = zc_stream_source_rewind(src);
    if (st != ZC_OK) {
        zc__fail_run(&run, st, "rewinding the source");
        return;
    }
    st = zc_filter_create(&fc, &run.f);
    if (st != ZC_OK) {
        zc__fail_run(&run, st, "setting up");
        return;
    }
    zc_filter_buffers(run.f, &r->buffers);
    zc_filter_gpu_blocks(run.f, &r->gpu_blocks);
    float *frame = malloc(run.words * sizeof(float));
    float *tail = calloc(run.halo + 1, sizeof(float));
    float *replay = o->reuse ? malloc((size_t)r->buffers * run.words * sizeof(float)) : NULL;
    run.t_pub = calloc(run.pending_cap, sizeof *run.t_pub);
    run.measured = calloc(run.pending_cap, 1);
    run.check = calloc(run.pending_cap, 1);
    run.vin = malloc((size_t)run.pending_cap * run.words * sizeof(float));
    run.vhist = malloc((size_t)run.pending_cap * (run.halo + 1) * sizeof(float));
    run.ref = malloc(run.words * sizeof(double));
    if (frame == NULL || tail == NULL || (o->reuse && replay == NULL) || run.t_pub == NULL ||
        run.measured == NULL || run.check == NULL || run.vin == NULL || run.vhist == NULL ||
        run.ref == NULL) {
        zc__fail_run(&run, ZC_ERR_NO_MEMORY, "allocating the run's buffers");
    } else if (zc__loop(&run, src, frame, replay, tail, r->buffers) == ZC_OK) {
        r->frames = run.lat_count;
        if (run.lat_count > 0 &&
            zc_stats_compute(run.lat, run.lat_count, &r->latency_us) == ZC_OK) {
            for (int i = 0; i < ZC_STREAM_HISTO_BINS; i++) {
                r->histo[i].lo_us = i == 0 ? 0.0 : zc__histo_edge(i);
                r->histo[i].hi_us =
                    i == ZC_STREAM_HISTO_BINS - 1 ? INFINITY : zc__histo_edge(i + 1);
            }
            for (size_t i = 0; i < run.lat_count; i++)
                r->histo[zc__histo_bin(run.lat[i])].count++;
        }
        if (r->seconds > 0) {
            r->frames_per_s = (double)r->frames / r->seconds;
            r->samples_per_s = r->frames_per_s * (double)o->frame_samples;
            r->gb_per_s = r->frames_per_s * (double)(run.words * sizeof(float)) / 1e9;
        }
        r->verify_passed = r->max_rel_error <= ZC_STREAM_TOLERANCE;
        if (o->verify && !r->verify_passed) {
            r->status = ZC_ERR_VERIFY;
            snprintf(r->error, sizeof r->error,
                     "results differ from the reference: relative error %.3g > %g",
                     r->max_rel_error, ZC_STREAM_TOLERANCE);
        }
    }
    zc_filter_destroy(run.f);
    free(frame);
    free(tail);
    free(replay);
    free(run.t_pub);
    free(run.measured);
    free(run.check);
    free(run.vin);
    free(run.vhist);
    free(run.ref);
    free(run.lat);
    free(run.deferred);
    free(run.deferred_seq);
}
