/* SPDX-License-Identifier: Apache-2.0 */
/* The library's JSON documents (docs/json.md), read and written as cJSON trees: machine
 * profiles, workloads, rankings, validations, bench and stream results, GPU descriptions and
 * statistics. Not part of the umbrella header: include it, and link cJSON (libcjson-dev), to
 * use it. Every document a function makes is the caller's, to cJSON_Delete. */
#ifndef ZEROCOPY_JSON_H
#define ZEROCOPY_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"
#include "zerocopy/bench.h"
#include "zerocopy/device.h"
#include "zerocopy/export.h"
#include "zerocopy/json_limits.h"
#include "zerocopy/ring_budget.h"
#include "zerocopy/stats.h"
#include "zerocopy/status.h"
#include "zerocopy/stream.h"
#include "zerocopy/trace.h"

/* profile/2: every figure's origin under "origin", the assumed ones apart under "assumed",
 * allocation curves under "alloc_us", zc stream runs under "stream" (docs/json.md). */
#define ZC_PROFILE_SCHEMA        "zerocopy.profile/2"
#define ZC_ADVISE_SCHEMA         "zerocopy.advise/1"
#define ZC_VALIDATION_SCHEMA     "zerocopy.advise-validation/2"
#define ZC_STREAM_ADVICE_SCHEMA  "zerocopy.stream-advice/1"
#define ZC_ADVISE_TRACE_SCHEMA   "zerocopy.advise-trace/1"
#define ZC_ADVISE_BLOCKS_SCHEMA  "zerocopy.advise-blocks/1"
#define ZC_ADVISE_PINNING_SCHEMA "zerocopy.advise-pinning/1"
#define ZC_BENCH_SCHEMA          "zerocopy.bench/1"
#define ZC_INFO_SCHEMA           "zerocopy.info/1"
#define ZC_TRACE_SCHEMA          "zerocopy.trace/1"
#define ZC_STREAM_SCHEMA         "zerocopy.stream/1"
#define ZC_STREAM_MULTI_SCHEMA   "zerocopy.stream-multi/1"

/* Everything one bench run produced, as its document needs it. */
typedef struct zc_bench_document {
    zc_bench_mode mode;
    int device;
    const zc_device_info *info; /* NULL when unknown: "machine" is null */
    const size_t *sizes;        /* the user's sizes, or NULL for the mode's defaults */
    size_t size_count;
    const zc_bench_result *results;
    size_t count;
    double wall_seconds;
    char created_utc[32]; /* "2026-11-30T12:00:00Z" */
    const int *devices;   /* the multi-GPU cases' GPUs (NULL: not given) */
    size_t device_count;
} zc_bench_document;

/* One traced run as its document needs it: how the program ended, the ceiling copies were held
 * against, and what the trace saw (log and report NULL when nothing was recorded). */
typedef struct zc_trace_document {
    char *const *argv;          /* the program and its arguments, NULL-terminated; may be NULL */
    int exit_code;              /* zc trace's: the program's code, or 128 + signal */
    int signal;                 /* the signal that ended it, or 0 */
    double ceiling_gbps;        /* 0 when unknown */
    const char *ceiling_source; /* where the ceiling came from, or why there is none */
    const char *why_not;        /* when nothing was recorded: why, in one sentence */
    const zc_trace_log *log;
    const zc_trace_report *report;
} zc_trace_document;

/* The thread that pushed and pulled a stream's frames, and what could disturb its timing (read
 * after the runs): "host" of zerocopy.stream/1. */
typedef struct zc_stream_doc_host {
    int cpu;             /* the core it was pinned to, -1 when not pinned */
    const char *pinning; /* how the core was chosen, in a few words */
    int cpus_online;
    double cpu_mhz;       /* the core's frequency, 0 when unknown */
    const char *governor; /* the cpufreq governor, "" when none */
    double loadavg_1min;
    int procs_running; /* runnable processes */
} zc_stream_doc_host;

