/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's allocation and release entry points, replaced so that a cure that asks
 * (run_cures.h, watch_host) hears of every large allocation made and every release or change of
 * one before it happens: malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc and free; mmap (anonymous private mappings; MAP_FIXED replacing
 * pages), munmap, mremap, madvise (advice that gives pages back) and mprotect. Each one calls the
 * next definition in the process (glibc's, or an allocator the program preloads after this
 * library) and only raises the event; a row may take a release over (free, munmap) and make it
 * later, once it has let go of the memory. No hook here calls CUDA: they may run where CUDA
 * calls are not allowed. While no cure asks, or before the library's constructor has armed the
 * hooks, they pass through.
 *
 * Where these replacements are not the ones the program reaches (it defines malloc or free
 * itself, so its own come first), they are never armed: a release no row could see would leave
 * pages pinned that the program has given back.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/host.h"
#include "run_config.h"
#include "run_cures.h"
#include "run_driver.h"
#include "run_reach.h"

#define ZC__EXPORT __attribute__((visibility("default")))

typedef void *(*zc__malloc_fn)(size_t);
typedef void *(*zc__calloc_fn)(size_t, size_t);
typedef void *(*zc__realloc_fn)(void *, size_t);
typedef void *(*zc__reallocarray_fn)(void *, size_t, size_t);
typedef void (*zc__free_fn)(void *);
typedef int (*zc__posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*zc__aligned_fn)(size_t, size_t);
typedef void *(*zc__valloc_fn)(size_t);
typedef void *(*zc__mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*zc__munmap_fn)(void *, size_t);
typedef void *(*zc__mremap_fn)(void *, size_t, size_t, int, ...);
typedef int (*zc__madvise_fn)(void *, size_t, int);
typedef int (*zc__mprotect_fn)(void *, size_t, int);

/* The next definitions, found once (a pointer store is atomic here). */
static struct {
    zc__malloc_fn malloc;
    zc__calloc_fn calloc;
    zc__realloc_fn realloc;
    zc__reallocarray_fn reallocarray;
    zc__free_fn free;
    zc__posix_memalign_fn posix_memalign;
    zc__aligned_fn aligned_alloc;
    zc__aligned_fn memalign;
    zc__valloc_fn valloc;
    zc__valloc_fn pvalloc;
    zc__mmap_fn mmap;
    zc__munmap_fn munmap;
    zc__mremap_fn mremap;
    zc__madvise_fn madvise;
    zc__mprotect_fn mprotect;
} zc__next;

/*
 * Finding them calls dlsym, which may allocate: an allocation made meanwhile by this thread
 * comes from a small static arena (never given back; free of it does nothing). Initial-exec TLS,
 * so that reading the flag never allocates.
 */
static __thread int zc__resolving __attribute__((tls_model("initial-exec")));
static _Alignas(16) unsigned char zc__arena[16384];
static size_t zc__arena_used;

static void *zc__arena_alloc(size_t bytes)
{
    size_t need = (bytes + 15u) & ~(size_t)15u;
    size_t at = __atomic_fetch_add(&zc__arena_used, need, __ATOMIC_RELAXED);
    if (need < bytes || at + need > sizeof zc__arena || at + need < at)
        return NULL;
    return zc__arena + at;
}

static int zc__in_arena(const void *p)
{
    return (const unsigned char *)p >= zc__arena &&
           (const unsigned char *)p < zc__arena + sizeof zc__arena;
}

#define ZC__FIND(field, name) *(void **)&zc__next.field = zc__run_real_dlsym(RTLD_NEXT, name)

/* Set once every name was looked up: one the C library lacks (reallocarray before glibc 2.26)
 * stays NULL rather than being looked up again on every call. */
static int zc__resolved;

static void zc__resolve(void)
{
    if (zc__resolving || __atomic_load_n(&zc__resolved, __ATOMIC_ACQUIRE))
        return;
    zc__resolving = 1;
    ZC__FIND(malloc, "malloc");
    ZC__FIND(calloc, "calloc");
    ZC__FIND(realloc, "realloc");
    ZC__FIND(reallocarray, "reallocarray");
    ZC__FIND(free, "free");
    ZC__FIND(posix_memalign, "posix_memalign");
    ZC__FIND(aligned_alloc, "aligned_alloc");
    ZC__FIND(memalign, "memalign");
    ZC__FIND(valloc, "valloc");
    ZC__FIND(pvalloc, "pvalloc");
    ZC__FIND(mmap, "mmap");
    ZC__FIND(munmap, "munmap");
    ZC__FIND(mremap, "mremap");
    ZC__FIND(madvise, "madvise");
    ZC__FIND(mprotect, "mprotect");
    __atomic_store_n(&zc__resolved, 1, __ATOMIC_RELEASE);
    zc__resolving = 0;
}

