/* SPDX-License-Identifier: Apache-2.0 */
/* zc run: the cures applied to an unmodified program (their names, and what a run did). */
#ifndef ZEROCOPY_RUN_H
#define ZEROCOPY_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* The schema of zc run's --report document (docs/json.md). */
#define ZC_RUN_SCHEMA "zerocopy-run/1"

/*
 * The cures, one row each: X(ENUM, "name", "what it does"). The interposition library
 * (libzerocopy_run.so) applies those named in ZC_RUN_FIXES (all of them when it is unset).
 */
#define ZC_RUN_FIX_MAP(X)                                                                          \
    X(PAGEABLE, "pageable", "pageable copies staged through pinned memory by several threads")     \
    X(PINNING, "pinning", "pinned memory freed is kept and handed out again for the same size")    \
    X(REGISTER, "register",                                                                        \
      "pageable buffers copied again and again pinned in place until they are freed")              \
    X(FRESH, "fresh", "fresh destination pages faulted in ahead of device-to-host copies")         \
    X(FASTPIN, "fastpin", "large pinned allocations served from fresh pages pinned whole")         \
    X(REUSE, "reuse",                                                                              \
      "large pageable blocks freed after a copy kept, pins and pages, for the next of their size") \
    X(HOSTCOPY, "hostcopy",                                                                        \
      "large host copies into or out of pinned memory (a framework's staging) made by several "    \
      "threads")                                                                                   \
    ZC__RUN_FIX_PLANT(X)

/* The fastpin cure serves pinned allocations from this size when ZC_RUN_FASTPIN_BYTES does not
 * say otherwise (docs/run.md): zc trace prices the cure for the allocations it would serve. */
#define ZC_RUN_FASTPIN_BYTES_DEFAULT ((size_t)64 << 20)

/* tests/run plants a cure at the end of the list: the preload's table of cures must not build
 * without its row, nor the row without a handler of every event. */
#ifdef ZC_PLANT_RUN_CURE
#define ZC__RUN_FIX_PLANT(X) X(PLANTED, "planted", "a cure planted by tests/run")
#else
#define ZC__RUN_FIX_PLANT(X)
#endif

#define ZC__RUN_FIX_ENUM(name, text, what) ZC_RUN_FIX_##name,
typedef enum zc_run_fix { ZC_RUN_FIX_MAP(ZC__RUN_FIX_ENUM) ZC_RUN_FIX_COUNT } zc_run_fix;
#undef ZC__RUN_FIX_ENUM

/* Every cure's bit (bit i is zc_run_fix i). */
#define ZC_RUN_FIXES_ALL ((1u << ZC_RUN_FIX_COUNT) - 1u)

/* The cures applied when none are named (ZC_RUN_FIXES unset, zc run without --fix): every cure
 * but fresh, whose gain depends on how fast the kernel faults pages in for several threads at
 * once (docs/run.md, "The fresh cure"), fastpin, not yet held to the driver's behaviour on a
 * GPU (docs/run.md, "The fastpin cure"), reuse, which keeps memory the program freed
 * (docs/run.md, "The reuse cure"), and hostcopy, which replaces the program's memcpy
 * (docs/run.md, "The hostcopy cure"); each is applied when named, or with "all". */
#define ZC_RUN_FIXES_DEFAULT                                                                       \
    (ZC_RUN_FIXES_ALL & ~(1u << ZC_RUN_FIX_FRESH) & ~(1u << ZC_RUN_FIX_FASTPIN) &                  \
     ~(1u << ZC_RUN_FIX_REUSE) & ~(1u << ZC_RUN_FIX_HOSTCOPY))

/*
 * What the library counted, one row each: X(ENUM, "name", fix, cured, "meaning"). cured is 1
 * for calls a cure served, 0 for calls it saw and left exactly as they were (with the reason)
 * and for a cure's own work that is no call of the program's (pinning buffers in place).
 */
