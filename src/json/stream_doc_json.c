/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's documents (docs/json.md): "zerocopy.stream/1" (every mode run on one GPU or the
 * host) and "zerocopy.stream-multi/1" (one mode over several lanes), from records in memory. */
#include "zerocopy/json.h"

#include <math.h>
#include <stdio.h>

#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/version.h"

static const char *zc__str(const char *s)
{
    return s != NULL ? s : "";
}

static const char *zc__verify_name(zc_stream_verify verify)
{
    return verify == ZC_STREAM_VERIFY_ALL      ? "all"
           : verify == ZC_STREAM_VERIFY_SAMPLE ? "sample"
                                               : "none";
}

/* The bytes of one frame's input: float32 values, counted in doubles so that nothing wraps. */
static double zc__frame_bytes(const zc_stream_doc_config *c)
{
    return (double)c->frame_samples * (double)c->channels * 4.0;
}

/* The run's name as advice and the report read it ("zerocopy-ll", "classic-pinned"). */
static void zc__run_name(const zc_stream_doc_run *r, char *name, size_t size)
{
    if (zc_stream_run_name(r->mode, r->protocol, name, size) != ZC_OK)
        snprintf(name, size, "%s", zc__str(zc_stream_mode_name(r->mode)));
}

static cJSON *zc__samples(const zc_stream_doc_run *r)
{
    const zc_stream_stats *s = r->stats;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "in", (double)s->samples_in);
    cJSON_AddNumberToObject(o, "out", (double)s->samples_out);
    cJSON_AddNumberToObject(o, "dropped", (double)s->samples_dropped);
    cJSON_AddNumberToObject(o, "padded", (double)s->samples_padded);
    cJSON_AddNumberToObject(o, "written", (double)r->samples_written);
    cJSON_AddNumberToObject(o, "clipped_values", (double)r->clipped_values);
    cJSON_AddNumberToObject(o, "nonfinite_zeroed", (double)s->nonfinite);
    if (s->nonfinite > 0)
        cJSON_AddNumberToObject(o, "first_nonfinite", (double)s->first_nonfinite);
    return o;
}

/* The non-empty bins of the latency histogram; the last bin is open ("hi" null). */
static void zc__add_histogram(cJSON *o, const zc_stream_stats *s)
{
    cJSON *h = cJSON_AddArrayToObject(o, "histogram_us");
    for (int i = 0; h != NULL && i < ZC_STREAM_HISTO_BINS; i++) {
        if (s->histogram[i].count == 0)
            continue;
        cJSON *b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "lo", s->histogram[i].lo_us);
        if (isinf(s->histogram[i].hi_us))
            cJSON_AddNullToObject(b, "hi");
        else
            cJSON_AddNumberToObject(b, "hi", s->histogram[i].hi_us);
        cJSON_AddNumberToObject(b, "count", (double)s->histogram[i].count);
        cJSON_AddItemToArray(h, b);
    }
}

/* The run's "budget": its steps and clocks, or why there is none. */
static cJSON *zc__budget(const zc_stream_doc_run *r)
{
    if (r->budget_status != ZC_OK || r->budget == NULL) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "status", zc_status_name(r->budget_status));
        cJSON_AddStringToObject(o, "error", zc__str(r->budget_error));
        return o;
    }
    cJSON *o = NULL;
    (void)zc_ring_budget_to_json(r->budget, &o); /* NULL when out of memory: no object added */
    return o;
}

static void zc__add_rates(cJSON *o, const zc_stream_doc_run *r)
{
    const zc_stream_stats *s = r->stats;
    cJSON *t = cJSON_AddObjectToObject(o, "throughput");
    cJSON_AddNumberToObject(t, "seconds", s->seconds);
    cJSON_AddNumberToObject(t, "frames_per_s", s->frames_per_s);
    cJSON_AddNumberToObject(t, "samples_per_s", s->samples_per_s);
    cJSON_AddNumberToObject(t, "gb_per_s", s->gb_per_s);
    cJSON *v = cJSON_AddObjectToObject(o, "verify");
    cJSON_AddNumberToObject(v, "frames_checked", (double)s->verified);
    cJSON_AddNumberToObject(v, "max_rel_error", isinf(s->max_rel_error) ? -1 : s->max_rel_error);
    cJSON_AddNumberToObject(v, "tolerance", ZC_STREAM_VERIFY_TOLERANCE);
    if (s->verified == 0)
        cJSON_AddNullToObject(v, "passed"); /* not checked: neither passed nor failed */
    else
        cJSON_AddBoolToObject(v, "passed", s->verify_passed);
}

