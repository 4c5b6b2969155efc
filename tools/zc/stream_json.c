/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's JSON documents: "zerocopy.stream/1" (every mode run, one GPU or the host) and
 * "zerocopy.stream-multi/1" (one mode over several lanes); docs/json.md describes both. */
#include "stream_cli.h"
#include "stream_budget.h"

#include <math.h>
#include <string.h>

#include "cli_json.h"
#include "zerocopy/json.h"

/* s as name of o (nothing when out of memory: the document then fails as a whole). */
static void zc__stream_add_stats(cJSON *o, const char *name, const zc_stats *s)
{
    cJSON *stats = NULL;
    if (zc_stats_to_json(s, &stats) == ZC_OK)
        cJSON_AddItemToObject(o, name, stats);
}

static cJSON *zc__samples(const zc_cli_stream_result *r)
{
    const zc_stream_stats *s = &r->stats;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "in", (double)s->samples_in);
    cJSON_AddNumberToObject(o, "out", (double)s->samples_out);
    cJSON_AddNumberToObject(o, "dropped", (double)s->samples_dropped);
    cJSON_AddNumberToObject(o, "padded", (double)s->samples_padded);
    cJSON_AddNumberToObject(o, "written", (double)r->samples_written);
    cJSON_AddNumberToObject(o, "clipped_values", (double)r->clipped);
    cJSON_AddNumberToObject(o, "nonfinite_zeroed", (double)s->nonfinite);
    if (s->nonfinite > 0)
        cJSON_AddNumberToObject(o, "first_nonfinite", (double)s->first_nonfinite);
    return o;
}