/* The settings every run of a stream command shared: "config" of zerocopy.stream/1 (the multi
 * document reads frame_samples, channels, ntaps, in_flight, reuse and verify). */
typedef struct zc_stream_doc_config {
    size_t frame_samples; /* per channel */
    size_t channels;      /* 1 real, 2 I/Q */
    size_t ntaps;
    const char *taps_file; /* the taps' file, or NULL when they were designed (cutoff_hz) */
    double cutoff_hz;
    double sample_rate;
    uint32_t in_flight;
    uint64_t warmup;    /* frames not measured */
    uint64_t frames;    /* per run; 0: duration_s when above 0, else the whole input ("all") */
    double duration_s;  /* per run, when frames is 0 */
    double paced_rate;  /* samples per second offered, 0 when as fast as possible (null) */
    const char *source; /* "synth", a path or "-" */
    const char *format; /* the input's sample format: "f32", "s16", "cu8", ... */
    const char *output_format;  /* the filtered samples' */
    zc_ring_full_policy policy; /* the one the runs used (paced runs drop unless told to wait) */
    zc_stream_nonfinite nonfinite;
    int reuse; /* frames republished from the transport buffers */
    zc_stream_verify verify;
} zc_stream_doc_config;

/* One run of a mode: a RUN of zerocopy.stream/1, named by zc_stream_run_name. */
typedef struct zc_stream_doc_run {
    zc_stream_mode mode;
    zc_ring_protocol protocol; /* a mode on a ring's; ignored by the others */
    zc_status status;          /* ZC_ERR_UNSUPPORTED: skipped, the GPU cannot run the mode */
    const char *error;         /* why, when status is not ZC_OK */
    const zc_stream_stats *stats;
    uint64_t samples_written; /* to the command's output */
    uint64_t clipped_values;  /* clipped by an integer output format */
    int budget_asked;         /* a "budget" object, when frames were measured */
    zc_status budget_status;  /* ZC_OK: budget holds it; otherwise budget_error says why none */
    const zc_ring_budget *budget;
    const char *budget_error;
} zc_stream_doc_run;

/* Every run of one zc stream command, as its document needs it. */
typedef struct zc_stream_document {
    const char *command;          /* the command line, "zc stream ..." */
    const zc_device_info *device; /* the GPU, or NULL when only the cpu mode ran ("device" null) */
    zc_stream_doc_host host;
    zc_stream_doc_config config;
    const zc_stream_doc_run *runs;
    size_t run_count;
} zc_stream_document;

/* One mode over several lanes (GPUs, or host lanes of the cpu mode): the lanes are those of
 * run.stats, lane_names one per lane (the GPU's name, or "host"; may be NULL: ""). */
typedef struct zc_stream_multi_document {
    zc_stream_doc_config config;
    int host_cpu; /* the core the host thread was pinned to, -1 when not pinned */
    zc_stream_doc_run run;
    const char *const *lane_names;
} zc_stream_multi_document;

/* The capability flags of a GPU in the order zc info prints them, named as CUDA names them. */
typedef struct zc_capability_field {
    const char *name;
    size_t offset; /* of an int in zc_device_info */
} zc_capability_field;

ZC_BEGIN_DECLS

/* Text. */

/*
 * Make every string value and key of doc (and of everything under it) valid UTF-8: each
 * ill-formed part replaced by U+FFFD (zc_text_clean, ZC_TEXT_UTF8), so that any JSON reader
 * takes the printed document; valid strings are left as they are. Call it on every document
 * before cJSON_Print: names from outside the library (programs, kernels, files, devices, trace
 * logs) are bytes. Control characters need nothing: cJSON prints them escaped (\u001b).
 * *fixed_p (may be NULL): how many strings were replaced. ZC_ERR_NO_MEMORY when a copy could
 * not be made (the document is then whole, and sanitized in part).
 */
ZC_EXTERN zc_status zc_json_sanitize(cJSON *doc, size_t *fixed_p);

/* Statistics and numbers. */

