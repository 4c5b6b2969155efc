/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fastpin cure on the CPU, against the stand-in driver (fake_cuda.c): a large pinned
 * allocation is served from fresh pages on a huge-page boundary, pinned whole by one
 * registration, never by the driver's allocation; copies from it land; the program's
 * cuMemHostUnregister of it gets the answer for the driver's pinned memory and leaves it pinned;
 * cuMemFreeHost waits for the context, unpins it and gives the pages back, and a second free
 * gets the driver's answer; a forked child's writes to it reach the parent, as with the driver's
 * pinned memory; small, write-combined and off-by-default allocations go to the driver; a
 * context destroyed takes its blocks with it. Each case runs in a child process with the library
 * preloaded (fake_child.h).
 */
#include "test_support.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_child.h"
#include "fake_cuda.h"
#include "zerocopy/run.h"

#define MIB ((size_t)1 << 20)

/* Above the threshold the parent sets (ZC_RUN_FASTPIN_BYTES, 32 MiB), not a whole number of
 * huge pages. */
static const size_t big = 40 * MIB + 5;

/* ---- the child's cases ---- */

static fake_cuda_counts counts(void)
{
    fake_cuda_counts c;
    fake_cuda_stats(&c);
    return c;
}

/* Whether [p, p + n) is mapped at all (mincore fails with ENOMEM on a hole). */
static int mapped(void *p, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char v[1];
    for (size_t at = 0; at < n; at += page)
        if (mincore((char *)p + at, 1, v) != 0)
            return 0;
    return 1;
}

/* A round trip through the device from the block, checked. */
static int round_trip(unsigned char *p, size_t n)
{
    CUdeviceptr dev;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    fake_child_fill(p, n, 7);
    CHECK_CU(cuMemcpyHtoD_v2(dev, p, n));
    unsigned char *back = malloc(n);
    if (back == NULL)
        return 1;
    CHECK_CU(cuMemcpyDtoH_v2(back, dev, n));
    int same = memcmp(back, p, n) == 0;
    free(back);
    CHECK_CU(cuMemFree_v2(dev));
    if (!same)
        printf("FAIL a round trip through the block differs\n");
    return !same;
}

static int child_serve(void)
{
    CHECK_CU(cuInit(0));
    fake_cuda_counts before = counts();
    unsigned char *p = NULL;
    CHECK_CU(cuMemHostAlloc((void **)&p, big, CU_MEMHOSTALLOC_PORTABLE));
    fake_cuda_counts served = counts();
    printf("aligned %d, driver allocations %llu, registrations %llu\n",
           (uintptr_t)p % (2 * MIB) == 0,
           (unsigned long long)(served.host_allocs - before.host_allocs),
           (unsigned long long)(served.portable_registers - before.portable_registers));
    if (round_trip(p, big) != 0)
        return 1;
    /* Registrations live counted as changes: the staging of the round trip's copy back into
     * pageable memory is one of the library's own. */
    uint64_t live = counts().portable_live;
    CUresult r = cuMemHostUnregister(p);
    printf("unregister by the program: %d, unpinned %llu\n", (int)r,
           (unsigned long long)(live - counts().portable_live));
    uint64_t made = counts().registers;
    r = cuMemHostRegister_v2(p + 4096, 4096, 0);
    printf("register inside by the program: %d, registrations made %llu\n", (int)r,
           (unsigned long long)(counts().registers - made));
    uint64_t syncs = counts().ctx_syncs;
    CHECK_CU(cuMemFreeHost(p));
    fake_cuda_counts freed = counts();
    printf("freed: unpinned %llu, waited %d, mapped %d\n",
           (unsigned long long)(live - freed.portable_live), freed.ctx_syncs > syncs,
           mapped(p, big));
    printf("second free: %d\n", (int)cuMemFreeHost(p));
    unsigned char *q = NULL;
    CHECK_CU(cuMemAllocHost_v2((void **)&q, 33 * MIB));
    if (round_trip(q, 33 * MIB) != 0)
        return 1;
    CHECK_CU(cuMemFreeHost(q));
    printf("serve ok\n");
    return 0;
}

