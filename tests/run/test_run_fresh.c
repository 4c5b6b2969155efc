/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fresh cure on the CPU, against the stand-in driver (fake_cuda.c): a device-to-host copy
 * into pages the program has just mapped has them faulted in ahead of the copy, and lands whole,
 * with the bytes around it in the same edge pages (written before the copy) unchanged; a copy
 * into pages already there, a small one, the sample of its size class, a pitched one and a
 * copy to the device are left to the other cures untouched; a shared or file mapping is left to
 * the copy and counted; the cure off, or its threshold above every copy, does nothing; asked
 * for huge pages, large fresh allocations are advised to use them where the system allows, and
 * a mapping so advised can still be grown by mremap as one. Built a second time without PIE
 * (cpu_run_fresh_no_pie), the program holds a stub of malloc that dlsym answers, as Debian's
 * python3 does, and every case must see its allocations all the same.
 * Each case runs in a child process with the library preloaded (fake_child.h).
 */
#include "test_support.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_child.h"
#include "zerocopy/run.h"

/* Two sizes of different size classes (the second copy of a class is the pageable cure's
 * sample, left as it was), both above the fresh cure's threshold (256 KiB). */
static const size_t sizes[2] = {(3u << 20) + 5, (9u << 20) + 3};

#define GUARD_BEFORE 0xA5
#define GUARD_AFTER  0x5A

/* ---- the child's cases ---- */

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* How many pages of [p, p + n) are resident. */
static size_t resident_pages(const unsigned char *p, size_t n)
{
    size_t page = page_size();
    uintptr_t first = (uintptr_t)p / page * page;
    size_t pages = ((uintptr_t)p + n - first + page - 1) / page, in = 0;
    for (size_t i = 0; i < pages; i++) {
        unsigned char v = 0;
        if (mincore((void *)(first + i * page), page, &v) == 0 && (v & 1u))
            in++;
    }
    return in;
}

/* Device memory holding n bytes of pattern seed (and the pattern in *src_p, to compare). */
static int device_with(size_t n, unsigned seed, CUdeviceptr *dev_p, unsigned char **src_p)
{
    *src_p = malloc(n);
    if (*src_p == NULL)
        return 1;
    fake_child_fill(*src_p, n, seed);
    CHECK_CU(cuMemAlloc_v2(dev_p, n));
    CHECK_CU(cuMemcpyHtoD_v2(*dev_p, *src_p, n));
    return 0;
}

/* A destination of n bytes at an odd offset into the second page of region (n + 3 pages): the
 * bytes before it in its first page and after it in its last written, so those two pages are
 * there before the copy and the others are not. */
static unsigned char *guarded(unsigned char *region, size_t n)
{
    size_t page = page_size();
    unsigned char *dst = region + page + 100;
    memset(region + page, GUARD_BEFORE, 100);
    size_t tail = page - ((uintptr_t)(dst + n) % page);
    memset(dst + n, GUARD_AFTER, tail);
    return dst;
}

/* The copy landed whole and the guards around it are as they were written. */
static int landed(const unsigned char *dst, const unsigned char *src, size_t n)
{
    size_t page = page_size();
    if (memcmp(dst, src, n) != 0) {
        printf("FAIL the copy of %zu bytes differs\n", n);
        return 1;
    }
    for (size_t i = 1; i <= 100; i++) {
        if (dst[-(ptrdiff_t)i] != GUARD_BEFORE) {
            printf("FAIL a guard byte before the destination changed\n");
            return 1;
        }
    }
    for (size_t i = 0; ((uintptr_t)(dst + n + i)) % page != 0; i++) {
        if (dst[n + i] != GUARD_AFTER) {
            printf("FAIL a guard byte after the destination changed\n");
            return 1;
        }
    }
    return 0;
}

/* A copy of n bytes (synchronous, or not) into a fresh private anonymous mapping. */
static int fresh_copy(size_t n, unsigned seed, int async)
{
    size_t page = page_size(), length = n + 3 * page;
    CUdeviceptr dev;
    unsigned char *src;
    if (device_with(n, seed, &dev, &src) != 0)
        return 1;
    unsigned char *region =
        mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED)
        return 1;
    unsigned char *dst = guarded(region, n);
    size_t before = resident_pages(dst, n);
    size_t pages = ((uintptr_t)dst + n - (uintptr_t)dst / page * page + page - 1) / page;
    if (before != 2) {
        printf("FAIL %zu pages of the destination resident before the copy (2 expected)\n", before);
        return 1;
    }
    if (async)
        CHECK_CU(cuMemcpyDtoHAsync_v2(dst, dev, n, NULL));
    else
        CHECK_CU(cuMemcpyDtoH_v2(dst, dev, n));
    if (landed(dst, src, n) != 0)
        return 1;
    printf("resident after %zu of %zu\n", resident_pages(dst, n), pages);
    munmap(region, length);
    CHECK_CU(cuMemFree_v2(dev));
    free(src);
    return 0;
}

