/* SPDX-License-Identifier: Apache-2.0 */
/* Which technique fits a workload: the machine profile, the cost model, the ranking and the
 * GPU runner that validates the predictions. */
#ifndef ZEROCOPY_ADVISE_H
#define ZEROCOPY_ADVISE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zerocopy/bench.h"
#include "zerocopy/blocks.h"
#include "zerocopy/buffer.h"
#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* The kinds of host memory a copy can start from or end in are the memory kinds with
 * ZC_KIND_COPY_SOURCE (zerocopy/buffer.h's list): the profile's copy curves and copy latencies
 * are indexed by zc_buffer_kind and named by its key.
 * Deprecated: zc_host_kind and its values, kept for programs written before; they are the
 * zc_buffer_kind values now (ZC_HOST_PAGEABLE was 0, it is ZC_BUFFER_PAGEABLE, 1). */
typedef zc_buffer_kind zc_host_kind;
#define ZC_HOST_PAGEABLE       ZC_BUFFER_PAGEABLE
#define ZC_HOST_PINNED         ZC_BUFFER_PINNED
#define ZC_HOST_WRITE_COMBINED ZC_BUFFER_WRITE_COMBINED
#define ZC_HOST_REGISTERED     ZC_BUFFER_REGISTERED

/* Which way the data goes. ZC_DIR_BOTH: the input goes to the GPU and a result of the same size
 * comes back. */
typedef enum zc_direction { ZC_DIR_H2D = 0, ZC_DIR_D2H = 1, ZC_DIR_BOTH = 2 } zc_direction;

/* How a kernel walks memory it reads or writes in place. */
typedef enum zc_access {
    ZC_ACCESS_COALESCED = 0, /* consecutive threads, 16-byte loads */
    ZC_ACCESS_STRIDED = 1,   /* one 4-byte word per 128-byte line */
    ZC_ACCESS_RANDOM = 2,    /* 4-byte words at random places */
    ZC_ACCESS_COUNT = 3
} zc_access;

/* The techniques zc advise compares. */
typedef enum zc_technique {
    ZC_TECH_PAGEABLE = 0,   /* cudaMemcpy from malloc'd memory */
    ZC_TECH_PINNED = 1,     /* cudaMemcpyAsync from pinned memory, one transfer at a time */
    ZC_TECH_OVERLAPPED = 2, /* pinned, chunked copies overlapped with the kernel on streams */
    ZC_TECH_MAPPED = 3,     /* the kernel reads and writes mapped pinned memory in place */
    ZC_TECH_REGISTERED = 4, /* malloc'd memory pinned with cudaHostRegister, then copied */
    ZC_TECH_MANAGED = 5,    /* cudaMallocManaged with cudaMemPrefetchAsync both ways */
    ZC_TECH_COUNT = 6
} zc_technique;

/* Most points a measured curve keeps. */
#define ZC_CURVE_MAX_POINTS 32

/* Measured time of one synchronous copy against its size, sizes ascending. */
typedef struct zc_curve {
    size_t count;
    size_t bytes[ZC_CURVE_MAX_POINTS];
    double gbps[ZC_CURVE_MAX_POINTS]; /* bytes / measured time, 1e9 bytes per second */
} zc_curve;

/* Where a figure of a profile came from. Only MEASURED and DERIVED figures are saved as the
 * machine's; an ASSUMED one is listed apart and never shown or plotted as a measurement. */
typedef enum zc_origin {
    ZC_ORIGIN_NONE = 0,     /* not known: 0 */
    ZC_ORIGIN_MEASURED = 1, /* a measured figure, as measured */
    ZC_ORIGIN_DERIVED =
        2,                /* computed from measured figures of this machine (a fit, a difference) */
    ZC_ORIGIN_ASSUMED = 3 /* a stand-in: not measured on this machine */
} zc_origin;

/* The allocation and pinning calls whose cost the model prices (setup) are those of the memory
 * kinds of zerocopy/buffer.h's list: the profile's allocation curves are indexed by
 * zc_buffer_kind, for the kinds zc_alloc_kind_key names (pinned: cudaHostAlloc, registered:
 * cudaHostRegister of touched malloc memory, managed: cudaMallocManaged, device: cudaMalloc).
 * Deprecated: zc_alloc_kind and its values, kept for programs written before; they are the
 * zc_buffer_kind values now (ZC_ALLOC_PINNED was 0, it is ZC_BUFFER_PINNED, 2). */
typedef zc_buffer_kind zc_alloc_kind;
#define ZC_ALLOC_PINNED     ZC_BUFFER_PINNED
#define ZC_ALLOC_REGISTER   ZC_BUFFER_REGISTERED
#define ZC_ALLOC_MANAGED    ZC_BUFFER_MANAGED
#define ZC_ALLOC_DEVICE     ZC_BUFFER_DEVICE
#define ZC_ALLOC_KIND_COUNT ZC_BUFFER_KIND_COUNT

/* Measured time of one call against its size (allocation costs), sizes ascending. */
typedef struct zc_cost_curve {
    size_t count;
    size_t bytes[ZC_CURVE_MAX_POINTS];
    double us[ZC_CURVE_MAX_POINTS];
} zc_cost_curve;

/* One measured `zc stream` run: a mode (and protocol) at one frame size. */
typedef struct zc_stream_point {
    int mode;            /* zc_stream_mode (zerocopy/filter.h) */
    int protocol;        /* zc_ring_protocol for the zerocopy mode; 0 otherwise */
    size_t frame_bytes;  /* input bytes per frame */
    unsigned in_flight;  /* frames in flight at most */
    unsigned gpu_blocks; /* the blocks it ran with */
    double p50_us;       /* frame latency, submit to result */
    double p99_us;
    double gbps; /* input bytes per second / 1e9, over the whole run */
} zc_stream_point;

/* Most stream runs a profile keeps. */
#define ZC_PROFILE_STREAM_MAX 96

/*
 * The scalar figures of a profile: enum name, stable key (as in JSON; "a.b" is member b of
 * object a) and the member. One list, so that reading, writing and provenance cannot drift. The
 * copy latencies are one per copy kind of zerocopy/buffer.h's list, in its order
 * (ZC_PF_COPY_LATENCY_PAGEABLE, _PINNED, _WRITE_COMBINED, _REGISTERED: "copy_latency_us.<key>").
 */
#define ZC__PF_COPY_LATENCY(X, NAME, name, key, copy, ...)                                         \
    ZC_BUFFER_KIND_IF_##copy(                                                                      \
        X(COPY_LATENCY_##NAME, "copy_latency_us." key, copy_latency_us[ZC_BUFFER_##NAME]))
#define ZC_PROFILE_FIELDS(X)                                                                       \
    X(LAUNCH_SYNC_US, "launch_sync_us", launch_sync_us)                                            \
    X(ENQUEUE_US, "enqueue_us", enqueue_us)                                                        \
    X(BOTH_DIRECTIONS_GBPS, "both_directions_gbps", both_directions_gbps)                          \
    ZC_BUFFER_KIND_MAP(ZC__PF_COPY_LATENCY, X)                                                     \
    X(MAPPED_READ_COALESCED, "mapped_read_gbps.coalesced", mapped_read_gbps[ZC_ACCESS_COALESCED])  \
    X(MAPPED_READ_STRIDED, "mapped_read_gbps.strided", mapped_read_gbps[ZC_ACCESS_STRIDED])        \
    X(MAPPED_READ_RANDOM, "mapped_read_gbps.random", mapped_read_gbps[ZC_ACCESS_RANDOM])           \
    X(MAPPED_WRITE_COALESCED, "mapped_write_gbps.coalesced",                                       \
      mapped_write_gbps[ZC_ACCESS_COALESCED])                                                      \
    X(MAPPED_WRITE_STRIDED, "mapped_write_gbps.strided", mapped_write_gbps[ZC_ACCESS_STRIDED])     \
    X(MAPPED_WRITE_RANDOM, "mapped_write_gbps.random", mapped_write_gbps[ZC_ACCESS_RANDOM])        \
    X(MAPPED_LATENCY_US, "mapped_latency_us", mapped_latency_us)                                   \
    X(DEVICE_GBPS, "device_gbps", device_gbps)                                                     \
    X(MANAGED_PREFETCH_GBPS, "managed_prefetch_gbps", managed_prefetch_gbps)                       \
    X(MANAGED_PREFETCH_US, "managed_prefetch_us", managed_prefetch_us)                             \
    X(MANAGED_FIRST_TOUCH_GBPS, "managed_first_touch_gbps", managed_first_touch_gbps)              \
    X(MANAGED_PREFETCHED_GBPS, "managed_prefetched_gbps", managed_prefetched_gbps)                 \
    X(MANAGED_ADVISED_GBPS, "managed_advised_gbps", managed_advised_gbps)                          \
    X(MANAGED_FAULT_US_PER_MIB, "managed_fault_us_per_mib", managed_fault_us_per_mib)              \
    X(MANAGED_CPU_TOUCH_GBPS, "managed_cpu_touch_gbps", managed_cpu_touch_gbps)                    \
    X(HOST_WRITE_GBPS, "host_write_gbps", host_write_gbps)                                         \
    X(PINGPONG_US, "pingpong_us", pingpong_us)                                                     \
    X(OVERLAP_EFFICIENCY, "overlap_efficiency", overlap_efficiency)                                \
    X(ALLOC_PINNED_US_PER_MIB, "alloc_pinned_us_per_mib", alloc_pinned_us_per_mib)                 \
    X(ALLOC_PINNED_FIXED_US, "alloc_pinned_fixed_us", alloc_pinned_fixed_us)                       \
    X(REGISTER_US_PER_MIB, "register_us_per_mib", register_us_per_mib)                             \
    X(REGISTER_FIXED_US, "register_fixed_us", register_fixed_us)                                   \
    X(ALLOC_MANAGED_US_PER_MIB, "alloc_managed_us_per_mib", alloc_managed_us_per_mib)              \
    X(ALLOC_DEVICE_US_PER_MIB, "alloc_device_us_per_mib", alloc_device_us_per_mib)

#define ZC__PROFILE_FIELD_ENUM(name, key, member) ZC_PF_##name,
typedef enum zc_profile_field {
    ZC_PROFILE_FIELDS(ZC__PROFILE_FIELD_ENUM) ZC_PF_COUNT
} zc_profile_field;
#undef ZC__PROFILE_FIELD_ENUM

/*
 * What the cost model needs to know about one machine, every figure measured there. A figure
 * of 0 is "not measured"; zc_profile_fill_gaps derives what it can and says what it assumed.
 * origin[] says for every scalar figure where it came from, copy_origin[] for every curve.
 */
typedef struct zc_profile {
    char device_name[128]; /* as cudaDeviceProp.name, cut to fit */
    char source[256];      /* where the figures came from: a file, "zc bench --quick", ... */

    /* [zc_buffer_kind][ZC_DIR_H2D or ZC_DIR_D2H]: the copy kinds' rows (ZC_KIND_COPY_SOURCE);
     * the other kinds' stay empty. */
    zc_curve copy[ZC_BUFFER_KIND_COUNT][2];
    double copy_latency_us[ZC_BUFFER_KIND_COUNT]; /* the fixed cost of one copy queued between
                                                     other GPU work (not the round trip) */
    double launch_sync_us;                        /* empty kernel launch + cudaStreamSynchronize */
    double enqueue_us; /* one operation queued in a stream (a copy, a launch, an event): what it
                          adds to the stream and to the host that queues it */
    double both_directions_gbps;               /* H2D and D2H at once, total */
    double mapped_read_gbps[ZC_ACCESS_COUNT];  /* kernel reading mapped host memory */
    double mapped_write_gbps[ZC_ACCESS_COUNT]; /* kernel writing mapped host memory */
    double mapped_latency_us;                  /* one dependent read of mapped memory */
    double device_gbps;                        /* kernel reading device memory */
    double managed_prefetch_gbps;              /* cudaMemPrefetchAsync host to device */
    double managed_prefetch_us;                /* fixed cost of one prefetch */
    double managed_first_touch_gbps;           /* GPU faulting pages in without prefetch */
    double managed_prefetched_gbps;            /* kernel reading managed pages on the GPU */
    double managed_advised_gbps;     /* kernel reading pages advised to stay on the host */
    double managed_fault_us_per_mib; /* what faulting a MiB in costs beyond reading it */
    double managed_cpu_touch_gbps;   /* CPU writing pages that live on the GPU */
    double host_write_gbps;          /* CPU filling its own memory (the runner's fill) */
    double pingpong_us;              /* CPU-GPU flag round trip through mapped memory */
    double overlap_efficiency;       /* 0..1: how much of copy and compute overlap */
    double alloc_pinned_us_per_mib;  /* cudaHostAlloc */
    double alloc_pinned_fixed_us;
    double register_us_per_mib; /* cudaHostRegister of touched malloc memory */
    double register_fixed_us;
    double alloc_managed_us_per_mib; /* cudaMallocManaged */
    double alloc_device_us_per_mib;  /* cudaMalloc */

    zc_cost_curve alloc[ZC_BUFFER_KIND_COUNT]; /* measured allocation times by size, when known:
                                                 the model prefers them to the straight line */
    zc_curve device_curve[2];    /* the kernel reading [0] and writing [1] device memory, by size:
                                    small kernels are launch-bound, far below device_gbps */
    zc_cost_curve mapped_reread; /* what one more pass over mapped memory costs a kernel, by
                                    size (us): small buffers are read again from the GPU's cache */
    zc_stream_point stream[ZC_PROFILE_STREAM_MAX]; /* `zc stream` runs, for stream advice */
    size_t stream_count;

    unsigned char origin[ZC_PF_COUNT];                  /* zc_origin of each scalar figure */
    unsigned char copy_origin[ZC_BUFFER_KIND_COUNT][2]; /* zc_origin of each copy curve */
    unsigned char alloc_origin[ZC_BUFFER_KIND_COUNT];   /* zc_origin of each cost curve */
    unsigned char device_origin[2];                     /* of device_curve */
    unsigned char mapped_reread_origin;                 /* of mapped_reread */

    /* Added since: the struct only grows at its end. */
    zc_cost_curve managed_transfer[2]; /* one managed transfer by size (us), as managed.transfer
                                          measured it: [ZC_DIR_H2D] the CPU's writes into pages
                                          the GPU holds beyond the same writes on the host, the
                                          prefetch and a kernel's read; [ZC_DIR_D2H] the prefetch
                                          there, a kernel's write and the prefetch back. Each
                                          holds one launch and one synchronisation. */
    unsigned char managed_transfer_origin[2];
    zc_cost_curve host_fill; /* the CPU filling its own, touched memory the runner's way, by size
                                (us): small inputs stay in its caches, large ones go at the
                                memory's rate (host_write_gbps is the largest point's) */
    unsigned char host_fill_origin;
    zc_cost_curve
        alloc_pinned_beside; /* cudaHostAlloc while another block of the size is alive,
                                by size (us): a program's second and later small pinned
                                buffers, which the driver carves from the chunk the
                                first one brought (alloc[ZC_BUFFER_PINNED] is the first) */
    unsigned char alloc_pinned_beside_origin;
    zc_cost_curve managed_transfer_both; /* one managed transfer both ways by size (us), an input
                                            and a result of its own, as managed.transfer's "both"
                                            measured it (the CPU's writes beyond the same writes
                                            on the host, both buffers' prefetches, the kernels,
                                            the result's prefetch back, one synchronisation) */
    unsigned char managed_transfer_both_origin;
    zc_curve device_walk[2][2]; /* a kernel walking device memory word by word, by size (GB/s):
                                   [0] strided, [1] random, as zc advise's workload kernel walks
                                   for those patterns (device.read.strided and the like); each
                                   [0] read, [1] write. device_curve is the coalesced kernel. */
    unsigned char device_walk_origin[2][2];
    zc_curve mapped_walk[2][2]; /* the same walks over mapped host memory, every word across the
                                   link (zerocopy.*.walk-strided, zerocopy.*.walk-random): [0]
                                   strided, [1] random; each [0] read, [1] write */
    unsigned char mapped_walk_origin[2][2];
    zc_cost_curve mapped_walk_reread[2]; /* what one more pass of those walks over mapped memory
                                            costs a kernel, by size (us): [0] strided, [1]
                                            random; the GPU's cache keeps a small buffer's
                                            lines for the next pass, not a large one's */
    unsigned char mapped_walk_reread_origin[2];
    zc_cost_curve copy_alone[2][2]; /* one synchronous cudaMemcpy and nothing else, by size (us,
                                       host clock), as latency.copy.* measured it: [0] pageable,
                                       [1] pinned; each [ZC_DIR_H2D], [ZC_DIR_D2H]. Their
                                       difference is what a pageable copy costs beyond a pinned
                                       one between other work (a small one to the GPU returns
                                       once staged, one back waits for the copy out) */
    unsigned char copy_alone_origin[2][2];
} zc_profile;

/* The largest transfer a workload may name as a size text ("4KiB", "1.5M"): 1 TiB. */
#define ZC_WORKLOAD_BYTES_MAX ((uint64_t)1 << 40)

/* The most transfers a workload may count, 10^15: every count up to it is exact in a double,
 * and its predicted time stays finite (a second per transfer would be 30 million years). */
#define ZC_WORKLOAD_TRANSFERS_MAX ((uint64_t)1000000000000000)

/* What the user's program does. */
typedef struct zc_workload {
    size_t bytes;     /* per transfer */
    double transfers; /* how many, a whole number; 0 with rate_hz set: one second's worth */
    double rate_hz;   /* transfers arriving per second; 0: back to back */
    zc_direction direction;
    double gpu_accesses;      /* how many times the GPU reads (h2d) or writes (d2h) each byte */
    zc_access pattern;        /* how the kernel walks the data */
    int concurrent;           /* 1: CPU and GPU touch the data at the same time (a persistent
                                 kernel polls it) */
    double latency_budget_us; /* per transfer; 0: none */
} zc_workload;

/* The predicted cost of one technique for one workload. Times in microseconds. */
typedef struct zc_prediction {
    zc_technique technique;
    int usable;             /* 0 when the profile lacks what the technique needs */
    double per_transfer_us; /* one transfer from start to result (its latency) */
    double steady_us;       /* what one more transfer adds when they run back to back */
    double setup_us;        /* allocation or registration, once */
    double total_us;        /* setup + all transfers */
    double fixed_us;        /* launches, synchronisation and per-copy costs in per_transfer */
    double link_us;         /* bytes crossing PCIe in per_transfer */
    double compute_us;      /* the kernel's accesses in per_transfer */
    double cpu_us;          /* the CPU filling the input in per_transfer */
    int meets_budget;       /* 1 when per_transfer_us fits the latency budget (or none) */
    int meets_rate;         /* 1 when steady_us fits 1 / rate (or no rate) */
} zc_prediction;

/* All techniques ranked, best first, and why the first one wins. */
typedef struct zc_recommendation {
    zc_prediction ranked[ZC_TECH_COUNT];
    size_t count;
    char explanation[512];
} zc_recommendation;

/* One measured run of a workload with one technique (zc_advise_run). */
typedef struct zc_measurement {
    zc_technique technique;
    double transfers;       /* how many were timed */
    double setup_us;        /* allocation or registration, measured once */
    double per_transfer_us; /* median over the timed repeats, one transfer at a time */
    double total_us;        /* setup + measured time of workload.transfers, scaled */
    int verified;           /* 1 when the result matched the input */
} zc_measurement;

ZC_BEGIN_DECLS

/* A profile with every figure unmeasured (0) and empty curves. */
ZC_EXTERN zc_status zc_profile_init(zc_profile *profile_p);

/* Add one point (size, GB/s) to a curve, kept sorted by size; a repeated size replaces the
 * point. Fails when the curve is full or the figures are not positive. */
ZC_EXTERN zc_status zc_curve_add(zc_curve *curve, size_t bytes, double gbps);

/*
 * Time in microseconds of one synchronous copy of bytes along a measured curve: linear between
 * measured points (time is close to affine in size), the last point's rate beyond the largest,
 * and the smallest point's time below it. ZC_ERR_NOT_FOUND when the curve is empty.
 */
ZC_EXTERN zc_status zc_curve_time_us(const zc_curve *curve, size_t bytes, double *us_p);

/*
 * Derive figures the model needs from those measured (copy latency from the curves, registered
 * and write-combined curves from pinned, ...) and write into notes (may be NULL) one line per
 * assumption made. A profile without a pinned H2D curve or launch_sync_us cannot be completed:
 * ZC_ERR_INVALID_ARG naming what is missing.
 */
ZC_EXTERN zc_status zc_profile_fill_gaps(zc_profile *profile, char *notes, size_t notes_size);

/* Check a workload: bytes > 0, accesses >= 1, known enums, finite non-negative figures, a whole
 * number of transfers and at most ZC_WORKLOAD_TRANSFERS_MAX in all (one second at rate_hz too). */
ZC_EXTERN zc_status zc_workload_check(const zc_workload *workload);

/* How many transfers the workload totals (transfers, or one second at rate_hz, or 1). */
ZC_EXTERN double zc_workload_transfer_count(const zc_workload *workload);

/* Predict one technique's cost for a workload on a completed profile. */
ZC_EXTERN zc_status zc_advise_predict(const zc_profile *profile, const zc_workload *workload,
                                      zc_technique technique, zc_prediction *prediction_p);

/*
 * Predict every technique, rank them (those meeting the latency budget and rate first, then by
 * total time) and explain the first choice in one or two sentences with the numbers.
 * ZC_ERR_INVALID_ARG when no technique can be predicted: the profile lacks the figures, or the
 * predicted time overflows (the detail says which).
 */
ZC_EXTERN zc_status zc_advise_rank(const zc_profile *profile, const zc_workload *workload,
                                   zc_recommendation *recommendation_p);

/* Stable key of a technique ("pageable", "pinned", "overlapped", "mapped", "registered",
 * "managed"); NULL when out of range. */
ZC_EXTERN const char *zc_technique_key(zc_technique technique);

/* Human name of a technique ("pinned copy overlapped on streams"). */
ZC_EXTERN const char *zc_technique_title(zc_technique technique);

/* The technique for a key; ZC_ERR_NOT_FOUND when unknown. */
ZC_EXTERN zc_status zc_technique_from_key(const char *key, zc_technique *technique_p);

/* Keys of the enums, for input and output ("h2d", "coalesced", "pinned" ...). */
ZC_EXTERN const char *zc_direction_key(zc_direction direction);
ZC_EXTERN const char *zc_access_key(zc_access access);
ZC_EXTERN zc_status zc_direction_from_key(const char *key, zc_direction *direction_p);
ZC_EXTERN zc_status zc_access_from_key(const char *key, zc_access *access_p);

/* The copy kind (a zc_buffer_kind with ZC_KIND_COPY_SOURCE) whose key is key;
 * ZC_ERR_NOT_FOUND for any other ("mapped" is a memory kind, not one copies start from). */
ZC_EXTERN zc_status zc_copy_kind_from_key(const char *key, zc_buffer_kind *kind_p);

/* Deprecated, for programs written against zc_host_kind: the key of a copy kind (NULL for any
 * other value), the kind itself when it is a copy kind (else ZC_BUFFER_UNKNOWN), and
 * zc_copy_kind_from_key. */
ZC_EXTERN const char *zc_host_kind_key(zc_host_kind kind);
ZC_EXTERN zc_buffer_kind zc_host_kind_buffer_kind(zc_host_kind kind);
ZC_EXTERN zc_status zc_host_kind_from_key(const char *key, zc_host_kind *kind_p);

/*
 * Run the workload for real on GPU device with one technique and measure it: the same steps
 * the model prices (CPU fills the input, data moves, a kernel reads each byte
 * workload->gpu_accesses times, the result comes back), at most max_seconds of timed work
 * (the total is scaled from the transfers timed). Concurrent workloads are run one transfer at
 * a time with a launched kernel. ZC_ERR_VERIFY when the result is wrong.
 */
ZC_EXTERN zc_status zc_advise_run(int device, const zc_workload *workload, zc_technique technique,
                                  double max_seconds, zc_measurement *measurement_p);

/* The rate at which this CPU fills its own, already touched memory the way the runner's
 * producer does (GB/s), at 64 MiB, the median of nine after a warm-up; a CPU-only measurement
 * of about 0.4 s. */
ZC_EXTERN zc_status zc_advise_measure_host_write(double *gbps_p);

/* What this CPU takes to fill its own, already touched memory the way the runner's producer
 * does, at sizes from 4 KiB to 64 MiB (us per fill, the median of several after a warm-up long
 * enough for the CPU's clock to settle), into *curve_p; a CPU-only measurement of about 0.5 s. */
ZC_EXTERN zc_status zc_advise_measure_host_fill(zc_cost_curve *curve_p);

/* The rate at which this CPU writes managed memory whose pages the GPU holds (each faults back
 * first), as the runner's managed transfers do; about 0.1 s on GPU device. zc bench measures
 * the GPU's faults only. ZC_ERR_UNSUPPORTED without concurrentManagedAccess. */
ZC_EXTERN zc_status zc_advise_measure_managed_touch(int device, double *gbps_p);

/* ---- The profile's figures by name, and where each came from ---- */

/* Stable key of a scalar figure ("launch_sync_us", "copy_latency_us.pinned"); NULL out of
 * range. */
ZC_EXTERN const char *zc_profile_field_key(zc_profile_field field);

/* The field whose key is key; ZC_ERR_NOT_FOUND when none. */
ZC_EXTERN zc_status zc_profile_field_from_key(const char *key, zc_profile_field *field_p);

/* The figure itself, to read or set; NULL for a NULL profile or a field out of range. */
ZC_EXTERN double *zc_profile_field_value(zc_profile *profile, zc_profile_field field);

/* Set a figure and its origin together. ZC_ERR_INVALID_ARG for a value not finite or < 0. */
ZC_EXTERN zc_status zc_profile_set(zc_profile *profile, zc_profile_field field, double value,
                                   zc_origin origin);

/* "none", "measured", "derived", "assumed"; NULL out of range. */
ZC_EXTERN const char *zc_origin_key(zc_origin origin);
ZC_EXTERN zc_status zc_origin_from_key(const char *key, zc_origin *origin_p);

/* The key of a memory kind's allocation curve in the profile document: "pinned", "register",
 * "managed", "device"; NULL for a kind the model prices no allocation of. */
ZC_EXTERN const char *zc_alloc_kind_key(zc_buffer_kind kind);

/* Add one measured (size, microseconds) point to a cost curve, kept sorted; a repeated size
 * replaces the point. */
ZC_EXTERN zc_status zc_cost_curve_add(zc_cost_curve *curve, size_t bytes, double us);

/* Microseconds one call of the kind costs for bytes: along the measured curve when the profile
 * has one (linear between points, the last two points' slope beyond), else the fixed and
 * per-MiB figures. *us_p is 0 when neither is known. */
ZC_EXTERN zc_status zc_profile_alloc_us(const zc_profile *profile, zc_buffer_kind kind,
                                        size_t bytes, double *us_p);

/*
 * Build a profile from `zc bench` results in memory (results[0 .. count-1], any order; each
 * found by its typed name, zc_bench_case_id_of(result->key)): the copy curves of every host
 * kind, latencies, zero-copy, managed (first touch, prefetch, prefetched, advised), overlap
 * (overlap.pipeline) and allocation (alloc.cost) figures, each marked MEASURED or DERIVED.
 * Results that are not ZC_BENCH_OK are left out. notes (may be NULL) get one line per case the
 * model could use and did not find. ZC_ERR_INVALID_ARG naming what is missing when the results
 * lack the pinned H2D copies or the launch latency, which the model needs.
 */
ZC_EXTERN zc_status zc_profile_from_bench(const zc_bench_result *results, size_t count,
                                          zc_profile *profile_p, char *notes, size_t notes_size);

/*
 * The bench cases zc_profile_from_bench reads, for a caller that runs only those
 * (zc advise without a profile): ids[0 .. *count_p - 1], at most capacity of them.
 */
ZC_EXTERN zc_status zc_profile_bench_cases(zc_bench_case_id *ids, size_t capacity, size_t *count_p);

/*
 * Measure a profile on GPU device with the bench engine, in process: the cases
 * zc_profile_bench_cases names, in mode (ZC_BENCH_QUICK: seconds), then zc_profile_from_bench.
 * progress (may be NULL) is told of each case. The profile is not completed (call
 * zc_profile_fill_gaps); notes get the cases that did not run or failed, with why.
 */
ZC_EXTERN zc_status zc_profile_measure(int device, zc_bench_mode mode,
                                       zc_bench_progress_fn progress, void *progress_user,
                                       zc_profile *profile_p, char *notes, size_t notes_size);

/* The same with the bench run configured in full (config->device, mode, progress, the gate's
 * timeout, ungated for tools that run one kernel at a time); its sizes and devices are not
 * used: the profile's cases run at their own sizes, on config->device. */
ZC_EXTERN zc_status zc_profile_measure_config(const zc_bench_config *config, zc_profile *profile_p,
                                              char *notes, size_t notes_size);

/* ---- Stream advice: which zc stream mode for a frame size and a rate ---- */

/* A stream workload: frames of frame_bytes arriving at rate_hz (0: as fast as possible). */
typedef struct zc_stream_workload {
    size_t frame_bytes;
    double rate_hz;
} zc_stream_workload;

/* One mode (and protocol) priced for a stream workload from the profile's zc stream runs. */
typedef struct zc_stream_option {
    int mode;            /* zc_stream_mode */
    int protocol;        /* zc_ring_protocol (zerocopy), else 0 */
    int usable;          /* 0: the profile has no run of this mode */
    unsigned gpu_blocks; /* the blocks of the nearest measured run */
    unsigned in_flight;  /* the frames in flight that give gbps */
    double p50_us;       /* expected latency, one frame in flight (interpolated in size) */
    double p99_us;
    double gbps;          /* expected input GB/s with in_flight frames (interpolated) */
    double max_hz;        /* frames per second it can take: gbps / frame size */
    int meets_rate;       /* 1 when max_hz >= the rate (or no rate) */
    size_t nearest_bytes; /* the measured frame size nearest the workload's */
} zc_stream_option;

/* Most rows a stream ranking has: every mode, the zerocopy mode once per protocol. */
#define ZC_STREAM_OPTION_MAX 16

typedef struct zc_stream_advice {
    zc_stream_option ranked[ZC_STREAM_OPTION_MAX];
    size_t count;
    char explanation[512];
} zc_stream_advice;

/* "zerocopy-ll", "zerocopy-flag", "mapped-launch", ... (the names zc stream's runs have):
 * zc_stream_run_name (zerocopy/filter.h) for advice's int mode and protocol, any protocol but
 * LL read as FLAG. */
ZC_EXTERN zc_status zc_stream_option_name(int mode, int protocol, char *out, size_t size);

/*
 * Rank every stream mode for the workload from the profile's zc stream runs: with a rate, those
 * that keep it first, by latency (p50); as fast as possible, by input GB/s. Every mode of
 * zc_stream_mode is a row (zerocopy once per protocol); a mode with no run near the frame size
 * (between two measured sizes, or within a factor of 4 of one) is ranked last, usable 0.
 * ZC_ERR_NOT_FOUND when no mode has one.
 */
ZC_EXTERN zc_status zc_stream_advise(const zc_profile *profile, const zc_stream_workload *workload,
                                     zc_stream_advice *advice_p);

/* Add one zc stream run to the profile (a repeated mode, protocol, size and in-flight count
 * replaces the run). ZC_ERR_OVERFLOW when full. */
ZC_EXTERN zc_status zc_profile_add_stream(zc_profile *profile, const zc_stream_point *point);

/* Stream advice held against zc stream runs that the profile did not see. */
typedef struct zc_stream_check {
    zc_stream_workload workload;
    zc_stream_advice advice; /* from the profile */
    zc_stream_option pick;   /* the advice's first row, as the checked runs measured it */
    zc_stream_option best;   /* the checked runs' best row */
    double noise;            /* how far the same modes moved between the profile's runs and
                                the checked ones (relative; at least 3%) */
    int pick_wins;           /* the advice is the checked runs' best */
    int pick_tied;           /* ... or within the noise of it */
} zc_stream_check;

/* Advise the workload from profile and judge the advice by the runs of measured (a profile
 * holding only other zc stream runs of the same sizes): with a rate by latency (p50), as fast
 * as possible by input GB/s. */
ZC_EXTERN zc_status zc_stream_check_advice(const zc_profile *profile, const zc_profile *measured,
                                           const zc_stream_workload *workload,
                                           zc_stream_check *check_p);

/* ---- Validation: workloads run for real with every technique, against the model ---- */

/* Most rounds one validation interleaves. */
#define ZC_VALIDATION_ROUNDS_MAX 16

/* One named workload of a validation set. */
typedef struct zc_validation_workload {
    char name[48];
    zc_workload workload;
} zc_validation_workload;

/* The twelve fixed workloads, varied in size, direction, reuse and pattern. */
ZC_EXTERN size_t zc_validation_fixed_count(void);
ZC_EXTERN const zc_validation_workload *zc_validation_fixed_at(size_t index);

/* Workload index of the random set of seed: the same seed and index give the same workload on
 * every machine. Sizes 4 KiB to 64 MiB, every direction and pattern, 1 to 32 accesses. */
ZC_EXTERN zc_status zc_validation_random(unsigned long long seed, size_t index,
                                         zc_validation_workload *workload_p);

/* One technique of one workload: predicted, and measured in every round. */
typedef struct zc_validation_technique {
    int ran;       /* 1 measured, 0 not usable in the profile, -1 a run failed */
    char why[192]; /* when a run failed */
    zc_prediction predicted;
    size_t rounds;                             /* rounds measured */
    double total_us[ZC_VALIDATION_ROUNDS_MAX]; /* each round's measured total, in round order */
    double median_us;                          /* the median of the rounds' totals */
    double noise;           /* relative standard error of that median (robust: from the MAD) */
    double setup_us;        /* median measured setup */
    double per_transfer_us; /* median measured time of one transfer alone */
    double error;           /* (predicted - median) / median */
} zc_validation_technique;

/* One workload's verdict. */
typedef struct zc_validation_result {
    zc_validation_workload workload;
    zc_recommendation rec;
    zc_validation_technique tech[ZC_TECH_COUNT]; /* by technique */
    int winner;         /* the technique of the lowest median; -1 when none ran */
    int runner_up;      /* the next; -1 when fewer than two ran */
    double margin;      /* (runner-up - winner) / winner, medians */
    double noise;       /* the noise a difference to the winner must beat (relative to it) */
    int pick_wins;      /* the recommendation is the winner */
    int pick_tied;      /* ... or within the noise of it */
    int runner_up_tied; /* the runner-up is within the noise of the winner */
} zc_validation_result;

/* The summary of a validation. */
typedef struct zc_validation_summary {
    size_t workloads;
    size_t pick_wins;         /* recommendation measured fastest */
    size_t pick_wins_or_tied; /* ... or within the noise of it */
    size_t pick_within_20pct; /* the recommendation's prediction within 20% of its median */
    size_t techniques_measured;
    double median_abs_error; /* over every technique measured */
    double max_abs_error;
    size_t rounds;
    double host_write_gbps; /* the CPU's fill rate the predictions used: measured here when the
                               profile had none measured */
    double managed_cpu_touch_gbps; /* the CPU's writes into GPU-held managed pages, the same */
} zc_validation_summary;

/* Called after each workload: done of total, the workload's name. */
typedef void (*zc_validation_progress_fn)(void *user, size_t done, size_t total,
                                          const zc_validation_result *result);

/* How a validation runs. */
typedef struct zc_validation_config {
    int device;
    size_t rounds;          /* interleaved rounds per workload, 1..ZC_VALIDATION_ROUNDS_MAX */
    double seconds_per_run; /* timed work per technique and round */
    zc_validation_progress_fn progress;
    void *progress_user;
} zc_validation_config;

/* rounds 5, 0.04 s per run, device 0. */
ZC_EXTERN void zc_validation_config_init(zc_validation_config *config_p);

/*
 * Run each of the count workloads on the GPU with every technique the profile can price:
 * rounds interleaved (A B C .. A B C ..: the order turns by one each round, so that no
 * technique always runs first), the median of each technique's totals, and a tie when a
 * technique's median is within the measured noise of the winner's. results[i] for workload
 * i, *summary_p over all. ZC_ERR_VERIFY when a run's data was wrong (the others still run);
 * ZC_ERR_NO_DEVICE without a GPU.
 */
ZC_EXTERN zc_status zc_advise_validate(const zc_profile *profile,
                                       const zc_validation_workload *workloads, size_t count,
                                       const zc_validation_config *config,
                                       zc_validation_result *results,
                                       zc_validation_summary *summary_p);

/* Recompute the verdicts (winner, ties, summary) of results whose rounds are filled in; the
 * part of zc_advise_validate that needs no GPU, apart for tests. */
ZC_EXTERN zc_status zc_validation_judge(zc_validation_result *results, size_t count,
                                        zc_validation_summary *summary_p);

/* The comparison table in Markdown: the summary, per workload the winner, runner-up, margin,
 * noise and whether the advice picked either, then every technique's prediction against its
 * median. title heads it. */
ZC_EXTERN zc_status zc_validation_markdown(const zc_profile *profile, const char *title,
                                           const zc_validation_result *results, size_t count,
                                           const zc_validation_summary *summary, FILE *out);

/* ---- Advice for a traced program: its copies grouped into workloads, each one priced ---- */

/* One class of copies a trace measured, as its document names it (docs/json.md,
 * zerocopy.trace/1 "copy_classes", or a whole "paths" entry when the document has no classes). */
typedef struct zc_traced_copies {
    char direction[8]; /* "h2d", "d2h", "d2d", "p2p", "h2h", "h2a", ... */
    char src_kind[24]; /* "pageable", "pinned", "device", "managed", "array", "unknown", ... */
    char dst_kind[24];
    uint64_t count;       /* copies */
    uint64_t async_count; /* of them, issued by asynchronous calls */
    uint64_t bytes;       /* all of them together */
    uint64_t bytes_min;   /* the smallest and largest copy; both 0 when the document gives only */
    uint64_t bytes_max;   /* totals (then the mean size, bytes / count, stands for each) */
    double time_s;        /* the sum of their durations on the GPU */
} zc_traced_copies;

/* What zc_advise_traced reads of a traced program. */
typedef struct zc_traced_program {
    const zc_traced_copies *copies;
    size_t copy_count;
    double span_s;           /* first GPU activity to last end; 0 when unknown */
    int sized;               /* 1: copies are size classes; 0: per-path totals */
    uint64_t managed_bytes;  /* bytes migrated on demand (unified-memory counters) */
    uint64_t managed_faults; /* fault records */
    uint64_t mapped_bytes;   /* host memory pinned with the mapped flag by the program */
    int mapped_reads;        /* 1: kernels were seen reading mapped host memory */
    int pinning_in_loop;     /* 1: the trace found pinned memory allocated in a loop */
    uint64_t pinning_calls;  /* the calls that finding rests on */
    double pinning_time_s;   /* the time they took */
    double pinning_saving_s; /* what its fix saves at most; negative when not known */
} zc_traced_program;

/* Most groups and unpriced lines one advice holds; what does not fit is folded into the last
 * line ("more ..."), never dropped. */
#define ZC_TRACE_GROUP_MAX    64
#define ZC_TRACE_UNPRICED_MAX 32

/* The `zc run --fix` list that cures a group, at most this long ("pageable,register"). */
#define ZC_TRACE_CURE_MAX 32

/*
 * One workload a traced program forms: copies of one direction (h2d or d2h) from one host
 * memory kind whose sizes fall in one power-of-two class [2^k, 2^(k+1)), priced for every
 * technique as zc_advise_predict prices workload.
 */
typedef struct zc_trace_group {
    zc_workload workload;     /* bytes: the group's mean copy size; transfers: its count;
                                 one GPU access per byte, coalesced, back to back */
    zc_buffer_kind host_kind; /* ZC_BUFFER_PAGEABLE or ZC_BUFFER_PINNED (the trace calls
                                 registered and write-combined memory pinned too) */
    uint64_t size_class;      /* 2^k: every copy of the group is 2^k to 2^(k+1) - 1 bytes */
    uint64_t bytes_min, bytes_max;
    uint64_t count, bytes, async_count;
    double rate_hz;     /* count over the program's GPU span; 0 when the span is unknown */
    int reuse;          /* 1 the same host buffer is copied again, 0 not, -1 the trace does
                           not say (it records no host addresses of copies) */
    double measured_us; /* the sum of the copies' GPU durations, as traced */
    zc_technique current;
    zc_prediction predicted[ZC_TECH_COUNT]; /* by technique */
    double now_us;                          /* predicted[current].total_us */
    double copies_us;  /* the current technique's copies alone on the GPU, as the trace
                          measures them: count times the copy curve's time at the group's size */
    zc_technique best; /* the usable technique of the lowest total */
    double best_us;
    double saving_us;             /* now_us - best_us, at least 0 */
    char cure[ZC_TRACE_CURE_MAX]; /* `zc run --fix` list that applies; "" when none */
} zc_trace_group;

/* A part of the program the advice could not price: what it is, how much, and why. */
typedef struct zc_trace_unpriced {
    char what[64];
    uint64_t count;
    uint64_t bytes;
    double time_s; /* as traced; 0 when the trace does not time it */
    char why[192];
} zc_trace_unpriced;

/* The advice for a traced program: its groups (by direction, host kind, size), the totals and
 * what was left unpriced. */
typedef struct zc_trace_advice {
    zc_trace_group groups[ZC_TRACE_GROUP_MAX];
    size_t group_count;
    zc_trace_unpriced unpriced[ZC_TRACE_UNPRICED_MAX];
    size_t unpriced_count;
    double span_s;
    int sized;          /* 0: the document gave per-path totals, each priced at its mean size */
    double measured_us; /* over the groups */
    double now_us;
    double best_us;
    double saving_us;
    char pinning_cure[ZC_TRACE_CURE_MAX]; /* "pinning" when pinned memory is allocated in a
                                             loop, else "" */
    double pinning_saving_s;              /* what that cure saves at most; negative: not known */
} zc_trace_advice;

/*
 * Group a traced program's copies into workloads and price each for every technique on a
 * completed profile: the group's current technique, its predicted time now, every
 * alternative's, the best and the saving, the `zc run` cure; the totals; and each part it
 * could not price with the reason (other directions, kinds without a curve, managed and mapped
 * memory used in place, groups beyond ZC_TRACE_GROUP_MAX). ZC_ERR_INVALID_ARG for NULL, a
 * class whose figures disagree (bytes below count * bytes_min, ...) or a span not finite.
 */
ZC_EXTERN zc_status zc_advise_traced(const zc_profile *profile, const zc_traced_program *program,
                                     zc_trace_advice *advice_p);

/* ---- The block mover: its profile fitted from zc bench's block family, its engines ranked ---- */

/* Where a fit came from and how well it holds its points (zc_blocks_profile_from_bench). Index
 * [0] is to the device (blocks.h2d), [1] to the host (blocks.d2h); engines by zc_blocks_engine. */
typedef struct zc_blocks_fit {
    size_t points[2][ZC_BLOCKS_ENGINE_COUNT]; /* the points each engine's fit rests on */
    double worst[2][ZC_BLOCKS_ENGINE_COUNT];  /* its largest |predicted - measured| / measured
                                                 time over them */
    size_t bytes_min, bytes_max;              /* the block sizes measured */
    size_t total_min, total_max;              /* the bytes of one move, smallest and largest */
    unsigned sms; /* the SMs the kernel engine ran on; 0 when the caller did not know */
} zc_blocks_fit;

/*
 * Fit the mover's profile to the medians of zc bench's blocks.h2d and blocks.d2h points (the
 * variants "copy", "batch" and "kernel"; "naive" and "auto: ..." are not an engine forced):
 * for each engine and direction, the least-squares fit of time = calls * call_us + blocks *
 * block_us + bytes / (gbps * 1e3) in relative error, no cost negative. sms: the SMs the kernel
 * engine ran on when measured (kernel_sm_gbps is its bandwidth over them); 0 when not known,
 * then the SM limit never caps the fitted bandwidth. measured = 1. fit_p may be NULL.
 * Refused: no blocks.h2d or blocks.d2h results (ZC_ERR_NOT_FOUND); an engine with fewer than
 * 3 points of 2 block sizes in a direction (ZC_ERR_NOT_FOUND: zc bench --quick measures one
 * size); a point of no size or count, or a median that is not a finite positive GB/s, or points
 * that no costs of that form fit (ZC_ERR_INVALID_ARG); each with a detail naming the point.
 */
ZC_EXTERN zc_status zc_blocks_profile_from_bench(const zc_bench_result *results, size_t count,
                                                 unsigned sms, zc_blocks_profile *profile_p,
                                                 zc_blocks_fit *fit_p);

/* A block move to price: count blocks of block_bytes each way dir names. */
typedef struct zc_blocks_workload {
    size_t block_bytes;
    size_t count; /* blocks per direction */
    zc_blocks_dir dir;
    unsigned sms; /* the kernel engine's SMs; 0: ZC_BLOCKS_DEFAULT_MAX_SMS, as the mover */
} zc_blocks_workload;

/* One engine priced. */
typedef struct zc_blocks_option {
    zc_blocks_engine engine;
    double predicted_us;
    double gbps;  /* the bytes of every direction over the predicted time (1e9 B/s) */
    size_t calls; /* copies, batches or launches */
} zc_blocks_option;

/* The engines ranked for a block move, fastest first. */
typedef struct zc_blocks_advice {
    zc_blocks_option ranked[ZC_BLOCKS_ENGINE_COUNT - 1];
    size_t count;
    zc_blocks_engine choice; /* the mover's (zc_blocks_plan): the least predicted time, the
                                earlier engine of the list on a tie */
    int outside;             /* 1: block size or move smaller or larger than the fit measured */
} zc_blocks_advice;

/*
 * Price every engine of the list for the move with the mover's own cost model, as if every one
 * could reach the memory (pinned host memory mapped for the device, a stream of the mover's
 * own, cudaMemcpyBatchAsync present), and rank them. fit (may be NULL) sets outside.
 * ZC_ERR_INVALID_ARG for NULL, a size, count or direction of none, or a profile
 * zc_blocks_set_profile would refuse; ZC_ERR_OVERFLOW when the move's bytes overflow.
 */
ZC_EXTERN zc_status zc_blocks_advise(const zc_blocks_profile *profile, const zc_blocks_fit *fit,
                                     const zc_blocks_workload *workload,
                                     zc_blocks_advice *advice_p);

/* A memory-bound kernel's loss beside each engine, from zc bench's blocks.beside points. */
typedef struct zc_blocks_beside {
    size_t block_bytes;                  /* the measured block size it comes from */
    size_t count;                        /* blocks each way at that size */
    double alone_gbps;                   /* the kernel alone */
    double loss[ZC_BLOCKS_ENGINE_COUNT]; /* 1 - beside / alone by engine; NAN: not measured */
} zc_blocks_beside;

/* The blocks.beside point nearest block_bytes (in ratio; the smaller on a tie).
 * ZC_ERR_NOT_FOUND when the results have none; ZC_ERR_INVALID_ARG for a median that is not a
 * finite positive GB/s. */
ZC_EXTERN zc_status zc_blocks_beside_from_bench(const zc_bench_result *results, size_t count,
                                                size_t block_bytes, zc_blocks_beside *beside_p);

/* ---- Pinning: the ways of getting pinned memory priced from zc bench's pinning family ---- */

/* The ways zc bench's pinning family measures (pin.floor, pin.cost), the two floors first. */
typedef enum zc_pinning_way {
    ZC_PINNING_FLOOR_4K = 0,   /* no pinning: fresh 4 KiB pages first touched by every CPU */
    ZC_PINNING_FLOOR_THP = 1,  /* the same with transparent huge pages */
    ZC_PINNING_HOST_ALLOC,     /* cudaHostAlloc */
    ZC_PINNING_MALLOC_HOST,    /* cudaMallocHost */
    ZC_PINNING_REGISTER_FRESH, /* malloc, then cudaHostRegister of its fresh pages */
    ZC_PINNING_TOUCH_REGISTER, /* malloc, touched on one thread, then cudaHostRegister */
    ZC_PINNING_ZEROCOPY,       /* zc_buffer_alloc(ZC_BUFFER_PINNED): mmap, threads, register */
    ZC_PINNING_WAY_COUNT
} zc_pinning_way;

/* The most sizes one way's curve holds. */
#define ZC_PINNING_SIZES_MAX 32

/* One way's measured cost: the median seconds at each size measured, sizes ascending. */
typedef struct zc_pinning_curve {
    size_t count; /* 0: not measured */
    size_t bytes[ZC_PINNING_SIZES_MAX];
    double seconds[ZC_PINNING_SIZES_MAX];
} zc_pinning_curve;

/* Every way's curve, indexed by zc_pinning_way. */
typedef struct zc_pinning_curves {
    zc_pinning_curve way[ZC_PINNING_WAY_COUNT];
} zc_pinning_curves;

/* A way's key in documents ("cudaHostAlloc", "zerocopy", "floor_thp"), its name for people
 * ("register fresh", "floor THP"), and how an unmodified program gets it or what serves it
 * better; NULL out of range. */
ZC_EXTERN const char *zc_pinning_way_key(zc_pinning_way way);
ZC_EXTERN const char *zc_pinning_way_name(zc_pinning_way way);
ZC_EXTERN const char *zc_pinning_way_how(zc_pinning_way way);

/*
 * Each way's curve from zc bench's pin.cost and pin.floor results that ran ok: the median of
 * the point that times getting the memory ("cudaHostAlloc: allocate", "malloc+touch+
 * cudaHostRegister: touch+register", "floor THP: touch", ...), in seconds, at each size. A way
 * measured in both results is taken from pin.cost, where the floors run beside the ways.
 * Refused: no pin.cost or pin.floor result that ran ok, or none of the pinning ways in them
 * (ZC_ERR_NOT_FOUND: zc bench --case pin measures them); a point of no size, a median that is
 * not a finite positive duration, a size measured twice (ZC_ERR_INVALID_ARG); more than
 * ZC_PINNING_SIZES_MAX sizes (ZC_ERR_OVERFLOW); each with a detail naming the point.
 */
ZC_EXTERN zc_status zc_pinning_curves_from_bench(const zc_bench_result *results, size_t count,
                                                 zc_pinning_curves *curves_p);

/* One way priced at a size. */
typedef struct zc_pinning_option {
    zc_pinning_way way;
    double seconds;     /* predicted for the size; NAN when the way was not measured */
    double s_per_gib;   /* seconds per GiB (2^30 bytes) at that size */
    double x_floor_4k;  /* seconds over the 4 KiB floor's at the size; NAN: floor not measured */
    double x_floor_thp; /* the same over the THP floor's */
    int extrapolated;   /* 1: the size lies outside the sizes this way was measured at */
} zc_pinning_option;

/* The ways priced for one size: the pinning ways measured, fastest first, and the floors. */
typedef struct zc_pinning_advice {
    size_t bytes;
    zc_pinning_option ranked[ZC_PINNING_WAY_COUNT - 2];
    size_t count;
    zc_pinning_option floors[2]; /* [ZC_PINNING_FLOOR_4K], [ZC_PINNING_FLOOR_THP]; seconds NAN
                                    when not measured */
    size_t bytes_min, bytes_max; /* the smallest and largest size any way was measured at */
    int extrapolated;            /* 1: some way (a floor included) was extrapolated */
} zc_pinning_advice;

/*
 * Price getting bytes of pinned memory each measured way (the seconds from the cost per
 * byte interpolated between the measured sizes around bytes, else the nearest one's), rank the
 * pinning ways fastest first (the earlier way of the list on a tie) and set each against the
 * floors. ZC_ERR_INVALID_ARG for NULL, bytes 0, or a curve not ascending or of a non-positive
 * figure; ZC_ERR_NOT_FOUND when the curves hold no pinning way (floors alone rank nothing).
 */
ZC_EXTERN zc_status zc_pinning_advise(const zc_pinning_curves *curves, size_t bytes,
                                      zc_pinning_advice *advice_p);

ZC_END_DECLS

#endif