/* Below the threshold, write-combined: the driver's own blocks. */
static int child_driver(void)
{
    CHECK_CU(cuInit(0));
    uint64_t before = counts().host_allocs;
    void *small = NULL, *wc = NULL;
    CHECK_CU(cuMemHostAlloc(&small, MIB, 0));
    CHECK_CU(cuMemHostAlloc(&wc, big, CU_MEMHOSTALLOC_WRITECOMBINED));
    printf("driver allocations %llu\n", (unsigned long long)(counts().host_allocs - before));
    CHECK_CU(cuMemFreeHost(small));
    CHECK_CU(cuMemFreeHost(wc));
    printf("driver ok\n");
    return 0;
}

/* A block written before fork, written by the child: the parent sees the child's bytes. */
static int child_fork(void)
{
    CHECK_CU(cuInit(0));
    unsigned char *p = NULL;
    CHECK_CU(cuMemHostAlloc((void **)&p, big, 0));
    memset(p, 0x11, big);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        p[0] = 0x22;
        p[big - 1] = 0x33;
        _exit(0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    printf("after the child: %02x %02x %02x, still pinned %llu\n", p[0], p[big / 2], p[big - 1],
           (unsigned long long)counts().registered_live);
    if (round_trip(p, big) != 0)
        return 1;
    CHECK_CU(cuMemFreeHost(p));
    printf("fork ok\n");
    return 0;
}

/* A context destroyed with a block alive: the block goes with it; its free is then the driver's
 * to answer. */
static int child_context_gone(void)
{
    CHECK_CU(cuInit(0));
    CUcontext ctx = NULL;
    CHECK_CU(cuCtxGetCurrent(&ctx));
    void *p = NULL;
    CHECK_CU(cuMemHostAlloc(&p, big, 0));
    CHECK_CU(cuCtxDestroy_v2(ctx));
    printf("gone: pinned %llu, mapped %d, free %d\n", (unsigned long long)counts().registered_live,
           mapped(p, big), (int)cuMemFreeHost(p));
    printf("context ok\n");
    return 0;
}

/* A primary context released (maybe not for the last time): the block stays the program's,
 * mapped and pinned, and its free works. */
static int child_release(void)
{
    CHECK_CU(cuInit(0));
    unsigned char *p = NULL;
    CHECK_CU(cuMemHostAlloc((void **)&p, big, 0));
    uint64_t live = counts().registered_live;
    CHECK_CU(cuDevicePrimaryCtxRelease_v2(0));
    memset(p, 0x5A, big);
    printf("released: unpinned %llu, mapped %d\n",
           (unsigned long long)(live - counts().registered_live), mapped(p, big));
    CHECK_CU(cuMemFreeHost(p));
    printf("release ok\n");
    return 0;
}

/* Pages of [p, p + n) the kernel backs. */
static size_t resident(const unsigned char *p, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), in = 0;
    for (size_t at = 0; at < n; at += page) {
        unsigned char v = 0;
        in += mincore((void *)(((uintptr_t)p + at) / page * page), 1, &v) == 0 && (v & 1u);
    }
    return in;
}

/* The program's own registrations: a large one of fresh malloc'd memory (some bytes written
 * first) has every page there by the time the driver pins it, its bytes unchanged; a large
 * read-only mapping is left alone; a small one too. */
static int child_register(void)
{
    CHECK_CU(cuInit(0));
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *p = malloc(big);
    unsigned char *ro = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *small = malloc(MIB);
    if (p == NULL || ro == MAP_FAILED || small == NULL)
        return 1;
    for (size_t at = 0; at < big; at += 64 * page)
        p[at] = (unsigned char)(at / page + 1);
    size_t pages = (big + page - 1) / page, before = resident(p, big);
    CHECK_CU(cuMemHostRegister_v2(p, big, 0));
    /* Residence first: reading a page would map it too. */
    size_t after = resident(p, big);
    int same = 1;
    for (size_t at = 0; at < big; at += page)
        same &= p[at] == (at % (64 * page) == 0 ? (unsigned char)(at / page + 1) : 0);
    printf("registered: there before %d, after %d, bytes the same %d\n", before == pages,
           after == pages, same);
    CHECK_CU(cuMemHostRegister_v2(ro, big, CU_MEMHOSTREGISTER_READ_ONLY));
    printf("read-only: there %zu\n", resident(ro, big));
    CHECK_CU(cuMemHostRegister_v2(small, MIB, 0));
    CHECK_CU(cuMemHostUnregister(p));
    CHECK_CU(cuMemHostUnregister(ro));
    CHECK_CU(cuMemHostUnregister(small));
    free(p);
    free(small);
    munmap(ro, big);
    printf("register ok\n");
    return 0;
}

