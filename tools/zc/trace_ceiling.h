/* The bandwidth zc trace holds copies against: measured by zc bench, or the PCIe link's. */
#ifndef ZC_TRACE_CEILING_H
#define ZC_TRACE_CEILING_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * The best pinned host<->device copy bandwidth in a zc bench --json document: in
 * zerocopy.bench/1, the largest median of the bandwidth points of the "pinned" "h2d" and "d2h"
 * copy cases that ran ok; in other documents, the largest number under a key containing "gbps"
 * in any object that names a pinned H2D or D2H case (a string value containing "pinned" and
 * "h2d" or "d2h"). 0 when there is none.
 */
double zc_trace_ceiling_from_bench_json(const cJSON *doc);

/* The theoretical PCIe figure of GPU device, with its description in source; 0 and the reason
 * in source when there is no GPU or the link cannot be read. */
double zc_trace_ceiling_from_link(int device, char *source, size_t source_size);

#endif
