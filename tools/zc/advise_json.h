/* zc advise's JSON: machine profiles, workloads, rankings, validations and sizes read and
 * written (the library has no JSON; these are the CLI's). */
#ifndef ZC_ADVISE_JSON_H
#define ZC_ADVISE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"

/* profile/2: every figure's origin under "origin", the assumed ones apart under "assumed",
 * allocation curves under "alloc_us", zc stream runs under "stream" (docs/json.md). */
#define ZC_PROFILE_SCHEMA       "zerocopy.profile/2"
#define ZC_ADVISE_SCHEMA        "zerocopy.advise/1"
#define ZC_VALIDATION_SCHEMA    "zerocopy.advise-validation/2"
#define ZC_STREAM_ADVICE_SCHEMA "zerocopy.stream-advice/1"

/* Parse "4096", "4K", "4KiB", "1.5M", "2G" (binary units) into bytes; 0 when malformed. */
int zc_cli_advise_parse_size(const char *text, size_t *bytes_p);

/* "4 KiB", "1.5 MiB". */
void zc_cli_advise_size_text(double bytes, char *out, size_t size);

/* A new JSON object holding every figure of profile and its origin; NULL when out of memory. */
cJSON *zc_cli_profile_to_json(const zc_profile *profile);

/* A profile to save: the measured and derived figures as the machine's, each with its origin;
 * the assumed ones apart under "assumed" and the notes under "not_measured", so that loading it
 * assumes them again and a reader never takes one for a measurement. */
cJSON *zc_cli_profile_to_saved_json(const zc_profile *profile, const char *notes);

/* Read a "zerocopy.profile/2" (or /1) object into *profile_p (not completed: call
 * zc_profile_fill_gaps). ZC_ERR_PARSE with a detail naming the bad field. */
zc_status zc_cli_profile_from_json(const cJSON *doc, zc_profile *profile_p);

/*
 * Read a `zc bench --json` document ("zerocopy.bench/1") into bench results and build the
 * profile from them (zc_profile_from_bench); notes get the cases it lacked. ZC_ERR_PARSE naming
 * what is missing or malformed.
 */
zc_status zc_cli_profile_from_bench_json(const cJSON *doc, zc_profile *profile_p, char *notes,
                                         size_t notes_size);

/*
 * Load a profile from a file ("-": stdin): a profile document or a bench document, told apart by
 * their schema, then completed with zc_profile_fill_gaps (its notes into notes). *measured_p (may
 * be NULL) gets the profile as read, before anything was assumed. ZC_ERR_INVALID_ARG when the
 * file cannot be read (said on stderr), ZC_ERR_IO on a read error, ZC_ERR_PARSE when it is not a
 * profile.
 */
zc_status zc_cli_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                              char *notes, size_t notes_size);

/* One run of a `zc stream --json` document ({"name": "zerocopy-ll", "mode": ...,
 * "latency_us": {...}, "throughput": {...}}) or of a profile's "stream" list, as a stream
 * point. ZC_ERR_PARSE when it is not one (a failed run, an unknown mode). */
zc_status zc_cli_stream_point_from_json(const cJSON *run, zc_stream_point *point_p);

/* Add every good run of the `zc stream --json` file at path to the profile's stream runs; the
 * frame size and frames in flight come from its "config". Says why on stderr; a zc exit code. */
int zc_cli_profile_add_stream_file(zc_profile *profile, const char *path);

/* Read a workload object ({"bytes": "4KiB", "direction": "h2d", ...}) over *workload_p, whose
 * other fields stay as they are. ZC_ERR_PARSE naming the bad field. */
zc_status zc_cli_workload_from_json(const cJSON *doc, zc_workload *workload_p);

/* A new JSON object describing a workload. */
cJSON *zc_cli_workload_to_json(const zc_workload *workload);

/* A new JSON object describing one prediction. */
cJSON *zc_cli_prediction_to_json(const zc_prediction *prediction);

/* The whole "zerocopy.advise/1" document. */
cJSON *zc_cli_advise_json(const zc_profile *profile, const char *notes, const zc_workload *workload,
                          const zc_recommendation *recommendation);

/* The "zerocopy.stream-advice/1" document of one stream workload's ranking. */
cJSON *zc_cli_stream_advice_json(const zc_profile *profile, const zc_stream_workload *workload,
                                 const zc_stream_advice *advice);

/* The "zerocopy.advise-validation/2" document: the profile, every workload's rounds and verdict,
 * the summary. */
cJSON *zc_cli_validation_json(const zc_profile *profile, const char *notes,
                              const zc_validation_config *config,
                              const zc_validation_result *results, size_t count,
                              const zc_validation_summary *summary);

#endif
