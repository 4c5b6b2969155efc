/* zc stream's JSON document, schema "zerocopy.stream/1" (docs/json.md). */
#include "stream_cli.h"

#include <math.h>
#include <string.h>

static cJSON *zc__latency(const zc_stream_result *r)
{
    cJSON *l = cJSON_CreateObject();
    const zc_stats *s = &r->latency_us;
    cJSON_AddNumberToObject(l, "count", (double)s->count);
    cJSON_AddNumberToObject(l, "min", s->min);
    cJSON_AddNumberToObject(l, "mean", s->mean);
    cJSON_AddNumberToObject(l, "stddev", s->stddev);
    cJSON_AddNumberToObject(l, "p50", s->median);
    cJSON_AddNumberToObject(l, "p90", s->p90);
    cJSON_AddNumberToObject(l, "p99", s->p99);
    cJSON_AddNumberToObject(l, "p999", s->p999);
    cJSON_AddNumberToObject(l, "max", s->max);
    return l;
}

static cJSON *zc__run_json(const zc_stream_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddStringToObject(o, "mode", zc_stream_mode_name(r->mode));
    if (r->mode == ZC_STREAM_ZEROCOPY)
        cJSON_AddStringToObject(o, "protocol", r->protocol == ZC_RING_PROTO_LL ? "ll" : "flag");
    else
        cJSON_AddNullToObject(o, "protocol");
    cJSON_AddBoolToObject(o, "ok", r->status == ZC_OK);
    if (r->status != ZC_OK) {
        cJSON_AddStringToObject(o, "status", zc_status_name(r->status));
        cJSON_AddStringToObject(o, "error", r->error);
    }
    cJSON_AddNumberToObject(o, "gpu_blocks", r->gpu_blocks);
    cJSON_AddNumberToObject(o, "host_buffers", r->buffers);
    cJSON_AddNumberToObject(o, "frames", (double)r->frames);
    cJSON_AddNumberToObject(o, "offered", (double)r->offered);
    cJSON_AddNumberToObject(o, "dropped", (double)r->dropped);
    cJSON_AddNumberToObject(o, "full_waits", (double)r->full_waits);
    if (r->frames > 0) {
        cJSON_AddItemToObject(o, "latency_us", zc__latency(r));
        cJSON *h = cJSON_AddArrayToObject(o, "histogram_us");
        for (int i = 0; i < ZC_STREAM_HISTO_BINS; i++) {
            if (r->histo[i].count == 0)
                continue;
            cJSON *b = cJSON_CreateObject();
            cJSON_AddNumberToObject(b, "lo", r->histo[i].lo_us);
            if (r->histo[i].hi_us == INFINITY)
                cJSON_AddNullToObject(b, "hi");
            else
                cJSON_AddNumberToObject(b, "hi", r->histo[i].hi_us);
            cJSON_AddNumberToObject(b, "count", (double)r->histo[i].count);
            cJSON_AddItemToArray(h, b);
        }
    } else {
        cJSON_AddNullToObject(o, "latency_us");
    }
    cJSON *t = cJSON_AddObjectToObject(o, "throughput");
    cJSON_AddNumberToObject(t, "seconds", r->seconds);
    cJSON_AddNumberToObject(t, "frames_per_s", r->frames_per_s);
    cJSON_AddNumberToObject(t, "samples_per_s", r->samples_per_s);
    cJSON_AddNumberToObject(t, "gb_per_s", r->gb_per_s);
    cJSON *v = cJSON_AddObjectToObject(o, "verify");
    cJSON_AddNumberToObject(v, "frames_checked", (double)r->verified);
    cJSON_AddNumberToObject(v, "max_rel_error",
                            r->max_rel_error < INFINITY ? r->max_rel_error : -1);
    cJSON_AddNumberToObject(v, "tolerance", ZC_STREAM_TOLERANCE);
    cJSON_AddBoolToObject(v, "passed", r->verified > 0 && r->verify_passed);
    return o;
}

