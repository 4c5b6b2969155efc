/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zc run's library against the stand-in driver (fake_cuda.c), one case per defect a hostile test
 * found in it, each a behaviour CUDA or C documents that a cured program must keep:
 * - a pinned block freed twice: the second cuMemFreeHost is an error, and the block is never
 *   handed out twice;
 * - a 3D copy of one slice at z > 0 reads and writes that slice;
 * - a library wrapping a driver function through dlsym(RTLD_NEXT, ...) gets the next definition;
 * - a synchronous copy to the device from pageable memory starts after the work queued before it
 *   (a host function that writes its source);
 * - the program registers a buffer that shares a page with one zc run pinned in place;
 * - a pointer query about a buffer pinned in place answers with the program's own address;
 * - a copy from or to a NULL host pointer gets the driver's error;
 * - a buffer pinned in place that the program makes read-only is copied the driver's way again
 *   (the DMA would ignore the protection), and never pinned again;
 * - exit from one thread while another copies; and the context torn down at exit (as the
 *   runtime's own exit handler does) while that copy waits on the driver.
 * Each case runs in a child with the library preloaded (fake_child.c).
 */
#include "test_support.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_child.h"
#include "fake_cuda.h"
#include "zerocopy/run.h"

/* ---- the child's cases ---- */

static int child_double_free(void)
{
    void *p = NULL, *a = NULL, *b = NULL;
    CHECK_CU(cuMemHostAlloc(&p, 64u << 10, 0));
    CUresult first = cuMemFreeHost(p), second = cuMemFreeHost(p);
    CHECK_CU(cuMemHostAlloc(&a, 64u << 10, 0));
    CHECK_CU(cuMemHostAlloc(&b, 64u << 10, 0));
    printf("double free: %d %d, blocks %s\n", (int)first, (int)second, a != b ? "apart" : "shared");
    CHECK_CU(cuMemFreeHost(a));
    CHECK_CU(cuMemFreeHost(b));
    return 0;
}

/* One slice (depth 1) at srcZ 2 of a host volume into dstZ 3 of a device volume, and back from
 * there into slice 1 of another host volume; every other slice untouched. */
static int child_slice(void)
{
    const size_t w = 4096, h = 40, pitch = w, slices = 5, slice = pitch * h;
    unsigned char *in = malloc(slice * slices), *back = malloc(slice * slices);
    unsigned char *dev_image = malloc(slice * slices);
    CUdeviceptr dev;
    if (in == NULL || back == NULL || dev_image == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, slice * slices));
    memset(dev_image, 0xEE, slice * slices);
    CHECK_CU(cuMemcpyHtoD_v2(dev, dev_image, slice * slices));
    fake_child_fill(in, slice * slices, 7);
    memset(back, 0xEE, slice * slices);
    for (int async = 0; async < 2; async++) {
        CUDA_MEMCPY3D up, down;
        memset(&up, 0, sizeof up);
        up.srcMemoryType = CU_MEMORYTYPE_HOST;
        up.srcHost = in;
        up.srcPitch = pitch;
        up.srcHeight = h;
        up.srcZ = 2;
        up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        up.dstDevice = dev;
        up.dstPitch = pitch;
        up.dstHeight = h;
        up.dstZ = 3;
        up.WidthInBytes = w;
        up.Height = h;
        up.Depth = 1;
        down = up;
        down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        down.srcHost = NULL;
        down.srcDevice = dev;
        down.srcZ = 3;
        down.dstMemoryType = CU_MEMORYTYPE_HOST;
        down.dstDevice = 0;
        down.dstHost = back;
        down.dstZ = 1;
        if (async) {
            CHECK_CU(cuMemcpy3DAsync_v2(&up, NULL));
            CHECK_CU(cuMemcpy3DAsync_v2(&down, NULL));
        } else {
            CHECK_CU(cuMemcpy3D_v2(&up));
            CHECK_CU(cuMemcpy3D_v2(&down));
        }
        CHECK_CU(cuMemcpyDtoH_v2(dev_image, dev, slice * slices));
        for (size_t z = 0; z < slices; z++) {
            const unsigned char *want = z == 3 ? in + 2 * slice : NULL;
            for (size_t i = 0; i < slice; i++) {
                unsigned char got = dev_image[z * slice + i];
                if (want != NULL ? got != want[i] : got != 0xEE) {
                    printf("FAIL device slice %zu byte %zu (async %d)\n", z, i, async);
                    return 1;
                }
            }
            const unsigned char *want_back = z == 1 ? in + 2 * slice : NULL;
            for (size_t i = 0; i < slice; i++) {
                unsigned char got = back[z * slice + i];
                if (want_back != NULL ? got != want_back[i] : got != 0xEE) {
                    printf("FAIL host slice %zu byte %zu (async %d)\n", z, i, async);
                    return 1;
                }
            }
        }
    }
    printf("slice ok\n");
    return 0;
}

