/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A buffer's life around copies: each buffer is first copied until zc run (probably) pins it in
 * place, then freed, reallocated, unmapped, remapped, advised away, mapped over, protected or
 * registered by the program itself, and the copies after each event must move the bytes the
 * program sees there now. Plain, every check passes; under zc run, a pin kept past its event
 * would copy the old pages.
 */
#include <malloc.h>
#include <sys/mman.h>

#include "conf_support_life.h"

static const size_t N = (4u << 20) + 123; /* a malloc'd buffer: odd, above the mmap threshold */
static const size_t M = 4u << 20;         /* a mapping: whole pages */

static unsigned char *dev_buf; /* room for 2 * N */
static unsigned char *back;    /* the device's bytes read back, 2 * N */
static cudaStream_t stream;

/* What a buffer must hold: pattern seed, except zeros in [zero_from, zero_to). */
typedef struct expect {
    unsigned seed;
    size_t zero_from, zero_to;
} expect;

static expect pattern(unsigned seed)
{
    return expect{seed, 0, 0};
}

static expect zeros(size_t n)
{
    return expect{0, 0, n};
}

static size_t expect_differs(const unsigned char *p, size_t n, expect e)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char want = i >= e.zero_from && i < e.zero_to ? 0 : conf_byte(i, e.seed);
        if (p[i] != want)
            return i;
    }
    return n;
}

/* The program reads e in host, and a copy of host to the device carries e. */
static void check_holds(const char *name, const unsigned char *host, size_t n, expect e)
{
    size_t cpu = expect_differs(host, n, e);
    memset(back, 0xEE, n);
    CONF_CUDA(cudaMemcpy(dev_buf, host, n, cudaMemcpyHostToDevice));
    CONF_CUDA(cudaMemcpy(back, dev_buf, n, cudaMemcpyDeviceToHost));
    size_t gpu = expect_differs(back, n, e);
    conf_report(cpu == n && gpu == n, name,
                "of %zu bytes, the program reads byte %zu wrong, "
                "the device byte %zu (n: none)",
                n, cpu, gpu);
}

/* New content written by the program reaches the device (a synchronous copy), and content
 * made on the device reaches the program (an asynchronous copy on a stream); host ends up
 * holding pattern seed + 1. */
static void both_ways(const char *name, unsigned char *host, size_t n, unsigned seed)
{
    conf_fill(host, n, seed);
    memset(back, 0xEE, n);
    CONF_CUDA(cudaMemcpy(dev_buf, host, n, cudaMemcpyHostToDevice));
    CONF_CUDA(cudaMemcpy(back, dev_buf, n, cudaMemcpyDeviceToHost));
    size_t up = conf_differs(back, n, seed);
    conf_generate_on(dev_buf, n, seed + 1, stream);
    CONF_CUDA(cudaMemcpyAsync(host, dev_buf, n, cudaMemcpyDeviceToHost, stream));
    CONF_CUDA(cudaStreamSynchronize(stream));
    size_t down = conf_differs(host, n, seed + 1);
    conf_report(up == n && down == n, name,
                "of %zu bytes, to the device byte %zu wrong, "
                "from it byte %zu (n: none)",
                n, up, down);
}