/* One RUN of zerocopy.stream/1. */
static cJSON *zc__run_json(const zc_stream_doc_run *r)
{
    const zc_stream_stats *s = r->stats;
    char name[64];
    zc__run_name(r, name, sizeof name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "mode", zc__str(zc_stream_mode_name(r->mode)));
    if (zc_stream_mode_on_ring(r->mode))
        cJSON_AddStringToObject(o, "protocol", r->protocol == ZC_RING_PROTO_LL ? "ll" : "flag");
    else
        cJSON_AddNullToObject(o, "protocol");
    cJSON_AddBoolToObject(o, "ok", r->status == ZC_OK);
    cJSON_AddBoolToObject(o, "skipped", r->status == ZC_ERR_UNSUPPORTED);
    if (r->status != ZC_OK) {
        cJSON_AddStringToObject(o, "status", zc_status_name(r->status));
        cJSON_AddStringToObject(o, "error", zc__str(r->error));
    }
    cJSON_AddNumberToObject(o, "gpu_blocks", s->lanes ? s->lane[0].gpu_blocks : 0);
    cJSON_AddNumberToObject(o, "host_buffers", s->lanes ? s->lane[0].buffers : 0);
    cJSON_AddNumberToObject(o, "frames", (double)s->frames_measured);
    cJSON_AddNumberToObject(o, "offered", (double)s->measured_offered);
    cJSON_AddNumberToObject(o, "dropped", (double)s->measured_dropped);
    cJSON_AddNumberToObject(o, "full_waits", (double)s->full_waits);
    cJSON_AddItemToObject(o, "samples", zc__samples(r));
    if (s->frames_measured > 0) {
        cJSON_AddItemToObject(o, "latency_us", zc__json_stats(&s->latency_us));
        zc__add_histogram(o, s);
    } else {
        cJSON_AddNullToObject(o, "latency_us");
    }
    zc__add_rates(o, r);
    if (r->budget_asked && s->frames_measured > 0)
        cJSON_AddItemToObject(o, "budget", zc__budget(r));
    return o;
}

static void zc__add_device(cJSON *doc, const zc_device_info *dev)
{
    if (dev == NULL) {
        cJSON_AddNullToObject(doc, "device"); /* the cpu mode alone */
        return;
    }
    cJSON *d = cJSON_AddObjectToObject(doc, "device");
    cJSON_AddNumberToObject(d, "ordinal", dev->ordinal);
    cJSON_AddStringToObject(d, "name", dev->name);
    cJSON_AddStringToObject(d, "pci_bus_id", dev->pci_bus_id);
    if (dev->numa_node >= 0)
        cJSON_AddNumberToObject(d, "numa_node", dev->numa_node);
    else
        cJSON_AddNullToObject(d, "numa_node");
}

static void zc__add_host(cJSON *doc, const zc_stream_doc_host *host)
{
    cJSON *h = cJSON_AddObjectToObject(doc, "host");
    if (host->cpu >= 0)
        cJSON_AddNumberToObject(h, "cpu", host->cpu);
    else
        cJSON_AddNullToObject(h, "cpu");
    cJSON_AddStringToObject(h, "pinning", zc__str(host->pinning));
    cJSON_AddNumberToObject(h, "cpus_online", host->cpus_online);
    cJSON_AddNumberToObject(h, "cpu_mhz", host->cpu_mhz);
    cJSON_AddStringToObject(h, "governor", zc__str(host->governor));
    cJSON_AddNumberToObject(h, "loadavg_1min", host->loadavg_1min);
    cJSON_AddNumberToObject(h, "procs_running", host->procs_running);
}

/* How many frames each run was given: a count, a duration, or the whole input. */
static void zc__add_length(cJSON *c, const zc_stream_doc_config *o)
{
    if (o->frames)
        cJSON_AddNumberToObject(c, "frames", (double)o->frames);
    else if (o->duration_s > 0)
        cJSON_AddNumberToObject(c, "duration_s", o->duration_s);
    else
        cJSON_AddStringToObject(c, "frames", "all");
    if (o->paced_rate > 0)
        cJSON_AddNumberToObject(c, "paced_rate", o->paced_rate);
    else
        cJSON_AddNullToObject(c, "paced_rate");
}

