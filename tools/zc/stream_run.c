/* SPDX-License-Identifier: Apache-2.0 */
/* One run of zc stream: samples from the source pushed through the library's streaming engine
 * (one mode, on one GPU, several, or the host), the filtered samples pulled and written as they
 * come, in real time when paced; the engine measures and checks. */
#include "stream_cli.h"
#include "stream_budget.h"

#include <stdlib.h>
#include <string.h>

void zc_cli_stream_run_name(zc_stream_mode mode, zc_ring_protocol protocol, char *name, size_t size)
{
    /* The library's name of the run, as advice and the stream's readers spell it. */
    if (zc_stream_run_name(mode, protocol, name, size) != ZC_OK)
        snprintf(name, size, "%s", zc_stream_mode_name(mode));
}

/* Everything a run holds while it goes. */
typedef struct zc__run {
    const zc_cli_stream_opts *o;
    zc_cli_stream_result *r;
    zc_stream *s;
    zc_cli_stream_source *src;
    zc_cli_stream_sink *sink;
    float *chunk;  /* a frame of input */
    float *pulled; /* filtered samples on their way out */
    size_t pulled_cap;
    size_t lanes;
    zc_status input_status; /* the input's own failure, reported after what came before */
    char input_error[512];
} zc__run;

void zc_cli_stream_config(const zc_cli_stream_opts *o, zc_stream_mode mode,
                          zc_ring_protocol protocol, int discard, zc_stream_config *c)
{
    static const int host_lanes[ZC_STREAM_MAX_LANES];
    zc_stream_config_init(c);
    c->mode = mode;
    c->protocol = protocol;
    /* Real time cannot wait: paced runs drop a frame that finds no room, unless told to wait. */
    c->policy = o->paced_rate > 0 && !o->policy_given ? ZC_RING_FULL_DROP : o->policy;
    c->taps = o->taps;
    c->ntaps = o->ntaps;
    c->frame_samples = o->frame_samples;
    c->channels = o->channels;
    c->in_flight = o->in_flight;
    c->gpu_blocks = o->gpu_blocks;
    if (mode == ZC_STREAM_CPU) {
        c->devices = host_lanes;
        c->device_count = o->lanes;
    } else if (o->device_count > 0) {
        c->devices = o->devices;
        c->device_count = o->device_count;
    } else {
        c->devices = &o->device;
        c->device_count = 1;
    }
    c->timeout_ns = o->timeout_ns;
    c->verify = o->verify;
    c->nonfinite = o->nonfinite;
    c->warmup_frames = o->warmup;
    c->expected_frames = o->frames;
    c->discard_output = discard;
    if (zc_stream_mode_on_ring(mode))
        c->budget_frames = zc_cli_stream_budget_frames(o);
}

static zc_status zc__fail(zc__run *run, zc_status st, const char *what)
{
    if (run->r->status == ZC_OK) {
        run->r->status = st;
        snprintf(run->r->error, sizeof run->r->error, "%s: %s: %s", what, zc_status_str(st),
                 zc_last_error());
    }
    return st;
}

/*
 * Pull what is ready and write it out. wait_first: wait up to the timeout for the first result
 * (one frame in flight: its latency is measured the moment it is seen). ZC_ERR_NOT_FOUND when
 * the stream is finished.
 */
static zc_status zc__drain(zc__run *run, int wait_first)
{
    uint64_t timeout = wait_first ? run->o->timeout_ns : 0;
    for (;;) {
        size_t got = 0;
        zc_status st = zc_stream_pull(run->s, run->pulled, run->pulled_cap, timeout, &got);
        if (st == ZC_ERR_TIMEOUT && timeout == 0)
            return ZC_OK;
        if (st == ZC_ERR_NOT_FOUND)
            return st;
        if (st != ZC_OK)
            return zc__fail(run, st, "taking results");
        timeout = 0;
        if (got > 0 && run->sink != NULL) {
            st = zc_cli_stream_sink_write(run->sink, run->pulled, got, &run->r->clipped);
            if (st != ZC_OK)
                return zc__fail(run, st, "writing the output");
            run->r->samples_written += got;
        }
    }
}