static int child_rtld_next(void)
{
    CUdeviceptr dev = 0;
    CUresult r = cuMemAlloc_v2(&dev, 4096);
    int (*calls)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_wrapper_calls");
    printf("wrapped alloc %d, calls %d\n", (int)r, calls != NULL ? calls() : -1);
    return 0;
}

#define ORDER_BYTES ((size_t)1 << 20)
static unsigned char *order_source;

static void CUDA_CB write_source(void *arg)
{
    (void)arg;
    memset(order_source, 0xA5, ORDER_BYTES);
}

static int child_host_fn_order(void)
{
    order_source = malloc(ORDER_BYTES);
    unsigned char *back = malloc(ORDER_BYTES);
    CUdeviceptr dev;
    if (order_source == NULL || back == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, ORDER_BYTES));
    for (int round = 0; round < 3; round++) {
        memset(order_source, 0x11, ORDER_BYTES);
        CHECK_CU(cuLaunchHostFunc(NULL, write_source, NULL));
        CHECK_CU(cuMemcpyHtoD_v2(dev, order_source, ORDER_BYTES));
        CHECK_CU(cuMemcpyDtoH_v2(back, dev, ORDER_BYTES));
        for (size_t i = 0; i < ORDER_BYTES; i++) {
            if (back[i] != 0xA5) {
                printf("FAIL round %d: byte %zu is %#x, written before the copy was 0xa5\n", round,
                       i, back[i]);
                return 1;
            }
        }
    }
    printf("order ok\n");
    return 0;
}

static int child_shared_page(void)
{
    /* Below glibc's mmap threshold: neighbours on the heap. */
    const size_t n = 100000;
    unsigned char *a = malloc(n), *b = malloc(n);
    CUdeviceptr dev;
    if (a == NULL || b == NULL)
        return 1;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    fprintf(stderr, "a ends on page %#lx, b starts on page %#lx\n",
            (unsigned long)(((uintptr_t)a + n - 1) / page), (unsigned long)((uintptr_t)b / page));
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    if (fake_child_pin_by_copies(a, dev, n) != 0)
        return 1;
    CUresult r = cuMemHostRegister_v2(b, n, 0);
    printf("register of the neighbour: %d\n", (int)r);
    if (r == CUDA_SUCCESS)
        CHECK_CU(cuMemHostUnregister(b));
    /* a is copied as before, whatever became of its pin. */
    unsigned char *back = malloc(n);
    if (back == NULL)
        return 1;
    fake_child_fill(a, n, 77);
    CHECK_CU(cuMemcpyHtoD_v2(dev, a, n));
    CHECK_CU(cuMemcpyDtoH_v2(back, dev, n));
    printf("copies after: %s\n", memcmp(a, back, n) == 0 ? "same" : "different");
    return 0;
}

