/* zc advise's JSON: machine profiles, workloads, rankings and sizes read and written. */
#ifndef ZC_ADVISE_JSON_H
#define ZC_ADVISE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "zerocopy/advise.h"

#define ZC_PROFILE_SCHEMA    "zerocopy.profile/1"
#define ZC_ADVISE_SCHEMA     "zerocopy.advise/1"
#define ZC_VALIDATION_SCHEMA "zerocopy.advise-validation/1"

/* Parse "4096", "4K", "4KiB", "1.5M", "2G" (binary units) into bytes; 0 when malformed. */
int zc_advise_parse_size(const char *text, size_t *bytes_p);

/* "4 KiB", "1.5 MiB". */
void zc_advise_size_text(double bytes, char *out, size_t size);

/* A new JSON object holding every figure of profile; NULL when out of memory. */
cJSON *zc_profile_to_json(const zc_profile *profile);

/* A profile to save: the measured figures only, and under "not_measured" what the notes say was
 * assumed for the advice (so a reader sees both, and loading it assumes the same again). */
cJSON *zc_profile_to_saved_json(const zc_profile *measured, const char *notes);

/* Read a "zerocopy.profile/1" object into *profile_p (not completed: call
 * zc_profile_fill_gaps). ZC_ERR_PARSE with a detail naming the bad field. */
zc_status zc_profile_from_json(const cJSON *doc, zc_profile *profile_p);

/*
 * Read a `zc bench --json` document ("zerocopy.bench/1") into *profile_p: copy curves of every
 * host memory kind, latencies, zero-copy and managed figures. ZC_ERR_PARSE naming what is
 * missing or malformed.
 */
zc_status zc_profile_from_bench_json(const cJSON *doc, zc_profile *profile_p);

/*
 * Load a profile from a file ("-": stdin): a profile document or a bench document, told apart by
 * their schema, then completed with zc_profile_fill_gaps (its notes into notes). *measured_p (may
 * be NULL) gets the profile as read, before anything was assumed: the one to save, so that an
 * assumption is never written back as a measurement. ZC_ERR_INVALID_ARG when the file cannot be
 * read (said on stderr), ZC_ERR_IO on a read error, ZC_ERR_PARSE when it is not a profile.
 */
zc_status zc_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                          char *notes, size_t notes_size);

/* Read a workload object ({"bytes": "4KiB", "direction": "h2d", ...}) over *workload_p, whose
 * other fields stay as they are. ZC_ERR_PARSE naming the bad field. */
zc_status zc_workload_from_json(const cJSON *doc, zc_workload *workload_p);

/* A new JSON object describing a workload. */
cJSON *zc_workload_to_json(const zc_workload *workload);

/* A new JSON object describing one prediction. */
cJSON *zc_prediction_to_json(const zc_prediction *prediction);

/* The whole "zerocopy.advise/1" document. */
cJSON *zc_advise_json(const zc_profile *profile, const char *notes, const zc_workload *workload,
                      const zc_recommendation *recommendation);

#endif