/* The input failed (truncated sample, stalled writer, refused value): keep why, go on to flush
 * what came before. */
static void zc__input_failed(zc__run *run, zc_status st, const char *detail)
{
    run->input_status = st;
    snprintf(run->input_error, sizeof run->input_error, "%s", detail);
}

/* Read up to n samples, filling the frame when the source is a file (a pipe gives what it has). */
static zc_status zc__read(zc__run *run, float *out, size_t n, size_t *got_p)
{
    zc_status st = zc_cli_stream_source_read(run->src, out, n, got_p);
    if (st != ZC_OK && st != ZC_ERR_NOT_FOUND)
        zc__input_failed(run, st, zc_cli_stream_last_message());
    return st;
}

/* --reuse: republish the transport buffers as they are once each has been filled, so that the
 * link is measured and not the CPU's memcpy. */
static zc_status zc__reuse_frame(zc__run *run, uint64_t idx, uint32_t buffers, int *end_p)
{
    const zc_cli_stream_opts *o = run->o;
    const size_t fs = o->frame_samples;
    size_t have = 0;
    if (idx < buffers) {
        while (have < fs) {
            size_t got = 0;
            zc_status st = zc__read(run, run->chunk + have * o->channels, fs - have, &got);
            if (st != ZC_OK) {
                *end_p = 1;
                if (have == 0)
                    return ZC_OK;
                break;
            }
            have += got;
        }
        if (have < fs) { /* the input ended inside this frame: push what there is */
            zc_status st = zc_stream_push(run->s, run->chunk, have, NULL);
            return st == ZC_OK ? st : zc__fail(run, st, "pushing samples");
        }
    }
    float *buf = NULL;
    zc_status st = zc_stream_frame_acquire(run->s, &buf);
    if (st == ZC_ERR_DROPPED)
        return ZC_OK; /* counted by the engine */
    if (st != ZC_OK)
        return zc__fail(run, st, "acquiring a frame buffer");
    if (idx < buffers)
        memcpy(buf, run->chunk, fs * o->channels * sizeof(float));
    st = zc_stream_frame_publish(run->s);
    return st == ZC_OK ? st : zc__fail(run, st, "publishing a frame");
}

/* Push the source's samples, frame by frame (paced: each frame at its due time). */
static zc_status zc__loop(zc__run *run)
{
    const zc_cli_stream_opts *o = run->o;
    const size_t fs = o->frame_samples;
    const uint64_t limit = o->frames ? (o->warmup + o->frames) * (uint64_t)fs : UINT64_MAX;
    const uint64_t period_ns = o->paced_rate > 0 ? (uint64_t)(1e9 * (double)fs / o->paced_rate) : 0;
    const int one_at_a_time = o->in_flight == 1 && !period_ns && run->lanes <= 1;
    uint32_t buffers = 0;
    zc_stream_buffers(run->s, &buffers);
    uint64_t pushed = 0, frames = 0, start = zc_clock_ns(), measure_start = 0;
    int end = 0;
    while (!end && pushed < limit) {
        if (frames == o->warmup && measure_start == 0)
            measure_start = zc_clock_ns();
        if (!o->frames && o->duration_s > 0 && measure_start != 0 &&
            (double)(zc_clock_ns() - measure_start) / 1e9 >= o->duration_s)
            break;
        if (period_ns) {
            /* Real time: a frame exists at its due time and not before; meanwhile results are
             * taken as they come. */
            const uint64_t due = start + frames * period_ns;
            while (zc_clock_ns() < due) {
                ZC_CHECK(zc__drain(run, 0));
            }
        }
        zc_status st;
        if (o->reuse) {
            st = zc__reuse_frame(run, frames, buffers, &end);
            pushed += fs;
            frames++;
        } else {
            /* Up to the frame's end, so that frames and pacing stay aligned. */
            size_t want = fs - (size_t)(pushed % fs), got = 0;
            if (limit - pushed < want)
                want = (size_t)(limit - pushed);
            if (zc__read(run, run->chunk, want, &got) != ZC_OK)
                break;
            size_t accepted = 0;
            st = zc_stream_push(run->s, run->chunk, got, &accepted);
            pushed += accepted;
            if (st == ZC_ERR_PARSE) { /* a non-finite sample, refused */
                zc__input_failed(run, st, zc_last_error());
                break;
            }
            if (st != ZC_OK)
                return zc__fail(run, st, "pushing samples");
            if (pushed % fs != 0) { /* a pipe gave part of a frame: take what is ready */
                st = zc__drain(run, 0);
                ZC_CHECK(st);
                continue;
            }
            frames++;
        }
        ZC_CHECK(st);
        st = zc__drain(run, one_at_a_time);
        ZC_CHECK(st);
    }
    return ZC_OK;
}

