/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark engine behind `zc bench`: cases, their selection, and their measured results. */
#ifndef ZEROCOPY_BENCH_H
#define ZEROCOPY_BENCH_H

#include <stddef.h>

#include "zerocopy/blocks.h"
#include "zerocopy/buffer.h"
#include "zerocopy/export.h"
#include "zerocopy/stats.h"
#include "zerocopy/status.h"

/* How long a run may take: quick (seconds), default (a couple of minutes), full (unbounded). */
typedef enum zc_bench_mode {
    ZC_BENCH_QUICK = 0,
    ZC_BENCH_DEFAULT = 1,
    ZC_BENCH_FULL = 2
} zc_bench_mode;

/* How a case ended. A FAIL never carries numbers: its data was wrong. */
typedef enum zc_bench_outcome {
    ZC_BENCH_OK = 0,      /* measured, every point verified */
    ZC_BENCH_SKIPPED = 1, /* cannot run on this machine; reason says why */
    ZC_BENCH_FAIL = 2,    /* the data moved was wrong; reason says where */
    ZC_BENCH_ERROR = 3 /* a call failed (CUDA error, out of memory, timeout); reason says which */
} zc_bench_outcome;

/* What a point's samples measure; the unit follows from it. */
typedef enum zc_bench_metric {
    ZC_BENCH_BANDWIDTH = 0, /* GB/s, 1 GB = 1e9 bytes */
    ZC_BENCH_LATENCY = 1,   /* microseconds per operation */
    ZC_BENCH_DURATION = 2   /* microseconds for a whole job (crossover, overlap, allocation) */
} zc_bench_metric;

/* One case of the catalogue: a stable key and what it measures. */
typedef struct zc_bench_case_info {
    const char *key;       /* stable: "copy.h2d.pinned" */
    const char *group;     /* "copy", "zerocopy", "device", "managed", "latency", ... */
    const char *technique; /* the key of the memory kind it measures (zc_buffer_kind_key):
                              "pageable", "pinned", "write_combined", "mapped", ... */
    const char *direction; /* "h2d", "d2h", "bidir", "read", "write", "roundtrip", "none" */
    const char *title;     /* one line for people */
} zc_bench_case_info;

/* Every case of the catalogue by a typed name, in catalogue order: zc_bench_case_at(id) is its
 * entry. Code that needs one case's results names it here, so that a renamed key cannot silently
 * leave it unfound. */
#define ZC__BENCH_COPY_ID(DIR, NAME, name, key, copy, ...)                                         \
    ZC_BUFFER_KIND_IF_##copy(ZC_BENCH_CASE_COPY_##DIR##_##NAME, )
