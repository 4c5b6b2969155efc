/* The bandwidth zc trace holds copies against, from a zc bench --json document (--bench). */
#ifndef ZC_CLI_TRACE_BENCH_CEILING_H
#define ZC_CLI_TRACE_BENCH_CEILING_H

#include <cjson/cJSON.h>

/*
 * The best pinned host<->device copy bandwidth in a zc bench --json document: in
 * zerocopy.bench/1, the largest median of the bandwidth points of the "pinned" "h2d" and "d2h"
 * copy cases that ran ok; in other documents, the largest number under a key containing "gbps"
 * in any object that names a pinned H2D or D2H case (a string value containing "pinned" and
 * "h2d" or "d2h"). 0 when there is none.
 */
double zc_cli_trace_ceiling_from_bench_json(const cJSON *doc);

#endif
