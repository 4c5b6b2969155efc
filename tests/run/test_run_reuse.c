/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reuse cure on the CPU, against the stand-in driver (fake_cuda.c): a block the program
 * frees after copying it whole is kept and handed out again for the next allocation of its
 * size, with its pin (so the register cure pins it once, on its second copy, and copies from
 * then on go straight to it), and every copy's data is what the program asked for; calloc is
 * never served (its memory reads as zeros), nor another size or an alignment the block lacks;
 * the bound gives the oldest block back; a failing allocation gets the kept memory back first;
 * a forked child hands out its own copy of the table without calling the driver for the
 * parent's pins; and with the cure off nothing is kept.
 */
#include "test_support.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_child.h"
#include "fake_cuda.h"
#include "zerocopy/run.h"

#define BIG ((size_t)(4u << 20) + 3u)

/* The cases compare the addresses of freed blocks with those of blocks allocated after, and
 * read what a served block's last owner left in it: on purpose, which GCC's checks of freed and
 * uninitialised memory would take for mistakes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuse-after-free"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

static fake_cuda_counts stats(void)
{
    fake_cuda_counts c;
    fake_cuda_stats(&c);
    return c;
}

/*
 * A device buffer holding BIG bytes of seed's pattern (copied from expected). Then two copies of
 * 4 MiB to a buffer kept for the case: the first staged, the second the sample of its size class
 * (left as it was, and not counted towards pinning), so that every copy of BIG bytes after is
 * counted towards its destination. The buffer's 4 MiB counted are short of its size: it is never
 * kept nor pinned.
 */
static int device_with(CUdeviceptr *dev_p, unsigned seed, unsigned char *expected)
{
    static unsigned char *scratch;
    if (scratch == NULL && (scratch = malloc(BIG)) == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(dev_p, BIG));
    fake_child_fill(expected, BIG, seed);
    CHECK_CU(cuMemcpyHtoD_v2(*dev_p, expected, BIG));
    for (int i = 0; i < 2; i++)
        CHECK_CU(cuMemcpyDtoH_v2(scratch, *dev_p, (size_t)4 << 20));
    return 0;
}

/* A fresh destination each round, as `{k: v.cpu()}` makes them: allocated, filled by a copy,
 * checked, freed. Prints how many rounds got the first round's block back and the driver's
 * registrations. */
static int child_rounds(void)
{
    unsigned char *expected = malloc(BIG);
    CUdeviceptr dev;
    if (expected == NULL || device_with(&dev, 7, expected) != 0)
        return 1;
    uintptr_t first = 0;
    unsigned same = 0;
    for (unsigned round = 0; round < 5; round++) {
        unsigned char *p = malloc(BIG);
        if (p == NULL)
            return 1;
        memset(p, 0x5A, BIG); /* so that a copy that did not happen cannot pass */
        CHECK_CU(cuMemcpyDtoH_v2(p, dev, BIG));
        if (memcmp(p, expected, BIG) != 0) {
            printf("FAIL round %u: the copy's data\n", round);
            return 1;
        }
        if (round == 0)
            first = (uintptr_t)p; /* compared as a number once freed */
        same += round > 0 && (uintptr_t)p == first;
        free(p);
    }
    printf("same block %u of 4; registers %llu live %llu\n", same,
           (unsigned long long)stats().registers, (unsigned long long)stats().registered_live);
    /* A served block resized keeps its bytes. */
    unsigned char *p = malloc(BIG);
    CHECK_CU(cuMemcpyDtoH_v2(p, dev, BIG));
    unsigned char *q = realloc(p, 2 * BIG);
    if (q == NULL || memcmp(q, expected, BIG) != 0) {
        printf("FAIL realloc of a served block\n");
        return 1;
    }
    free(q);
    CHECK_CU(cuMemFree_v2(dev));
    printf("rounds ok\n");
    return 0;
}

/* A kept block is never what calloc gives, nor another size or an alignment it does not have. */
static int child_not_served(void)
{
    unsigned char *expected = malloc(BIG);
    CUdeviceptr dev;
    if (expected == NULL || device_with(&dev, 3, expected) != 0)
        return 1;
    unsigned char *p = malloc(BIG);
    CHECK_CU(cuMemcpyDtoH_v2(p, dev, BIG));
    uintptr_t was = (uintptr_t)p; /* compared as a number once freed */
    free(p);
    unsigned char *z = calloc(1, BIG);
    size_t nonzero = 0;
    for (size_t i = 0; z != NULL && i < BIG; i++)
        nonzero += z[i] != 0;
    unsigned char *other = malloc(BIG + 16);
    void *aligned = NULL;
    int aligned_r = was % (1u << 20) != 0 ? posix_memalign(&aligned, 1u << 20, BIG) : -1;
    printf("calloc %s nonzero %zu; other size %s; misaligned %s\n",
           (uintptr_t)z == was ? "same" : "other", nonzero,
           (uintptr_t)other == was ? "same" : "other",
           aligned_r == 0 ? ((uintptr_t)aligned == was ? "same" : "other") : "skipped");
    unsigned char *again = malloc(BIG);
    printf("same size %s\n", (uintptr_t)again == was ? "same" : "other");
    free(z);
    free(other);
    free(aligned);
    free(again);
    CHECK_CU(cuMemFree_v2(dev));
    return 0;
}

