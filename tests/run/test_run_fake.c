/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zc run's interposition library on the CPU, against a stand-in for the CUDA driver
 * (fake_cuda.c) whose copies and events complete later, on a thread of their own: every cured
 * copy lands whole and in order through staging buffers reused many times; an asynchronous
 * copy's source may be overwritten at once; copies the cure must leave (a stream being captured,
 * a range beyond its allocation) go to the driver, which gives its own answer; pinned memory
 * freed and asked for again is served from what was kept, waits for the context first, and goes
 * with its context and at exit. Each case runs in a child process of this program with the
 * library preloaded, as zc run would start it; the parent reads what the child printed and the
 * log the library wrote.
 */
#include "test_support.h"

#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_child.h"
#include "fake_cuda.h"
#include "zerocopy/run.h"

/* ---- the child's cases ---- */

static int copies_of(size_t n, unsigned seed)
{
    unsigned char *in = malloc(n), *out = malloc(n), *keep = malloc(n);
    CUdeviceptr dev;
    if (in == NULL || out == NULL || keep == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    fake_child_fill(in, n, seed);
    CHECK_CU(cuMemcpyHtoD_v2(dev, in, n));
    memset(out, 0, n);
    CHECK_CU(cuMemcpyDtoH_v2(out, dev, n));
    if (memcmp(in, out, n) != 0) {
        printf("FAIL sync round trip of %zu bytes\n", n);
        return 1;
    }
    fake_child_fill(in, n, seed + 1);
    memcpy(keep, in, n);
    CHECK_CU(cuMemcpyHtoDAsync_v2(dev, in, n, NULL));
    memset(in, 0x5A, n); /* returned: the pageable source may be reused */
    memset(out, 0, n);
    CHECK_CU(cuMemcpyDtoHAsync_v2(out, dev, n, NULL));
    if (memcmp(keep, out, n) != 0) {
        printf("FAIL async round trip of %zu bytes\n", n);
        return 1;
    }
    fake_child_fill(in, n, seed + 2);
    CHECK_CU(cuMemcpy(dev, (CUdeviceptr)(uintptr_t)in, n));
    memset(out, 0, n);
    CHECK_CU(cuMemcpy((CUdeviceptr)(uintptr_t)out, dev, n));
    if (memcmp(in, out, n) != 0) {
        printf("FAIL unified round trip of %zu bytes\n", n);
        return 1;
    }
    CHECK_CU(cuMemFree_v2(dev));
    free(keep);
    free(out);
    free(in);
    return 0;
}

static int child_copies(void)
{
    static const size_t sizes[] = {4096, (1u << 20) + 1, (5u << 20) + 3, (17u << 20) + 5};
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (copies_of(sizes[i], (unsigned)(round * 8 + i)) != 0)
                return 1;
        }
    }
    printf("copies ok\n");
    return 0;
}

/* A pitched copy from (or to) host memory at hx, hy with pitch hp, to (or from) device memory
 * at dx, dy with pitch dp: the CUDA_MEMCPY2D of it. */
static CUDA_MEMCPY2D copy_2d(int to_device, unsigned char *host, size_t hp, CUdeviceptr dev,
                             size_t dp, size_t width, size_t height)
{
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    m.WidthInBytes = width;
    m.Height = height;
    if (to_device) {
        m.srcMemoryType = CU_MEMORYTYPE_HOST;
        m.srcHost = host;
        m.srcXInBytes = 5;
        m.srcPitch = hp;
        m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        m.dstDevice = dev;
        m.dstY = 3;
        m.dstPitch = dp;
    } else {
        m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        m.srcDevice = dev;
        m.srcY = 3;
        m.srcPitch = dp;
        m.dstMemoryType = CU_MEMORYTYPE_HOST;
        m.dstHost = host;
        m.dstXInBytes = 5;
        m.dstPitch = hp;
    }
    return m;
}

/* Rows of width bytes at x 5 of host pitch hp: the same in a and b, and b's bytes between the
 * rows still 0xEE (nothing written outside the rows). */
static int same_rows(const unsigned char *a, const unsigned char *b, size_t hp, size_t width,
                     size_t height)
{
    for (size_t row = 0; row < height; row++) {
        if (memcmp(a + row * hp + 5, b + row * hp + 5, width) != 0)
            return 0;
        if (b[row * hp + 4] != 0xEE || (5 + width < hp && b[row * hp + 5 + width] != 0xEE))
            return 0;
    }
    return 1;
}