/* Add v to o as name: a number, or null for a figure that does not exist (NaN, infinity). */
ZC_EXTERN zc_status zc_json_add_number(cJSON *o, const char *name, double v);

/*
 * The one JSON shape of a zc_stats, in every document that has one (docs/json.md, "Statistics"):
 * count, min, max, mean, stddev, cov, median and p50 (the same figure under both names), p90,
 * p99, p999; a figure that is not finite is null.
 */
ZC_EXTERN zc_status zc_stats_to_json(const zc_stats *s, cJSON **doc_p);

/* A frame time budget as zc stream's "budget" object (docs/json.md): the steps' and the total's
 * statistics, the two clock measurements, drift, SM clock and fit residual. */
ZC_EXTERN zc_status zc_ring_budget_to_json(const zc_ring_budget *budget, cJSON **doc_p);

/* Machine profiles. */

/* Every figure of profile and its origin. */
ZC_EXTERN zc_status zc_profile_to_json(const zc_profile *profile, cJSON **doc_p);

/* A profile to save: the measured and derived figures as the machine's, each with its origin;
 * the assumed ones apart under "assumed" and notes (may be NULL) under "not_measured", so that
 * loading it assumes them again and a reader never takes one for a measurement. */
ZC_EXTERN zc_status zc_profile_to_saved_json(const zc_profile *profile, const char *notes,
                                             cJSON **doc_p);

/* Read a "zerocopy.profile/2" (or /1) object into *profile_p (not completed: call
 * zc_profile_fill_gaps). ZC_ERR_PARSE with a detail naming the bad field. */
ZC_EXTERN zc_status zc_profile_from_json(const cJSON *doc, zc_profile *profile_p);

/*
 * Read a `zc bench --json` document ("zerocopy.bench/1") into bench results and build the
 * profile from them (zc_profile_from_bench); notes (may be NULL) get the cases it lacked.
 * ZC_ERR_PARSE naming what is missing or malformed.
 */
ZC_EXTERN zc_status zc_profile_from_bench_json(const cJSON *doc, zc_profile *profile_p, char *notes,
                                               size_t notes_size);

/*
 * A profile from a profile document or a bench document, told apart by their schema, then
 * completed with zc_profile_fill_gaps (what it assumed, then the bench cases it lacked, into
 * notes). source names the document when it does not name itself ("stdin", a path). *measured_p
 * (may be NULL) gets the profile as read, before anything was assumed. A profile of stream runs
 * alone is complete as it is: stream advice needs nothing else.
 */
ZC_EXTERN zc_status zc_profile_from_document(const cJSON *doc, const char *source,
                                             zc_profile *profile_p, zc_profile *measured_p,
                                             char *notes, size_t notes_size);

/* One run of a `zc stream --json` document or of a profile's "stream" list as a stream point.
 * ZC_ERR_PARSE when it is not one (a failed run, an unknown mode). */
ZC_EXTERN zc_status zc_stream_point_from_json(const cJSON *run, zc_stream_point *point_p);

/*
 * Add every good run of a `zc stream --json` document to the profile's stream runs; the frame
 * size and frames in flight come from its "config"; source names it in the profile's source
 * when that is empty. *added_p (may be NULL): how many. ZC_ERR_PARSE when it is not a zc
 * stream result; ZC_ERR_UNSUPPORTED for a paced run (its rate is the pace it was given, not
 * what the mode can take), nothing added.
 */
ZC_EXTERN zc_status zc_profile_add_stream_json(zc_profile *profile, const cJSON *doc,
                                               const char *source, size_t *added_p);

/* Workloads and rankings. */

/* Read a workload object ({"bytes": "4KiB", "direction": "h2d", ...}) over *workload_p, whose
 * other fields stay as they are. ZC_ERR_PARSE naming the bad field. */
ZC_EXTERN zc_status zc_workload_from_json(const cJSON *doc, zc_workload *workload_p);

ZC_EXTERN zc_status zc_workload_to_json(const zc_workload *workload, cJSON **doc_p);
ZC_EXTERN zc_status zc_prediction_to_json(const zc_prediction *prediction, cJSON **doc_p);