static int child_query(void)
{
    const size_t n = (size_t)8 << 20;
    unsigned char *buf = malloc(n);
    CUdeviceptr dev;
    if (buf == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    if (fake_child_pin_by_copies(buf, dev, n) != 0)
        return 1;
    void *host = NULL;
    CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_HOST_POINTER;
    void *data = &host;
    CHECK_CU(cuPointerGetAttributes(1, &attribute, &data, (CUdeviceptr)(uintptr_t)(buf + 100)));
    printf("host pointer %s\n", host == buf + 100 ? "the program's" : "another");
    return 0;
}

static int child_null_host(void)
{
    const size_t n = (size_t)1 << 20;
    CUdeviceptr dev;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    printf("null: to %d from %d async %d\n", (int)cuMemcpyHtoD_v2(dev, NULL, n),
           (int)cuMemcpyDtoH_v2(NULL, dev, n), (int)cuMemcpyHtoDAsync_v2(dev, NULL, n, NULL));
    return 0;
}

static int child_mprotect(void)
{
    const size_t n = (size_t)8 << 20;
    unsigned char *buf = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *back = malloc(n);
    CUdeviceptr dev;
    if (buf == MAP_FAILED || back == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    if (fake_child_pin_by_copies(buf, dev, n) != 0)
        return 1;
    fake_cuda_counts before;
    fake_cuda_stats(&before);
    if (mprotect(buf, n, PROT_READ) != 0)
        return 1;
    /* Any hooked call that hands the driver a host pointer unpins first. */
    CHECK_CU(cuMemcpyHtoD_v2(dev, buf, n));
    fake_cuda_counts after;
    fake_cuda_stats(&after);
    printf("pinned %llu, after mprotect %llu\n", (unsigned long long)before.registered_live,
           (unsigned long long)after.registered_live);
    if (mprotect(buf, n, PROT_READ | PROT_WRITE) != 0)
        return 1;
    /* Copied from again and again: it would be pinned if it could be (back, copied into once,
     * is not). */
    for (int i = 0; i < 4; i++) {
        fake_child_fill(buf, n, 90 + (unsigned)i);
        CHECK_CU(cuMemcpyHtoD_v2(dev, buf, n));
    }
    CHECK_CU(cuMemcpyDtoH_v2(back, dev, n));
    if (memcmp(buf, back, n) != 0) {
        printf("FAIL round trip\n");
        return 1;
    }
    fake_cuda_stats(&after);
    printf("registrations since %llu\n", (unsigned long long)(after.registers - before.registers));
    return 0;
}

static void *copy_forever(void *arg)
{
    (void)arg;
    const size_t n = (size_t)2 << 20;
    unsigned char *buf = malloc(n);
    CUdeviceptr dev;
    if (buf == NULL || cuMemAlloc_v2(&dev, n) != CUDA_SUCCESS)
        return NULL;
    /* Bounded: the process ends long before. */
    for (int i = 0; i < 100000; i++) {
        if (cuMemcpyHtoD_v2(dev, buf, n) != CUDA_SUCCESS ||
            cuMemcpyDtoH_v2(buf, dev, n) != CUDA_SUCCESS)
            break;
    }
    return NULL;
}

/* The runtime's exit handler, registered before zc run's (so run after it): the primary context
 * released while the other thread's copy waits on the driver. */
static void release_context(void)
{
    (void)cuDevicePrimaryCtxRelease_v2(0);
}

static volatile int copying;

static void *copy_held(void *arg)
{
    (void)arg;
    const size_t n = (size_t)2 << 20;
    unsigned char *buf = malloc(n);
    CUdeviceptr dev;
    if (buf == NULL || cuMemAlloc_v2(&dev, n) != CUDA_SUCCESS)
        return NULL;
    fake_cuda_hold_events(1);
    copying = 1;
    (void)cuMemcpyDtoH_v2(buf, dev, n); /* staged: waits on an event until the release */
    return NULL;
}

static int child_teardown_while_copying(void)
{
    atexit(release_context);
    const size_t n = (size_t)2 << 20;
    unsigned char *buf = malloc(n);
    CUdeviceptr dev;
    if (buf == NULL)
        return 1;
    CHECK_CU(cuMemAlloc_v2(&dev, n));
    CHECK_CU(cuMemcpyHtoD_v2(dev, buf, n)); /* staged: zc run's exit cleanup is armed now */
    pthread_t thread;
    if (pthread_create(&thread, NULL, copy_held, NULL) != 0)
        return 1;
    for (int i = 0; i < 1000 && !copying; i++) {
        struct timespec pause = {0, 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    printf("exiting\n");
    fflush(stdout);
    exit(0);
}

static int child_exit_while_copying(void)
{
    pthread_t thread;
    if (pthread_create(&thread, NULL, copy_forever, NULL) != 0)
        return 1;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    printf("exiting\n");
    fflush(stdout);
    exit(0);
}

/* ---- the parent ---- */

static child_run run_case(const char *mode, const char *const *env)
{
    child_run r;
    run_child(mode, env, &r);
    return r;
}

static void test_double_free(void **state)
{
    (void)state;
    child_run r = run_case("double_free", NULL);
    assert_int_equal(r.exit_code, 0);
    char expected[64];
    snprintf(expected, sizeof expected, "double free: 0 %d, blocks apart\n",
             (int)CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(r.out, expected));
}

static void test_slice(void **state)
{
    (void)state;
    child_run r = run_case("slice", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "slice ok\n"));
    /* Cured, not left: the case is about the cure's own placement. */
    assert_true(r.summary.counts[ZC_RUN_COUNTER_PAGEABLE_H2D].calls > 0);
}

static void test_rtld_next(void **state)
{
    (void)state;
    char preload[2048];
    snprintf(preload, sizeof preload, "%s %s", ZC_TEST_RUN_LIB, ZC_TEST_WRAPPER_LIB);
    child_run r = run_case("rtld_next", (const char *[]){"LD_PRELOAD", preload, NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "wrapped alloc 0, calls 1\n"));
}

static void test_host_fn_order(void **state)
{
    (void)state;
    child_run r = run_case("host_fn_order", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "order ok\n"));
    assert_true(r.summary.counts[ZC_RUN_COUNTER_PAGEABLE_H2D].calls > 0);
}

static void test_shared_page(void **state)
{
    (void)state;
    child_run r = run_case("shared_page", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "register of the neighbour: 0\n"));
    assert_non_null(strstr(r.out, "copies after: same\n"));
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_REGISTER_PIN].calls, 1);
}