static unsigned char *map(size_t n, void *hint)
{
    void *m = mmap(hint, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CONF_NEED(m != MAP_FAILED, "mmap");
    return (unsigned char *)m;
}

static void free_then_malloc(int round)
{
    char name[128];
    unsigned char *p = (unsigned char *)malloc(N);
    CONF_NEED(p != NULL, "malloc");
    conf_fill(p, N, 1);
    conf_pin_in_place(p, N, dev_buf);
    snprintf(name, sizeof name, "round %d: copies of a malloc'd buffer pinned in place", round);
    both_ways(name, p, N, 2);
    uintptr_t was = (uintptr_t)p;
    free(p);
    unsigned char *q = (unsigned char *)malloc(N);
    CONF_NEED(q != NULL, "malloc");
    fprintf(stderr, "round %d: malloc after free gave %s address\n", round,
            (uintptr_t)q == was ? "the same" : "another");
    snprintf(name, sizeof name, "round %d: free then malloc, copies of the new block", round);
    both_ways(name, q, N, 3);
    conf_pin_in_place(q, N, dev_buf);
    snprintf(name, sizeof name, "round %d: free then malloc, the new block pinned", round);
    both_ways(name, q, N, 5);
    free(q);
    unsigned char *z = (unsigned char *)calloc(1, N);
    CONF_NEED(z != NULL, "calloc");
    snprintf(name, sizeof name, "round %d: free then calloc, the device reads zeros", round);
    check_holds(name, z, N, zeros(N));
    free(z);
}

static void reallocs(void)
{
    unsigned char *p = (unsigned char *)malloc(N);
    CONF_NEED(p != NULL, "malloc");
    conf_fill(p, N, 10);
    conf_pin_in_place(p, N, dev_buf);
    unsigned char *big = (unsigned char *)realloc(p, 2 * N);
    CONF_NEED(big != NULL, "realloc larger");
    check_holds("realloc larger: content kept", big, N, pattern(10));
    both_ways("realloc larger: copies of the whole block", big, 2 * N, 11);
    conf_pin_in_place(big, 2 * N, dev_buf);
    const size_t small_n = N / 2 + 17;
    unsigned char *small = (unsigned char *)realloc(big, small_n);
    CONF_NEED(small != NULL, "realloc smaller");
    check_holds("realloc smaller: content kept", small, small_n, pattern(12));
    both_ways("realloc smaller: copies of the block", small, small_n, 13);
    conf_pin_in_place(small, small_n, dev_buf);
    both_ways("realloc smaller: the block pinned", small, small_n, 15);
    free(small);
}

static void unmap_then_map(void)
{
    unsigned char *m = map(M, NULL);
    conf_fill(m, M, 20);
    conf_pin_in_place(m, M, dev_buf);
    both_ways("mmap: copies of a mapping pinned in place", m, M, 21);
    CONF_NEED(munmap(m, M) == 0, "munmap");
    unsigned char *again = map(M, m); /* the same addresses, where nothing took them */
    fprintf(stderr, "mmap after munmap gave %s address\n", again == m ? "the same" : "another");
    check_holds("munmap then mmap: the device reads the new zeros", again, M, zeros(M));
    both_ways("munmap then mmap: copies of the new mapping", again, M, 23);
    conf_pin_in_place(again, M, dev_buf);
    CONF_NEED(munmap(again + M / 2, M / 2) == 0, "munmap of the upper half");
    check_holds("munmap of the upper half: the lower half", again, M / 2, pattern(24));
    conf_pin_in_place(again, M / 2, dev_buf);
    both_ways("munmap of the upper half: the lower half pinned", again, M / 2, 25);
    CONF_NEED(munmap(again, M / 2) == 0, "munmap");
}

static void remaps(void)
{
    unsigned char *m = map(M, NULL);
    conf_fill(m, M, 30);
    conf_pin_in_place(m, M, dev_buf);
    void *r = mremap(m, M, 2 * M, MREMAP_MAYMOVE);
    CONF_NEED(r != MAP_FAILED, "mremap larger");
    unsigned char *big = (unsigned char *)r;
    fprintf(stderr, "mremap larger %s\n", big == m ? "stayed" : "moved");
    check_holds("mremap larger: content kept, new pages zero", big, 2 * M, expect{30, M, 2 * M});
    both_ways("mremap larger: copies of the whole mapping", big, 2 * M, 31);
    conf_pin_in_place(big, 2 * M, dev_buf);
    r = mremap(big, 2 * M, M, 0);
    CONF_NEED(r == big, "mremap smaller");
    check_holds("mremap smaller: content kept", big, M, pattern(32));
    conf_pin_in_place(big, M, dev_buf);
    /* Moved for certain: onto a mapping reserved for it, the old addresses left empty. */
    unsigned char *target = map(M, NULL);
    r = mremap(big, M, M, MREMAP_MAYMOVE | MREMAP_FIXED, target);
    CONF_NEED(r == target, "mremap to a fixed address");
    check_holds("mremap to a fixed address: content kept there", target, M, pattern(32));
    both_ways("mremap to a fixed address: copies there", target, M, 33);
    unsigned char *old = map(M, big);
    fprintf(stderr, "mmap at the old address %s\n", old == big ? "got it" : "got another");
    check_holds("mmap where the moved mapping was: the device reads zeros", old, M, zeros(M));
    both_ways("mmap where the moved mapping was: copies", old, M, 35);
    CONF_NEED(munmap(old, M) == 0 && munmap(target, M) == 0, "munmap");
}

static void advice(void)
{
    unsigned char *m = map(M, NULL);
    conf_fill(m, M, 40);
    conf_pin_in_place(m, M, dev_buf);
    CONF_NEED(madvise(m, M, MADV_DONTNEED) == 0, "madvise");
    check_holds("madvise(MADV_DONTNEED): the device reads zeros", m, M, zeros(M));
    both_ways("madvise(MADV_DONTNEED): copies after", m, M, 41);
    conf_pin_in_place(m, M, dev_buf);
    CONF_NEED(madvise(m + M / 4, M / 4, MADV_DONTNEED) == 0, "madvise of a quarter");
    check_holds("madvise(MADV_DONTNEED) of a quarter: zeros there, the rest kept", m, M,
                expect{42, M / 4, M / 2});
    both_ways("madvise(MADV_DONTNEED) of a quarter: copies after", m, M, 43);
    CONF_NEED(munmap(m, M) == 0, "munmap");
}

static void map_over(void)
{
    const int fixed = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
    unsigned char *m = map(M, NULL);
    conf_fill(m, M, 50);
    conf_pin_in_place(m, M, dev_buf);
    CONF_NEED(mmap(m, M, PROT_READ | PROT_WRITE, fixed, -1, 0) == m, "mmap MAP_FIXED");
    check_holds("mmap MAP_FIXED over it: the device reads the new zeros", m, M, zeros(M));
    both_ways("mmap MAP_FIXED over it: copies after", m, M, 51);
    conf_pin_in_place(m, M, dev_buf);
    CONF_NEED(mmap(m + M / 2, M / 2, PROT_READ | PROT_WRITE, fixed, -1, 0) == m + M / 2,
              "mmap MAP_FIXED over the upper half");
    check_holds("mmap MAP_FIXED over its upper half: zeros there, the rest kept", m, M,
                expect{52, M / 2, M});
    both_ways("mmap MAP_FIXED over its upper half: copies after", m, M, 53);
    CONF_NEED(munmap(m, M) == 0, "munmap");
}

/* Copies from read-only pages are allowed; into them the driver's own staging would fault, so
 * the mapping is made writable again first. */
static void protect(void)
{
    unsigned char *m = map(M, NULL);
    conf_fill(m, M, 60);
    conf_pin_in_place(m, M, dev_buf);
    CONF_NEED(mprotect(m, M, PROT_READ) == 0, "mprotect(PROT_READ)");
    check_holds("mprotect(PROT_READ): copies from it", m, M, pattern(60));
    conf_pin_in_place(m, M, dev_buf);
    check_holds("mprotect(PROT_READ): copied again from it", m, M, pattern(60));
    CONF_NEED(mprotect(m, M, PROT_READ | PROT_WRITE) == 0, "mprotect(PROT_READ | PROT_WRITE)");
    both_ways("mprotect back to read-write: copies both ways", m, M, 61);
    CONF_NEED(munmap(m, M) == 0, "munmap");
}

static void check_type(const char *name, const void *p, cudaMemoryType want)
{
    cudaPointerAttributes a;
    CONF_CUDA(cudaPointerGetAttributes(&a, p));
    conf_report(a.type == want, name, "the type is %d, not %d", (int)a.type, (int)want);
}

/* The program pins, itself, a buffer zc run had pinned: every answer as plain. */
static void own_register(void)
{
    unsigned char *p = (unsigned char *)malloc(N);
    CONF_NEED(p != NULL, "malloc");
    conf_fill(p, N, 70);
    conf_pin_in_place(p, N, dev_buf);
    check_type("a buffer copied often is unregistered memory to the program", p,
               cudaMemoryTypeUnregistered);
    cudaError_t r = cudaHostRegister(p, N, cudaHostRegisterDefault);
    conf_report(r == cudaSuccess, "cudaHostRegister of it", "%s", cudaGetErrorName(r));
    check_type("registered by the program, it is host memory", p, cudaMemoryTypeHost);
    r = cudaHostRegister(p, N, cudaHostRegisterDefault);
    printf("cudaHostRegister of it again: %s\n", cudaGetErrorName(r));
    (void)cudaGetLastError();
    both_ways("copies of it registered by the program", p, N, 71);
    r = cudaHostUnregister(p);
    conf_report(r == cudaSuccess, "cudaHostUnregister of it", "%s", cudaGetErrorName(r));
    r = cudaHostUnregister(p);
    printf("cudaHostUnregister of it again: %s\n", cudaGetErrorName(r));
    (void)cudaGetLastError();
    check_type("unregistered by the program, it is unregistered memory", p,
               cudaMemoryTypeUnregistered);
    both_ways("copies of it unregistered", p, N, 73);
    conf_pin_in_place(p, N, dev_buf);
    both_ways("copies of it pinned in place again", p, N, 75);
    /* A part of it, not from its first byte. */
    r = cudaHostRegister(p + 8192, N / 2, cudaHostRegisterDefault);
    conf_report(r == cudaSuccess, "cudaHostRegister of a part of it", "%s", cudaGetErrorName(r));
    both_ways("copies of it with a part registered by the program", p, N, 77);
    r = cudaHostUnregister(p + 8192);
    conf_report(r == cudaSuccess, "cudaHostUnregister of the part", "%s", cudaGetErrorName(r));
    both_ways("copies of it with the part unregistered", p, N, 79);
    free(p);
}

int main(void)
{
    conf_skip_without_gpu("conf_lifecycle");
    conf_watch("conf_lifecycle", 120);
    CONF_CUDA(cudaMalloc((void **)&dev_buf, 2 * N));
    back = (unsigned char *)malloc(2 * N);
    CONF_NEED(back != NULL, "malloc");
    CONF_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    free_then_malloc(1);
    /* A fixed threshold: large blocks are mapped and unmapped each time, so a block freed and
     * allocated again often gets the same addresses (glibc otherwise raises it after a free). */
    CONF_NEED(mallopt(M_MMAP_THRESHOLD, 1 << 20) == 1, "mallopt");
    free_then_malloc(2);
    reallocs();
    unmap_then_map();
    remaps();
    advice();
    map_over();
    protect();
    own_register();

    CONF_CUDA(cudaStreamDestroy(stream));
    CONF_CUDA(cudaFree(dev_buf));
    free(back);
    conf_watch_done();
    int failures = __atomic_load_n(&conf_failures, __ATOMIC_RELAXED);
    if (failures)
        printf("FAIL conf_lifecycle: %d checks failed\n", failures);
    else
        printf("ok conf_lifecycle\n");
    return failures ? 1 : 0;
}
