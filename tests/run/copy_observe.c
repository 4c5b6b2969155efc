/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The copy library's observer (core/copy_observe.h), as zc trace's injection library arms it, in
 * a program the library is preloaded into (cpu_run_copy_observe): nothing is told before it is
 * armed; once armed for 1 MiB, every memcpy and memmove of ranges apart from 1 MiB is told once,
 * after it is made, with its ranges and a time; smaller copies and overlapping moves are not;
 * bad arguments are refused; and every copy writes what the C library's would have. Prints
 * "copy observer: ok" and exits 0, else says what failed and exits 1.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/copy_observe.h"

#define MiB ((size_t)1 << 20)

/* Through pointers read as volatile: the compiler may not turn the calls into its own copies. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
static void *(*volatile move_fn)(void *, const void *, size_t) = memmove;

static struct {
    unsigned calls;
    void *dst;
    const void *src;
    size_t bytes;
    int ok_when_told; /* the destination held the source's bytes when told */
} seen;

static void on_copy(void *dst, const void *src, size_t bytes, uint64_t ns)
{
    (void)ns;
    seen.calls++;
    seen.dst = dst;
    seen.src = src;
    seen.bytes = bytes;
    seen.ok_when_told =
        dst != src && bytes > 0 &&
        ((const unsigned char *)dst)[bytes - 1] == ((const unsigned char *)src)[bytes - 1];
}

static int failed;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "copy observer: %s\n", what);
        failed = 1;
    }
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31u + seed + (i >> 12));
}

/* A copy of bytes into a buffer of its own, checked whole; gives how many times it was told. */
static unsigned copied(unsigned char *dst, unsigned char *src, size_t bytes, int move)
{
    unsigned before = seen.calls;
    fill(src, bytes, (unsigned)bytes);
    memset(dst, 0, bytes);
    (move ? move_fn : copy_fn)(dst, src, bytes);
    expect(memcmp(dst, src, bytes) == 0, "a copy did not write the source's bytes");
    return seen.calls - before;
}

int main(void)
{
    zc__copy_observe_fn observe =
        (zc__copy_observe_fn)(uintptr_t)dlsym(RTLD_DEFAULT, ZC__COPY_OBSERVE_SYMBOL);
    if (observe == NULL) {
        fprintf(stderr, "copy observer: %s not found: the copy library is not preloaded\n",
                ZC__COPY_OBSERVE_SYMBOL);
        return 1;
    }
    unsigned char *a = malloc(4 * MiB), *b = malloc(4 * MiB);
    if (a == NULL || b == NULL)
        return 1;
    expect(copied(b, a, 2 * MiB, 0) == 0, "a copy was told before the observer was armed");
    expect(observe(0, on_copy) == -1, "from 0 was not refused");
    expect(observe(MiB, NULL) == -1, "a NULL observer was not refused");
    expect(copied(b, a, 2 * MiB, 0) == 0, "a refused observer was told of a copy");

    expect(observe(MiB, on_copy) == 0, "arming failed");
    expect(copied(b, a, 2 * MiB, 0) == 1, "a 2 MiB memcpy was not told once");
    expect(seen.dst == b && seen.src == a && seen.bytes == 2 * MiB, "told the wrong ranges");
    expect(seen.ok_when_told, "told before the copy was made");
    expect(copied(b, a, MiB, 1) == 1, "a 1 MiB memmove of ranges apart was not told once");
    expect(copied(b, a, MiB - 1, 0) == 0, "a copy under 1 MiB was told");

    /* An overlapping move, forwards and backwards: made as memmove makes it, never told. */
    fill(a, 4 * MiB, 7);
    fill(b, 4 * MiB, 7);
    unsigned before = seen.calls;
    move_fn(a + 4096, a, 3 * MiB);
    expect(seen.calls == before, "an overlapping move (forwards) was told");
    expect(memcmp(a + 4096, b, 3 * MiB) == 0, "an overlapping move (forwards) went wrong");
    fill(a, 4 * MiB, 7);
    before = seen.calls;
    move_fn(a, a + 4096, 3 * MiB);
    expect(seen.calls == before, "an overlapping move (backwards) was told");
    expect(memcmp(a, b + 4096, 3 * MiB) == 0, "an overlapping move (backwards) went wrong");
    free(a);
    free(b);
    if (!failed)
        printf("copy observer: ok\n");
    return failed;
}