static void test_query(void **state)
{
    (void)state;
    child_run r = run_case("query", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.summary.counts[ZC_RUN_COUNTER_REGISTER_PIN].calls, 1);
    assert_non_null(strstr(r.out, "host pointer the program's\n"));
}

static void test_null_host(void **state)
{
    (void)state;
    child_run r = run_case("null_host", NULL);
    assert_int_equal(r.exit_code, 0);
    char expected[64];
    snprintf(expected, sizeof expected, "null: to %d from %d async %d\n",
             (int)CUDA_ERROR_INVALID_VALUE, (int)CUDA_ERROR_INVALID_VALUE,
             (int)CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(r.out, expected));
}

static void test_mprotect(void **state)
{
    (void)state;
    child_run r = run_case("mprotect", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "pinned 1, after mprotect 0\n"));
    assert_non_null(strstr(r.out, "registrations since 0\n"));
}

static void test_teardown_while_copying(void **state)
{
    (void)state;
    /* Bounded: a cleanup that waited for the held copy would never end; the test's own
     * timeout catches it, and the alarm below first. */
    child_run r =
        run_case("teardown_while_copying", (const char *[]){"ZC_RUN_FIXES", "pageable", NULL});
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "exiting\n"));
}

static void test_exit_while_copying(void **state)
{
    (void)state;
    for (int i = 0; i < 5; i++) {
        child_run r = run_case("exit_while_copying", NULL);
        assert_int_equal(r.exit_code, 0);
        assert_non_null(strstr(r.out, "exiting\n"));
    }
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"double_free", child_double_free},
                 {"slice", child_slice},
                 {"rtld_next", child_rtld_next},
                 {"host_fn_order", child_host_fn_order},
                 {"shared_page", child_shared_page},
                 {"query", child_query},
                 {"null_host", child_null_host},
                 {"mprotect", child_mprotect},
                 {"exit_while_copying", child_exit_while_copying},
                 {"teardown_while_copying", child_teardown_while_copying}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0)
            return cases[i].run();
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_double_free),        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_rtld_next),          cmocka_unit_test(test_host_fn_order),
        cmocka_unit_test(test_shared_page),        cmocka_unit_test(test_query),
        cmocka_unit_test(test_null_host),          cmocka_unit_test(test_mprotect),
        cmocka_unit_test(test_exit_while_copying), cmocka_unit_test(test_teardown_while_copying),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