static int child_fresh(void)
{
    for (int i = 0; i < 2; i++) {
        if (fresh_copy(sizes[i], (unsigned)i, i) != 0)
            return 1;
    }
    printf("fresh ok\n");
    return 0;
}

/* A copy into pages the program wrote already: nothing to fault in. */
static int child_resident(void)
{
    CUdeviceptr dev;
    unsigned char *src, *dst = malloc(sizes[0]);
    if (dst == NULL || device_with(sizes[0], 7, &dev, &src) != 0)
        return 1;
    memset(dst, 0, sizes[0]);
    CHECK_CU(cuMemcpyDtoH_v2(dst, dev, sizes[0]));
    if (memcmp(dst, src, sizes[0]) != 0) {
        printf("FAIL the copy into resident pages differs\n");
        return 1;
    }
    printf("resident ok\n");
    return 0;
}

static unsigned char *fresh_map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* A 2D copy of rows into fresh pages: rows of width at pitch width + 4096. */
static int pitched_into_fresh(CUdeviceptr dev, size_t width, size_t rows)
{
    unsigned char *dst = fresh_map((width + 4096) * rows);
    if (dst == NULL)
        return 1;
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    m.srcDevice = dev;
    m.srcPitch = width;
    m.dstMemoryType = CU_MEMORYTYPE_HOST;
    m.dstHost = dst;
    m.dstPitch = width + 4096;
    m.WidthInBytes = width;
    m.Height = rows;
    CHECK_CU(cuMemcpy2D_v2(&m));
    return 0;
}

/* Copies the fresh cure leaves to the others, all into fresh pages: one smaller than its
 * threshold, the second of a size class (the pageable cure's sample), a pitched one, and a copy
 * to the device from fresh pages. Only the first of the size class, into written pages, is the
 * fresh cure's (resident). */
static int child_untouched(void)
{
    const size_t small = 128u << 10;
    CUdeviceptr dev;
    unsigned char *src, *dst = malloc(sizes[0]);
    if (dst == NULL || device_with(sizes[0], 3, &dev, &src) != 0)
        return 1;
    unsigned char *fresh_small = fresh_map(small), *fresh_second = fresh_map(sizes[0]);
    unsigned char *fresh_source = fresh_map(sizes[0]);
    if (fresh_small == NULL || fresh_second == NULL || fresh_source == NULL)
        return 1;
    CHECK_CU(cuMemcpyDtoH_v2(fresh_small, dev, small));
    memset(dst, 0, sizes[0]);
    CHECK_CU(cuMemcpyDtoH_v2(dst, dev, sizes[0]));          /* the first of its class */
    CHECK_CU(cuMemcpyDtoH_v2(fresh_second, dev, sizes[0])); /* the second: the sample */
    if (memcmp(fresh_small, src, small) != 0 || memcmp(fresh_second, src, sizes[0]) != 0) {
        printf("FAIL a copy the fresh cure left differs\n");
        return 1;
    }
    if (pitched_into_fresh(dev, 3000, 700) != 0)
        return 1;
    CHECK_CU(cuMemcpyHtoD_v2(dev, fresh_source, sizes[0]));
    printf("untouched ok\n");
    return 0;
}

/* Copies into a shared anonymous mapping and into a file mapping: never faulted in by the
 * cure (a file's pages are the file's), left to the copy, which lands as it would. */
static int child_unseen(void)
{
    char path[] = "/tmp/zc-run-fresh-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, (off_t)sizes[1]) != 0)
        return 1;
    unlink(path);
    unsigned char *shared =
        mmap(NULL, sizes[0], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    unsigned char *file = mmap(NULL, sizes[1], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (shared == MAP_FAILED || file == MAP_FAILED)
        return 1;
    unsigned char *into[2] = {shared, file};
    for (int i = 0; i < 2; i++) {
        CUdeviceptr dev;
        unsigned char *src;
        if (device_with(sizes[i], 11u + (unsigned)i, &dev, &src) != 0)
            return 1;
        CHECK_CU(cuMemcpyDtoH_v2(into[i], dev, sizes[i]));
        if (memcmp(into[i], src, sizes[i]) != 0) {
            printf("FAIL the copy into mapping %d differs\n", i);
            return 1;
        }
    }
    close(fd);
    printf("unseen ok\n");
    return 0;
}

/* Whether the mapping at p is advised to use huge pages (its VmFlags in /proc/self/smaps hold
 * "hg"). */
static bool advised_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL)
        return false;
    char line[512];
    bool inside = false, huge = false;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long from, to;
        if (sscanf(line, "%lx-%lx ", &from, &to) == 2)
            inside = (uintptr_t)p >= from && (uintptr_t)p < to;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0)
            huge = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return huge;
}