/* Each kind of 2D call three times each way, then a row wider than a staging buffer. */
static int child_copies_2d(void)
{
    static const size_t widths[] = {3000, 300000};
    for (size_t w = 0; w < 2; w++) {
        size_t width = widths[w], height = w == 0 ? 700 : 10, hp = width + 1096, dp = width + 584;
        unsigned char *in = malloc(hp * height), *out = malloc(hp * height),
                      *keep = malloc(hp * height);
        CUdeviceptr dev;
        if (in == NULL || out == NULL || keep == NULL)
            return 1;
        CHECK_CU(cuMemAlloc_v2(&dev, dp * (height + 3)));
        for (int round = 0; round < (w == 0 ? 3 : 1); round++) {
            for (int kind = 0; kind < 3; kind++) {
                fake_child_fill(in, hp * height, (unsigned)(round * 3 + kind));
                memcpy(keep, in, hp * height);
                memset(out, 0xEE, hp * height);
                CUDA_MEMCPY2D up = copy_2d(1, in, hp, dev, dp, width, height);
                CUDA_MEMCPY2D down = copy_2d(0, out, hp, dev, dp, width, height);
                if (kind == 0) {
                    CHECK_CU(cuMemcpy2D_v2(&up));
                    CHECK_CU(cuMemcpy2D_v2(&down));
                } else if (kind == 1) {
                    CHECK_CU(cuMemcpy2DUnaligned_v2(&up));
                    CHECK_CU(cuMemcpy2DUnaligned_v2(&down));
                } else {
                    CHECK_CU(cuMemcpy2DAsync_v2(&up, NULL));
                    memset(in, 0x5A, hp * height); /* returned: the source may be reused */
                    CHECK_CU(cuMemcpy2DAsync_v2(&down, NULL));
                }
                if (!same_rows(keep, out, hp, width, height)) {
                    printf("FAIL 2D kind %d of %zu x %zu\n", kind, width, height);
                    return 1;
                }
            }
        }
        CHECK_CU(cuMemFree_v2(dev));
        free(keep);
        free(out);
        free(in);
    }
    printf("copies 2d ok\n");
    return 0;
}

/* A box of a host volume (its own pitch and slice height) to a device volume (others) and
 * back, synchronously and not, three times, at offsets on both sides; the bytes around the box
 * must come back untouched. */
static int child_copies_3d(void)
{
    const size_t w = 3000, h = 70, d = 9, hp = w + 333, hh = h + 4, dp = w + 584, dh = h + 6;
    const size_t host_bytes = hp * hh * (d + 1);
    unsigned char *in = malloc(host_bytes), *out = malloc(host_bytes), *keep = malloc(host_bytes);
    CUdeviceptr dev;
    if (in == NULL || out == NULL || keep == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, dp * dh * (d + 2)));
    for (int round = 0; round < 3; round++) {
        for (int async = 0; async < 2; async++) {
            fake_child_fill(in, host_bytes, (unsigned)(round * 2 + async));
            memcpy(keep, in, host_bytes);
            memset(out, 0xEE, host_bytes);
            CUDA_MEMCPY3D up, down;
            memset(&up, 0, sizeof up);
            up.srcMemoryType = CU_MEMORYTYPE_HOST;
            up.srcHost = in;
            up.srcXInBytes = 5;
            up.srcY = 2;
            up.srcZ = 1;
            up.srcPitch = hp;
            up.srcHeight = hh;
            up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
            up.dstDevice = dev;
            up.dstY = 3;
            up.dstZ = 1;
            up.dstPitch = dp;
            up.dstHeight = dh;
            up.WidthInBytes = w;
            up.Height = h;
            up.Depth = d;
            down = up;
            down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
            down.srcDevice = dev;
            down.srcHost = NULL;
            down.srcXInBytes = 0;
            down.srcY = 3;
            down.srcPitch = dp;
            down.srcHeight = dh;
            down.dstMemoryType = CU_MEMORYTYPE_HOST;
            down.dstHost = out;
            down.dstDevice = 0;
            down.dstXInBytes = 5;
            down.dstY = 2;
            down.dstPitch = hp;
            down.dstHeight = hh;
            if (async) {
                CHECK_CU(cuMemcpy3DAsync_v2(&up, NULL));
                memset(in, 0x5A, host_bytes); /* returned: the source may be reused */
                CHECK_CU(cuMemcpy3DAsync_v2(&down, NULL));
            } else {
                CHECK_CU(cuMemcpy3D_v2(&up));
                CHECK_CU(cuMemcpy3D_v2(&down));
            }
            for (size_t z = 0; z <= d; z++) {
                for (size_t y = 0; y < hh; y++) {
                    const unsigned char *a = keep + (z * hh + y) * hp, *b = out + (z * hh + y) * hp;
                    int inside = z >= 1 && y >= 2 && y < 2 + h;
                    for (size_t x = 0; x < hp; x++) {
                        int in_box = inside && x >= 5 && x < 5 + w;
                        if (in_box ? b[x] != a[x] : b[x] != 0xEE) {
                            printf("FAIL 3D round %d async %d at %zu,%zu,%zu\n", round, async, x, y,
                                   z);
                            return 1;
                        }
                    }
                }
            }
        }
    }
    CHECK_CU(cuMemFree_v2(dev));
    free(keep);
    free(out);
    free(in);
    printf("copies 3d ok\n");
    return 0;
}