typedef enum zc_bench_case_id {
    /* The copy cases, one per copy kind (ZC_KIND_COPY_SOURCE in zerocopy/buffer.h's list) and
     * direction: ZC_BENCH_CASE_COPY_H2D_PAGEABLE 0 .. _REGISTERED 3, D2H 4..7, BIDIR 8..11. */
    ZC_BUFFER_KIND_MAP(ZC__BENCH_COPY_ID, H2D) ZC_BUFFER_KIND_MAP(ZC__BENCH_COPY_ID, D2H)
        ZC_BUFFER_KIND_MAP(ZC__BENCH_COPY_ID, BIDIR)
    /* The other cases, from 12 (ZC_BENCH_CASE_ZEROCOPY_READ_16B): the published ones to 47,
     * then the ones added since, each at the end, so that no id changes. */
    ZC_BENCH_CASE_ZEROCOPY_READ_16B,
    ZC_BENCH_CASE_ZEROCOPY_READ_4B,
    ZC_BENCH_CASE_ZEROCOPY_READ_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_READ_RANDOM128,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_16B,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_4B,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_RANDOM128,
    ZC_BENCH_CASE_ZEROCOPY_READ_TUNE,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_TUNE,
    ZC_BENCH_CASE_DEVICE_READ_16B,
    ZC_BENCH_CASE_DEVICE_WRITE_16B,
    ZC_BENCH_CASE_MANAGED_FIRST_TOUCH,
    ZC_BENCH_CASE_MANAGED_PREFETCH,
    ZC_BENCH_CASE_MANAGED_PREFETCHED,
    ZC_BENCH_CASE_MANAGED_ADVISED,
    ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_H2D,
    ZC_BENCH_CASE_LATENCY_COPY_PAGEABLE_D2H,
    ZC_BENCH_CASE_LATENCY_COPY_PINNED_H2D,
    ZC_BENCH_CASE_LATENCY_COPY_PINNED_D2H,
    ZC_BENCH_CASE_LATENCY_LAUNCH,
    ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PINNED,
    ZC_BENCH_CASE_LATENCY_ROUNDTRIP_PAGEABLE,
    ZC_BENCH_CASE_LATENCY_GPU_READ_HOST,
    ZC_BENCH_CASE_LATENCY_GPU_READ_DEVICE,
    ZC_BENCH_CASE_LATENCY_PINGPONG,
    ZC_BENCH_CASE_LATENCY_PINGPONG_ACQUIRE,
    ZC_BENCH_CASE_CROSSOVER_READ_K,
    ZC_BENCH_CASE_OVERLAP_PIPELINE,
    ZC_BENCH_CASE_ALLOC_COST,
    ZC_BENCH_CASE_MULTIGPU_H2D_ALL,
    ZC_BENCH_CASE_MULTIGPU_D2H_ALL,
    ZC_BENCH_CASE_MULTIGPU_PEER_COPY,
    ZC_BENCH_CASE_MULTIGPU_PEER_READ,
    ZC_BENCH_CASE_MULTIGPU_PEER_WRITE,
    ZC_BENCH_CASE_MANAGED_TRANSFER, /* added after the published 47 keep their values */
    ZC_BENCH_CASE_DEVICE_READ_STRIDED,
    ZC_BENCH_CASE_DEVICE_READ_RANDOM,
    ZC_BENCH_CASE_DEVICE_WRITE_STRIDED,
    ZC_BENCH_CASE_DEVICE_WRITE_RANDOM,
    ZC_BENCH_CASE_ZEROCOPY_READ_WALK_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_READ_WALK_RANDOM,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_STRIDED,
    ZC_BENCH_CASE_ZEROCOPY_WRITE_WALK_RANDOM,
    ZC_BENCH_CASE_PIN_FLOOR,
    ZC_BENCH_CASE_PIN_COST,
    ZC_BENCH_CASE_BLOCKS_H2D,
    ZC_BENCH_CASE_BLOCKS_D2H,
    ZC_BENCH_CASE_BLOCKS_BIDIR,
    ZC_BENCH_CASE_BLOCKS_BESIDE,
    ZC_BENCH_CASE_ID_COUNT
} zc_bench_case_id;
#undef ZC__BENCH_COPY_ID

#define ZC_BENCH_VARIANT_MAX 48
#define ZC_BENCH_KEY_MAX     48
#define ZC_BENCH_REASON_MAX  512

/* One measured figure of a case: a size (and perhaps a variant or parameter) and its samples. */
typedef struct zc_bench_point {
    char variant[ZC_BENCH_VARIANT_MAX]; /* what varies besides the size ("u4 b8"); "" if none */
    size_t bytes;                       /* the size this point is for (bytes) */
    const char *param_name;             /* "k", "stride_bytes", "streams"...; NULL if none */
    double param;                       /* its value; 0 when param_name is NULL */
    zc_bench_metric metric;
    double bytes_per_sample; /* bytes moved in one sample (bandwidth points) */
    double ops_per_sample;   /* operations timed together in one sample */
    zc_stats stats;          /* over the samples, in the metric's unit */
    double *samples;         /* every sample, in the metric's unit, in measuring order */
    size_t warmups;          /* samples taken and thrown away before these */
    int verified;            /* 1: the data of this point was checked and right */
} zc_bench_point;

/* Everything one case produced. */
typedef struct zc_bench_result {
    char key[ZC_BENCH_KEY_MAX];
    zc_bench_outcome outcome;
    zc_status status;                 /* ZC_OK, or what failed (ZC_ERR_VERIFY for FAIL) */
    char reason[ZC_BENCH_REASON_MAX]; /* SKIPPED, FAIL, ERROR: why; OK: a finding or "" */
    zc_bench_point *points;
    size_t point_count;
    double seconds; /* wall time the case took */
} zc_bench_result;

