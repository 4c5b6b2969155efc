/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's pieces: options, the source and sink of samples, one run of the library's
 * streaming engine per mode, the host's pinning and jitter report, and the JSON documents. */
#ifndef ZC_STREAM_CLI_H
#define ZC_STREAM_CLI_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli.h" /* zc_last_error() as people read it */
#include "cli_output.h"
#include "stream_format.h"
#include "zerocopy/json.h"
#include "zerocopy/zerocopy.h"

/* The documents' schemas, as the library writes them (zc_stream_to_json). */
#define ZC_CLI_STREAM_SCHEMA       ZC_STREAM_SCHEMA
#define ZC_CLI_STREAM_MULTI_SCHEMA ZC_STREAM_MULTI_SCHEMA
/* Every mode once, those on a ring (zerocopy, hybrid) once per protocol. */
#define ZC_CLI_STREAM_MAX_RUNS     (ZC_STREAM_MODE_COUNT + 2)

typedef struct zc_cli_stream_opts {
    int device;
    int modes[ZC_STREAM_MODE_COUNT]; /* 1 for each mode to run, in order */
    int protocols;                   /* bit 0: LL, bit 1: FLAG (zerocopy runs) */
    int modes_all;                   /* --mode all: a mode the GPU cannot run is skipped */
    uint64_t frames;                 /* 0: synth 10000; a file or pipe: all of it */
    int frames_given;
    double duration_s;
    uint64_t warmup;
    size_t frame_samples;
    size_t channels;
    uint32_t in_flight;
    uint32_t gpu_blocks;
    zc_ring_full_policy policy;
    int policy_given;
    const char *source; /* "synth", a file name or "-" */
    zc_cli_format format;
    zc_cli_format output_format;
    int output_format_given;
    double rate;       /* samples per second per channel */
    double paced_rate; /* 0: as fast as possible */
    double tones[8];
    int tone_count;
    double noise;
    double cutoff_hz;
    size_t ntaps;
    const char *taps_file;
    const char *save_taps;
    float taps[ZC_FIR_MAX_TAPS];
    const char *output; /* NULL: nowhere */
    zc_stream_verify verify;
    zc_stream_nonfinite nonfinite;
    int reuse;
    int cpu; /* -1: choose */
    int no_pin;
    const char *json;
    int force; /* outputs may replace existing files */
    uint64_t timeout_ns;
    const char *devices_text; /* --devices: "all" or "0,1"; NULL: --device alone */
    size_t lanes;             /* --lanes: host lanes of the cpu mode */
    int devices[ZC_STREAM_MAX_LANES];
    size_t device_count; /* GPUs listed by --devices (0: --device alone) */
    int budget;          /* --budget: the zerocopy runs' frame time budget */
} zc_cli_stream_opts;

/* Parse zc stream's argv (argv[0] is "stream") into o: 0 on success, else the exit code (help
 * counts as -1: exit 0). Touches no GPU and no file. */
int zc_cli_stream_parse(int argc, char **argv, zc_cli_stream_opts *o);

/* Where the host thread runs, and what might disturb it. */
typedef struct zc_cli_stream_host {
    int cpu;        /* -1 when not pinned */
    int numa_node;  /* the GPU's, -1 when none */
    char why[160];  /* how the core was chosen */
    double cpu_mhz; /* 0 when unknown */
    char governor[32];
    double loadavg1;
    int procs_running;
    int cpus_online;
} zc_cli_stream_host;

/* One run: a mode (and protocol) over the input, on one GPU, several, or the host. */
typedef struct zc_cli_stream_result {
    zc_stream_mode mode;
    zc_ring_protocol protocol;
    char name[32];
    zc_status status;
    char error[512];
    zc_stream_stats stats;
    uint64_t samples_written; /* to --output */
    uint64_t clipped;         /* values clipped by an integer --output-format */
    int budget_asked;         /* --budget on a zerocopy run */
    zc_status budget_status;  /* ZC_OK: budget holds it */
    zc_ring_budget budget;
    char budget_error[512];
} zc_cli_stream_result;

/* Print "zc stream: <message>" on stderr. */
void zc_cli_stream_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The message zc_cli_stream_errorf printed last ("" before the first). */
const char *zc_cli_stream_last_message(void);

/* Report a failure on stderr and give its status, in one expression. */
#define ZC_CLI_STREAM_FAIL(status, ...) (zc_cli_stream_errorf(__VA_ARGS__), (status))

