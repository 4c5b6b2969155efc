/* SPDX-License-Identifier: Apache-2.0 */
/* The cures' configuration from the environment (run_config.h). */
#include "run_config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/host.h"
#include "run_record.h"

/* Defaults measured on the H200 machine (bench/results/h200-20261203/run-README.md,
 * scripts/bench.d/41-run.sh): staging buffers of 4 MiB, the best chunk for large copies there
 * (run_copy.c cuts smaller ones finer), four of them to keep the copy engine busy while the
 * threads fill the next; one thread fills memory at about 8 GB/s there, so 12 are needed to
 * outrun the driver's own staging. Below 1 MiB host to device and 256 KiB device to host the
 * driver's own path is as fast. */
#define ZC__DEFAULT_CHUNK         ((size_t)4 << 20)
#define ZC__DEFAULT_BUFFERS       4u
#define ZC__DEFAULT_MIN_BYTES     ((size_t)1 << 20)
#define ZC__DEFAULT_MIN_D2H_BYTES ((size_t)256 << 10)
#define ZC__DEFAULT_THREADS_MAX   12u
/* Eight staged copies of a size class, the slowest left out, before staging is judged against
 * the class's sample: one copy alone says little, and a loop of them says it soon. */
#define ZC__DEFAULT_JUDGE_AFTER   8u
#define ZC__MAX_THREADS           16u

/* Fresh destination pages are faulted in ahead from the size the pageable cure stages device
 * to host: a copy it stages drains into them with every thread. */
#define ZC__DEFAULT_FRESH_MIN_BYTES ZC__DEFAULT_MIN_D2H_BYTES
/* From 64 MiB the driver takes tens of milliseconds to pin a block (0.42 s/GiB on the H100
 * machine), where faulting it in from every core and pinning it whole takes a tenth of that;
 * below, the pinning cure's reuse serves the loops that allocate and free the same size. */
#define ZC__DEFAULT_FASTPIN_BYTES   ZC_RUN_FASTPIN_BYTES_DEFAULT
/* One thread copies 4 MiB in about 400 us; waking the copying threads costs about what copying
 * 64 KiB does, so from there the threads gain most of their number. */
#define ZC__DEFAULT_HOSTCOPY_BYTES  ((size_t)4 << 20)

static pthread_once_t zc__once = PTHREAD_ONCE_INIT;
static zc__run_config zc__config;
/* Set once zc__config is read: the hooks ask for it on every call (every free of the program
 * asks which cures are on), and one load is cheaper than pthread_once's call. */
static int zc__config_read;

/* A whole decimal number in [min, max] from the environment, else fallback. */
static unsigned long long zc__env_number(const char *name, unsigned long long fallback,
                                         unsigned long long min, unsigned long long max)
{
    const char *text = getenv(name);
    if (text == NULL || text[0] == '\0')
        return fallback;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
        fprintf(stderr, "zerocopy run: %s='%s' is not a number from %llu to %llu; using %llu\n",
                name, text, min, max, fallback);
        return fallback;
    }
    return value;
}

/* ZC_RUN_FIXES as zc_run_fixes_parse reads it, the default cures when unset; a bad list turns
 * every cure off, so that a mistake never cures what was not asked for. */
static unsigned zc__env_fixes(void)
{
    const char *text = getenv("ZC_RUN_FIXES");
    if (text == NULL)
        return ZC_RUN_FIXES_DEFAULT;
    unsigned fixes = 0;
    const char *bad;
    size_t bad_length;
    if (zc__run_fixes_from_list(text, &fixes, &bad, &bad_length) != 0) {
        fprintf(stderr, "zerocopy run: ZC_RUN_FIXES='%s' names an unknown cure; none applied\n",
                text);
        return 0;
    }
    return fixes;
}

static void zc__read(void)
{
    zc__run_config *c = &zc__config;
    c->fixes = zc__env_fixes();
    const char *dir = getenv("ZC_RUN_DIR");
    c->log_dir = dir != NULL && dir[0] != '\0' ? dir : NULL;
    unsigned cpus = zc__usable_cpus();
    /* Three quarters of the cores it may run on, so that the program keeps some of its own. */
    unsigned threads = cpus > 1 ? cpus * 3 / 4 : 1u;
    if (threads > ZC__DEFAULT_THREADS_MAX)
        threads = ZC__DEFAULT_THREADS_MAX;
    c->threads = (unsigned)zc__env_number("ZC_RUN_THREADS", threads, 1, ZC__MAX_THREADS);
    c->chunk_bytes =
        (size_t)zc__env_number("ZC_RUN_CHUNK", ZC__DEFAULT_CHUNK, 4096, (size_t)1 << 30);
    c->staging_buffers = (unsigned)zc__env_number("ZC_RUN_BUFFERS", ZC__DEFAULT_BUFFERS, 2, 16);
    c->min_bytes =
        (size_t)zc__env_number("ZC_RUN_MIN_BYTES", ZC__DEFAULT_MIN_BYTES, 1, (size_t)1 << 40);
    c->min_d2h_bytes = (size_t)zc__env_number("ZC_RUN_MIN_D2H_BYTES", ZC__DEFAULT_MIN_D2H_BYTES, 1,
                                              (size_t)1 << 40);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    unsigned long long ram = pages > 0 && page > 0 ? (unsigned long long)pages * page : 1ull << 32;
    c->cache_bytes = (size_t)zc__env_number("ZC_RUN_CACHE_BYTES", ram / 4, 0, ram);
    c->register_bytes = (size_t)zc__env_number("ZC_RUN_REGISTER_BYTES", ram / 4, 0, ram);
    c->reuse_bytes = (size_t)zc__env_number("ZC_RUN_REUSE_BYTES", ram / 4, 0, ram);
    c->fresh_min_bytes = (size_t)zc__env_number("ZC_RUN_FRESH_MIN_BYTES",
                                                ZC__DEFAULT_FRESH_MIN_BYTES, 1, (size_t)1 << 40);
    c->fresh_huge = zc__env_number("ZC_RUN_FRESH_HUGE", 0, 0, 1) != 0;
    c->fastpin_bytes = (size_t)zc__env_number("ZC_RUN_FASTPIN_BYTES", ZC__DEFAULT_FASTPIN_BYTES, 1,
                                              (size_t)1 << 50);
    c->fastpin_threads = (unsigned)zc__env_number("ZC_RUN_FASTPIN_THREADS", 0, 0, 64);
    c->hostcopy_bytes = (size_t)zc__env_number("ZC_RUN_HOSTCOPY_BYTES", ZC__DEFAULT_HOSTCOPY_BYTES,
                                               (size_t)64 << 10, (size_t)1 << 50);
    c->judge_after =
        (unsigned)zc__env_number("ZC_RUN_JUDGE_AFTER", ZC__DEFAULT_JUDGE_AFTER, 0, 1000000);
    c->verbose = zc__env_number("ZC_RUN_VERBOSE", 0, 0, 1) != 0;
    __atomic_store_n(&zc__config_read, 1, __ATOMIC_RELEASE);
}

const zc__run_config *zc__run_config_get(void)
{
    if (!__atomic_load_n(&zc__config_read, __ATOMIC_ACQUIRE))
        pthread_once(&zc__once, zc__read);
    return &zc__config;
}

int zc__run_fix_on(int fix)
{
    return (zc__run_config_get()->fixes >> fix) & 1u;
}
