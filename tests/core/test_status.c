/* SPDX-License-Identifier: Apache-2.0 */
/* Status strings and the thread-local detail string. */
#include "test_support.h"

#include <pthread.h>
#include <string.h>

#include "core/error.h"
#include "zerocopy/zerocopy.h"

#define ZC__ALL_STATUSES(name, value, text) ZC_##name,
static const zc_status all_statuses[] = {ZC_STATUS_MAP(ZC__ALL_STATUSES)};
#define STATUS_COUNT (sizeof all_statuses / sizeof all_statuses[0])

static void test_ok_is_zero_and_errors_negative(void **state)
{
    (void)state;
    assert_int_equal(ZC_OK, 0);
    for (size_t i = 1; i < STATUS_COUNT; i++)
        assert_true(all_statuses[i] < 0);
}

static void test_every_status_has_distinct_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < STATUS_COUNT; i++) {
        const char *text = zc_status_str(all_statuses[i]);
        assert_non_null(text);
        assert_string_not_equal(text, "unknown status");
        for (size_t j = 0; j < i; j++) {
            assert_int_not_equal(all_statuses[i], all_statuses[j]);
            assert_string_not_equal(text, zc_status_str(all_statuses[j]));
        }
    }
    assert_string_equal(zc_status_str(ZC_ERR_NO_MEMORY), "out of memory");
    assert_string_equal(zc_status_name(ZC_ERR_NO_DEVICE), "ERR_NO_DEVICE");
}

static zc_status fails_in_cleanup(int *ran)
{
    (*ran)++;
    return ZC_FAIL(ZC_ERR_CUDA, "cleanup_call failed");
}

/* A cleanup that itself ignores a cleanup's failure, then fails. */
static zc_status nested_cleanup(int *ran)
{
    ZC_CHECK_IGNORE(fails_in_cleanup(ran));
    return fails_in_cleanup(ran);
}

/* A cleanup's failure under ZC_CHECK_IGNORE leaves the detail of the failure cleaned up after,
 * nested too; after it, failures record again. */
static void test_check_ignore_keeps_first_detail(void **state)
{
    (void)state;
    int ran = 0;
    (void)ZC_FAIL(ZC_ERR_NO_MEMORY, "first_call failed");
    ZC_CHECK_IGNORE(fails_in_cleanup(&ran));
    ZC_CHECK_IGNORE(nested_cleanup(&ran));
    assert_int_equal(ran, 3);
    assert_non_null(strstr(zc_last_error(), "first_call failed"));
    assert_null(strstr(zc_last_error(), "cleanup_call"));
    (void)fails_in_cleanup(&ran);
    assert_non_null(strstr(zc_last_error(), "cleanup_call failed"));
}

static void test_unknown_status(void **state)
{
    (void)state;
    assert_string_equal(zc_status_str((zc_status)-9999), "unknown status");
    assert_string_equal(zc_status_name((zc_status)12345), "UNKNOWN");
}

static void test_fail_records_call_and_location(void **state)
{
    (void)state;
    zc_clear_error();
    assert_string_equal(zc_last_error(), "");
    zc_status s =
        ZC_FAIL(ZC_ERR_OVERFLOW, "zc_thing_alloc: %zu x %zu overflows", (size_t)3, (size_t)7);
    assert_int_equal(s, ZC_ERR_OVERFLOW);
    assert_non_null(strstr(zc_last_error(), "zc_thing_alloc: 3 x 7 overflows"));
    assert_non_null(strstr(zc_last_error(), "test_status.c:"));
    zc_clear_error();
    assert_string_equal(zc_last_error(), "");
}

static void test_long_detail_is_truncated_not_overrun(void **state)
{
    (void)state;
    char huge[4096];
    memset(huge, 'x', sizeof huge - 1);
    huge[sizeof huge - 1] = '\0';
    ZC_FAIL(ZC_ERR_IO, "%s", huge);
    size_t len = strlen(zc_last_error());
    assert_true(len > 100);
    assert_true(len < sizeof huge);
}

static void *other_thread(void *arg)
{
    (void)arg;
    ZC_FAIL(ZC_ERR_TIMEOUT, "failure on the other thread");
    return NULL;
}

static void test_detail_is_per_thread(void **state)
{
    (void)state;
    ZC_FAIL(ZC_ERR_PARSE, "failure on the main thread");
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, other_thread, NULL), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_non_null(strstr(zc_last_error(), "main thread"));
}

static zc_status null_checked(const int *arg)
{
    ZC_REQUIRE_ARG(arg);
    return ZC_OK;
}

static void test_require_arg_names_the_argument(void **state)
{
    (void)state;
    assert_int_equal(null_checked(NULL), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "null_checked: argument 'arg' is NULL"));
    int x = 1;
    assert_int_equal(null_checked(&x), ZC_OK);
}

static void test_version(void **state)
{
    (void)state;
    assert_int_equal(zc_version(), ZC_VERSION_HEX);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", ZC_VERSION_MAJOR, ZC_VERSION_MINOR,
             ZC_VERSION_PATCH);
    assert_string_equal(zc_version_string(), expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ok_is_zero_and_errors_negative),
        cmocka_unit_test(test_every_status_has_distinct_text),
        cmocka_unit_test(test_unknown_status),
        cmocka_unit_test(test_check_ignore_keeps_first_detail),
        cmocka_unit_test(test_fail_records_call_and_location),
        cmocka_unit_test(test_long_detail_is_truncated_not_overrun),
        cmocka_unit_test(test_detail_is_per_thread),
        cmocka_unit_test(test_require_arg_names_the_argument),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
