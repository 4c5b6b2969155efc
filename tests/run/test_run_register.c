/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register cure on the CPU, against the stand-in driver (fake_cuda.c), whose asynchronous
 * copies from or to page-locked memory run only when waited for: a buffer copied again and
 * again is pinned in place and copied straight from there, and every copy still behaves as a
 * pageable one (the source reusable and the destination filled at return, a busy stream not
 * waited for); the pin goes before the program's free, realloc, munmap, madvise or MAP_FIXED
 * gives the pages back (the stand-in reads the range when it is unregistered, so a pin dropped
 * after its pages were unmapped crashes the case); the program sees pageable memory when it
 * asks, registers and unregisters as before; a forked child never calls the driver for its
 * parent's pins; the bound unpins the buffer used longest ago; a stream being captured unpins
 * for good.
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

#define BIG ((size_t)(8u << 20) + 3u)

/* ---- the child's cases ---- */

static fake_cuda_counts stats(void)
{
    fake_cuda_counts c;
    fake_cuda_stats(&c);
    return c;
}

/*
 * What the driver holds once the program calls it again: a pin taken away inside free, munmap
 * and the like is unregistered off the program's thread (no CUDA call from inside those), and
 * always before the driver is handed a host pointer again. Any hooked call that may be handed
 * one will do: a pointer query.
 */
static fake_cuda_counts settled(void)
{
    char byte = 0;
    unsigned type = 0;
    CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    void *data = &type;
    (void)cuPointerGetAttributes(1, &attribute, &data, (CUdeviceptr)(uintptr_t)&byte);
    return stats();
}

/* Copy host to the device and back (synchronous), compare; fails the case on a difference. */
static int round_trip(unsigned char *host, unsigned char *back, CUdeviceptr dev, size_t n,
                      unsigned seed)
{
    fake_child_fill(host, n, seed);
    CHECK_CU(cuMemcpyHtoD_v2(dev, host, n));
    memset(back, 0, n);
    CHECK_CU(cuMemcpyDtoH_v2(back, dev, n));
    if (memcmp(host, back, n) != 0) {
        printf("FAIL round trip %u\n", seed);
        return 1;
    }
    return 0;
}

/* A buffer pinned in place (in), one for results (out), device memory for both. */
static int pinned_buffer(unsigned char **in_p, unsigned char **out_p, CUdeviceptr *dev_p)
{
    *in_p = malloc(BIG);
    *out_p = malloc(BIG);
    if (*in_p == NULL || *out_p == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(dev_p, BIG));
    return fake_child_pin_by_copies(*in_p, *dev_p, BIG);
}

static int child_repeat(void)
{
    unsigned char *in = malloc(BIG), *out = malloc(BIG), *keep = malloc(BIG);
    CUdeviceptr dev;
    if (in == NULL || out == NULL || keep == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, BIG));
    for (unsigned round = 0; round < 6; round++) {
        if (round_trip(in, out, dev, BIG, round) != 0)
            return 1;
        /* Asynchronous both ways on an idle stream: the source reusable at return, the
         * destination filled at return, as for pageable memory. */
        fake_child_fill(in, BIG, round + 100);
        memcpy(keep, in, BIG);
        CHECK_CU(cuMemcpyHtoDAsync_v2(dev, in, BIG, NULL));
        memset(in, 0x5A, BIG);
        memset(out, 0, BIG);
        CHECK_CU(cuMemcpyDtoHAsync_v2(out, dev, BIG, NULL));
        if (memcmp(keep, out, BIG) != 0) {
            printf("FAIL async round trip %u\n", round);
            return 1;
        }
    }
    printf("registers %llu live %llu\n", (unsigned long long)stats().registers,
           (unsigned long long)stats().registered_live);
    /* free itself calls no CUDA: the unregistration follows off this thread. */
    fake_cuda_forbid(1);
    free(in);
    fake_cuda_forbid(0);
    printf("after free in: live %llu\n", (unsigned long long)settled().registered_live);
    free(out);
    printf("after free out: live %llu\n", (unsigned long long)settled().registered_live);
    printf("driver calls inside free %llu\n", (unsigned long long)stats().forbidden_calls);
    free(keep);
    CHECK_CU(cuMemFree_v2(dev));
    return 0;
}