/* The source of samples: synthetic, a file, stdin or a FIFO, or all of it held in memory. */
typedef struct zc_cli_stream_source zc_cli_stream_source;

zc_status zc_cli_stream_source_open(const zc_cli_stream_opts *o, zc_cli_stream_source **src_p);
/* Read the whole input into memory, so that several modes see the same samples. */
zc_status zc_cli_stream_source_preload(zc_cli_stream_source *src);
/* Start again from the first sample (synthetic: same seed; preloaded: first sample). */
zc_status zc_cli_stream_source_rewind(zc_cli_stream_source *src);
/*
 * Up to max samples (max x channels values) into out; *got_p how many (a pipe gives what has
 * come). ZC_ERR_NOT_FOUND at the end of the input; ZC_ERR_PARSE when it ends inside a sample;
 * ZC_ERR_TIMEOUT when a pipe or FIFO stays silent for the timeout; ZC_ERR_IO. Each failure is
 * printed on stderr with its byte offset.
 */
zc_status zc_cli_stream_source_read(zc_cli_stream_source *src, float *out, size_t max,
                                    size_t *got_p);
void zc_cli_stream_source_close(zc_cli_stream_source *src);

/* Where filtered samples go: a file or stdout, in the output format, written as they come. */
typedef struct zc_cli_stream_sink zc_cli_stream_sink;

zc_status zc_cli_stream_sink_open(const zc_cli_stream_opts *o, zc_cli_stream_sink **sink_p);
/* count samples; *clipped_p (added to) counts values clipped by an integer format. */
zc_status zc_cli_stream_sink_write(zc_cli_stream_sink *sink, const float *samples, size_t count,
                                   uint64_t *clipped_p);
/* Flush and close; the result of the last writes (a full disk shows here). Accepts NULL. */
zc_status zc_cli_stream_sink_close(zc_cli_stream_sink *sink, int succeeded);

/* Parse "f1,f2,..." of non-negative numbers into out[max]; count or -1. */
int zc_cli_stream_parse_list(const char *text, double *out, int max);
/* Read taps from a text file (numbers separated by white space or commas). */
zc_status zc_cli_stream_taps_read(const char *path, float *taps, size_t *ntaps_p);
/* Write the taps into out, one per line, with enough digits to give the same float32 back;
 * committed or not by the caller with the run's other outputs (a failure said on stderr). */
zc_status zc_cli_stream_taps_put(zc_cli_output *out, const float *taps, size_t ntaps);

/* Pin the calling thread as the options say (dev NULL: no GPU); fill host. */
void zc_cli_stream_host_pin(const zc_cli_stream_opts *o, const zc_device_info *dev,
                            zc_cli_stream_host *host);
/* Read load and frequency now. */
void zc_cli_stream_host_sample(zc_cli_stream_host *host);

/* The engine's configuration for a run of mode (with protocol for zerocopy); discard: nobody
 * takes the output. */
void zc_cli_stream_config(const zc_cli_stream_opts *o, zc_stream_mode mode,
                          zc_ring_protocol protocol, int discard, zc_stream_config *c);

/* Run mode (with protocol for zerocopy) over src through the streaming engine; sink (may be
 * NULL) receives every filtered sample as it comes. */
void zc_cli_stream_run(const zc_cli_stream_opts *o, zc_stream_mode mode, zc_ring_protocol protocol,
                       zc_cli_stream_source *src, zc_cli_stream_sink *sink,
                       zc_cli_stream_result *r);

/* The run's name: "zerocopy-ll", "classic-pinned", ... */
void zc_cli_stream_run_name(zc_stream_mode mode, zc_ring_protocol protocol, char *name,
                            size_t size);

/* The JSON documents of a finished command, built by the library from these records: every mode
 * on one GPU (or the host), and one mode over several lanes. dev NULL: no GPU (cpu mode). NULL
 * when the document could not be built. */
cJSON *zc_cli_stream_json(const zc_cli_stream_opts *o, int argc, char **argv,
                          const zc_device_info *dev, const zc_cli_stream_host *host,
                          const zc_cli_stream_result *runs, int count);
cJSON *zc_cli_stream_multi_json(const zc_cli_stream_opts *o, const zc_cli_stream_result *r,
                                const char (*names)[256], const zc_cli_stream_host *host);

#endif