cJSON *zc_stream_json(const zc_stream_opts *o, int argc, char **argv, const zc_device_info *dev,
                      const zc_stream_host *host, const zc_stream_result *runs, int count)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_STREAM_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    char command[2048] = "zc";
    size_t used = 2;
    for (int i = 0; i < argc && used < sizeof command; i++)
        used += (size_t)snprintf(command + used, sizeof command - used, " %s", argv[i]);
    cJSON_AddStringToObject(doc, "command", command);

    cJSON *d = cJSON_AddObjectToObject(doc, "device");
    cJSON_AddNumberToObject(d, "ordinal", dev->ordinal);
    cJSON_AddStringToObject(d, "name", dev->name);
    cJSON_AddStringToObject(d, "pci_bus_id", dev->pci_bus_id);
    if (dev->numa_node >= 0)
        cJSON_AddNumberToObject(d, "numa_node", dev->numa_node);
    else
        cJSON_AddNullToObject(d, "numa_node");

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

    cJSON *c = cJSON_AddObjectToObject(doc, "config");
    cJSON_AddNumberToObject(c, "frame_samples", (double)o->frame_samples);
    cJSON_AddNumberToObject(c, "channels", (double)o->channels);
    cJSON_AddNumberToObject(c, "frame_bytes", (double)(o->frame_samples * o->channels * 4));
    cJSON_AddNumberToObject(c, "taps", (double)o->ntaps);
    if (o->taps_file != NULL)
        cJSON_AddStringToObject(c, "taps_file", o->taps_file);
    else
        cJSON_AddNumberToObject(c, "cutoff_hz", o->cutoff_hz);
    cJSON_AddNumberToObject(c, "sample_rate", o->rate);
    cJSON_AddNumberToObject(c, "in_flight", o->in_flight);
    cJSON_AddNumberToObject(c, "warmup", (double)o->warmup);
    if (o->frames)
        cJSON_AddNumberToObject(c, "frames", (double)o->frames);
    else
        cJSON_AddNumberToObject(c, "duration_s", o->duration_s);
    if (o->paced_rate > 0)
        cJSON_AddNumberToObject(c, "paced_rate", o->paced_rate);
    else
        cJSON_AddNullToObject(c, "paced_rate");
    cJSON_AddStringToObject(c, "source", o->source);
    cJSON_AddStringToObject(c, "format", o->format_s16 ? "s16" : "f32");
    cJSON_AddStringToObject(c, "policy",
                            o->paced_rate > 0 || o->policy == ZC_RING_FULL_DROP ? "drop" : "wait");
    cJSON_AddBoolToObject(c, "reuse", o->reuse);
    cJSON_AddStringToObject(c, "verify", o->verify == 2 ? "all" : o->verify ? "sample" : "none");

    cJSON *arr = cJSON_AddArrayToObject(doc, "runs");
    const zc_stream_result *best_zc = NULL, *pinned = NULL;
    for (int i = 0; i < count; i++) {
        cJSON_AddItemToArray(arr, zc__run_json(&runs[i]));
        if (runs[i].status != ZC_OK || runs[i].frames == 0)
            continue;
        if (runs[i].mode == ZC_STREAM_ZEROCOPY &&
            (best_zc == NULL || runs[i].latency_us.median < best_zc->latency_us.median))
            best_zc = &runs[i];
        if (runs[i].mode == ZC_STREAM_CLASSIC_PINNED)
            pinned = &runs[i];
    }
    cJSON *cmp = cJSON_AddObjectToObject(doc, "comparison");
    if (best_zc != NULL && pinned != NULL) {
        cJSON_AddStringToObject(cmp, "zerocopy_best", best_zc->name);
        cJSON_AddNumberToObject(cmp, "zerocopy_p50_us", best_zc->latency_us.median);
        cJSON_AddNumberToObject(cmp, "classic_pinned_p50_us", pinned->latency_us.median);
        cJSON_AddNumberToObject(cmp, "p50_speedup_vs_classic_pinned",
                                pinned->latency_us.median / best_zc->latency_us.median);
    }
    return doc;
}