/* The next definition of field, found first if need be; NULL while it is being found. */
#define ZC__NEXT(field) (zc__next.field != NULL ? zc__next.field : (zc__resolve(), zc__next.field))

/* The smallest allocation a cure asked to hear of; 0 until the constructor arms the hooks. */
static size_t zc__watch;

static int zc__armed(void)
{
    return __atomic_load_n(&zc__watch, __ATOMIC_ACQUIRE) != 0;
}

/* An event raised from an allocation hook: no CUDA call there, and errno as the call leaves it. */
static zc__run_answer zc__raise(zc__run_event_id id, const void *start, size_t length,
                                zc__run_release_fn release)
{
    int saved_errno = errno;
    zc__run_event e = {.id = id, .start = (uintptr_t)start, .length = length, .release = release};
    zc__run_answer answer = zc__run_raise(&e);
    errno = saved_errno;
    return answer;
}

/* Tell the rows of a new block (only big ones count; a no-op until armed). */
static void *zc__made(void *p, size_t bytes)
{
    size_t min = __atomic_load_n(&zc__watch, __ATOMIC_ACQUIRE);
    if (p != NULL && min != 0 && bytes >= min)
        zc__raise(ZC__EVENT_HOST_ALLOC, p, bytes, NULL);
    return p;
}

/* A block a row kept for an allocation of exactly bytes at alignment (a power of two), handed
 * out again; NULL when none (a no-op until armed, and for small allocations). */
static void *zc__kept(size_t bytes, size_t alignment)
{
    size_t min = __atomic_load_n(&zc__watch, __ATOMIC_ACQUIRE);
    if (min == 0 || bytes < min || alignment == 0 || (alignment & (alignment - 1)) != 0)
        return NULL;
    int saved_errno = errno;
    void *p = zc__run_host_serve(bytes, alignment);
    errno = saved_errno;
    return p;
}

/* An allocation failed: whether the blocks the rows kept were given back, so that it is worth
 * trying once more (memory the program freed must not make it fail). */
static int zc__squeezed(void)
{
    if (!zc__armed())
        return 0;
    int saved_errno = errno;
    int any = zc__run_host_squeeze();
    errno = saved_errno;
    return any;
}

/* malloc's alignment: what any block it gives satisfies. */
#define ZC__MALLOC_ALIGNMENT _Alignof(max_align_t)

/* The releases a row may take over and make later. */
static void zc__release_free(void *p, size_t length)
{
    (void)length;
    zc__free_fn next = ZC__NEXT(free);
    if (next != NULL)
        next(p);
}

static void zc__release_munmap(void *start, size_t length)
{
    zc__munmap_fn next = ZC__NEXT(munmap);
    if (next != NULL)
        (void)next(start, length);
}

ZC__EXPORT void *malloc(size_t bytes)
{
    zc__malloc_fn next = ZC__NEXT(malloc);
    if (next == NULL)
        return zc__arena_alloc(bytes);
    void *kept = zc__kept(bytes, ZC__MALLOC_ALIGNMENT);
    if (kept != NULL)
        return kept;
    void *p = next(bytes);
    if (p == NULL && bytes != 0 && zc__squeezed())
        p = next(bytes);
    return zc__made(p, bytes);
}

ZC__EXPORT void *calloc(size_t count, size_t size)
{
    zc__calloc_fn next = ZC__NEXT(calloc);
    if (next == NULL) {
        /* The arena is static, so zeroed; an overflowing product gets NULL. */
        size_t bytes = count * size;
        return size != 0 && bytes / size != count ? NULL : zc__arena_alloc(bytes);
    }
    /* Never served with a kept block: calloc's memory reads as zeros. */
    void *p = next(count, size);
    size_t bytes = count * size; /* next refused an overflow: p is NULL then */
    if (p == NULL && bytes != 0 && (size == 0 || bytes / size == count) && zc__squeezed())
        p = next(count, size);
    return zc__made(p, bytes);
}

ZC__EXPORT void free(void *p)
{
    if (p == NULL || zc__in_arena(p))
        return;
    /* A row that took the release over (deferred) or kept the block makes no release here. */
    if (zc__armed() && zc__raise(ZC__EVENT_HOST_FREE, p, 0, zc__release_free) != ZC__EVENT_SEEN)
        return;
    zc__free_fn next = ZC__NEXT(free);
    if (next != NULL)
        next(p);
}

/* realloc of a block a row holds: a new block, the old contents copied, the old one freed (its
 * release deferred by the row). realloc may always move a block; one of size 0 is freed. */