/* End of input: the partial frame goes out, every result comes back. */
static zc_status zc__finish(zc__run *run)
{
    zc_status st = zc_stream_flush(run->s);
    if (st != ZC_OK)
        return zc__fail(run, st, "flushing the last frame");
    for (;;) {
        st = zc__drain(run, 1);
        if (st == ZC_ERR_NOT_FOUND)
            return ZC_OK;
        ZC_CHECK(st);
    }
}

void zc_cli_stream_run(const zc_cli_stream_opts *o, zc_stream_mode mode, zc_ring_protocol protocol,
                       zc_cli_stream_source *src, zc_cli_stream_sink *sink, zc_cli_stream_result *r)
{
    memset(r, 0, sizeof *r);
    r->mode = mode;
    r->protocol = protocol;
    zc_cli_stream_run_name(mode, protocol, r->name, sizeof r->name);
    zc__run run;
    memset(&run, 0, sizeof run);
    run.o = o;
    run.r = r;
    run.src = src;
    run.sink = sink;
    zc_stream_config c;
    zc_cli_stream_config(o, mode, protocol, sink == NULL, &c);
    zc_status st = zc_cli_stream_source_rewind(src);
    if (st != ZC_OK) {
        r->status = st;
        snprintf(r->error, sizeof r->error, "%s", zc_cli_stream_last_message());
        return;
    }
    st = zc_stream_create(&c, &run.s);
    if (st != ZC_OK) {
        zc__fail(&run, st, "setting up");
        return;
    }
    run.lanes = c.device_count;
    run.pulled_cap = 4 * o->frame_samples;
    run.chunk = malloc(o->frame_samples * o->channels * sizeof(float));
    run.pulled = malloc(run.pulled_cap * o->channels * sizeof(float));
    if (run.chunk == NULL || run.pulled == NULL)
        zc__fail(&run, ZC_ERR_NO_MEMORY, "allocating the run's buffers");
    else if (zc__loop(&run) == ZC_OK)
        (void)zc__finish(&run); /* its failure is in r */
    zc_stream_stats_get(run.s, &r->stats);
    r->budget_asked = c.budget_frames > 0;
    if (r->budget_asked && r->stats.frames_measured > 0)
        zc_cli_stream_budget_take(run.s, r);
    if (r->status == ZC_OK && run.input_status != ZC_OK) {
        r->status = run.input_status;
        snprintf(r->error, sizeof r->error, "%s", run.input_error);
    }
    /* No frame checked is not a failure (the summary says it was not checked). */
    if (r->status == ZC_OK && o->verify != ZC_STREAM_VERIFY_NONE && r->stats.verified > 0 &&
        !r->stats.verify_passed) {
        r->status = ZC_ERR_VERIFY;
        snprintf(r->error, sizeof r->error,
                 "results differ from the reference: relative error %.3g > %g",
                 r->stats.max_rel_error, ZC_STREAM_VERIFY_TOLERANCE);
    }
    zc_stream_destroy(run.s);
    free(run.chunk);
    free(run.pulled);
}