/* One row of the chapter's comparison table, from this machine's numbers (NAN: not measured). */
typedef struct zc_bench_compare_row {
    const char *technique; /* "pageable", "pinned", "write_combined", "registered", "mapped",
                              "uva", "managed" */
    const char *title;
    const char *needs_copy; /* "yes", "no", "on demand (migrates pages)" */
    double h2d_gbps;        /* copy-engine transfer at the largest size measured */
    double d2h_gbps;
    double access_read_gbps; /* the GPU's read speed of the data where the technique leaves it */
    double access_write_gbps;
    const char *access_where; /* "device memory, after the copy", "host memory over PCIe" */
    double latency_us;        /* median */
    const char *latency_what;
    char best_use[640];
} zc_bench_compare_row;

#define ZC_BENCH_COMPARE_ROWS 7

/* Called as cases progress: fraction of the whole run done, 0..1, and the case running. */
typedef void (*zc_bench_progress_fn)(void *user, const char *key, double fraction);

/* How a run measures. Fill with zc_bench_config_init, then change what you need. */
typedef struct zc_bench_config {
    int device;
    zc_bench_mode mode;
    const size_t *sizes; /* transfer sizes for the size sweeps; NULL: the mode's defaults */
    size_t size_count;
    const char *corrupt_key; /* test hook: cases whose key matches corrupt a buffer on purpose */
    double cov_target;       /* repeat until the coefficient of variation is below this */
    double gate_timeout_s;   /* 0: the mode's own (5 s); longer where queuing is slow (tools) */
    /* 1: no timing gate; samples are timed from when their work is queued. For tools that run
     * one kernel at a time (compute-sanitizer), behind which a gate would wait for ever. */
    int ungated;
    zc_bench_progress_fn progress;
    void *progress_user;
    /* The GPUs of the multi-GPU cases ("multigpu.*"), at most ZC_BENCH_DEVICES_MAX, none twice;
     * NULL: device alone, and those cases skip saying they need two GPUs. The other cases
     * always run on device. */
    const int *devices;
    size_t device_count;
    /* The block mover's costs for the block family's automatic choice ("auto" points): a
     * profile fitted to this machine (zc_blocks_profile_from_bench); NULL: the placeholders
     * zc_blocks_create starts with. */
    const zc_blocks_profile *blocks_profile;
} zc_bench_config;

#define ZC_BENCH_DEVICES_MAX 16

/* The measuring rules of a mode, reported with every result set. */
typedef struct zc_bench_method {
    size_t warmups;         /* samples thrown away first */
    size_t min_samples;     /* bandwidth points: at least this many */
    size_t max_samples;     /* bandwidth points: at most this many */
    double cov_target;      /* stop early once CoV is below this */
    double point_cap_s;     /* and stop once a point has taken this long */
    size_t latency_samples; /* small-copy and launch latency samples */
    size_t pingpong_samples;
    double gate_timeout_s; /* the gate kernel gives up after this */
    double gb_bytes;       /* 1e9 */
} zc_bench_method;

typedef struct zc_bench_ctx zc_bench_ctx;

ZC_BEGIN_DECLS

/* Number of cases in the catalogue. */
ZC_EXTERN size_t zc_bench_case_count(void);

/* Case number index (0 .. count-1); NULL when out of range. */
ZC_EXTERN const zc_bench_case_info *zc_bench_case_at(size_t index);

/* The catalogue entry whose key is key; NULL when none has it (or key is NULL). */
ZC_EXTERN const zc_bench_case_info *zc_bench_case_find(const char *key);

/* The typed name of the case whose key is key; ZC_ERR_NOT_FOUND, naming it, when none has it. */
ZC_EXTERN zc_status zc_bench_case_id_of(const char *key, zc_bench_case_id *id_p);

/*
 * Whether key matches one pattern: with a '*' the pattern is a glob ('*' matches any run of
 * characters, '?' one); without, it matches the key itself or any key it is a dotted prefix of
 * ("copy" and "copy.h2d" match "copy.h2d.pinned"; "copy.h" does not). 1 or 0.
 */
ZC_EXTERN int zc_bench_key_matches(const char *pattern, const char *key);

/*
 * Select cases by a comma-separated list of patterns (NULL or "" selects all): selected[i] is set
 * to 1 or 0 for each of the count (= zc_bench_case_count()) cases. ZC_ERR_NOT_FOUND, naming it,
 * when one pattern matches no case.
 */