/* ---- the parent ---- */

static const char *const fastpin_on[] = {"ZC_RUN_FIXES", "all", "ZC_RUN_FASTPIN_BYTES", "33554432",
                                         NULL};

static void test_serves_large_blocks(void **state)
{
    (void)state;
    child_run r;
    run_child("serve", fastpin_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "serve ok"));
    assert_non_null(strstr(r.out, "aligned 1, driver allocations 0, registrations 1"));
    char expect[96];
    snprintf(expect, sizeof expect, "unregister by the program: %d, unpinned 0",
             (int)CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(r.out, expect));
    snprintf(expect, sizeof expect, "register inside by the program: %d, registrations made 0",
             (int)CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(r.out, expect));
    assert_non_null(strstr(r.out, "freed: unpinned 1, waited 1, mapped 0"));
    snprintf(expect, sizeof expect, "second free: %d", (int)CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(r.out, expect));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_SERVED), 2);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_FASTPIN_SERVED].bytes, big + 33 * MIB);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_FREED), 2);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PINNING_MISS), 0);
}

static void test_leaves_small_and_write_combined(void **state)
{
    (void)state;
    child_run r;
    run_child("driver", fastpin_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "driver allocations 2"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_SERVED), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_LEFT), 1); /* the write-combined */
}

static void test_off_by_default(void **state)
{
    (void)state;
    child_run r;
    run_child("serve", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "driver allocations 1, registrations 0"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_SERVED), 0);
}

static void test_fork_shares(void **state)
{
    (void)state;
    child_run r;
    run_child("fork", fastpin_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "after the child: 22 11 33, still pinned 1"));
    assert_non_null(strstr(r.out, "fork ok"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_SHARED), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_PRIVATE), 0);
}

static void test_program_registrations(void **state)
{
    (void)state;
    child_run r;
    run_child("register", fastpin_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "registered: there before 0, after 1, bytes the same 1"));
    assert_non_null(strstr(r.out, "read-only: there 0"));
    assert_non_null(strstr(r.out, "register ok"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_TOUCHED), 1);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_FASTPIN_TOUCHED].bytes, big);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_UNTOUCHED), 1);
}

static void test_primary_release_keeps_blocks(void **state)
{
    (void)state;
    child_run r;
    run_child("release", fastpin_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "released: unpinned 0, mapped 1"));
    assert_non_null(strstr(r.out, "release ok"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FASTPIN_FREED), 1);
}

static void test_context_gone(void **state)
{
    (void)state;
    child_run r;
    run_child("context", fastpin_on, &r);
    assert_int_equal(r.exit_code, 0);
    char expect[64];
    snprintf(expect, sizeof expect, "gone: pinned 0, mapped 0, free %d",
             (int)CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(r.out, expect));
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "serve") == 0)
        return child_serve();
    if (argc == 2 && strcmp(argv[1], "driver") == 0)
        return child_driver();
    if (argc == 2 && strcmp(argv[1], "fork") == 0)
        return child_fork();
    if (argc == 2 && strcmp(argv[1], "context") == 0)
        return child_context_gone();
    if (argc == 2 && strcmp(argv[1], "register") == 0)
        return child_register();
    if (argc == 2 && strcmp(argv[1], "release") == 0)
        return child_release();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serves_large_blocks),
        cmocka_unit_test(test_leaves_small_and_write_combined),
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_fork_shares),
        cmocka_unit_test(test_program_registrations),
        cmocka_unit_test(test_primary_release_keeps_blocks),
        cmocka_unit_test(test_context_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
