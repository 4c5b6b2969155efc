/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the pinning family's pieces (pin.floor, pin.cost): the first-touch floor, the host's
 * memory and NUMA placement, and the ways of pinning. */
#ifndef ZC_BENCH_PINNING_H
#define ZC_BENCH_PINNING_H

#if defined(ZC_PART) && !defined(ZC_SEES_bench)
#error "src/bench/ included from below bench: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

#include "zerocopy/bench.h"
#include "zerocopy/buffer.h"
#include "zerocopy/status.h"

/* --- the floor (pin_floor.c): no GPU, no CUDA --- */

/* A fresh anonymous mapping that the floor touches. */
typedef struct zc__pin_region {
    void *base;
    size_t len; /* bytes mapped: a multiple of the page size */
    int huge;   /* 1: aligned to a huge page, MADV_HUGEPAGE; 0: MADV_NOHUGEPAGE */
} zc__pin_region;

/* The CPUs this thread may run on (sched_getaffinity), at least 1: the floor's threads. */
unsigned zc__pin_cpus(void);

/* Map bytes (rounded up to a page) fresh: huge 0 keeps 4 KiB pages (MADV_NOHUGEPAGE), huge 1
 * aligns the start to a huge page and asks for transparent huge pages (MADV_HUGEPAGE), as
 * zc_buffer_alloc's pinned path maps. */
zc_status zc__pin_region_map(size_t bytes, int huge, zc__pin_region *region_p);

/* Write one byte of every page of the region with threads threads (0: one per CPU this thread
 * may run on), each a run of whole huge pages; *seconds_p is the host clock's span, threads
 * started and joined included. */
zc_status zc__pin_region_touch(const zc__pin_region *region, unsigned threads, double *seconds_p);

/* How many of the region's pages are resident now (mincore), of *pages_p. */
zc_status zc__pin_region_resident(const zc__pin_region *region, size_t *resident_p,
                                  size_t *pages_p);

/* Bytes of the region that transparent huge pages back now (AnonHugePages of its mapping in
 * /proc/self/smaps, at most its length). */
zc_status zc__pin_region_huge_bytes(const zc__pin_region *region, size_t *bytes_p);

/* Unmap the region, *seconds_p the host clock's span (NULL: not timed); the region is empty
 * after, even on failure. */
zc_status zc__pin_region_unmap(zc__pin_region *region, double *seconds_p);

/* --- the host's memory and placement (pin_host.c): no CUDA --- */

/* The family takes at most this share of the memory available, in percent: one buffer of a
 * size is alive at a time, and the rest stays for the system and the other programs. */
#define ZC__PIN_SHARE_PERCENT 40

/* Sizes below a page pin nothing a program would pin: the family leaves them out. */
#define ZC__PIN_SIZE_MIN ((size_t)4 << 10)

/* The field key ("MemAvailable", "MemFree") of a meminfo text, in bytes: /proc/meminfo's lines
 * ("MemAvailable:   24438584 kB") or a NUMA node's ("Node 0 MemFree:   24514988 kB").
 * ZC_ERR_NOT_FOUND when the text has no such line, ZC_ERR_PARSE when its number is not one. */
zc_status zc__pin_meminfo_field(const char *text, const char *key, size_t *bytes_p);

/* The largest size the family takes of available bytes: ZC__PIN_SHARE_PERCENT of them. */
size_t zc__pin_size_cap(size_t available);

/* The family's cap on this machine: ZC__PIN_SHARE_PERCENT of MemAvailable and, when node >= 0
 * on a host of several NUMA nodes, of that node's MemFree too; what limits it, in words, into
 * what ("40% of MemAvailable (9.33 GiB)"). */
zc_status zc__pin_memory_cap(int node, size_t *cap_p, char *what, size_t what_size);

