/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: what the cures run with, read once from the
 * environment zc run sets (docs/run.md lists the variables). */
#ifndef ZC_RUN_CONFIG_H
#define ZC_RUN_CONFIG_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

typedef struct zc__run_config {
    unsigned fixes;           /* bits of zc_run_fix (ZC_RUN_FIXES; ZC_RUN_FIXES_DEFAULT when
                                 unset) */
    const char *log_dir;      /* ZC_RUN_DIR: where "<pid>.run" goes; NULL: no log */
    unsigned threads;         /* ZC_RUN_THREADS: host threads copying a chunk, caller included */
    size_t chunk_bytes;       /* ZC_RUN_CHUNK: bytes per staging buffer, the largest chunk */
    unsigned staging_buffers; /* ZC_RUN_BUFFERS: staging buffers per context, 2 to 16 */
    size_t min_bytes;         /* ZC_RUN_MIN_BYTES: host-to-device pageable copies below it go
                                 as they were */
    size_t min_d2h_bytes;     /* ZC_RUN_MIN_D2H_BYTES: the same device to host */
    size_t cache_bytes;       /* ZC_RUN_CACHE_BYTES: pinned memory kept for reuse, at most */
    size_t register_bytes;    /* ZC_RUN_REGISTER_BYTES: pageable memory pinned in place, at
                                 most */
    size_t reuse_bytes;       /* ZC_RUN_REUSE_BYTES: blocks the program freed kept for its
                                 next allocations of their size, at most (the reuse cure) */
    size_t fresh_min_bytes;   /* ZC_RUN_FRESH_MIN_BYTES: device-to-host copies from this size
                                 have their fresh destination pages faulted in ahead */
    int fresh_huge;           /* ZC_RUN_FRESH_HUGE=1: large fresh allocations advised to use
                                 transparent huge pages */
    size_t fastpin_bytes;     /* ZC_RUN_FASTPIN_BYTES: pinned allocations from this size are
                                 served from fresh pages (the fastpin cure) */
    unsigned fastpin_threads; /* ZC_RUN_FASTPIN_THREADS: threads faulting a block's pages in;
                                 0: every CPU the process may run on */
    size_t hostcopy_bytes;    /* ZC_RUN_HOSTCOPY_BYTES: host copies into or out of pinned
                                 memory from this size are made by the copying threads (the
                                 hostcopy cure) */
    unsigned judge_after;     /* ZC_RUN_JUDGE_AFTER: staged host-to-device copies of a size
                                 class before staging is set against the class's sample; 0:
                                 never */
    int verbose;              /* ZC_RUN_VERBOSE=1: say on stderr what is hooked and why not */
} zc__run_config;

/* The configuration, read the first time it is asked for. */
const zc__run_config *zc__run_config_get(void);

/* Whether cure fix (a zc_run_fix) is on. */
int zc__run_fix_on(int fix);

#endif