#define ZC_RUN_COUNTER_MAP(X)                                                                      \
    X(PAGEABLE_H2D, "pageable-h2d", PAGEABLE, 1,                                                   \
      "host-to-device copies from pageable memory cured")                                          \
    X(PAGEABLE_D2H, "pageable-d2h", PAGEABLE, 1, "device-to-host copies to pageable memory cured") \
    X(PAGEABLE_SAMPLE, "pageable-sample", PAGEABLE, 0,                                             \
      "left as they were to measure them: the second copy of each direction and size class")       \
    X(PAGEABLE_SMALL, "pageable-small", PAGEABLE, 0,                                               \
      "left as they were: smaller than the cure pays for")                                         \
    X(PAGEABLE_CAPTURE, "pageable-capture", PAGEABLE, 0,                                           \
      "left as they were: the stream was being captured into a graph")                             \
    X(PAGEABLE_UNSURE, "pageable-unsure", PAGEABLE, 0,                                             \
      "left as they were: a pointer or range zc run could not classify, or no staging")            \
    X(PAGEABLE_SLOWER, "pageable-slower", PAGEABLE, 0,                                             \
      "host-to-device copies left as they were: staging went slower than the driver's own path "   \
      "for their size (eight staged against the sample)")                                          \
    X(PINNING_HIT, "pinning-hit", PINNING, 1, "pinned allocations served from memory kept")        \
    X(PINNING_MISS, "pinning-miss", PINNING, 0,                                                    \
      "pinned allocations made by the driver (and kept)")                                          \
    X(PINNING_LEFT, "pinning-left", PINNING, 0,                                                    \
      "pinned allocations left as they were: over the cache's bound or a failed call")             \
    X(REGISTERED_H2D, "registered-h2d", REGISTER, 1,                                               \
      "host-to-device copies from pageable buffers pinned in place (time includes the pinning)")   \
    X(REGISTERED_D2H, "registered-d2h", REGISTER, 1,                                               \
      "device-to-host copies into pageable buffers pinned in place (time includes the pinning)")   \
    X(REGISTER_PIN, "register-pin", REGISTER, 0,                                                   \
      "buffers pinned in place once copies from their start had moved twice their size")           \
    X(REGISTER_UNPIN, "register-unpin", REGISTER, 0,                                               \
      "buffers unpinned before they were freed, unmapped or given back (time: the unpinning)")     \
    X(REGISTER_REFUSED, "register-refused", REGISTER, 0,                                           \
      "buffers that could not be pinned in place (the driver refused, or over the bound): staged") \
    X(FRESH_AHEAD, "fresh-ahead", FRESH, 1,                                                        \
      "device-to-host copies whose fresh destination pages were faulted in ahead by the threads "  \
      "(time: the faulting in)")                                                                   \
    X(FRESH_RESIDENT, "fresh-resident", FRESH, 0,                                                  \
      "device-to-host copies whose destination pages were there already: nothing done")            \
    X(FRESH_UNSEEN, "fresh-unseen", FRESH, 0,                                                      \
      "left to the copy: fresh pages of memory not seen allocated as the program's own "           \
      "(a file or shared mapping, or memory from before the library)")                             \
    X(FRESH_REFUSED, "fresh-refused", FRESH, 0,                                                    \
      "no longer counted: pages the kernel would not fault in on request (they are faulted in "    \
      "by a write now, which it does not refuse where the copy may write)")                        \
    X(FRESH_HUGE, "fresh-huge", FRESH, 0,                                                          \
      "large fresh allocations advised to use transparent huge pages (bytes: those advised)")      \
    X(FASTPIN_SERVED, "fastpin-served", FASTPIN, 1,                                                \
      "pinned allocations served from fresh pages faulted in by every core and pinned whole")      \
    X(FASTPIN_LEFT, "fastpin-left", FASTPIN, 0,                                                    \
      "large pinned allocations left to the driver: write-combined, or the system or the driver "  \
      "refused the fast path")                                                                     \
    X(FASTPIN_FREED, "fastpin-freed", FASTPIN, 0,                                                  \
      "blocks it served, freed: unpinned and given back to the system (bytes: their length)")      \
    X(FASTPIN_SHARED, "fastpin-shared", FASTPIN, 0,                                                \
      "blocks made shared before a fork, as the driver's pinned memory is (time: the copy)")       \
    X(FASTPIN_PRIVATE, "fastpin-private", FASTPIN, 0,                                              \
      "blocks that could not be made shared before a fork: the child got a copy, not a share")     \
    X(FASTPIN_TOUCHED, "fastpin-touched", FASTPIN, 0,                                              \
      "the program's own large registrations, their pages faulted in by every core first (time: "  \
      "the faulting in)")                                                                          \
    X(FASTPIN_UNTOUCHED, "fastpin-untouched", FASTPIN, 0,                                          \
      "the program's own large registrations left to the driver: not all private anonymous "       \
      "memory it may write")                                                                       \
    X(REUSE_KEPT, "reuse-kept", REUSE, 0,                                                          \
      "large blocks the program freed after a copy, kept with their pages (and pin) rather than "  \
      "given back")                                                                                \
    X(REUSE_SERVED, "reuse-served", REUSE, 1,                                                      \
      "allocations of the program served with a block kept for their size")                        \
    X(REUSE_RELEASED, "reuse-released", REUSE, 0,                                                  \
      "kept blocks given back to the allocator: over the bound (ZC_RUN_REUSE_BYTES), or an "       \
      "allocation the allocator could not make otherwise")                                         \
    X(HOSTCOPY_THREADS, "hostcopy-threads", HOSTCOPY, 1,                                           \
      "large memcpy and memmove calls into or out of pinned memory made by the copying threads")   \
    X(HOSTCOPY_BUSY, "hostcopy-busy", HOSTCOPY, 0,                                                 \
      "such copies made by the calling thread alone: the copying threads were busy with another "  \
      "copy")