/* The per-thread default-stream forms, as a program built with --default-stream per-thread
 * calls them: cured, on the calling thread's stream. */
static int child_per_thread(void)
{
    const size_t n = (3u << 20) + 7;
    unsigned char *in = malloc(n), *out = malloc(n);
    CUdeviceptr dev;
    if (in == NULL || out == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    for (int round = 0; round < 3; round++) {
        fake_child_fill(in, n, (unsigned)round);
        memset(out, 0, n);
        CHECK_CU(cuMemcpyHtoD_v2_ptds(dev, in, n));
        fake_cuda_counts c;
        fake_cuda_stats(&c);
        printf("stream %lu\n", (unsigned long)c.last_stream);
        CHECK_CU(cuMemcpyDtoHAsync_v2_ptsz(out, dev, n, NULL));
        if (memcmp(in, out, n) != 0) {
            printf("FAIL per-thread round trip %d\n", round);
            return 1;
        }
    }
    CHECK_CU(cuMemFree_v2(dev));
    return 0;
}

static int child_left(void)
{
    const size_t n = 2u << 20;
    unsigned char *in = malloc(n), *out = malloc(n);
    CUdeviceptr dev;
    if (in == NULL || out == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    fake_child_fill(in, n, 3);
    fake_cuda_set_capturing(1);
    CHECK_CU(cuMemcpyHtoD_v2(dev, in, n));
    fake_cuda_set_capturing(0);
    CHECK_CU(cuMemcpyDtoH_v2(out, dev, n));
    if (memcmp(in, out, n) != 0) {
        printf("FAIL the copy left during capture\n");
        return 1;
    }
    /* Beyond the allocation: the driver's own error comes back. */
    CUresult r = cuMemcpyHtoD_v2(dev + 4096, in, n);
    printf("outside %d\n", (int)r);
    CHECK_CU(cuMemFree_v2(dev));
    return 0;
}

static int child_pin(void)
{
    for (int i = 0; i < 10; i++) {
        void *p = NULL;
        CHECK_CU(cuMemHostAlloc(&p, 1u << 20, CU_MEMHOSTALLOC_PORTABLE));
        memset(p, i, 1u << 20);
        CHECK_CU(cuMemFreeHost(p));
    }
    void *other = NULL, *held = NULL;
    CHECK_CU(cuMemHostAlloc(&other, 2u << 20, 0)); /* another size: the driver's */
    CHECK_CU(cuMemAllocHost_v2(&held, 1u << 20));  /* another entry point: the driver's */
    CHECK_CU(cuMemFreeHost(other));
    fake_cuda_counts c;
    fake_cuda_stats(&c);
    printf("pin allocs %llu frees %llu live %llu syncs %llu\n", (unsigned long long)c.host_allocs,
           (unsigned long long)c.host_frees, (unsigned long long)c.host_live,
           (unsigned long long)c.ctx_syncs);
    CUcontext ctx;
    CHECK_CU(cuCtxGetCurrent(&ctx));
    CHECK_CU(cuCtxDestroy_v2(ctx)); /* the kept blocks go first */
    fake_cuda_stats(&c);
    printf("after destroy live %llu\n", (unsigned long long)c.host_live);
    return 0;
}

/* ---- the parent ---- */

/* The staging cure alone: the register cure would pin the buffers copied again and again. */
static const char *const staging_only[] = {"ZC_RUN_FIXES", "pageable,pinning", NULL};

static void test_copies_through_staging(void **state)
{
    (void)state;
    child_run r;
    run_child("copies", staging_only, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "copies ok"));
    assert_int_equal(r.summary.processes, 1);
    assert_int_equal(r.summary.processes_cut, 0);
    /* 3 rounds x 4 sizes x 3 kinds x 2 directions = 72; 4 KiB ones are small (18); the second
     * copy of each of the 3 classes that are cured is sampled in each direction (6). */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_SMALL), 18);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_SAMPLE), 6);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_H2D), 27 - 3);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 27 - 3);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_PAGEABLE_H2D].pricing, ZC_RUN_PRICED_SCALED);
    assert_true(r.summary.counts[ZC_RUN_COUNTER_PAGEABLE_H2D].uncured_ns > 0);
    /* The staging the library pinned (one region registered, or buffers allocated pinned) was
     * given back at exit. */
    assert_non_null(strstr(r.err, "fake cuda: 0 pinned allocations live at exit"));
    assert_non_null(strstr(r.err, "fake cuda: 0 portable registrations live at exit (1 made)"));
}

