/* SPDX-License-Identifier: Apache-2.0 */
/* Fresh pages faulted in beside a registration (core/page_touch.h), on the CPU: beside's result
 * comes back, no byte changes, with no threads every page is there before beside runs, and
 * with threads every page gets there while beside runs as long as a driver's walk would; a
 * range touched on one thread brings in its pages and no other. */
#include "test_support.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/page_touch.h"

#define LENGTH ((size_t)64 << 20)

typedef struct beside_record {
    unsigned char *base;
    size_t length;
    size_t resident_at_start; /* pages there when beside began */
    int wait_for_all;         /* beside waits (5 s at most) until every page is there */
    int answer;
} beside_record;

static size_t resident_pages(const unsigned char *base, size_t length)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = length / page, resident = 0;
    unsigned char *vec = malloc(pages);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)base, length, vec), 0);
    for (size_t i = 0; i < pages; i++)
        resident += vec[i] & 1u;
    free(vec);
    return resident;
}

static int beside(void *arg)
{
    beside_record *r = arg;
    size_t all = r->length / (size_t)sysconf(_SC_PAGESIZE);
    r->resident_at_start = resident_pages(r->base, r->length);
    for (int i = 0; r->wait_for_all && i < 5000 && resident_pages(r->base, r->length) < all; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return r->answer;
}

static int beside_nothing(void *arg)
{
    return ((const beside_record *)arg)->answer;
}

static unsigned char *fresh(void)
{
    unsigned char *base =
        mmap(NULL, LENGTH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    /* Small pages, whatever the system's huge-page mode: which pages a touch brings in is
     * asked page by page. */
    assert_int_equal(madvise(base, LENGTH, MADV_NOHUGEPAGE), 0);
    /* A few pages with bytes of their own, the touched first byte among them: the touching
     * must leave them as they are. */
    for (size_t at = 0; at < LENGTH; at += LENGTH / 8)
        memset(base + at, 0xA5, 3000);
    return base;
}

static void check_kept(const unsigned char *base)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t at = 0; at < LENGTH; at += page) {
        size_t written = at % (LENGTH / 8) == 0;
        for (size_t i = 0; i < page; i += 97) {
            unsigned char want = written && i < 3000 ? 0xA5 : 0;
            if (base[at + i] != want)
                fail_msg("byte %zu changed: %u", at + i, base[at + i]);
        }
    }
}

static void test_no_threads_touches_first(void **state)
{
    (void)state;
    unsigned char *base = fresh();
    beside_record r = {.base = base, .length = LENGTH, .answer = 7};
    assert_int_equal(zc__touch_beside(base, LENGTH, 0, beside, &r), 7);
    assert_int_equal(r.resident_at_start, LENGTH / (size_t)sysconf(_SC_PAGESIZE));
    check_kept(base);
    munmap(base, LENGTH);
}

static void test_threads_touch_while_beside_runs(void **state)
{
    (void)state;
    for (unsigned threads = 1; threads <= 8; threads *= 2) {
        unsigned char *base = fresh();
        beside_record r = {.base = base, .length = LENGTH, .wait_for_all = 1, .answer = -3};
        assert_int_equal(zc__touch_beside(base, LENGTH, threads, beside, &r), -3);
        assert_int_equal(resident_pages(base, LENGTH), LENGTH / (size_t)sysconf(_SC_PAGESIZE));
        check_kept(base);
        munmap(base, LENGTH);
    }
}

/* beside returning at once stops the touching: the call returns, whatever is left untouched
 * (a registration would have faulted it in itself). */
static void test_beside_returning_stops_the_threads(void **state)
{
    (void)state;
    unsigned char *base = fresh();
    beside_record r = {.base = base, .length = LENGTH, .answer = 0};
    assert_int_equal(zc__touch_beside(base, LENGTH, 4, beside, &r), 0);
    check_kept(base);
    munmap(base, LENGTH);
}

/* An odd length, not a whole number of steps: the last step's pages, and no page beyond. */
static void test_odd_length(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), length = ((size_t)5 << 20) + 3 * page;
    unsigned char *base =
        mmap(NULL, length + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    assert_int_equal(munmap(base + length, page), 0); /* a hole after it: touching it would fault */
    beside_record r = {.base = base, .length = length, .wait_for_all = 1};
    assert_int_equal(zc__touch_beside(base, length, 3, beside, &r), 0);
    assert_int_equal(resident_pages(base, length), length / page);
    munmap(base, length);
}

/* One thread, a range that starts inside a page: that page and every later one it reaches are
 * there, the pages around it are not, and no byte changed. */
static void test_touch_pages(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *base = fresh();
    unsigned char *middle = base + LENGTH / 16; /* between the pages fresh() wrote */
    zc__touch_pages(middle + page + 100, 3 * page);
    unsigned char in[6];
    assert_int_equal(mincore(middle, 6 * page, in), 0);
    assert_false(in[0] & 1u);
    for (int i = 1; i <= 4; i++)
        assert_true(in[i] & 1u);
    assert_false(in[5] & 1u);
    check_kept(base);
    zc__touch_pages(NULL, page); /* nothing */
    beside_record none = {.answer = 5};
    assert_int_equal(zc__touch_beside(NULL, page, 0, beside_nothing, &none), 5);
    munmap(base, LENGTH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_threads_touches_first),
        cmocka_unit_test(test_threads_touch_while_beside_runs),
        cmocka_unit_test(test_beside_returning_stops_the_threads),
        cmocka_unit_test(test_odd_length),
        cmocka_unit_test(test_touch_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