static cJSON *zc__run_json(const zc_cli_stream_result *r)
{
    const zc_stream_stats *s = &r->stats;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddStringToObject(o, "mode", zc_stream_mode_name(r->mode));
    if (zc_stream_mode_on_ring(r->mode))
        cJSON_AddStringToObject(o, "protocol", r->protocol == ZC_RING_PROTO_LL ? "ll" : "flag");
    else
        cJSON_AddNullToObject(o, "protocol");
    cJSON_AddBoolToObject(o, "ok", r->status == ZC_OK);
    cJSON_AddBoolToObject(o, "skipped", r->status == ZC_ERR_UNSUPPORTED);
    if (r->status != ZC_OK) {
        cJSON_AddStringToObject(o, "status", zc_status_name(r->status));
        cJSON_AddStringToObject(o, "error", r->error);
    }
    cJSON_AddNumberToObject(o, "gpu_blocks", s->lanes ? s->lane[0].gpu_blocks : 0);
    cJSON_AddNumberToObject(o, "host_buffers", s->lanes ? s->lane[0].buffers : 0);
    cJSON_AddNumberToObject(o, "frames", (double)s->frames_measured);
    cJSON_AddNumberToObject(o, "offered", (double)s->measured_offered);
    cJSON_AddNumberToObject(o, "dropped", (double)s->measured_dropped);
    cJSON_AddNumberToObject(o, "full_waits", (double)s->full_waits);
    cJSON_AddItemToObject(o, "samples", zc__samples(r));
    if (s->frames_measured > 0) {
        zc__stream_add_stats(o, "latency_us", &s->latency_us);
        cJSON *h = cJSON_AddArrayToObject(o, "histogram_us");
        for (int i = 0; i < ZC_STREAM_HISTO_BINS; i++) {
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
    } else {
        cJSON_AddNullToObject(o, "latency_us");
    }
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
    if (r->budget_asked && s->frames_measured > 0)
        cJSON_AddItemToObject(o, "budget", zc_cli_stream_budget_json(r));
    return o;
}

static void zc__add_command(cJSON *doc, int argc, char **argv)
{
    char command[2048] = "zc";
    size_t used = 2;
    for (int i = 0; i < argc && used < sizeof command; i++)
        used += (size_t)snprintf(command + used, sizeof command - used, " %s", argv[i]);
    cJSON_AddStringToObject(doc, "command", command);
}

static void zc__add_host(cJSON *doc, const zc_cli_stream_host *host)
{
    cJSON *h = cJSON_AddObjectToObject(doc, "host");
    if (host->cpu >= 0)
        cJSON_AddNumberToObject(h, "cpu", host->cpu);
    else
        cJSON_AddNullToObject(h, "cpu");
    cJSON_AddStringToObject(h, "pinning", host->why);
    cJSON_AddNumberToObject(h, "cpus_online", host->cpus_online);
    cJSON_AddNumberToObject(h, "cpu_mhz", host->cpu_mhz);
    cJSON_AddStringToObject(h, "governor", host->governor);
    cJSON_AddNumberToObject(h, "loadavg_1min", host->loadavg1);
    cJSON_AddNumberToObject(h, "procs_running", host->procs_running);
}

static void zc__add_config(cJSON *doc, const zc_cli_stream_opts *o)
{
    cJSON *c = cJSON_AddObjectToObject(doc, "config");
    cJSON_AddNumberToObject(c, "frame_samples", (double)o->frame_samples);
    cJSON_AddNumberToObject(c, "channels", (double)o->channels);
    cJSON_AddNumberToObject(c, "frame_bytes", (double)(o->frame_samples * o->channels * 4));
    cJSON_AddNumberToObject(c, "taps", (double)o->ntaps);
    cJSON_AddNumberToObject(c, "delay_samples", (double)(o->ntaps - 1) / 2.0);
    if (o->taps_file != NULL)
        cJSON_AddStringToObject(c, "taps_file", o->taps_file);
    else
        cJSON_AddNumberToObject(c, "cutoff_hz", o->cutoff_hz);
    cJSON_AddNumberToObject(c, "sample_rate", o->rate);
    cJSON_AddNumberToObject(c, "in_flight", o->in_flight);
    cJSON_AddNumberToObject(c, "warmup", (double)o->warmup);
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
    cJSON_AddStringToObject(c, "source", o->source);
    cJSON_AddStringToObject(c, "format", zc_cli_format_name(o->format));
    cJSON_AddStringToObject(c, "output_format", zc_cli_format_name(o->output_format));
    const int drop = o->paced_rate > 0 && !o->policy_given ? 1 : o->policy == ZC_RING_FULL_DROP;
    cJSON_AddStringToObject(c, "policy", drop ? "drop" : "wait");
    cJSON_AddStringToObject(c, "nonfinite",
                            o->nonfinite == ZC_STREAM_NONFINITE_ZERO ? "zero" : "stop");
    cJSON_AddBoolToObject(c, "reuse", o->reuse);
    cJSON_AddStringToObject(c, "verify",
                            o->verify == ZC_STREAM_VERIFY_ALL      ? "all"
                            : o->verify == ZC_STREAM_VERIFY_SAMPLE ? "sample"
                                                                   : "none");
}

cJSON *zc_cli_stream_json(const zc_cli_stream_opts *o, int argc, char **argv,
                          const zc_device_info *dev, const zc_cli_stream_host *host,
                          const zc_cli_stream_result *runs, int count)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_CLI_STREAM_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    zc__add_command(doc, argc, argv);
    if (dev != NULL) {
        cJSON *d = cJSON_AddObjectToObject(doc, "device");
        cJSON_AddNumberToObject(d, "ordinal", dev->ordinal);
        cJSON_AddStringToObject(d, "name", dev->name);
        cJSON_AddStringToObject(d, "pci_bus_id", dev->pci_bus_id);
        if (dev->numa_node >= 0)
            cJSON_AddNumberToObject(d, "numa_node", dev->numa_node);
        else
            cJSON_AddNullToObject(d, "numa_node");
    } else {
        cJSON_AddNullToObject(doc, "device"); /* the cpu mode alone */
    }
    zc__add_host(doc, host);
    zc__add_config(doc, o);

    cJSON *arr = cJSON_AddArrayToObject(doc, "runs");
    const zc_cli_stream_result *best_zc = NULL, *pinned = NULL;
    for (int i = 0; i < count; i++) {
        const zc_cli_stream_result *r = &runs[i];
        cJSON_AddItemToArray(arr, zc__run_json(r));
        if (r->status != ZC_OK || r->stats.frames_measured == 0)
            continue;
        if (r->mode == ZC_STREAM_ZEROCOPY &&
            (best_zc == NULL || r->stats.latency_us.median < best_zc->stats.latency_us.median))
            best_zc = r;
        if (r->mode == ZC_STREAM_CLASSIC_PINNED)
            pinned = r;
    }
    cJSON *cmp = cJSON_AddObjectToObject(doc, "comparison");
    if (best_zc != NULL && pinned != NULL) {
        cJSON_AddStringToObject(cmp, "zerocopy_best", best_zc->name);
        cJSON_AddNumberToObject(cmp, "zerocopy_p50_us", best_zc->stats.latency_us.median);
        cJSON_AddNumberToObject(cmp, "classic_pinned_p50_us", pinned->stats.latency_us.median);
        cJSON_AddNumberToObject(cmp, "p50_speedup_vs_classic_pinned",
                                pinned->stats.latency_us.median / best_zc->stats.latency_us.median);
    }
    return doc;
}