/* The whole "zerocopy.advise/1" document; notes may be NULL. */
ZC_EXTERN zc_status zc_advise_to_json(const zc_profile *profile, const char *notes,
                                      const zc_workload *workload,
                                      const zc_recommendation *recommendation, cJSON **doc_p);

/* The "zerocopy.stream-advice/1" document of one stream workload's ranking. */
ZC_EXTERN zc_status zc_stream_advice_to_json(const zc_profile *profile,
                                             const zc_stream_workload *workload,
                                             const zc_stream_advice *advice, cJSON **doc_p);

/* The "zerocopy.advise-validation/2" document: the profile, every workload's rounds and
 * verdict, the summary. */
ZC_EXTERN zc_status zc_validation_to_json(const zc_profile *profile, const char *notes,
                                          const zc_validation_config *config,
                                          const zc_validation_result *results, size_t count,
                                          const zc_validation_summary *summary, cJSON **doc_p);

/* Bench results and GPUs. */

/* The "zerocopy.bench/1" document of one run. */
ZC_EXTERN zc_status zc_bench_to_json(const zc_bench_document *bench, cJSON **doc_p);

/*
 * The best pinned host<->device copy bandwidth (GB/s) in a zc bench --json document, the ceiling
 * zc trace holds copies against: in zerocopy.bench/1, the largest median of the bandwidth points
 * of the "pinned" "h2d" and "d2h" copy cases that ran ok; in other documents, the largest number
 * under a key containing "gbps" in any object that names a pinned H2D or D2H case (a string
 * value containing "pinned" and "h2d" or "d2h"). *gbps_p is 0 when there is none.
 */
ZC_EXTERN zc_status zc_bench_copy_ceiling_from_json(const cJSON *doc, double *gbps_p);

/* Programs run by zc. */

/* The opening of the document of a command that ran a program (zc trace, zc run): schema,
 * zerocopy_version, program (argv, NULL-terminated; may be NULL), exit_code and signal (null
 * when 0). */
ZC_EXTERN zc_status zc_program_run_to_json(const char *schema, char *const *argv, int exit_code,
                                           int signal, cJSON **doc_p);

/* The "zerocopy.trace/1" document of one traced run (docs/json.md): the run, the ceiling, and
 * when something was recorded the processes, paths, memsets, kernels, host and unified memory
 * and the findings in the report's order; otherwise why_not_traced and no findings. */
ZC_EXTERN zc_status zc_trace_to_json(const zc_trace_document *trace, cJSON **doc_p);

/* Stream runs. */

/* The "zerocopy.stream/1" document of a zc stream command (docs/json.md): the command, the GPU,
 * the host, the settings, every run in order and the comparison of the best zerocopy run with
 * classic-pinned. ZC_ERR_INVALID_ARG when a run has no statistics. */
ZC_EXTERN zc_status zc_stream_to_json(const zc_stream_document *stream, cJSON **doc_p);

/* The "zerocopy.stream-multi/1" document of one mode over several lanes (docs/json.md). */
ZC_EXTERN zc_status zc_stream_multi_to_json(const zc_stream_multi_document *multi, cJSON **doc_p);

/* The capability flags, in order, and the value of one of them for a GPU. */
ZC_EXTERN const zc_capability_field *zc_capability_fields(size_t *count_p);
ZC_EXTERN int zc_capability_value(const zc_device_info *info, const zc_capability_field *field);

/* One GPU; the path between two GPUs; the "zerocopy.info/1" document of a set of GPUs and the
 * paths between them (peers may be NULL when peer_count is 0). */
ZC_EXTERN zc_status zc_device_info_to_json(const zc_device_info *info, cJSON **doc_p);
ZC_EXTERN zc_status zc_peer_link_to_json(const zc_peer_link *peer, cJSON **doc_p);
ZC_EXTERN zc_status zc_info_to_json(const zc_device_info *infos, int count,
                                    const zc_peer_link *peers, int peer_count, cJSON **doc_p);