/* Two blocks freed under a bound of one: the older is given back; the newer is served. */
static int child_bound(void)
{
    unsigned char *expected = malloc(BIG);
    CUdeviceptr dev;
    if (expected == NULL || device_with(&dev, 5, expected) != 0)
        return 1;
    unsigned char *a = malloc(BIG), *b = malloc(BIG);
    CHECK_CU(cuMemcpyDtoH_v2(a, dev, BIG));
    CHECK_CU(cuMemcpyDtoH_v2(b, dev, BIG));
    uintptr_t older = (uintptr_t)a, newer = (uintptr_t)b; /* compared as numbers once freed */
    free(a);
    free(b);
    unsigned char *c = malloc(BIG);
    printf("served %s\n", (uintptr_t)c == newer   ? "newer"
                          : (uintptr_t)c == older ? "older"
                                                  : "neither");
    free(c);
    CHECK_CU(cuMemFree_v2(dev));
    return 0;
}

/* Pages of this process's address space, from /proc/self/statm. */
static unsigned long long address_space(void)
{
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f != NULL) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

/* An allocation that fits only once the kept blocks are given back still succeeds. */
static int child_squeeze(void)
{
    const size_t block = (size_t)64 << 20;
    unsigned char *expected = malloc(BIG);
    CUdeviceptr dev;
    if (expected == NULL || device_with(&dev, 9, expected) != 0)
        return 1;
    unsigned char *kept = malloc(block);
    if (kept == NULL)
        return 1;
    for (size_t at = 0; at < block; at += BIG) {
        size_t n = block - at < BIG ? block - at : BIG;
        CHECK_CU(cuMemcpyDtoH_v2(kept, dev, n)); /* from its start: counted towards it */
    }
    free(kept);
    /* Room for 32 MiB more than now: 48 MiB fits only with the kept 64 MiB given back. */
    struct rlimit limit = {.rlim_cur = address_space() + ((rlim_t)32 << 20),
                           .rlim_max = RLIM_INFINITY};
    if (setrlimit(RLIMIT_AS, &limit) != 0) {
        printf("FAIL setrlimit\n");
        return 1;
    }
    unsigned char *big = malloc((size_t)48 << 20);
    printf("after the limit: %s\n", big != NULL ? "allocated" : "refused");
    free(big);
    return 0;
}

/* The child hands out its own copy of a pinned kept block, and never calls the driver for the
 * parent's pin; the parent's block is still served, pinned, after. */
static int child_fork(void)
{
    unsigned char *expected = malloc(BIG);
    CUdeviceptr dev;
    if (expected == NULL || device_with(&dev, 11, expected) != 0)
        return 1;
    unsigned char *p = malloc(BIG);
    /* Copied twice its size over: pinned. */
    for (int i = 0; i < 2; i++)
        CHECK_CU(cuMemcpyDtoH_v2(p, dev, BIG));
    uintptr_t was = (uintptr_t)p; /* compared as a number once freed */
    free(p);
    uint64_t before = stats().unregisters + stats().registers;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        unsigned char *q = malloc(BIG);
        if (q == NULL)
            _exit(1);
        int same = (uintptr_t)q == was && memcmp(q, expected, BIG) == 0;
        memset(q, 1, BIG);
        free(q);
        printf("child served %d driver calls %llu\n", same,
               (unsigned long long)(stats().unregisters + stats().registers - before));
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
        return 1;
    unsigned char *q = malloc(BIG);
    if (q == NULL)
        return 1;
    memset(q, 0xEE, BIG); /* not 0: malloc and a memset of zeros may be compiled as calloc */
    CHECK_CU(cuMemcpyDtoH_v2(q, dev, BIG));
    printf("parent served %d data %d live %llu\n", (uintptr_t)q == was,
           memcmp(q, expected, BIG) == 0, (unsigned long long)stats().registered_live);
    free(q);
    return 0;
}

/* KV blocks swapped out and in, as an inference server does: each round allocates a new host
 * block for every device block (posix_memalign at 64, as PyTorch's CPU allocator does), copies
 * each out, copies each back in, and frees them all. From the second round on every block is
 * served with a kept one, pinned since its first swap-in: more blocks than the register cure's
 * table once held (256), whose evictions started the count of a block again, so that half the
 * blocks freed were not kept (bench/results/h100-20261206i). */