static void *zc__moved(void *p, size_t bytes)
{
    if (bytes == 0) {
        free(p);
        return NULL;
    }
    void *q = malloc(bytes);
    if (q == NULL)
        return NULL; /* the old block is left as it was, as realloc leaves it */
    size_t old = malloc_usable_size(p);
    memcpy(q, p, old < bytes ? old : bytes);
    free(p);
    return q;
}

ZC__EXPORT void *realloc(void *p, size_t bytes)
{
    if (zc__in_arena(p)) {
        /* Arena blocks keep no size: copy what can be there (never past the arena's end). */
        void *q = malloc(bytes);
        size_t room = (size_t)(zc__arena + sizeof zc__arena - (unsigned char *)p);
        if (q != NULL)
            memcpy(q, p, bytes < room ? bytes : room);
        return q;
    }
    zc__realloc_fn next = ZC__NEXT(realloc);
    if (next == NULL)
        return NULL;
    if (p != NULL && zc__armed()) {
        /* A block a row holds (pinned in place) is moved, so that its release goes through
         * free, which the row may defer; any other is released as realloc does. */
        if (zc__raise(ZC__EVENT_HOST_RESIZE, p, 0, NULL) == ZC__EVENT_DEFERRED)
            return zc__moved(p, bytes);
        zc__raise(ZC__EVENT_HOST_FREE, p, 0, NULL);
    }
    void *q = next(p, bytes);
    if (q == NULL && bytes != 0 && zc__squeezed())
        q = next(p, bytes);
    return zc__made(q, bytes);
}

ZC__EXPORT void *reallocarray(void *p, size_t count, size_t size)
{
    zc__reallocarray_fn next = ZC__NEXT(reallocarray);
    if (next == NULL || zc__in_arena(p)) {
        size_t bytes = count * size;
        if (size != 0 && bytes / size != count) {
            errno = ENOMEM;
            return NULL;
        }
        return realloc(p, bytes);
    }
    if (p != NULL && zc__armed()) {
        if (zc__raise(ZC__EVENT_HOST_RESIZE, p, 0, NULL) == ZC__EVENT_DEFERRED) {
            size_t bytes = count * size;
            if (size != 0 && bytes / size != count) {
                errno = ENOMEM;
                return NULL;
            }
            return zc__moved(p, bytes);
        }
        zc__raise(ZC__EVENT_HOST_FREE, p, 0, NULL);
    }
    void *q = next(p, count, size);
    if (q == NULL && count != 0 && size != 0 && errno == ENOMEM && zc__squeezed())
        q = next(p, count, size);
    return zc__made(q, count * size);
}

ZC__EXPORT int posix_memalign(void **p, size_t alignment, size_t bytes)
{
    zc__posix_memalign_fn next = ZC__NEXT(posix_memalign);
    if (next == NULL)
        return ENOMEM;
    /* An alignment posix_memalign refuses (EINVAL) is left to it. */
    void *kept = alignment % sizeof(void *) == 0 ? zc__kept(bytes, alignment) : NULL;
    if (kept != NULL) {
        *p = kept;
        return 0;
    }
    int r = next(p, alignment, bytes);
    if (r == ENOMEM && zc__squeezed())
        r = next(p, alignment, bytes);
    if (r == 0)
        zc__made(*p, bytes);
    return r;
}

/* aligned_alloc and memalign: a kept block when one fits, else the next definition's. */
static void *zc__aligned(zc__aligned_fn next, size_t alignment, size_t bytes)
{
    if (next == NULL)
        return NULL;
    void *kept = zc__kept(bytes, alignment);
    if (kept != NULL)
        return kept;
    void *p = next(alignment, bytes);
    if (p == NULL && errno == ENOMEM && zc__squeezed())
        p = next(alignment, bytes);
    return zc__made(p, bytes);
}

ZC__EXPORT void *aligned_alloc(size_t alignment, size_t bytes)
{
    return zc__aligned(ZC__NEXT(aligned_alloc), alignment, bytes);
}

ZC__EXPORT void *memalign(size_t alignment, size_t bytes)
{
    return zc__aligned(ZC__NEXT(memalign), alignment, bytes);
}

/* valloc and pvalloc's next definition, tried again with the kept blocks given back. */
static void *zc__page_aligned(zc__valloc_fn next, size_t bytes)
{
    void *p = next(bytes);
    if (p == NULL && errno == ENOMEM && zc__squeezed())
        p = next(bytes);
    return zc__made(p, bytes);
}