/* A pinned buffer copied to the device asynchronously on a busy stream: staged, not waited. */
static int child_busy(void)
{
    unsigned char *in = malloc(BIG), *out = malloc(BIG), *keep = malloc(BIG);
    void *pinned = NULL;
    CUdeviceptr dev, other;
    if (in == NULL || out == NULL || keep == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, BIG));
    CHECK_CU(cuMemAlloc_v2(&other, 1u << 20));
    CHECK_CU(cuMemHostAlloc(&pinned, 1u << 20, 0));
    if (fake_child_pin_by_copies(in, dev, BIG) != 0)
        return 1;
    CHECK_CU(cuMemcpyHtoDAsync_v2(other, pinned, 1u << 20, NULL)); /* the stream is busy now */
    uint64_t syncs = stats().stream_syncs;
    fake_child_fill(in, BIG, 7);
    memcpy(keep, in, BIG);
    CHECK_CU(cuMemcpyHtoDAsync_v2(dev, in, BIG, NULL));
    printf("stream waited %llu\n", (unsigned long long)(stats().stream_syncs - syncs));
    memset(in, 0x5A, BIG);
    CHECK_CU(cuMemcpyDtoH_v2(out, dev, BIG));
    if (memcmp(keep, out, BIG) != 0) {
        printf("FAIL busy stream copy\n");
        return 1;
    }
    printf("busy ok\n");
    return 0;
}

/* Every way the program gives pages back drops the pin first. */
static int child_release(void)
{
    CUdeviceptr dev;
    CHECK_CU(cuMemAlloc_v2(&dev, 2 * BIG));
    unsigned char *back = malloc(2 * BIG);
    if (back == NULL)
        return 1;

    unsigned char *grown = malloc(BIG);
    if (grown == NULL || fake_child_pin_by_copies(grown, dev, BIG) != 0)
        return 1;
    printf("realloc: pinned %llu", (unsigned long long)stats().registered_live);
    grown = realloc(grown, 2 * BIG);
    printf(" then %llu\n", (unsigned long long)settled().registered_live);
    if (grown == NULL || round_trip(grown, back, dev, 2 * BIG, 1) != 0)
        return 1;
    free(grown);

    static const char *const ways[] = {"munmap", "madvise", "map-fixed"};
    for (int way = 0; way < 3; way++) {
        unsigned char *m =
            mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || fake_child_pin_by_copies(m, dev, BIG) != 0)
            return 1;
        printf("%s: pinned %llu", ways[way], (unsigned long long)stats().registered_live);
        if (way == 0) {
            munmap(m, BIG);
        } else if (way == 1) {
            madvise(m, BIG, MADV_DONTNEED);
        } else if (mmap(m, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                        0) != m) {
            return 1;
        }
        printf(" then %llu\n", (unsigned long long)settled().registered_live);
        if (way > 0) {
            /* The pages are new (zeros): what is copied must be what the program sees. */
            CHECK_CU(cuMemcpyHtoD_v2(dev, m, BIG));
            CHECK_CU(cuMemcpyDtoH_v2(back, dev, BIG));
            for (size_t i = 0; i < BIG; i++) {
                if (back[i] != 0) {
                    printf("FAIL %s: old pages copied at %zu\n", ways[way], i);
                    return 1;
                }
            }
            munmap(m, BIG);
        }
    }
    printf("release ok\n");
    return 0;
}

/* The program's questions about a pinned buffer get pageable memory's answers; its own
 * registration of it works and is its own. */
