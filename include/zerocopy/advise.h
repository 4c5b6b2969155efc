/* Which technique fits a workload: the machine profile, the cost model, the ranking and the
 * GPU runner that validates the predictions. */
#ifndef ZEROCOPY_ADVISE_H
#define ZEROCOPY_ADVISE_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* Kinds of host memory a copy can start from or end in. */
typedef enum zc_host_kind {
    ZC_HOST_PAGEABLE = 0,       /* malloc */
    ZC_HOST_PINNED = 1,         /* cudaHostAlloc default */
    ZC_HOST_WRITE_COMBINED = 2, /* cudaHostAllocWriteCombined */
    ZC_HOST_REGISTERED = 3,     /* malloc + cudaHostRegister */
    ZC_HOST_KIND_COUNT = 4
} zc_host_kind;

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

/*
 * What the cost model needs to know about one machine, every figure measured there. A figure
 * of 0 is "not measured"; zc_profile_fill_gaps derives what it can and says what it assumed.
 */
typedef struct zc_profile {
    char device_name[128]; /* as cudaDeviceProp.name, cut to fit */
    char source[256];      /* where the figures came from: a file, "calibration", ... */

    zc_curve copy[ZC_HOST_KIND_COUNT][2];       /* [kind][ZC_DIR_H2D or ZC_DIR_D2H] */
    double copy_latency_us[ZC_HOST_KIND_COUNT]; /* the fixed cost of one copy queued between
                                                   other GPU work (not the round trip) */
    double launch_sync_us;                      /* empty kernel launch + cudaStreamSynchronize */
    double enqueue_us;                          /* host cost of queuing one asynchronous call */
    double both_directions_gbps;                /* H2D and D2H at once, total */
    double mapped_read_gbps[ZC_ACCESS_COUNT];   /* kernel reading mapped host memory */
    double mapped_write_gbps[ZC_ACCESS_COUNT];  /* kernel writing mapped host memory */
    double mapped_latency_us;                   /* one dependent read of mapped memory */
    double device_gbps;                         /* kernel reading device memory */
    double managed_prefetch_gbps;               /* cudaMemPrefetchAsync host to device */
    double managed_prefetch_us;                 /* fixed cost of one prefetch */
    double managed_first_touch_gbps;            /* GPU faulting pages in without prefetch */
    double managed_cpu_touch_gbps;              /* CPU writing pages that live on the GPU */
    double host_write_gbps;                     /* CPU filling its own memory (the runner's fill) */
    double pingpong_us;                         /* CPU-GPU flag round trip through mapped memory */
    double overlap_efficiency;                  /* 0..1: how much of copy and compute overlap */
    double alloc_pinned_us_per_mib;             /* cudaHostAlloc */
    double alloc_pinned_fixed_us;
    double register_us_per_mib; /* cudaHostRegister of touched malloc memory */
    double register_fixed_us;
    double alloc_managed_us_per_mib; /* cudaMallocManaged */
    double alloc_device_us_per_mib;  /* cudaMalloc */
} zc_profile;

/* What the user's program does. */
typedef struct zc_workload {
    size_t bytes;     /* per transfer */
    double transfers; /* how many; 0 with rate_hz set: one second's worth */
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

/* Check a workload: bytes > 0, accesses >= 1, known enums, finite non-negative figures. */
ZC_EXTERN zc_status zc_workload_check(const zc_workload *workload);

/* How many transfers the workload totals (transfers, or one second at rate_hz, or 1). */
ZC_EXTERN double zc_workload_transfer_count(const zc_workload *workload);

/* Predict one technique's cost for a workload on a completed profile. */
ZC_EXTERN zc_status zc_advise_predict(const zc_profile *profile, const zc_workload *workload,
                                      zc_technique technique, zc_prediction *prediction_p);

/*
 * Predict every technique, rank them (those meeting the latency budget and rate first, then by
 * total time) and explain the first choice in one or two sentences with the numbers.
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
ZC_EXTERN const char *zc_host_kind_key(zc_host_kind kind);
ZC_EXTERN zc_status zc_direction_from_key(const char *key, zc_direction *direction_p);
ZC_EXTERN zc_status zc_access_from_key(const char *key, zc_access *access_p);
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

/*
 * Measure, in about a second, the figures the model needs on GPU device: copy curves for
 * pageable, pinned and registered memory both ways, launch and per-copy costs, mapped and
 * device-memory bandwidth, managed prefetch, allocation costs. For machines where no
 * `zc bench` profile is at hand.
 */
ZC_EXTERN zc_status zc_advise_calibrate(int device, zc_profile *profile_p);

/* Measure on GPU device what allocating and pinning costs (cudaHostAlloc and cudaHostRegister:
 * a fixed part and a part per MiB; cudaMallocManaged and cudaMalloc per MiB) into the profile's
 * allocation figures, leaving the others as they are. About a tenth of a second. */
ZC_EXTERN zc_status zc_advise_measure_alloc(int device, zc_profile *profile);

/* The rate at which this CPU fills its own, already touched memory the way the runner's
 * producer does (GB/s); a CPU-only measurement of about 50 ms. */
ZC_EXTERN zc_status zc_advise_measure_host_write(double *gbps_p);

ZC_END_DECLS

#endif