/* Which of sizes[0..n) the family measures: those from ZC__PIN_SIZE_MIN to cap, in order, into
 * kept (room for n); every other one named with its reason in left_out ("" when none): "16 GiB
 * left out: more than 40% of MemAvailable (9.33 GiB)". cap_what says what the cap is. */
size_t zc__pin_plan(const size_t *sizes, size_t n, size_t cap, const char *cap_what, size_t *kept,
                    char *left_out, size_t left_size);

/* The number of NUMA nodes in a sysfs node list ("0", "0-3", "0,2-3"); 0 when it is not one. */
int zc__pin_node_count(const char *list);

/* The host's NUMA nodes online (/sys/devices/system/node/online), at least 1. */
int zc__pin_numa_nodes(void);

/* The calling thread's memory policy, to be given back after the family placed its memory. */
typedef struct zc__pin_policy {
    int saved; /* 1 when mode and mask hold the policy to give back */
    int mode;
    unsigned long mask[16]; /* 1024 nodes */
} zc__pin_policy;

/* Prefer node for every page this thread (and the threads it starts) faults from now on
 * (MPOL_PREFERRED), saving the policy it had in *saved_p. */
zc_status zc__pin_numa_prefer(int node, zc__pin_policy *saved_p);

/* Give back the policy zc__pin_numa_prefer saved; nothing when it saved none. */
void zc__pin_numa_restore(const zc__pin_policy *saved);

/* The transparent huge page mode (/sys/kernel/mm/transparent_hugepage/enabled, the bracketed
 * word): "always", "madvise", "never", or "unknown" when it cannot be read. */
const char *zc__pin_thp_mode(char *buf, size_t n);

/* --- the ways (pin_ways.c): each a row, the floor's two among them --- */

/* What one sample of a way made, to be checked and given back. */
typedef struct zc__pin_made {
    void *host;            /* the pinned memory the GPU round trip goes through; NULL: a floor */
    void *raw;             /* malloc'd memory a registration pins */
    zc_buffer *buf;        /* zc_buffer_alloc's buffer */
    zc__pin_region region; /* a floor's mapping */
} zc__pin_made;

/* The phases a way times, each a point of its own: [0] making the memory (the figure set
 * against the floor), [1] a second span of making it where there is one (touch + register),
 * [2] giving it back. */
#define ZC__PIN_PHASES 3

typedef struct zc__pin_way {
    const char *name;                   /* "cudaHostAlloc"; a point's variant is "NAME: PHASE" */
    const char *brief;                  /* the name in the case's one-line finding */
    const char *phases[ZC__PIN_PHASES]; /* "allocate", NULL or "touch+register", "free" */
    int floor;                          /* 1: the floor (no GPU): its check is residency */
    int needs_register;                 /* runs only where cudaHostRegister is supported */
    int option; /* the way's one setting: huge pages for a floor, a touch before a registration */
    /* Make bytes of memory on device, timing phases 0 and 1 into seconds. */
    zc_status (*make)(size_t bytes, int device, int option, zc__pin_made *made,
                      double seconds[ZC__PIN_PHASES]);
    /* Give it back, timing phase 2 (NULL: untimed); made is empty after, even on failure. */
    zc_status (*undo)(zc__pin_made *made, double *seconds_p);
} zc__pin_way;

/* The floor's rows first (4 KiB pages, then huge pages), then every way of pinning. */
#define ZC__PIN_FLOOR_4K  0
#define ZC__PIN_FLOOR_THP 1
#define ZC__PIN_WAY_COUNT 7
extern const zc__pin_way zc__pin_ways[ZC__PIN_WAY_COUNT];

/* The check of what a way made: a floor's pages all resident; pinned memory that the runtime
 * calls pinned and that carries a pattern to the GPU and another back, at its start, middle and
 * end (the test hook corrupts it on the way). ZC_ERR_VERIFY, naming key and the way, when not. */
zc_status zc__pin_check(zc_bench_ctx *ctx, const char *key, const zc__pin_way *way,
                        const zc__pin_made *made, size_t bytes);

#endif