static void zc__add_config(cJSON *doc, const zc_stream_doc_config *o)
{
    cJSON *c = cJSON_AddObjectToObject(doc, "config");
    cJSON_AddNumberToObject(c, "frame_samples", (double)o->frame_samples);
    cJSON_AddNumberToObject(c, "channels", (double)o->channels);
    cJSON_AddNumberToObject(c, "frame_bytes", zc__frame_bytes(o));
    cJSON_AddNumberToObject(c, "taps", (double)o->ntaps);
    cJSON_AddNumberToObject(c, "delay_samples", ((double)o->ntaps - 1.0) / 2.0);
    if (o->taps_file != NULL)
        cJSON_AddStringToObject(c, "taps_file", o->taps_file);
    else
        cJSON_AddNumberToObject(c, "cutoff_hz", o->cutoff_hz);
    cJSON_AddNumberToObject(c, "sample_rate", o->sample_rate);
    cJSON_AddNumberToObject(c, "in_flight", o->in_flight);
    cJSON_AddNumberToObject(c, "warmup", (double)o->warmup);
    zc__add_length(c, o);
    cJSON_AddStringToObject(c, "source", zc__str(o->source));
    cJSON_AddStringToObject(c, "format", zc__str(o->format));
    cJSON_AddStringToObject(c, "output_format", zc__str(o->output_format));
    cJSON_AddStringToObject(c, "policy", o->policy == ZC_RING_FULL_DROP ? "drop" : "wait");
    cJSON_AddStringToObject(c, "nonfinite",
                            o->nonfinite == ZC_STREAM_NONFINITE_ZERO ? "zero" : "stop");
    cJSON_AddBoolToObject(c, "reuse", o->reuse);
    cJSON_AddStringToObject(c, "verify", zc__verify_name(o->verify));
}

/* "comparison": the zerocopy run of the lower median latency against classic-pinned, when
 * both ran and measured frames. */
static void zc__add_comparison(cJSON *doc, const zc_stream_document *stream)
{
    const zc_stream_doc_run *best_zc = NULL, *pinned = NULL;
    for (size_t i = 0; i < stream->run_count; i++) {
        const zc_stream_doc_run *r = &stream->runs[i];
        if (r->status != ZC_OK || r->stats->frames_measured == 0)
            continue;
        if (r->mode == ZC_STREAM_ZEROCOPY &&
            (best_zc == NULL || r->stats->latency_us.median < best_zc->stats->latency_us.median))
            best_zc = r;
        if (r->mode == ZC_STREAM_CLASSIC_PINNED)
            pinned = r;
    }
    cJSON *cmp = cJSON_AddObjectToObject(doc, "comparison");
    if (best_zc == NULL || pinned == NULL)
        return;
    char name[64];
    zc__run_name(best_zc, name, sizeof name);
    const double zc_p50 = best_zc->stats->latency_us.median;
    const double pinned_p50 = pinned->stats->latency_us.median;
    cJSON_AddStringToObject(cmp, "zerocopy_best", name);
    cJSON_AddNumberToObject(cmp, "zerocopy_p50_us", zc_p50);
    cJSON_AddNumberToObject(cmp, "classic_pinned_p50_us", pinned_p50);
    cJSON_AddNumberToObject(cmp, "p50_speedup_vs_classic_pinned", pinned_p50 / zc_p50);
}