#define SWAP_BLOCKS 320
#define SWAP_ROUNDS 4
static int child_swap(void)
{
    enum { BLOCKS = SWAP_BLOCKS, ROUNDS = SWAP_ROUNDS };
    const size_t block = (size_t)512 << 10;
    unsigned char *expected = malloc(block);
    CUdeviceptr blocks;
    if (expected == NULL)
        return 1;
    fake_child_fill(expected, block, 13);
    CHECK_CU(cuMemAlloc_v2(&blocks, BLOCKS * block));
    for (int i = 0; i < BLOCKS; i++)
        CHECK_CU(cuMemcpyHtoD_v2(blocks + i * block, expected, block));
    static void *host[BLOCKS];
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t pins = stats().registers;
        for (int i = 0; i < BLOCKS; i++) {
            if (posix_memalign(&host[i], 64, block) != 0)
                return 1;
            /* As PyTorch copies: the generic call on a stream, then a wait. */
            CHECK_CU(
                cuMemcpyAsync((CUdeviceptr)(uintptr_t)host[i], blocks + i * block, block, NULL));
            CHECK_CU(cuStreamSynchronize(NULL));
        }
        for (int i = 0; i < BLOCKS; i++) {
            if (memcmp(host[i], expected, block) != 0) {
                printf("FAIL round %d block %d\n", round, i);
                return 1;
            }
            CHECK_CU(
                cuMemcpyAsync(blocks + i * block, (CUdeviceptr)(uintptr_t)host[i], block, NULL));
            CHECK_CU(cuStreamSynchronize(NULL));
        }
        for (int i = 0; i < BLOCKS; i++)
            free(host[i]);
        printf("round %d: pinned %llu\n", round, (unsigned long long)(stats().registers - pins));
    }
    return 0;
}

/* ---- the parent ---- */

static const char *const reuse_on[] = {"ZC_RUN_FIXES", "all", NULL};

static void test_rounds(void **state)
{
    (void)state;
    child_run r;
    run_child("rounds", reuse_on, &r);
    assert_int_equal(r.exit_code, 0);
    /* Every round after the first gets the block back; the register cure pins it once, on its
     * second copy, which goes straight into it as do the three after it and the one before the
     * realloc. */
    assert_non_null(strstr(r.out, "same block 4 of 4; registers 1 live 1\n"));
    assert_non_null(strstr(r.out, "rounds ok\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_SERVED), 5);
    /* The five rounds' frees and the realloc's release of the block. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_KEPT), 6);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTER_PIN), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTERED_D2H), 5);
    /* The pin of the block still kept at exit is taken away there. */
    assert_non_null(strstr(r.err, "fake cuda: 0 registrations live at exit"));
}

static void test_not_served(void **state)
{
    (void)state;
    child_run r;
    run_child("not-served", reuse_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "calloc other nonzero 0; other size other; misaligned "));
    assert_null(strstr(r.out, "misaligned same"));
    assert_non_null(strstr(r.out, "same size same\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_SERVED), 1);
}

static void test_bound(void **state)
{
    (void)state;
    child_run r;
    char bound[32];
    snprintf(bound, sizeof bound, "%zu", BIG + 4096);
    run_child("bound", (const char *[]){"ZC_RUN_FIXES", "all", "ZC_RUN_REUSE_BYTES", bound, NULL},
              &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "served newer\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_RELEASED), 1);
    /* A bound of 0 keeps nothing (an address the allocator gives again is no sign of it). */
    run_child("bound", (const char *[]){"ZC_RUN_FIXES", "all", "ZC_RUN_REUSE_BYTES", "0", NULL},
              &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_KEPT), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_SERVED), 0);
}

static void test_squeeze(void **state)
{
    (void)state;
    child_run r;
    run_child("squeeze", reuse_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "after the limit: allocated\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_KEPT), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_RELEASED), 1);
}

static void test_fork(void **state)
{
    (void)state;
    child_run r;
    run_child("fork", reuse_on, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "child served 1 driver calls 0\n"));
    assert_non_null(strstr(r.out, "parent served 1 data 1 live 1\n"));
}

static void test_swap(void **state)
{
    (void)state;
    child_run r;
    run_child("swap", reuse_on, &r);
    assert_int_equal(r.exit_code, 0);
    /* Every block pinned in the first round (but the size's sample, pinned in the second), none
     * after: each round's blocks are the last round's, pins and all. */
    assert_non_null(strstr(r.out, "round 0: pinned 319\n"));
    assert_non_null(strstr(r.out, "round 1: pinned 1\n"));
    assert_non_null(strstr(r.out, "round 2: pinned 0\n"));
    assert_non_null(strstr(r.out, "round 3: pinned 0\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_SERVED), (SWAP_ROUNDS - 1) * SWAP_BLOCKS);
}

static void test_cure_off(void **state)
{
    (void)state;
    child_run r;
    run_child("rounds", NULL, &r); /* the default cures: reuse is named or "all" */
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "registers 0 live 0\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_KEPT), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REUSE_SERVED), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"rounds", child_rounds}, {"not-served", child_not_served},
                 {"bound", child_bound},   {"squeeze", child_squeeze},
                 {"fork", child_fork},     {"swap", child_swap}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0)
            return cases[i].run();
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds),   cmocka_unit_test(test_not_served),
        cmocka_unit_test(test_bound),    cmocka_unit_test(test_squeeze),
        cmocka_unit_test(test_fork),     cmocka_unit_test(test_swap),
        cmocka_unit_test(test_cure_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
