/* SPDX-License-Identifier: Apache-2.0 */
/* The floor under pinning: fresh pages first touched by every core the process may use, with
 * 4 KiB pages and with transparent huge pages. No GPU: what the memory itself costs. */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/pinning.h"
#include "core/error.h"
#include "core/host.h"
#include "mem/pages.h"
#include "zerocopy/clock.h"

unsigned zc__pin_cpus(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? (unsigned)n : 1;
}

zc_status zc__pin_region_map(size_t bytes, int huge, zc__pin_region *region_p)
{
    ZC_REQUIRE_ARG(region_p);
    size_t page = zc__page_size();
    if (bytes == 0 || bytes > SIZE_MAX - ZC__HUGE_PAGE)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__pin_region_map: %zu bytes", bytes);
    size_t len = (bytes + page - 1) / page * page;
    void *base = NULL;
    ZC_CHECK(zc__pages_map("zc__pin_region_map", len, huge, &base));
    /* Where transparent huge pages are "always", an aligned stretch of a plain mapping may get
     * them too: the 4 KiB floor asks for small pages outright. Advice only, as MADV_HUGEPAGE. */
    if (!huge)
        (void)madvise(base, len, MADV_NOHUGEPAGE);
    region_p->base = base;
    region_p->len = len;
    region_p->huge = huge;
    return ZC_OK;
}

zc_status zc__pin_region_touch(const zc__pin_region *region, unsigned threads, double *seconds_p)
{
    ZC_REQUIRE_ARG(region);
    ZC_REQUIRE_ARG(seconds_p);
    if (region->base == NULL || region->len == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__pin_region_touch: an empty region");
    if (threads == 0)
        threads = zc__pin_cpus();
    /* src/mem's touching: runs of whole huge pages, one per thread (no huge page faulted by two
     * threads, which would wait on each other), the first on the calling thread. */
    uint64_t t0 = zc_clock_ns();
    zc__pages_touch(region->base, region->len, threads);
    *seconds_p = (double)(zc_clock_ns() - t0) / 1e9;
    return ZC_OK;
}

zc_status zc__pin_region_resident(const zc__pin_region *region, size_t *resident_p, size_t *pages_p)
{
    ZC_REQUIRE_ARG(region);
    ZC_REQUIRE_ARG(resident_p);
    ZC_REQUIRE_ARG(pages_p);
    size_t pages = region->len / zc__page_size();
    unsigned char *vec = malloc(pages ? pages : 1);
    if (vec == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc__pin_region_resident: %zu pages", pages);
    if (mincore(region->base, region->len, vec) != 0) {
        int err = errno;
        free(vec);
        return ZC_FAIL(ZC_ERR_IO, "mincore(%p, %zu) failed: %s", region->base, region->len,
                       strerror(err));
    }
    size_t resident = 0;
    for (size_t i = 0; i < pages; i++)
        resident += vec[i] & 1;
    free(vec);
    *resident_p = resident;
    *pages_p = pages;
    return ZC_OK;
}

/* The AnonHugePages of the mapping holding base, from smaps text; 0 when no mapping holds it. */
static size_t zc__pin_smaps_huge(FILE *f, uintptr_t base)
{
    char line[512];
    int inside = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long lo = 0, hi = 0;
        unsigned long long kb = 0;
        /* A mapping's first line starts with its range; its fields follow, one per line. */
        if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2) {
            inside = base >= lo && base < hi;
            continue;
        }
        if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
            return (size_t)kb * 1024;
    }
    return 0;
}

zc_status zc__pin_region_huge_bytes(const zc__pin_region *region, size_t *bytes_p)
{
    ZC_REQUIRE_ARG(region);
    ZC_REQUIRE_ARG(bytes_p);
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL) {
        int err = errno;
        return ZC_FAIL(ZC_ERR_IO, "zc__pin_region_huge_bytes: /proc/self/smaps: %s", strerror(err));
    }
    size_t huge = zc__pin_smaps_huge(f, (uintptr_t)region->base);
    fclose(f);
    /* The kernel may have merged the region with a neighbour of the same flags. */
    *bytes_p = huge < region->len ? huge : region->len;
    return ZC_OK;
}

zc_status zc__pin_region_unmap(zc__pin_region *region, double *seconds_p)
{
    ZC_REQUIRE_ARG(region);
    if (region->base == NULL)
        return ZC_OK;
    uint64_t t0 = zc_clock_ns();
    zc_status st = zc__pages_unmap(region->base, region->len);
    uint64_t t1 = zc_clock_ns();
    region->base = NULL;
    region->len = 0;
    if (seconds_p != NULL)
        *seconds_p = (double)(t1 - t0) / 1e9;
    return st;
}