ZC_EXTERN zc_status zc_stream_to_json(const zc_stream_document *stream, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(stream);
    ZC_REQUIRE_ARG(doc_p);
    if (stream->run_count > 0 && stream->runs == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_to_json: %zu runs and no records",
                       stream->run_count);
    for (size_t i = 0; i < stream->run_count; i++)
        if (stream->runs[i].stats == NULL)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_to_json: run %zu has no statistics", i);
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return zc__json_give(NULL, "zc_stream_to_json", doc_p);
    cJSON_AddStringToObject(doc, "schema", ZC_STREAM_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddStringToObject(doc, "command", zc__str(stream->command));
    zc__add_device(doc, stream->device);
    zc__add_host(doc, &stream->host);
    zc__add_config(doc, &stream->config);
    cJSON *arr = cJSON_AddArrayToObject(doc, "runs");
    for (size_t i = 0; arr != NULL && i < stream->run_count; i++)
        cJSON_AddItemToArray(arr, zc__run_json(&stream->runs[i]));
    zc__add_comparison(doc, stream);
    return zc__json_give(doc, "zc_stream_to_json", doc_p);
}

/* A latency summary of zerocopy.stream-multi/1: null when nothing was measured. */
static cJSON *zc__multi_stats(const zc_stats *s)
{
    return s->count == 0 ? cJSON_CreateNull() : zc__json_stats(s);
}

static void zc__multi_rate(cJSON *o, double frames, double fps, double gbs)
{
    cJSON_AddNumberToObject(o, "frames", frames);
    cJSON_AddNumberToObject(o, "frames_per_s", fps);
    cJSON_AddNumberToObject(o, "gb_per_s", gbs);
}

/* "per_gpu": each lane's GPU (or host lane), its name, its transport and its rates. */
static void zc__add_lanes(cJSON *doc, const zc_stream_multi_document *multi)
{
    const zc_stream_stats *s = multi->run.stats;
    cJSON *per = cJSON_AddArrayToObject(doc, "per_gpu");
    for (size_t i = 0; per != NULL && i < s->lanes; i++) {
        const zc_stream_lane_stats *l = &s->lane[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "device", l->device);
        cJSON_AddStringToObject(e, "name", multi->lane_names ? zc__str(multi->lane_names[i]) : "");
        cJSON_AddNumberToObject(e, "gpu_blocks", l->gpu_blocks);
        cJSON_AddNumberToObject(e, "buffers", l->buffers);
        zc__multi_rate(e, (double)l->frames, l->frames_per_s, l->gb_per_s);
        cJSON_AddItemToObject(e, "latency_us", zc__multi_stats(&l->latency_us));
        cJSON_AddItemToArray(per, e);
    }
}

static void zc__add_verification(cJSON *doc, const zc_stream_multi_document *multi)
{
    const zc_stream_stats *s = multi->run.stats;
    cJSON *v = cJSON_AddObjectToObject(doc, "verification");
    cJSON_AddStringToObject(v, "checked", zc__verify_name(multi->config.verify));
    cJSON_AddNumberToObject(v, "frames_checked", (double)s->verified);
    if (s->verified)
        cJSON_AddNumberToObject(v, "max_rel_error", s->max_rel_error);
    else
        cJSON_AddNullToObject(v, "max_rel_error");
    /* The engine ends a run whose results come back out of order (ZC_ERR_STATE). */
    cJSON_AddBoolToObject(v, "in_order", multi->run.status != ZC_ERR_STATE);
}

ZC_EXTERN zc_status zc_stream_multi_to_json(const zc_stream_multi_document *multi, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(multi);
    ZC_REQUIRE_ARG(multi->run.stats);
    ZC_REQUIRE_ARG(doc_p);
    const zc_stream_doc_config *o = &multi->config;
    const zc_stream_stats *s = multi->run.stats;
    if (s->lanes > ZC_STREAM_MAX_LANES)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_multi_to_json: %zu lanes (at most %d)",
                       s->lanes, ZC_STREAM_MAX_LANES);
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return zc__json_give(NULL, "zc_stream_multi_to_json", doc_p);
    char name[64];
    zc__run_name(&multi->run, name, sizeof name);
    cJSON_AddStringToObject(doc, "schema", ZC_STREAM_MULTI_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddStringToObject(doc, "mode", name);
    cJSON *devs = cJSON_AddArrayToObject(doc, "devices");
    for (size_t i = 0; devs != NULL && i < s->lanes; i++)
        cJSON_AddItemToArray(devs, cJSON_CreateNumber(s->lane[i].device));
    cJSON_AddNumberToObject(doc, "frame_samples", (double)o->frame_samples);
    cJSON_AddNumberToObject(doc, "channels", (double)o->channels);
    cJSON_AddNumberToObject(doc, "frame_bytes", zc__frame_bytes(o));
    cJSON_AddNumberToObject(doc, "lead_values", (double)s->lead_values);
    cJSON_AddNumberToObject(doc, "taps", (double)o->ntaps);
    cJSON_AddNumberToObject(doc, "in_flight_per_gpu", o->in_flight);
    cJSON_AddBoolToObject(doc, "reuse", o->reuse);
    cJSON_AddNumberToObject(doc, "host_cpu", multi->host_cpu);
    cJSON_AddStringToObject(doc, "status", zc_status_name(multi->run.status));
    cJSON_AddStringToObject(doc, "error", zc__str(multi->run.error));
    cJSON_AddNumberToObject(doc, "seconds", s->seconds);
    cJSON *t = cJSON_AddObjectToObject(doc, "total");
    zc__multi_rate(t, (double)s->frames_measured, s->frames_per_s, s->gb_per_s);
    cJSON_AddItemToObject(t, "latency_us", zc__multi_stats(&s->latency_us));
    cJSON_AddItemToObject(doc, "samples", zc__samples(&multi->run));
    zc__add_lanes(doc, multi);
    zc__add_verification(doc, multi);
    return zc__json_give(doc, "zc_stream_multi_to_json", doc_p);
}
