/* zc stream's pieces: options, sources and sinks of samples, one measured run per mode, the
 * host's pinning and jitter report, and the JSON document. */
#ifndef ZC_STREAM_CLI_H
#define ZC_STREAM_CLI_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "zerocopy/zerocopy.h"
#include "zerocopy/stream.h"

#define ZC_STREAM_SCHEMA    "zerocopy.stream/1"
#define ZC_STREAM_MAX_RUNS  8
#define ZC_STREAM_TOLERANCE 1e-5

typedef struct zc_stream_opts {
    int device;
    int modes[ZC_STREAM_MODE_COUNT]; /* 1 for each mode to run, in order */
    int protocols;                   /* bit 0: LL, bit 1: FLAG (zerocopy runs) */
    uint64_t frames;                 /* 0 when --duration decides */
    double duration_s;
    uint64_t warmup;
    size_t frame_samples;
    size_t channels;
    uint32_t in_flight;
    uint32_t gpu_blocks;
    zc_ring_full_policy policy;
    const char *source; /* "synth", a file name or "-" */
    int format_s16;
    double rate;       /* samples per second per channel */
    double paced_rate; /* 0: as fast as possible */
    double tones[8];
    int tone_count;
    double noise;
    double cutoff_hz;
    size_t ntaps;
    const char *taps_file;
    float taps[ZC_FIR_MAX_TAPS];
    const char *output; /* NULL: nowhere */
    int verify;         /* 0 none, 1 sampled, 2 all */
    int reuse;
    int cpu; /* -1: choose */
    int no_pin;
    const char *json;
    uint64_t timeout_ns;
    const char *devices_text; /* --devices: "all" or "0,1"; NULL: --device alone */
} zc_stream_opts;

/* Where the host thread runs, and what might disturb it. */
typedef struct zc_stream_host {
    int cpu;        /* -1 when not pinned */
    int numa_node;  /* the GPU's, -1 when none */
    char why[160];  /* how the core was chosen */
    double cpu_mhz; /* 0 when unknown */
    char governor[32];
    double loadavg1;
    int procs_running;
    int cpus_online;
} zc_stream_host;

typedef struct zc_stream_histo_bin {
    double lo_us, hi_us;
    uint64_t count;
} zc_stream_histo_bin;

#define ZC_STREAM_HISTO_BINS 96

typedef struct zc_stream_result {
    zc_stream_mode mode;
    zc_ring_protocol protocol;
    char name[32];
    zc_status status;
    char error[512];
    uint32_t gpu_blocks;
    uint32_t buffers;
    uint64_t frames;  /* results measured */
    uint64_t offered; /* frames the source offered during measurement */
    uint64_t dropped;
    uint64_t full_waits;
    zc_stats latency_us;
    zc_stream_histo_bin histo[ZC_STREAM_HISTO_BINS];
    double seconds;
    double frames_per_s, samples_per_s, gb_per_s;
    uint64_t verified;
    double max_rel_error;
    int verify_passed;
} zc_stream_result;

/* Print "zc stream: <message>" on stderr. */
void zc_stream_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Report a failure on stderr and give its status, in one expression. */
#define ZC_STREAM_FAIL(status, ...) (zc_stream_errorf(__VA_ARGS__), (status))

/* A source of frames: synthetic, a file, stdin, or frames held in memory. */
typedef struct zc_stream_source zc_stream_source;

/* Open the source the options name. Preloaded (replayable) when preload is set. */
zc_status zc_stream_source_open(const zc_stream_opts *o, int preload, zc_stream_source **src_p);
/* Start again from the first frame (synthetic: same seed; preloaded: first frame). */
zc_status zc_stream_source_rewind(zc_stream_source *src);
/* Next frame into frame; ZC_ERR_NOT_FOUND at the end of the input. */
zc_status zc_stream_source_next(zc_stream_source *src, float *frame);
void zc_stream_source_close(zc_stream_source *src);

/* Parse "f1,f2,..." of non-negative numbers into out[max]; count or -1. */
int zc_stream_parse_list(const char *text, double *out, int max);
/* Read taps from a text file (numbers separated by white space or commas). */
zc_status zc_stream_taps_read(const char *path, float *taps, size_t *ntaps_p);

/* Pin the calling thread as the options say; fill host. */
void zc_stream_host_pin(const zc_stream_opts *o, const zc_device_info *dev, zc_stream_host *host);
/* Read load and frequency now. */
void zc_stream_host_sample(zc_stream_host *host);

/* Run mode (with protocol for zerocopy) over src; out (may be NULL) receives results. */
void zc_stream_run(const zc_stream_opts *o, zc_stream_mode mode, zc_ring_protocol protocol,
                   zc_stream_source *src, FILE *out, zc_stream_result *r);

/* zc stream --devices: one mode over several GPUs, frames round-robin (stream_multi.c);
 * gives the exit code. */
int zc_stream_multi(const zc_stream_opts *o, int argc, char **argv);

/* The JSON document of a finished command. */
cJSON *zc_stream_json(const zc_stream_opts *o, int argc, char **argv, const zc_device_info *dev,
                      const zc_stream_host *host, const zc_stream_result *runs, int count);

#endif
