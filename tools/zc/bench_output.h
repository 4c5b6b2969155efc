/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench's outputs: the human tables, the comparison table, CSV and progress (the JSON
 * document is the library's, zc_bench_to_json). */
#ifndef ZC_BENCH_OUTPUT_H
#define ZC_BENCH_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "zerocopy/bench.h"
#include "zerocopy/device.h"
#include "zerocopy/json.h"

/* The human report: results grouped by case, then the comparison table, findings, method. */
void zc_cli_bench_print_table(FILE *out, const zc_bench_document *report);

/* One CSV row per point (and one per case without points); 0 on success, -1 on write error. */
int zc_cli_bench_write_csv(FILE *out, const zc_bench_document *report);

/* Progress on stderr: a bar when stderr is a terminal, nothing otherwise. */
typedef struct zc_bench_progress {
    int enabled;
    int drawn;
} zc_bench_progress;

void zc_cli_bench_progress_init(zc_bench_progress *p, FILE *stream);
void zc_cli_bench_progress_update(void *user, const char *key, double fraction);
void zc_cli_bench_progress_finish(zc_bench_progress *p);

#endif