/* A latency summary of zerocopy.stream-multi/1: null when nothing was measured. */
static cJSON *zc__multi_stats(const zc_stats *s)
{
    if (s->count == 0)
        return cJSON_CreateNull();
    cJSON *o = NULL;
    return zc_stats_to_json(s, &o) == ZC_OK ? o : NULL;
}

static void zc__multi_rate(cJSON *o, double frames, double fps, double gbs)
{
    cJSON_AddNumberToObject(o, "frames", frames);
    cJSON_AddNumberToObject(o, "frames_per_s", fps);
    cJSON_AddNumberToObject(o, "gb_per_s", gbs);
}

cJSON *zc_cli_stream_multi_json(const zc_cli_stream_opts *o, const zc_cli_stream_result *r,
                                const char (*names)[256], const zc_cli_stream_host *host)
{
    const zc_stream_stats *s = &r->stats;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", ZC_CLI_STREAM_MULTI_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddStringToObject(doc, "mode", r->name);
    cJSON *devs = cJSON_AddArrayToObject(doc, "devices");
    for (size_t i = 0; i < s->lanes; i++)
        cJSON_AddItemToArray(devs, cJSON_CreateNumber(s->lane[i].device));
    cJSON_AddNumberToObject(doc, "frame_samples", (double)o->frame_samples);
    cJSON_AddNumberToObject(doc, "channels", (double)o->channels);
    cJSON_AddNumberToObject(doc, "frame_bytes", (double)(o->frame_samples * o->channels * 4));
    cJSON_AddNumberToObject(doc, "lead_values", (double)s->lead_values);
    cJSON_AddNumberToObject(doc, "taps", (double)o->ntaps);
    cJSON_AddNumberToObject(doc, "in_flight_per_gpu", o->in_flight);
    cJSON_AddBoolToObject(doc, "reuse", o->reuse);
    cJSON_AddNumberToObject(doc, "host_cpu", host->cpu);
    cJSON_AddStringToObject(doc, "status", zc_status_name(r->status));
    cJSON_AddStringToObject(doc, "error", r->error);
    cJSON_AddNumberToObject(doc, "seconds", s->seconds);
    cJSON *t = cJSON_AddObjectToObject(doc, "total");
    zc__multi_rate(t, (double)s->frames_measured, s->frames_per_s, s->gb_per_s);
    cJSON_AddItemToObject(t, "latency_us", zc__multi_stats(&s->latency_us));
    cJSON_AddItemToObject(doc, "samples", zc__samples(r));
    cJSON *per = cJSON_AddArrayToObject(doc, "per_gpu");
    for (size_t i = 0; i < s->lanes; i++) {
        const zc_stream_lane_stats *l = &s->lane[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "device", l->device);
        cJSON_AddStringToObject(e, "name", names[i]);
        cJSON_AddNumberToObject(e, "gpu_blocks", l->gpu_blocks);
        cJSON_AddNumberToObject(e, "buffers", l->buffers);
        zc__multi_rate(e, (double)l->frames, l->frames_per_s, l->gb_per_s);
        cJSON_AddItemToObject(e, "latency_us", zc__multi_stats(&l->latency_us));
        cJSON_AddItemToArray(per, e);
    }
    cJSON *v = cJSON_AddObjectToObject(doc, "verification");
    cJSON_AddStringToObject(v, "checked",
                            o->verify == ZC_STREAM_VERIFY_ALL      ? "all"
                            : o->verify == ZC_STREAM_VERIFY_SAMPLE ? "sample"
                                                                   : "none");
    cJSON_AddNumberToObject(v, "frames_checked", (double)s->verified);
    if (s->verified)
        cJSON_AddNumberToObject(v, "max_rel_error", s->max_rel_error);
    else
        cJSON_AddNullToObject(v, "max_rel_error");
    /* The engine ends a run whose results come back out of order (ZC_ERR_STATE). */
    cJSON_AddBoolToObject(v, "in_order", r->status != ZC_ERR_STATE);
    return doc;
}