ZC__EXPORT void *valloc(size_t bytes)
{
    zc__valloc_fn next = ZC__NEXT(valloc);
    if (next == NULL)
        return NULL;
    void *kept = zc__kept(bytes, (size_t)zc__page_size());
    return kept != NULL ? kept : zc__page_aligned(next, bytes);
}

ZC__EXPORT void *pvalloc(size_t bytes)
{
    zc__valloc_fn next = ZC__NEXT(pvalloc);
    return next != NULL ? zc__page_aligned(next, bytes) : NULL;
}

/* An anonymous private mapping is memory of the program's own, like a malloc block; a shared
 * or file mapping is left alone (its pages are not the process's alone to pin). */
static void *zc__mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    zc__mmap_fn next = ZC__NEXT(mmap);
    if (next == NULL) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    /* MAP_FIXED replaces what was mapped there. */
    if ((flags & MAP_FIXED) && zc__armed())
        zc__raise(ZC__EVENT_RANGE_REPLACED, addr, length, NULL);
    void *p = next(addr, length, prot, flags, fd, offset);
    if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE)
        zc__made(p, length);
    return p;
}

ZC__EXPORT void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    return zc__mmap(addr, length, prot, flags, fd, offset);
}

ZC__EXPORT void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    return zc__mmap(addr, length, prot, flags, fd, offset);
}

ZC__EXPORT int munmap(void *addr, size_t length)
{
    zc__munmap_fn next = ZC__NEXT(munmap);
    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    /* A release a row may take over: only a well-formed one, whose errors the program would not
     * see otherwise. */
    if (zc__armed() && length != 0 && (uintptr_t)addr % zc__page_size() == 0 &&
        zc__raise(ZC__EVENT_RANGE_UNMAPPED, addr, length, zc__release_munmap) == ZC__EVENT_DEFERRED)
        return 0;
    return next(addr, length);
}

ZC__EXPORT void *mremap(void *old, size_t old_length, size_t new_length, int flags, ...)
{
    void *new_address = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_address = va_arg(ap, void *);
        va_end(ap);
    }
    zc__mremap_fn next = ZC__NEXT(mremap);
    if (next == NULL) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    /* The old pages move (or go), and a fixed target's are replaced; the result is not
     * tracked (a remapped region is never pinned). */
    if (zc__armed()) {
        zc__raise(ZC__EVENT_RANGE_REPLACED, old, old_length, NULL);
        if (flags & MREMAP_FIXED)
            zc__raise(ZC__EVENT_RANGE_REPLACED, new_address, new_length, NULL);
    }
    return (flags & MREMAP_FIXED) ? next(old, old_length, new_length, flags, new_address)
                                  : next(old, old_length, new_length, flags);
}

/* Advice after which the pages the program reads are no longer the ones pinned. */
static int zc__gives_pages_back(int advice)
{
    switch (advice) {
    case MADV_DONTNEED:
#ifdef MADV_FREE
    case MADV_FREE:
#endif
#ifdef MADV_REMOVE
    case MADV_REMOVE:
#endif
        return 1;
    default:
        return 0;
    }
}

ZC__EXPORT int madvise(void *addr, size_t length, int advice)
{
    zc__madvise_fn next = ZC__NEXT(madvise);
    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (zc__gives_pages_back(advice) && zc__armed())
        zc__raise(ZC__EVENT_PAGES_DISCARDED, addr, length, NULL);
    return next(addr, length, advice);
}

ZC__EXPORT int mprotect(void *addr, size_t length, int prot)
{
    zc__mprotect_fn next = ZC__NEXT(mprotect);
    if (next == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (zc__armed())
        zc__raise(ZC__EVENT_RANGE_REPROTECTED, addr, length, NULL);
    return next(addr, length, prot);
}

/* Whether every replacement above is what the process's calls reach by name (run_reach.h). */
static int zc__reached(void)
{
    static const char *const names[] = {"malloc", "calloc", "realloc", "free",    "posix_memalign",
                                        "mmap",   "munmap", "mremap",  "madvise", "mprotect"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!zc__run_reaches(names[i], (const void *)zc__resolve)) {
            if (zc__run_config_get()->verbose)
                fprintf(stderr,
                        "zerocopy run: the program reaches another %s than this "
                        "library's; the cures that watch allocations (register, fresh) are off\n",
                        names[i]);
            return 0;
        }
    }
    return 1;
}

/* Arm the hooks once the configuration can be read: only when a cure asks to hear of host
 * allocations and the replacements are the ones the program reaches. */
__attribute__((constructor)) static void zc__alloc_hooks_init(void)
{
    zc__resolve();
    size_t watch = zc__run_host_watch();
    if (watch == 0 || !zc__reached())
        return;
    __atomic_store_n(&zc__watch, watch, __ATOMIC_RELEASE);
}
