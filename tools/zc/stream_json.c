/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's JSON documents, written by the library (zc_stream_to_json,
 * zc_stream_multi_to_json) from the command's options, host and runs; docs/json.md describes
 * both. */
#include "stream_cli.h"

#include <stdio.h>

#include "zerocopy/json.h"

static void zc__doc_host(const zc_cli_stream_host *host, zc_stream_doc_host *h)
{
    h->cpu = host->cpu;
    h->pinning = host->why;
    h->cpus_online = host->cpus_online;
    h->cpu_mhz = host->cpu_mhz;
    h->governor = host->governor;
    h->loadavg_1min = host->loadavg1;
    h->procs_running = host->procs_running;
}

static void zc__doc_config(const zc_cli_stream_opts *o, zc_stream_doc_config *c)
{
    /* The engine's configuration says which policy, checks and non-finite rule the runs had. */
    zc_stream_config engine;
    zc_cli_stream_config(o, ZC_STREAM_CPU, ZC_RING_PROTO_LL, 1, &engine);
    c->frame_samples = o->frame_samples;
    c->channels = o->channels;
    c->ntaps = o->ntaps;
    c->taps_file = o->taps_file;
    c->cutoff_hz = o->cutoff_hz;
    c->sample_rate = o->rate;
    c->in_flight = o->in_flight;
    c->warmup = o->warmup;
    c->frames = o->frames;
    c->duration_s = o->duration_s;
    c->paced_rate = o->paced_rate;
    c->source = o->source;
    c->format = zc_cli_format_name(o->format);
    c->output_format = zc_cli_format_name(o->output_format);
    c->policy = engine.policy;
    c->nonfinite = engine.nonfinite;
    c->reuse = o->reuse;
    c->verify = engine.verify;
}

static void zc__doc_run(const zc_cli_stream_result *r, zc_stream_doc_run *d)
{
    d->mode = r->mode;
    d->protocol = r->protocol;
    d->status = r->status;
    d->error = r->error;
    d->stats = &r->stats;
    d->samples_written = r->samples_written;
    d->clipped_values = r->clipped;
    d->budget_asked = r->budget_asked;
    d->budget_status = r->budget_status;
    d->budget = &r->budget;
    d->budget_error = r->budget_error;
}

/* "zc stream ..." as it was typed, cut at the buffer's end. */
static void zc__command_line(int argc, char **argv, char *command, size_t size)
{
    size_t used = (size_t)snprintf(command, size, "zc");
    for (int i = 0; i < argc && used < size; i++)
        used += (size_t)snprintf(command + used, size - used, " %s", argv[i]);
}

cJSON *zc_cli_stream_json(const zc_cli_stream_opts *o, int argc, char **argv,
                          const zc_device_info *dev, const zc_cli_stream_host *host,
                          const zc_cli_stream_result *runs, int count)
{
    zc_stream_doc_run records[ZC_CLI_STREAM_MAX_RUNS] = {0};
    if (count < 0 || count > ZC_CLI_STREAM_MAX_RUNS)
        return NULL;
    for (int i = 0; i < count; i++)
        zc__doc_run(&runs[i], &records[i]);
    char command[2048];
    zc__command_line(argc, argv, command, sizeof command);
    zc_stream_document doc = {.command = command, .device = dev, .runs = records};
    doc.run_count = (size_t)count;
    zc__doc_host(host, &doc.host);
    zc__doc_config(o, &doc.config);
    cJSON *json = NULL;
    return zc_stream_to_json(&doc, &json) == ZC_OK ? json : NULL;
}

cJSON *zc_cli_stream_multi_json(const zc_cli_stream_opts *o, const zc_cli_stream_result *r,
                                const char (*names)[256], const zc_cli_stream_host *host)
{
    const char *lane_names[ZC_STREAM_MAX_LANES];
    for (size_t i = 0; i < r->stats.lanes && i < ZC_STREAM_MAX_LANES; i++)
        lane_names[i] = names[i];
    zc_stream_multi_document doc = {.host_cpu = host->cpu, .lane_names = lane_names};
    zc__doc_config(o, &doc.config);
    zc__doc_run(r, &doc.run);
    cJSON *json = NULL;
    return zc_stream_multi_to_json(&doc, &json) == ZC_OK ? json : NULL;
}
