/* SPDX-License-Identifier: Apache-2.0 */
/* The fastpin cure's pages, on the CPU (compiled in from the library's source: they are not
 * exported): a block is exactly its rounded size on a huge-page boundary, faulting it in makes
 * every page resident without changing a byte (even one another thread writes meanwhile), and
 * made shared it keeps its bytes and its address, and a forked child's writes reach the parent,
 * as they do with the driver's pinned memory. */
#include "test_support.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_fast_pages.h"

#define MIB ((size_t)1 << 20)

/* Pages of [p, p + length) the kernel does not back yet. */
static size_t pages_not_resident(void *p, size_t length)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), count = (length + page - 1) / page, missing = 0;
    unsigned char *vec = malloc(count);
    assert_non_null(vec);
    assert_int_equal(mincore(p, length, vec), 0);
    for (size_t i = 0; i < count; i++)
        missing += !(vec[i] & 1);
    free(vec);
    return missing;
}

static void test_length(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    assert_int_equal(zc__fast_length(0), 0);
    assert_int_equal(zc__fast_length(1), page);
    assert_int_equal(zc__fast_length(page + 1), 2 * page);
    assert_int_equal(zc__fast_length(2 * MIB), 2 * MIB);
    assert_int_equal(zc__fast_length(2 * MIB + 1), 4 * MIB); /* huge pages, not a power of two */
    assert_int_equal(zc__fast_length(96 * MIB + 5), 98 * MIB);
    assert_int_equal(zc__fast_length(SIZE_MAX - 5), 0); /* the rounding would overflow */
}

static void test_map_and_touch(void **state)
{
    (void)state;
    size_t length = zc__fast_length(33 * MIB);
    unsigned char *p = zc__fast_map(length);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % (2 * MIB), 0);
    assert_int_equal(pages_not_resident(p, length), length / (size_t)sysconf(_SC_PAGESIZE));
    zc__fast_touch(p, length, 4);
    assert_int_equal(pages_not_resident(p, length), 0);
    for (size_t i = 0; i < length; i += 4096)
        assert_int_equal(p[i], 0); /* fresh pages stay zero */
    assert_int_equal(munmap(p, length), 0);
}

/* A writer that keeps writing its mark into every other page while the pages are faulted in. */
typedef struct writer {
    unsigned char *p;
    size_t length;
    int stop;
} writer;

static void *write_marks(void *arg)
{
    writer *w = arg;
    for (unsigned round = 1; !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE); round++)
        for (size_t i = 0; i < w->length; i += 4096 * 2)
            __atomic_store_n(&w->p[i], (unsigned char)(round | 1), __ATOMIC_RELAXED);
    return NULL;
}

static void test_touch_keeps_bytes(void **state)
{
    (void)state;
    size_t length = 16 * MIB;
    unsigned char *p =
        mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    for (size_t i = 4096; i < length; i += 4096 * 2)
        p[i] = (unsigned char)(i >> 13) | 0x80; /* data in the pages the writer leaves alone */
    writer w = {p, length, 0};
    pthread_t id;
    assert_int_equal(pthread_create(&id, NULL, write_marks, &w), 0);
    zc__fast_touch(p, length, 3);
    __atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(id, NULL), 0);
    assert_int_equal(pages_not_resident(p, length), 0);
    for (size_t i = 0; i < length; i += 4096 * 2) {
        assert_true(p[i] == 0 || (p[i] & 1)); /* the writer's marks or the fresh zero, no other */
        assert_int_equal(p[i + 4096], (unsigned char)((i + 4096) >> 13) | 0x80);
    }
    assert_int_equal(munmap(p, length), 0);
}

static void test_share_keeps_bytes_and_forks_shared(void **state)
{
    (void)state;
    size_t length = zc__fast_length(6 * MIB + 3);
    unsigned char *p = zc__fast_map(length);
    assert_non_null(p);
    zc__fast_touch(p, length, 2);
    zc_test_fill_pattern(p, length, 47);
    unsigned char *copy = malloc(length);
    assert_non_null(copy);
    memcpy(copy, p, length);
    assert_int_equal(zc__fast_share(p, length), 0);
    assert_memory_equal(p, copy, length);
    fflush(NULL);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        p[0] = (unsigned char)~copy[0];
        p[length - 1] = (unsigned char)~copy[length - 1];
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(p[0], (unsigned char)~copy[0]); /* the child's writes, seen */
    assert_int_equal(p[length - 1], (unsigned char)~copy[length - 1]);
    assert_memory_equal(p + 1, copy + 1, length - 2);
    free(copy);
    assert_int_equal(munmap(p, length), 0);
}

static void test_share_refuses_nothing(void **state)
{
    (void)state;
    assert_int_equal(zc__fast_share(NULL, 4096), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_length),
        cmocka_unit_test(test_map_and_touch),
        cmocka_unit_test(test_touch_keeps_bytes),
        cmocka_unit_test(test_share_keeps_bytes_and_forks_shared),
        cmocka_unit_test(test_share_refuses_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