static int child_view(void)
{
    unsigned char *in, *out;
    CUdeviceptr dev;
    if (pinned_buffer(&in, &out, &dev) != 0)
        return 1;
    unsigned type = 99;
    CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    void *data[] = {&type};
    CHECK_CU(cuPointerGetAttributes(1, &attribute, data, (CUdeviceptr)(uintptr_t)(in + 100)));
    unsigned flags = 0;
    printf("pinned %llu type %u flags %d unregister %d\n",
           (unsigned long long)stats().registered_live, type, (int)cuMemHostGetFlags(&flags, in),
           (int)cuMemHostUnregister(in));
    printf("own register %d", (int)cuMemHostRegister(in, BIG, 0));
    CHECK_CU(cuPointerGetAttributes(1, &attribute, data, (CUdeviceptr)(uintptr_t)in));
    printf(" type %u", type);
    if (fake_child_pin_by_copies(in, dev, BIG) != 0 || round_trip(in, out, dev, BIG, 3) != 0)
        return 1;
    printf(" registers %llu unregister %d\n", (unsigned long long)stats().registers,
           (int)cuMemHostUnregister(in));
    return 0;
}

/* A forked child frees its copy of a pinned buffer: no driver call; the parent's pin stays. */
static int child_fork(void)
{
    unsigned char *in, *out;
    CUdeviceptr dev;
    if (pinned_buffer(&in, &out, &dev) != 0)
        return 1;
    uint64_t before = stats().unregisters;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        free(in);
        printf("child unregistered %llu\n", (unsigned long long)(stats().unregisters - before));
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
        return 1;
    if (round_trip(in, out, dev, BIG, 9) != 0)
        return 1;
    printf("parent pinned %llu", (unsigned long long)stats().registered_live);
    free(in);
    printf(" then %llu\n", (unsigned long long)settled().registered_live);
    return 0;
}

/* Three buffers under a bound of two: the one used longest ago is unpinned for the third. */
static int child_bound(void)
{
    CUdeviceptr dev;
    CHECK_CU(cuMemAlloc_v2(&dev, BIG));
    unsigned char *b[3];
    for (int i = 0; i < 3; i++) {
        b[i] = malloc(BIG);
        if (b[i] == NULL || fake_child_pin_by_copies(b[i], dev, BIG) != 0)
            return 1;
        printf("buffer %d: registers %llu live %llu\n", i, (unsigned long long)stats().registers,
               (unsigned long long)stats().registered_live);
    }
    for (int i = 0; i < 3; i++)
        free(b[i]);
    return 0;
}

/* Small copies into and out of a pinned buffer still behave as pageable ones. */
static int child_small(void)
{
    unsigned char *in = malloc(BIG), *keep = malloc(4096);
    CUdeviceptr dev;
    if (in == NULL || keep == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, BIG));
    if (fake_child_pin_by_copies(in, dev, BIG) != 0)
        return 1;
    fake_child_fill(in + 4096, 4096, 5);
    memcpy(keep, in + 4096, 4096);
    CHECK_CU(cuMemcpyHtoDAsync_v2(dev, in + 4096, 4096, NULL));
    memset(in + 4096, 0x5A, 4096); /* returned: reusable */
    CHECK_CU(cuMemcpyDtoHAsync_v2(in + 8192, dev, 4096, NULL));
    if (memcmp(keep, in + 8192, 4096) != 0) { /* returned: filled */
        printf("FAIL small copies through a pinned buffer\n");
        return 1;
    }
    printf("small ok\n");
    return 0;
}

/* A copy into a graph from a pinned buffer unpins it for good. */
static int child_capture(void)
{
    unsigned char *in, *out;
    CUdeviceptr dev;
    if (pinned_buffer(&in, &out, &dev) != 0)
        return 1;
    printf("pinned %llu", (unsigned long long)stats().registered_live);
    fake_cuda_set_capturing(1);
    CHECK_CU(cuMemcpyHtoDAsync_v2(dev, in, BIG, NULL));
    fake_cuda_set_capturing(0);
    printf(" then %llu", (unsigned long long)stats().registered_live);
    if (fake_child_pin_by_copies(in, dev, BIG) != 0 || round_trip(in, out, dev, BIG, 4) != 0)
        return 1;
    printf(" registers %llu\n", (unsigned long long)stats().registers);
    return 0;
}

/* ---- the parent ---- */