#define ZC__RUN_COUNTER_ENUM(name, text, fix, cured, what) ZC_RUN_COUNTER_##name,
typedef enum zc_run_counter {
    ZC_RUN_COUNTER_MAP(ZC__RUN_COUNTER_ENUM) ZC_RUN_COUNTER_COUNT
} zc_run_counter;
#undef ZC__RUN_COUNTER_ENUM

/* How the time the calls would have taken uncured was found. */
typedef enum zc_run_pricing {
    ZC_RUN_PRICED_NONE = 0, /* not known: nothing to compare with in this run */
    ZC_RUN_PRICED_MEASURED, /* the same calls, as they were, timed in this run */
    ZC_RUN_PRICED_SCALED    /* the rate of calls timed as they were in this run, applied to
                               these bytes (pageable and registered copies: each size class's
                               second copy) */
} zc_run_pricing;

/* One counter, summed over a run's processes. */
typedef struct zc_run_count {
    uint64_t calls;
    uint64_t bytes;
    uint64_t ns;            /* time spent in these calls, as cured (or as left) */
    uint64_t uncured_ns;    /* what they would have taken as they were (see pricing) */
    zc_run_pricing pricing; /* the weakest pricing among the processes that had calls */
} zc_run_count;

/* What one zc run did, over every process of the program that loaded the library. */
typedef struct zc_run_summary {
    zc_run_count counts[ZC_RUN_COUNTER_COUNT];
    unsigned fixes;         /* the cures asked for (bits of zc_run_fix) */
    unsigned processes;     /* logs read */
    unsigned processes_cut; /* logs without their end line: the process was killed or
                               left through _exit before the library wrote them */
    unsigned threads;       /* host threads copying, chunk bytes and staging buffers, as */
    uint64_t chunk_bytes;   /* the first process used them */
    unsigned staging_buffers;
    uint64_t min_bytes;     /* pageable copies cured from this size, host to device */
    uint64_t min_d2h_bytes; /* and device to host */
} zc_run_summary;

ZC_BEGIN_DECLS

/* A cure's name ("pageable"), or "unknown". */
ZC_EXTERN const char *zc_run_fix_name(zc_run_fix fix);

/* A counter's name ("pageable-h2d") and meaning, or "unknown". */
ZC_EXTERN const char *zc_run_counter_name(zc_run_counter counter);
ZC_EXTERN const char *zc_run_counter_meaning(zc_run_counter counter);

/* Whether a counter counts cured calls (1) or calls left as they were (0). */
ZC_EXTERN int zc_run_counter_cured(zc_run_counter counter);

/* The cure a counter belongs to. */
ZC_EXTERN zc_run_fix zc_run_counter_fix(zc_run_counter counter);

/* "measured", "scaled" or "none". */
ZC_EXTERN const char *zc_run_pricing_name(zc_run_pricing pricing);

/*
 * A comma-separated list of cure names, "all" or "none", into bits of zc_run_fix. An unknown or
 * empty name is ZC_ERR_PARSE with a detail naming it and the known ones.
 */
ZC_EXTERN zc_status zc_run_fixes_parse(const char *list, unsigned *fixes_p);

/* The cures of fixes as zc_run_fixes_parse reads them back ("pageable,pinning"; "none" for
 * none) into out, of size bytes (a list that does not fit is cut). */
ZC_EXTERN zc_status zc_run_fixes_format(unsigned fixes, char *out, size_t size);

/*
 * Read every "<pid>.run" log in dir (as the library writes them when ZC_RUN_DIR names dir) and
 * sum them. ZC_ERR_PARSE names the file and line of a malformed log; a folder without logs
 * gives processes 0 and ZC_OK.
 */
ZC_EXTERN zc_status zc_run_logs_read(const char *dir, zc_run_summary *summary_p);

ZC_END_DECLS

#endif
