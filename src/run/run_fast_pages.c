/* SPDX-License-Identifier: Apache-2.0 */
/* The fast pinning cure's pages: mapped fresh, faulted in by several threads, made shared. */
#include "run_fast_pages.h"
#include "run_workers.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/host.h"
#include "core/page_touch.h"

#define ZC__FAST_HUGE        ((size_t)2 << 20)
#define ZC__FAST_THREADS_MAX 64

/* The kernel's calls, not the library's own hooks of them (run_alloc_hooks.c): the cure's own
 * pages are no event for the other rows. */
static void *zc__sys_mmap(size_t length, int flags)
{
    return (void *)syscall(SYS_mmap, NULL, length, PROT_READ | PROT_WRITE, flags, -1, 0);
}

static int zc__sys_munmap(void *start, size_t length)
{
    return (int)syscall(SYS_munmap, start, length);
}

size_t zc__fast_length(size_t bytes)
{
    size_t unit = bytes >= ZC__FAST_HUGE ? ZC__FAST_HUGE : zc__page_size();
    if (bytes == 0 || bytes > SIZE_MAX - unit)
        return 0;
    return (bytes + unit - 1) / unit * unit;
}

void *zc__fast_map(size_t length)
{
    int huge = length >= ZC__FAST_HUGE;
    size_t slack = huge ? ZC__FAST_HUGE : 0;
    if (length == 0 || length > SIZE_MAX - slack) {
        errno = EINVAL;
        return NULL;
    }
    char *raw = zc__sys_mmap(length + slack, MAP_PRIVATE | MAP_ANONYMOUS);
    if (raw == MAP_FAILED)
        return NULL;
    if (!huge)
        return raw;
    /* Trim the slack so that the block is exactly [base, base + length): its release is one
     * munmap, and nothing beside it belongs to it. */
    char *base = (char *)(((uintptr_t)raw + ZC__FAST_HUGE - 1) & ~(uintptr_t)(ZC__FAST_HUGE - 1));
    if (base > raw)
        (void)zc__sys_munmap(raw, (size_t)(base - raw));
    if (raw + length + slack > base + length)
        (void)zc__sys_munmap(base + length, (size_t)(raw + length + slack - (base + length)));
    /* Advice only: where transparent huge pages are off it changes nothing. */
    (void)syscall(SYS_madvise, base, length, MADV_HUGEPAGE);
    return base;
}

void zc__fast_unmap(void *base, size_t length)
{
    if (base != NULL && length != 0)
        (void)zc__sys_munmap(base, length);
}

/* One thread's share of the touching of a range. */
typedef struct zc__fast_piece {
    char *base;
    size_t length;
} zc__fast_piece;

/* Each page of the piece gets core's write fault that keeps every byte (core/page_touch.h). */
static void *zc__fast_piece_run(void *arg)
{
    const zc__fast_piece *piece = arg;
    zc__touch_pages(piece->base, piece->length);
    return NULL;
}

/* Touch [base, base + length) in up to threads pieces of whole huge pages, the caller taking the
 * last; a thread that cannot start leaves its piece to the caller. Threads of its own, not the
 * copying threads: the floor it aims at is every CPU the process may run on. */
static void zc__fast_parallel(char *base, size_t length, unsigned threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > ZC__FAST_THREADS_MAX)
        threads = ZC__FAST_THREADS_MAX;
    size_t share = length / threads + (length % threads != 0);
    size_t piece_length = (share + ZC__FAST_HUGE - 1) / ZC__FAST_HUGE * ZC__FAST_HUGE;
    zc__fast_piece pieces[ZC__FAST_THREADS_MAX];
    pthread_t ids[ZC__FAST_THREADS_MAX];
    int started[ZC__FAST_THREADS_MAX] = {0};
    unsigned count = 0;
    for (size_t at = 0; at < length && count < threads; at += piece_length, count++) {
        size_t n = length - at < piece_length ? length - at : piece_length;
        pieces[count] = (zc__fast_piece){base + at, n};
    }
    for (unsigned i = 0; i + 1 < count; i++)
        started[i] = pthread_create(&ids[i], NULL, zc__fast_piece_run, &pieces[i]) == 0;
    for (unsigned i = 0; i < count; i++)
        if (i + 1 == count || !started[i])
            (void)zc__fast_piece_run(&pieces[i]);
    for (unsigned i = 0; i + 1 < count; i++)
        if (started[i])
            (void)pthread_join(ids[i], NULL);
}

void zc__fast_touch(void *base, size_t length, unsigned threads)
{
    if (base != NULL && length != 0)
        zc__fast_parallel(base, length, threads);
}

int zc__fast_share(void *base, size_t length)
{
    if (base == NULL || length == 0) {
        errno = EINVAL;
        return -1;
    }
    char *shared = zc__sys_mmap(length, MAP_SHARED | MAP_ANONYMOUS);
    if (shared == MAP_FAILED)
        return -1;
    zc__run_parallel_copy(shared, base, length);
    /* One step replaces the private pages by the shared ones at the same address. */
    if ((void *)syscall(SYS_mremap, shared, length, length, MREMAP_MAYMOVE | MREMAP_FIXED, base) ==
        MAP_FAILED) {
        int saved = errno;
        (void)zc__sys_munmap(shared, length);
        errno = saved;
        return -1;
    }
    return 0;
}

/* One line of /proc/self/maps: its range, and whether it is private anonymous writable memory
 * (no file behind it: inode 0; the heap and the stacks are named but anonymous). */
static int zc__maps_line(const char *line, uintptr_t *from_p, uintptr_t *to_p)
{
    unsigned long long from = 0, to = 0, inode = 0;
    char perms[8] = "", dev[16] = "";
    unsigned long long offset = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %15s %llu", &from, &to, perms, &offset, dev, &inode) != 6)
        return -1;
    *from_p = (uintptr_t)from;
    *to_p = (uintptr_t)to;
    return perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' && inode == 0;
}

int zc__fast_anon_writable(const void *start, size_t length)
{
    uintptr_t at = (uintptr_t)start, end = at + length;
    if (start == NULL || length == 0 || end < at)
        return 0;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL)
        return 0;
    char line[512];
    int ok = 0;
    /* The lines come in address order: walk them, each one that covers the next byte must be
     * anonymous and writable, until the range is covered. */
    while (!ok && fgets(line, sizeof line, maps) != NULL) {
        uintptr_t from, to;
        int good = zc__maps_line(line, &from, &to);
        if (good < 0 || to <= at)
            continue;
        if (from > at || !good)
            break;
        at = to;
        ok = at >= end;
    }
    fclose(maps);
    return ok;
}
