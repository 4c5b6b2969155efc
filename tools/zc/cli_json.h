/* Writing zc's JSON documents, through the outputs of cli_io.h. */
#ifndef ZC_CLI_JSON_H
#define ZC_CLI_JSON_H

#include <cjson/cJSON.h>

#include "cli_io.h"
#include "zerocopy/stats.h"

/* Add v to o as name: a number, or null for a figure that does not exist (NaN, infinity). */
void zc_cli_json_number(cJSON *o, const char *name, double v);

/*
 * The one JSON shape of a zc_stats, in every document that has one (docs/json.md, "Statistics"):
 * count, min, max, mean, stddev, cov, median and p50 (the same figure under both names: bench
 * documents said median, stream documents p50), p90, p99, p999; a figure that is not finite is
 * null. NULL when out of memory.
 */
cJSON *zc_cli_stats_json(const zc_stats *s);

/*
 * Print doc, indented, into out (opened with zc_cli_output_open) and commit it; delete doc (NULL
 * counts as out of memory). On failure says so on stderr, leaves the target as it was, and gives
 * the exit code; otherwise ZC_EXIT_OK.
 */
int zc_cli_json_commit(const char *command, cJSON *doc, zc_cli_output *out);

/* Open path ("-": stdout) as zc_cli_output_open does, print doc into it and commit. */
int zc_cli_write_json(const char *command, cJSON *doc, const char *path, int force,
                      const char *const *inputs, size_t ninputs);

#endif