/* A large fresh mapping, advised when the library was asked to, then copied into. */
/* A mapping of n bytes (not whole huge pages), filled, then grown by mremap as one: the advice
 * must not split it into mappings of different kinds, which mremap refuses (EFAULT). */
static int grown_whole(size_t n)
{
    unsigned char *p = fresh_map(n);
    if (p == NULL)
        return 1;
    fake_child_fill(p, n, 7);
    unsigned char *grown = mremap(p, n, 2 * n, MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) {
        printf("FAIL mremap of a whole advised mapping: %s\n", strerror(errno));
        return 1;
    }
    unsigned char *expected = malloc(n);
    if (expected == NULL)
        return 1;
    fake_child_fill(expected, n, 7);
    int same = memcmp(grown, expected, n) == 0;
    free(expected);
    munmap(grown, 2 * n);
    if (!same)
        printf("FAIL mremap did not keep the mapping's content\n");
    return same ? 0 : 1;
}

static int child_huge(void)
{
    const size_t n = 16u << 20;
    CUdeviceptr dev;
    unsigned char *src, *dst = fresh_map(n);
    if (dst == NULL || device_with(n, 5, &dev, &src) != 0)
        return 1;
    uintptr_t huge = 2u << 20, inside = ((uintptr_t)dst + huge - 1) / huge * huge;
    printf("advised %s\n", advised_huge((void *)inside) ? "yes" : "no");
    CHECK_CU(cuMemcpyDtoH_v2(dst, dev, n));
    if (memcmp(dst, src, n) != 0) {
        printf("FAIL the copy into huge pages differs\n");
        return 1;
    }
    printf("resident after %zu of %zu\n", resident_pages(dst, n), n / page_size());
    return grown_whole(n + 3 * page_size());
}

/* malloc's address, taken by the program's code: built without PIE (cpu_run_fresh_no_pie), this
 * gives the program a stub of malloc of its own, which dlsym(RTLD_DEFAULT, "malloc") answers. */
void *(*volatile program_malloc)(size_t);

/* Whether dlsym(RTLD_DEFAULT, "malloc") answers an address inside this program. */
static int child_stub(void)
{
    program_malloc = malloc;
    Dl_info found, program;
    void *fn = dlsym(RTLD_DEFAULT, "malloc");
    if (fn == NULL || dladdr(fn, &found) == 0 || dladdr((void *)child_stub, &program) == 0)
        return 1;
    printf("malloc answered in the program: %s\n",
           found.dli_fbase == program.dli_fbase ? "yes" : "no");
    return program_malloc == NULL;
}

/* ---- the parent ---- */

/* The cure is off unless named (ZC_RUN_FIXES_DEFAULT): every case names it but the one that
 * checks that it is off. */
static const char *const every_cure[] = {"ZC_RUN_FIXES", "all", NULL};

static uint64_t bytes_of(const child_run *r, zc_run_counter c)
{
    return r->summary.counts[c].bytes;
}

/* Whether the line "resident after N of M" has N == M for every copy the child printed. */
static void expect_all_resident(const child_run *r, int copies)
{
    const char *at = r->out;
    for (int i = 0; i < copies; i++) {
        at = strstr(at, "resident after ");
        assert_non_null(at);
        size_t in = 0, of = 1;
        assert_int_equal(sscanf(at, "resident after %zu of %zu", &in, &of), 2);
        assert_int_equal(in, of);
        at++;
    }
}

static void test_fresh_pages_ahead(void **state)
{
    (void)state;
    child_run r;
    run_child("fresh", every_cure, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "fresh ok"));
    expect_all_resident(&r, 2);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_AHEAD), 2);
    assert_int_equal(bytes_of(&r, ZC_RUN_COUNTER_FRESH_AHEAD), sizes[0] + sizes[1]);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_RESIDENT), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_UNSEEN), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_REFUSED), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_HUGE), 0);
    /* Passed on: the pageable cure staged both copies. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 2);
}

static void test_resident_pages(void **state)
{
    (void)state;
    child_run r;
    run_child("resident", every_cure, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "resident ok"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_RESIDENT), 1);
    assert_int_equal(bytes_of(&r, ZC_RUN_COUNTER_FRESH_RESIDENT), sizes[0]);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_AHEAD), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 1);
}

static void test_left_to_the_others(void **state)
{
    (void)state;
    child_run r;
    run_child("untouched", every_cure, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "untouched ok"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_RESIDENT), 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_AHEAD), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_UNSEEN), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_REFUSED), 0);
    /* The others did what they do: the small copy, the first of its class and the pitched one
     * (the third of that class) staged; the second of the class sampled, and the second copy
     * to the device of that size too. */
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 3);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_SAMPLE), 2);
}

