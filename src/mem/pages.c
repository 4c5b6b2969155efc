/* SPDX-License-Identifier: Apache-2.0 */
/* Anonymous mappings aligned for huge pages, and touching their pages on several threads. */
#include "mem/pages.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "core/host.h"
#include "core/error.h"

zc_status zc__pages_map(const char *fn, size_t len, int huge, void **base_p)
{
    int align = huge && len >= ZC__HUGE_PAGE;
    /* Map a huge page more than needed, then cut the unaligned head and the tail away. */
    size_t want = align ? len + ZC__HUGE_PAGE : len;
    if (want < len)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "%s: %zu bytes cannot be mapped aligned", fn, len);
    void *raw = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        int err = errno;
        return ZC_FAIL(err == ENOMEM ? ZC_ERR_NO_MEMORY : ZC_ERR_IO,
                       "%s: mmap of %zu bytes failed: %s", fn, want, strerror(err));
    }
    char *base = raw;
    if (align) {
        uintptr_t start = (uintptr_t)raw;
        uintptr_t aligned = (start + ZC__HUGE_PAGE - 1) & ~(uintptr_t)(ZC__HUGE_PAGE - 1);
        size_t head = aligned - start;
        size_t tail = want - head - len;
        if (head > 0)
            (void)munmap(raw, head);
        if (tail > 0)
            (void)munmap((char *)aligned + len, tail);
        base = (char *)aligned;
        /* Advice only: without transparent huge pages the mapping simply keeps small pages. */
        (void)madvise(base, len, MADV_HUGEPAGE);
    }
    *base_p = base;
    return ZC_OK;
}

zc_status zc__pages_unmap(void *base, size_t len)
{
    if (munmap(base, len) != 0) {
        int err = errno;
        return ZC_FAIL(ZC_ERR_IO, "munmap(%p, %zu) failed: %s", base, len, strerror(err));
    }
    return ZC_OK;
}

typedef struct zc__touch_job {
    volatile char *start;
    size_t len;
    size_t step;
} zc__touch_job;

static void zc__touch_range(volatile char *start, size_t len, size_t step)
{
    /* A volatile store per page: the compiler may not merge or drop it. */
    for (size_t off = 0; off < len; off += step)
        start[off] = 0;
}

static void *zc__touch_main(void *arg)
{
    zc__touch_job *job = arg;
    zc__touch_range(job->start, job->len, job->step);
    return NULL;
}

void zc__pages_touch(void *base, size_t len, unsigned threads)
{
    size_t page = zc__page_size();
    if (threads == 0) {
        unsigned cpus = zc__usable_cpus();
        threads = len >= ZC__TOUCH_THREADS_MIN && cpus > 1 ? cpus : 1;
        if (threads > ZC__TOUCH_THREADS_MAX)
            threads = ZC__TOUCH_THREADS_MAX;
    }
    /* Each thread takes a run of whole huge pages, so no huge page is faulted by two threads;
     * job 0 runs on the calling thread, as does any job whose thread cannot start. */
    size_t huge_pages = (len + ZC__HUGE_PAGE - 1) / ZC__HUGE_PAGE;
    if (threads > huge_pages)
        threads = (unsigned)huge_pages;
    if (threads > ZC__TOUCH_THREADS_LIMIT)
        threads = ZC__TOUCH_THREADS_LIMIT;
    if (threads <= 1) {
        zc__touch_range(base, len, page);
        return;
    }
    pthread_t ids[ZC__TOUCH_THREADS_LIMIT];
    int running[ZC__TOUCH_THREADS_LIMIT] = {0};
    zc__touch_job jobs[ZC__TOUCH_THREADS_LIMIT];
    size_t per = (huge_pages + threads - 1) / threads * ZC__HUGE_PAGE;
    unsigned jobs_count = 0;
    for (size_t off = 0; off < len && jobs_count < threads; off += per) {
        zc__touch_job *job = &jobs[jobs_count];
        job->start = (volatile char *)base + off;
        job->len = len - off < per ? len - off : per;
        job->step = page;
        if (jobs_count > 0)
            running[jobs_count] = pthread_create(&ids[jobs_count], NULL, zc__touch_main, job) == 0;
        jobs_count++;
    }
    for (unsigned t = 0; t < jobs_count; t++) {
        if (!running[t])
            zc__touch_range(jobs[t].start, jobs[t].len, jobs[t].step);
    }
    for (unsigned t = 0; t < jobs_count; t++) {
        if (running[t])
            pthread_join(ids[t], NULL);
    }
}

unsigned zc__pages_touch_threads(size_t len)
{
    if (len < ZC__TOUCH_THREADS_MIN)
        return 0;
    unsigned cpus = zc__usable_cpus();
    return cpus > 1 ? cpus - 1 : 1u;
}
