/* zc bench's outputs: the human tables, the comparison table, JSON, CSV and progress. */
#ifndef ZC_BENCH_OUTPUT_H
#define ZC_BENCH_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "zerocopy/bench.h"
#include "zerocopy/device.h"

#define ZC_BENCH_SCHEMA "zerocopy.bench/1"

/* Everything one run produced, as the outputs need it. */
typedef struct zc_bench_report {
    zc_bench_mode mode;
    int device;
    const zc_device_info *info; /* NULL when unknown: "machine" is null */
    const size_t *sizes;        /* the user's --sizes, or NULL for the mode's defaults */
    size_t size_count;
    const zc_bench_result *results;
    size_t count;
    double wall_seconds;
    char created_utc[32]; /* "2026-11-30T12:00:00Z" */
    const int *devices;   /* --devices: the multi-GPU cases' GPUs (NULL: not given) */
    size_t device_count;
} zc_bench_report;

/* The catalogue entry for a key, or NULL. */
const zc_bench_case_info *zc_cli_bench_info_for(const char *key);

/* The human report: results grouped by case, then the comparison table, findings, method. */
void zc_cli_bench_print_table(FILE *out, const zc_bench_report *report);

/* The JSON document, schema "zerocopy.bench/1" (docs/json.md); NULL when out of memory. */
cJSON *zc_cli_bench_json(const zc_bench_report *report);

/* One CSV row per point (and one per case without points); 0 on success, -1 on write error. */
int zc_cli_bench_write_csv(FILE *out, const zc_bench_report *report);

/* Progress on stderr: a bar when stderr is a terminal, nothing otherwise. */
typedef struct zc_bench_progress {
    int enabled;
    int drawn;
} zc_bench_progress;

void zc_cli_bench_progress_init(zc_bench_progress *p, FILE *stream);
void zc_cli_bench_progress_update(void *user, const char *key, double fraction);
void zc_cli_bench_progress_finish(zc_bench_progress *p);

#endif
