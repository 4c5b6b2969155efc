/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fresh cure's row. A device-to-host copy into pageable memory the program has just
 * allocated (PyTorch's .cpu(), a new numpy array) is slowed most by the destination's pages:
 * each is faulted in, and zeroed, by the copy that first writes it, one page at a time inside
 * every thread's memcpy, and the threads' faults meet on the same page-table locks. This row
 * faults the destination's pages in before the copy, a compare-and-swap of one byte of each page
 * with itself (core/page_touch.h), split over the copying threads in whole 2 MiB regions, and
 * passes the copy on to be staged by the next row as before. No byte changes: the pages come in
 * as they would have (zeroed if new, as they were if not), a byte another thread writes in the
 * edge pages meanwhile keeps that thread's value (the swap is atomic), and what the program
 * computes is what it computed. Every page touched holds a byte the copy writes, so it is one
 * the copy itself must be able to write.
 * - Only pages of the program's own anonymous memory are faulted in: inside an allocation the
 *   allocation hooks saw made (malloc family, anonymous private mmap, run_anon.h). A file or
 *   shared mapping, or memory the library did not see allocated, is left to the copy
 *   (fresh-unseen).
 * - Pages that are there already cost one mincore() call on a window of them (fresh-resident).
 * - Only copies the pageable cure will stage: not its sample (which prices the copy as it was,
 *   faults included), nor copies it leaves as they were.
 * With ZC_RUN_FRESH_HUGE=1 it also advises large fresh allocations to use transparent huge
 * pages (MADV_HUGEPAGE on their whole 2 MiB regions), which makes faulting them in 512 times
 * fewer faults and can raise the program's footprint (docs/run.md).
 * Not MADV_POPULATE_WRITE, which never writes: on the H100 machine it was 4-6 times slower
 * from 16 threads than a write per page from the same threads. The cure is applied only when
 * named (ZC_RUN_FIXES_DEFAULT) until it is shown never to slow a copy (docs/run.md, "The fresh
 * cure").
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/host.h"
#include "core/page_touch.h"
#include "run_anon.h"
#include "run_config.h"
#include "run_copy.h"
#include "run_cures.h"
#include "run_workers.h"

/* A transparent huge page, and the part of a copy each thread faults in when it is large: whole
 * huge pages, so that no two threads fault within one. */
#define ZC__HUGE ((uintptr_t)2 << 20)

/* The pages asked about to tell fresh from resident: a window of them in the middle of the
 * destination, in one mincore() call (its cost is the call's, a few hundred nanoseconds, about
 * the same for one page as for 64). A copy into memory used before finds them all there; one
 * into a new allocation finds most of them missing (all but the first page, which may hold the
 * allocator's header). */
#define ZC__WINDOW 64u

/* The kernel's madvise, not the library's own hook of it: this row's advice is no event. */
static int zc__madvise(uintptr_t start, size_t length, int advice)
{
    return (int)syscall(SYS_madvise, (void *)start, length, advice);
}

/* ---- fresh or resident ---- */

typedef enum zc__pages { ZC__PAGES_RESIDENT, ZC__PAGES_FRESH, ZC__PAGES_UNKNOWN } zc__pages;

/* Whether the pages [first, first + pages * page) are there: resident when every page of the
 * window is, unknown when the kernel cannot say (the range is not mapped). */
static zc__pages zc__pages_state(uintptr_t first, size_t pages, uintptr_t page)
{
    unsigned char in[ZC__WINDOW];
    size_t count = pages < ZC__WINDOW ? pages : ZC__WINDOW;
    uintptr_t from = first + (pages - count) / 2 * page;
    if (mincore((void *)from, count * page, in) != 0)
        return ZC__PAGES_UNKNOWN;
    for (size_t i = 0; i < count; i++) {
        if (!(in[i] & 1u))
            return ZC__PAGES_FRESH;
    }
    return ZC__PAGES_RESIDENT;
}

/* ---- faulting in, over the copying threads ---- */

/* The copying threads (run_workers.h) rather than threads of this row's own: they are the ones
 * that drain the copy into these pages next, so faulting the pages in with them uses no core
 * the copy would not, starts no thread, and takes turns with the staged copies of other program
 * threads like any copy. */
typedef struct zc__populate {
    uintptr_t first, end, page;
} zc__populate;

/* Where part k of parts starts: whole huge pages when every part gets one, else whole pages. */
static uintptr_t zc__bound(const zc__populate *p, unsigned k, unsigned parts)
{
    if (k == 0)
        return p->first;
    if (k >= parts)
        return p->end;
    uintptr_t span = p->end - p->first;
    uintptr_t grain = span / parts >= ZC__HUGE ? ZC__HUGE : p->page;
    uintptr_t at = (p->first + span / parts * k) / grain * grain;
    return at < p->first ? p->first : at;
}

static void zc__populate_part(void *arg, unsigned part, unsigned parts)
{
    zc__populate *p = arg;
    uintptr_t from = zc__bound(p, part, parts), to = zc__bound(p, part + 1, parts);
    if (to > from)
        zc__touch_pages((void *)from, to - from);
}

/* Fault [first, end) in over the threads. */
static void zc__populate_range(uintptr_t first, uintptr_t end)
{
    zc__populate p = {.first = first, .end = end, .page = (uintptr_t)zc__page_size()};
    zc__run_parallel_each(zc__populate_part, &p, end - first);
}

/* The destination [host, host + bytes) of a copy about to be staged: its pages faulted in
 * ahead when they are fresh and the program's own, and the copy counted either way. */
static void zc__ahead(uintptr_t host, size_t bytes)
{
    int saved_errno = errno;
    uint64_t start = zc__run_now_ns();
    uintptr_t page = (uintptr_t)zc__page_size();
    uintptr_t first = host / page * page;
    uintptr_t end = (host + bytes - 1) / page * page + page;
    zc_run_counter what = ZC_RUN_COUNTER_FRESH_UNSEEN;
    zc__pages state = zc__pages_state(first, (end - first) / page, page);
    if (state == ZC__PAGES_RESIDENT)
        what = ZC_RUN_COUNTER_FRESH_RESIDENT;
    else if (state == ZC__PAGES_FRESH && zc__run_anon_covers(host, bytes)) {
        zc__populate_range(first, end);
        what = ZC_RUN_COUNTER_FRESH_AHEAD;
    }
    zc__run_count(what, bytes, zc__run_now_ns() - start, 0, ZC_RUN_PRICED_NONE);
    errno = saved_errno;
}

/* A plain copy to pageable memory that the pageable cure will stage; always passed on. */
static zc__plan zc__plan_copy(zc__run_copy *c)
{
    if (c->kind != ZC__COPY_HOST_DEVICE || c->dir != ZC__RUN_D2H || c->host_where != ZC__PAGEABLE ||
        c->row != 0 || c->must_stage || c->bytes < zc__run_config_get()->fresh_min_bytes)
        return ZC__PASS;
    if (zc__run_copy_eligible(c) == ZC__CURE)
        zc__ahead((uintptr_t)c->host, c->bytes);
    return ZC__PASS;
}

/* Allocations are heard from the smallest copy this row looks at, and from a huge page when they
 * are to be advised (so that advice alone is had with a threshold above every copy). */
static size_t zc__watch_host(void)
{
    const zc__run_config *config = zc__run_config_get();
    return config->fresh_huge && config->fresh_min_bytes > ZC__HUGE ? ZC__HUGE
                                                                    : config->fresh_min_bytes;
}

const zc__run_calls zc__cure_fresh_calls = {.plan_copy = zc__plan_copy,
                                            .watch_host = zc__watch_host};

/* ---- transparent huge pages, when asked ---- */

static pthread_once_t zc__huge_once = PTHREAD_ONCE_INIT;
static int zc__huge_on;

/* Asked for and possible: the system's mode is not "never" (read once, without allocating: this
 * runs inside an allocation hook). Said on stderr when it was asked for and is not possible. */
static void zc__huge_check(void)
{
    if (!zc__run_config_get()->fresh_huge)
        return;
    char mode[128] = "";
    int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, mode, sizeof mode - 1);
        mode[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    zc__huge_on = strstr(mode, "[never]") == NULL;
    if (!zc__huge_on) {
        static const char text[] = "zerocopy run: ZC_RUN_FRESH_HUGE=1, but transparent huge "
                                   "pages are off on this system (\"never\"): nothing advised\n";
        (void)!write(2, text, sizeof text - 1);
    }
}

/* Every page of [start, start + length) advised, and its whole huge pages counted (the only
 * ones the kernel can back with huge pages). The advice covers the allocation's every page, not
 * just its whole huge pages: advice on part of a mapping splits it into mappings of two kinds,
 * and mremap of the whole, which the program may do with a mapping it made, then fails
 * (EFAULT). A mapping the program made is advised exactly; a large malloc'd block is advised
 * from its first page to its last. */
static void zc__advise_huge(uintptr_t start, size_t length)
{
    pthread_once(&zc__huge_once, zc__huge_check);
    if (!zc__huge_on || start > UINTPTR_MAX - ZC__HUGE || length > UINTPTR_MAX - ZC__HUGE - start)
        return;
    uintptr_t page = (uintptr_t)zc__page_size(), from = start / page * page;
    uintptr_t to = (start + length + page - 1) / page * page;
    uintptr_t first = (start + ZC__HUGE - 1) / ZC__HUGE * ZC__HUGE;
    uintptr_t end = (start + length) / ZC__HUGE * ZC__HUGE;
    if (end > first && zc__madvise(from, to - from, MADV_HUGEPAGE) == 0)
        zc__run_count(ZC_RUN_COUNTER_FRESH_HUGE, end - first, 0, 0, ZC_RUN_PRICED_NONE);
}

/* Said as the library loads rather than at the first large allocation. */
__attribute__((constructor)) static void zc__fresh_init(void)
{
    if (zc__run_fix_on(ZC_RUN_FIX_FRESH))
        pthread_once(&zc__huge_once, zc__huge_check);
}

/* ---- the lifecycle: the program's anonymous allocations, as they come and go ---- */

zc__run_answer ZC__RUN_ON(fresh, HOST_ALLOC)(const zc__run_event *e)
{
    const zc__run_config *config = zc__run_config_get();
    if (e->length >= config->fresh_min_bytes)
        zc__run_anon_add(e->start, e->length);
    if (config->fresh_huge)
        zc__advise_huge(e->start, e->length);
    return ZC__EVENT_SEEN;
}

zc__run_answer ZC__RUN_ON(fresh, HOST_FREE)(const zc__run_event *e)
{
    zc__run_anon_release(e->start);
    return ZC__EVENT_SEEN;
}

/* realloc raises HOST_FREE and HOST_ALLOC next; this row holds no block to move. */
ZC__RUN_IGNORES(fresh, HOST_RESIZE)

zc__run_answer ZC__RUN_ON(fresh, RANGE_UNMAPPED)(const zc__run_event *e)
{
    zc__run_anon_release_range(e->start, e->length);
    return ZC__EVENT_SEEN;
}

/* What comes in the range's place (a file, a shared mapping, remapped pages) is not an
 * allocation seen made. */
zc__run_answer ZC__RUN_ON(fresh, RANGE_REPLACED)(const zc__run_event *e)
{
    zc__run_anon_release_range(e->start, e->length);
    return ZC__EVENT_SEEN;
}

/* Pages given back are the program's anonymous memory still, fresh again: what this row is
 * for. */
ZC__RUN_IGNORES(fresh, PAGES_DISCARDED)
/* A page the row touches holds a byte the copy writes: one the program must leave writable for
 * its own copy, whatever protection the rest of the range has. */
ZC__RUN_IGNORES(fresh, RANGE_REPROTECTED)
/* The row changes nothing the driver sees, nor holds anything of a context's. */
ZC__RUN_IGNORES(fresh, RANGE_IN_GRAPH)
ZC__RUN_IGNORES(fresh, RANGE_REGISTERED)
ZC__RUN_IGNORES(fresh, CONTEXT_GONE)
ZC__RUN_IGNORES(fresh, FORK_CALLED)
ZC__RUN_IGNORES(fresh, FORK_PREPARE)
ZC__RUN_IGNORES(fresh, FORK_PARENT)

zc__run_answer ZC__RUN_ON(fresh, FORK_CHILD)(const zc__run_event *e)
{
    (void)e;
    zc__run_anon_after_fork();
    return ZC__EVENT_SEEN;
}

ZC__RUN_IGNORES(fresh, EXIT)