/* ---- zc advise --trace: a traced program's workloads priced ---- */

/*
 * The advice for the program a "zerocopy.trace/1" document traced (zc_advise_traced on its
 * "copy_classes", or on its "paths" when it has none, each priced at its mean size; its
 * managed and mapped memory and its pinning finding). ZC_ERR_PARSE when doc is not a trace
 * document or a field is malformed (the detail names it); ZC_ERR_INVALID_ARG when the trace
 * recorded nothing (traced false: the detail gives why_not_traced).
 */
ZC_EXTERN zc_status zc_advise_trace(const zc_profile *profile, const cJSON *doc,
                                    zc_trace_advice *advice_p);

/* Check that doc is a trace document zc_advise_trace can read, without a profile (a tool reads
 * its input before it measures one): the same statuses. */
ZC_EXTERN zc_status zc_trace_advice_check(const cJSON *doc);

/* zc_advise_trace from the document's text (size bytes): ZC_ERR_PARSE when it is empty or not
 * JSON. */
ZC_EXTERN zc_status zc_advise_trace_text(const zc_profile *profile, const char *text, size_t size,
                                         zc_trace_advice *advice_p);

/* The "zerocopy.advise-trace/1" document of an advice; notes (the profile's assumptions) may be
 * NULL. */
ZC_EXTERN zc_status zc_trace_advice_to_json(const zc_profile *profile, const char *notes,
                                            const zc_trace_advice *advice, cJSON **doc_p);

/* ---- zc advise --blocks: the block mover's engines ranked from a bench document ---- */

/*
 * The block mover's profile fitted to a "zerocopy.bench/1" document's blocks.h2d and
 * blocks.d2h points (zc_blocks_profile_from_bench), the kernel engine's SMs taken as zc bench's
 * mover had them: ZC_BLOCKS_DEFAULT_MAX_SMS, no more than the measured GPU's sm_count (unknown
 * when the document's machine does not give it). beside_p (may be NULL): the blocks.beside
 * points nearest beside_bytes. ZC_ERR_PARSE when doc is not a bench document (the detail says
 * why); otherwise the statuses of the two calls, their details kept.
 */
ZC_EXTERN zc_status zc_blocks_bench_from_json(const cJSON *doc, size_t beside_bytes,
                                              zc_blocks_profile *profile_p, zc_blocks_fit *fit_p,
                                              zc_blocks_beside *beside_p);

/* The "zerocopy.advise-blocks/1" document of a ranking: the move, the fitted profile and its
 * fit, every engine priced, the mover's choice; beside (may be NULL) the measured loss of a
 * memory-bound kernel beside each engine. source names the bench document. */
ZC_EXTERN zc_status zc_blocks_advice_to_json(const zc_blocks_profile *profile,
                                             const zc_blocks_fit *fit, const char *source,
                                             const zc_blocks_workload *workload,
                                             const zc_blocks_advice *advice,
                                             const zc_blocks_beside *beside, cJSON **doc_p);

/* ---- zc advise --pinning: the ways of getting pinned memory priced from a bench document ---- */

/* Each pinning way's curve from a "zerocopy.bench/1" document's pin.cost and pin.floor results
 * (zc_pinning_curves_from_bench). ZC_ERR_PARSE when doc is not a bench document (the detail says
 * why); otherwise that call's status, its detail kept. */
ZC_EXTERN zc_status zc_pinning_bench_from_json(const cJSON *doc, zc_pinning_curves *curves_p);

/* The "zerocopy.advise-pinning/1" document of a pricing: the size, the floors, every way ranked
 * with its seconds, s/GiB, ratios to the floors, the sizes it was measured at and how a program
 * gets it. source names the bench document. */
ZC_EXTERN zc_status zc_pinning_advice_to_json(const zc_pinning_curves *curves, const char *source,
                                              const zc_pinning_advice *advice, cJSON **doc_p);

ZC_END_DECLS

#endif