static void test_shared_and_file_mappings(void **state)
{
    (void)state;
    child_run r;
    run_child("unseen", every_cure, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "unseen ok"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_UNSEEN), 2);
    assert_int_equal(bytes_of(&r, ZC_RUN_COUNTER_FRESH_UNSEEN), sizes[0] + sizes[1]);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_AHEAD), 0);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 2);
}

/* The cure off (by default, or left out of the list), or its threshold above every copy: the
 * copies land as before, nothing counted of it. */
static void test_off(void **state)
{
    (void)state;
    static const char *const fixes_off[] = {"ZC_RUN_FIXES", "pageable,pinning,register", NULL};
    static const char *const above[] = {"ZC_RUN_FIXES", "all", "ZC_RUN_FRESH_MIN_BYTES", "16777216",
                                        NULL};
    static const char *const *const settings[] = {NULL, fixes_off, above};
    for (int s = 0; s < 3; s++) {
        child_run r;
        run_child("fresh", settings[s], &r);
        assert_int_equal(r.exit_code, 0);
        assert_non_null(strstr(r.out, "fresh ok"));
        for (int c = ZC_RUN_COUNTER_FRESH_AHEAD; c <= ZC_RUN_COUNTER_FRESH_HUGE; c++)
            assert_int_equal(r.summary.counts[c].calls, 0);
        assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_PAGEABLE_D2H), 2);
    }
}

/* Whether this system's transparent huge pages are off ("never"). */
static bool huge_pages_off(void)
{
    char mode[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f != NULL) {
        if (fgets(mode, sizeof mode, f) == NULL)
            mode[0] = '\0';
        fclose(f);
    }
    return f == NULL || strstr(mode, "[never]") != NULL;
}

/* The premise of cpu_run_fresh_no_pie: its program answers dlsym(RTLD_DEFAULT, "malloc") itself,
 * and the cases above found their allocations seen all the same. */
static void test_program_stub(void **state)
{
    (void)state;
    child_run r;
    run_child("stub", every_cure, &r);
    assert_int_equal(r.exit_code, 0);
#ifdef ZC_TEST_NO_PIE
    assert_non_null(strstr(r.out, "malloc answered in the program: yes"));
#else
    assert_non_null(strstr(r.out, "malloc answered in the program: no"));
#endif
}

static void test_huge_pages(void **state)
{
    (void)state;
    child_run r;
    run_child("huge", (const char *const[]){"ZC_RUN_FIXES", "all", "ZC_RUN_FRESH_HUGE", "1", NULL},
              &r);
    assert_int_equal(r.exit_code, 0);
    expect_all_resident(&r, 1);
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_AHEAD), 1);
    if (huge_pages_off()) {
        assert_non_null(strstr(r.err, "transparent huge pages are off on this system"));
        assert_non_null(strstr(r.out, "advised no"));
        assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_HUGE), 0);
        return;
    }
    /* The mapping's whole huge pages (at least 14 of its 16 MiB), and others of the child's. */
    assert_non_null(strstr(r.out, "advised yes"));
    assert_true(child_calls(&r, ZC_RUN_COUNTER_FRESH_HUGE) >= 1);
    assert_true(bytes_of(&r, ZC_RUN_COUNTER_FRESH_HUGE) >= (14u << 20));
    /* Advice alone: the threshold above every copy, and no other cure that hears of
     * allocations (register) to bring the row the allocation. */
    run_child("huge",
              (const char *const[]){"ZC_RUN_FIXES", "pageable,fresh", "ZC_RUN_FRESH_HUGE", "1",
                                    "ZC_RUN_FRESH_MIN_BYTES", "1073741824", NULL},
              &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "advised yes"));
    assert_true(bytes_of(&r, ZC_RUN_COUNTER_FRESH_HUGE) >= (14u << 20));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_AHEAD), 0);
    /* Without the setting, nothing is advised. */
    run_child("huge", every_cure, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, "advised no"));
    assert_int_equal(child_calls(&r, ZC_RUN_COUNTER_FRESH_HUGE), 0);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "fresh") == 0)
        return child_fresh();
    if (argc == 2 && strcmp(argv[1], "resident") == 0)
        return child_resident();
    if (argc == 2 && strcmp(argv[1], "untouched") == 0)
        return child_untouched();
    if (argc == 2 && strcmp(argv[1], "unseen") == 0)
        return child_unseen();
    if (argc == 2 && strcmp(argv[1], "huge") == 0)
        return child_huge();
    if (argc == 2 && strcmp(argv[1], "stub") == 0)
        return child_stub();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_pages_ahead),
        cmocka_unit_test(test_resident_pages),
        cmocka_unit_test(test_left_to_the_others),
        cmocka_unit_test(test_shared_and_file_mappings),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_huge_pages),
        cmocka_unit_test(test_program_stub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