static void test_copies_2d(void **state)
{
    (void)state;
    child_run r;
    run_child("copies2d", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "copies 2d ok"));
    /* 3 rounds x 3 kinds, each way, of 3000 x 700: the second of each way sampled; the rows of
     * 300000 bytes, wider than a staging buffer, left (3 kinds each way). */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_SAMPLE), 2);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_H2D), 8);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 8);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_UNSURE), 6);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_PAGEABLE_H2D].bytes, 8 * 3000 * 700);
}

static void test_copies_3d(void **state)
{
    (void)state;
    child_run r;
    run_child("copies3d", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "copies 3d ok"));
    /* 3 rounds x 2 kinds each way: the second each way sampled, the others cured. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_SAMPLE), 2);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_H2D), 5);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 5);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_PAGEABLE_H2D].bytes, 5 * 3000 * 70 * 9);
}

static void test_per_thread_stream(void **state)
{
    (void)state;
    child_run r;
    run_child("ptds", staging_only, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_SAMPLE), 2);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_H2D), 2);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 2);
    /* The first and third rounds were cured, on CU_STREAM_PER_THREAD. */
    char expected[32];
    snprintf(expected, sizeof expected, "stream %lu\n",
             (unsigned long)(uintptr_t)CU_STREAM_PER_THREAD);
    assert_non_null(strstr(r.out, expected));
    assert_null(strstr(r.out, "FAIL"));
}

static void test_cure_off(void **state)
{
    (void)state;
    child_run r;
    run_child("copies", (const char *[]){"ZC_RUN_FIXES", "pinning", NULL}, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "copies ok"));
    /* The library was loaded (its log says so) and no cure looked at a copy. */
    assert_int_equal(r.summary.processes, 1);
    for (int c = 0; c < ZC_RUN_COUNTER_COUNT; c++)
        assert_int_equal(r.summary.counts[c].calls, 0);
}

static void test_left_as_they_were(void **state)
{
    (void)state;
    child_run r;
    run_child("left", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    char expected[32];
    snprintf(expected, sizeof expected, "outside %d\n", (int)CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(r.out, expected));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_CAPTURE), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_UNSURE), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 1);
}

static void test_pinning_kept(void **state)
{
    (void)state;
    child_run r;
    run_child("pin", NULL, &r);
    assert_int_equal(r.exit_code, 0);
    /* One 1 MiB block pinned by the driver for ten rounds, one of 2 MiB, one through
     * cuMemAllocHost; each free waited for the context. The kept 1 MiB portable block was freed
     * before the driver made the 2 MiB default one (a block of another kind is never kept beside
     * a new one: the driver would carve the new one from its piece); the 2 MiB one, freed, is
     * kept. */
    assert_non_null(strstr(r.out, "pin allocs 3 frees 1 live 2 syncs 11"));
    /* Destroying the context freed the kept block; the one the program holds stays. */
    assert_non_null(strstr(r.out, "after destroy live 1"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PINNING_HIT), 9);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PINNING_MISS), 3);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_PINNING_HIT].pricing, ZC_RUN_PRICED_MEASURED);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "copies") == 0)
        return child_copies();
    if (argc == 2 && strcmp(argv[1], "copies2d") == 0)
        return child_copies_2d();
    if (argc == 2 && strcmp(argv[1], "copies3d") == 0)
        return child_copies_3d();
    if (argc == 2 && strcmp(argv[1], "ptds") == 0)
        return child_per_thread();
    if (argc == 2 && strcmp(argv[1], "left") == 0)
        return child_left();
    if (argc == 2 && strcmp(argv[1], "pin") == 0)
        return child_pin();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_through_staging),
        cmocka_unit_test(test_copies_2d),
        cmocka_unit_test(test_copies_3d),
        cmocka_unit_test(test_per_thread_stream),
        cmocka_unit_test(test_cure_off),
        cmocka_unit_test(test_left_as_they_were),
        cmocka_unit_test(test_pinning_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