ZC_EXTERN zc_status zc_bench_select(const char *patterns, unsigned char *selected, size_t count,
                                    size_t *matched_p);

/*
 * Parse a size list: comma-separated sizes, each a number with an optional suffix K, M, G
 * (binary: KiB, MiB, GiB; "KiB" and "K" alike) or B; "4K,64K,1M". Sizes from 1 byte to 64 GiB,
 * at most capacity of them. ZC_ERR_PARSE naming the bad item.
 */
ZC_EXTERN zc_status zc_bench_sizes_parse(const char *text, size_t *sizes, size_t capacity,
                                         size_t *count_p);

/* Default configuration: device 0, default mode, the mode's sizes, no progress callback. */
ZC_EXTERN void zc_bench_config_init(zc_bench_config *config_p);

/* The measuring rules of a mode (warm-ups, repeats, CoV target, ...). */
ZC_EXTERN zc_status zc_bench_method_get(zc_bench_mode mode, zc_bench_method *method_p);

/* The method in sentences: how every figure is measured and verified. Never NULL. */
ZC_EXTERN const char *zc_bench_method_text(void);

/* Names used in output: "quick", "default", "full"; "ok", "skipped", "FAIL", "error";
 * "GB/s", "us". */
ZC_EXTERN const char *zc_bench_mode_name(zc_bench_mode mode);
ZC_EXTERN const char *zc_bench_outcome_name(zc_bench_outcome outcome);
ZC_EXTERN const char *zc_bench_metric_unit(zc_bench_metric metric);
ZC_EXTERN const char *zc_bench_metric_name(zc_bench_metric metric);

/* Open a run on config->device: selects the device, reads its capabilities, sets up the gate. */
ZC_EXTERN zc_status zc_bench_ctx_create(const zc_bench_config *config, zc_bench_ctx **ctx_p);

/* Free every buffer, stream and event of the run. Accepts NULL. */
ZC_EXTERN void zc_bench_ctx_destroy(zc_bench_ctx *ctx);

/* Tell the context how many cases this run will do, for the progress fraction. */
ZC_EXTERN zc_status zc_bench_ctx_plan(zc_bench_ctx *ctx, size_t case_total);

/*
 * Whether case index can run here: *can_p is 1, or 0 with the reason (a sentence) in reason.
 */
ZC_EXTERN zc_status zc_bench_can_run(zc_bench_ctx *ctx, size_t index, char *reason,
                                     size_t reason_size, int *can_p);

/*
 * Run case index and fill *result_p (free it with zc_bench_result_clear). Returns ZC_OK whenever
 * a result was produced, whatever its outcome: a skip, a FAIL or a CUDA error inside the case is
 * told by result_p->outcome. Fails only on bad arguments or when no result could be made.
 */
ZC_EXTERN zc_status zc_bench_run(zc_bench_ctx *ctx, size_t index, zc_bench_result *result_p);

/* Start an empty result for key (for callers that build result sets, tests among them). */
ZC_EXTERN zc_status zc_bench_result_init(zc_bench_result *result_p, const char *key);

/*
 * Add a point computed from samples (count >= 1) to result: copies the samples and computes
 * their statistics. variant and param_name may be NULL.
 */
ZC_EXTERN zc_status zc_bench_result_add(zc_bench_result *result, const char *variant, size_t bytes,
                                        const char *param_name, double param,
                                        zc_bench_metric metric, double bytes_per_sample,
                                        double ops_per_sample, const double *samples, size_t count,
                                        size_t warmups, int verified);

/* Free a result's points; leaves an empty result. Accepts NULL. */
ZC_EXTERN void zc_bench_result_clear(zc_bench_result *result);

/*
 * The comparison table (DESIGN 4.4: pageable, pinned, write-combined and registered copies;
 * mapped, UVA, managed) from count results of a run, each figure taken from its case by typed
 * name (zc_bench_case_id), so that no key is spelled twice; a case not run or not OK leaves its
 * figures NAN. ZC_ERR_INVALID_ARG for NULL rows, or NULL results with count > 0.
 */
ZC_EXTERN zc_status zc_bench_compare(const zc_bench_result *results, size_t count,
                                     zc_bench_compare_row rows[ZC_BENCH_COMPARE_ROWS]);

ZC_END_DECLS

#endif