static void test_repeat(void **state)
{
    (void)state;
    child_run r;
    run_child("repeat", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    /* Both buffers pinned once (the third copy each way: staged, sampled, then pinned); the
     * pins went before their buffers. */
    assert_non_null(strstr(r.out, "registers 2 live 2\n"));
    assert_non_null(strstr(r.out, "after free in: live 1\n"));
    assert_non_null(strstr(r.out, "after free out: live 0\n"));
    assert_non_null(strstr(r.out, "driver calls inside free 0\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTER_PIN), 2);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTER_UNPIN), 2);
    /* 12 copies each way: 1 staged, 1 sampled, 10 from the pinned buffer. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_H2D), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTERED_H2D), 10);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTERED_D2H), 10);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_REGISTERED_H2D].pricing, ZC_RUN_PRICED_SCALED);
    assert_non_null(strstr(r.err, "fake cuda: 0 registrations live at exit"));
}

static void test_busy_stream_is_staged(void **state)
{
    (void)state;
    child_run r;
    run_child("busy", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "busy ok"));
    assert_non_null(strstr(r.out, "stream waited 0\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTERED_H2D), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_H2D), 2);
}

static void test_released_pages_unpinned_first(void **state)
{
    (void)state;
    child_run r;
    run_child("release", NULL, &r);
    assert_int_equal(r.exit_code, 0); /* a pin dropped after munmap would have crashed it */
    assert_non_null(strstr(r.out, "realloc: pinned 1 then 0\n"));
    assert_non_null(strstr(r.out, "munmap: pinned 1 then 0\n"));
    assert_non_null(strstr(r.out, "madvise: pinned 1 then 0\n"));
    assert_non_null(strstr(r.out, "map-fixed: pinned 1 then 0\n"));
    assert_non_null(strstr(r.out, "release ok"));
}

static void test_program_view(void **state)
{
    (void)state;
    child_run r;
    run_child("view", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    char expected[160];
    snprintf(expected, sizeof expected, "pinned 1 type 0 flags %d unregister %d\n",
             (int)CUDA_ERROR_INVALID_VALUE, (int)CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    assert_non_null(strstr(r.out, expected));
    /* The program's registration replaced ours; its buffer is never pinned by us again. */
    snprintf(expected, sizeof expected, "own register 0 type %u registers 2 unregister 0\n",
             (unsigned)CU_MEMORYTYPE_HOST);
    assert_non_null(strstr(r.out, expected));
}

static void test_fork(void **state)
{
    (void)state;
    child_run r;
    run_child("fork", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "child unregistered 0\n"));
    assert_non_null(strstr(r.out, "parent pinned 1 then 0\n"));
}

static void test_bound(void **state)
{
    (void)state;
    child_run r;
    char bound[32];
    snprintf(bound, sizeof bound, "%zu", 2 * BIG + 4096);
    run_child("bound", (const char *[]){"ZC_RUN_REGISTER_BYTES", bound, NULL}, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "buffer 1: registers 2 live 2\n"));
    assert_non_null(strstr(r.out, "buffer 2: registers 3 live 2\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTER_UNPIN), 3);
}

static void test_small_copies(void **state)
{
    (void)state;
    child_run r;
    run_child("small", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "small ok"));
}

static void test_capture_unpins(void **state)
{
    (void)state;
    child_run r;
    run_child("capture", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "pinned 1 then 0 registers 1\n"));
}

static void test_cure_off(void **state)
{
    (void)state;
    child_run r;
    run_child("repeat", (const char *[]){"ZC_RUN_FIXES", "pageable,pinning", NULL}, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "registers 0 live 0\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTERED_H2D), 0);
    /* The register cure alone: copies before the pin go as they were. */
    run_child("repeat", (const char *[]){"ZC_RUN_FIXES", "register", NULL}, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "registers 2 live 2\n"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_H2D), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_REGISTERED_H2D), 10);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"repeat", child_repeat}, {"busy", child_busy},      {"release", child_release},
                 {"view", child_view},     {"fork", child_fork},      {"bound", child_bound},
                 {"small", child_small},   {"capture", child_capture}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0)
            return cases[i].run();
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_busy_stream_is_staged),
        cmocka_unit_test(test_released_pages_unpinned_first),
        cmocka_unit_test(test_program_view),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_small_copies),
        cmocka_unit_test(test_capture_unpins),
        cmocka_unit_test(test_cure_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
