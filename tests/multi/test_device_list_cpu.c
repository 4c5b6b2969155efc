/* SPDX-License-Identifier: Apache-2.0 */
/* Lists of GPUs ("all", "0,1"): what is accepted, what is refused and why; the per-GPU pointer
 * call's argument checks. Runs without a GPU. */
#include "test_support.h"

#include <string.h>

#include "zerocopy/buffer.h"
#include "zerocopy/device_list.h"

static void test_all_and_lists(void **state)
{
    (void)state;
    int devices[8];
    size_t n = 0;
    assert_int_equal(zc_device_list_parse("all", 2, devices, 8, &n), ZC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(devices[0], 0);
    assert_int_equal(devices[1], 1);
    assert_int_equal(zc_device_list_parse("3,1", 4, devices, 8, &n), ZC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(devices[0], 3); /* the order given is kept */
    assert_int_equal(devices[1], 1);
    assert_int_equal(zc_device_list_parse("0", 1, devices, 8, &n), ZC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(devices[0], 0);
}

/* Each bad list gives its status and leaves the outputs alone. */
static void expect_bad(const char *text, int count, size_t capacity, zc_status want,
                       const char *in_detail)
{
    int devices[8] = {42, 42, 42, 42, 42, 42, 42, 42};
    size_t n = 99;
    zc_status got = zc_device_list_parse(text, count, devices, capacity, &n);
    if (got != want)
        fail_msg("\"%s\" with %d GPUs gave %s, expected %s (%s)", text, count, zc_status_name(got),
                 zc_status_name(want), zc_last_error());
    if (in_detail && strstr(zc_last_error(), in_detail) == NULL)
        fail_msg("\"%s\": detail '%s' lacks '%s'", text, zc_last_error(), in_detail);
    assert_int_equal(n, 99);
    assert_int_equal(devices[0], 42);
}

static void test_bad_lists(void **state)
{
    (void)state;
    expect_bad("", 2, 8, ZC_ERR_PARSE, "empty");
    expect_bad(",", 2, 8, ZC_ERR_PARSE, NULL);
    expect_bad("0,", 2, 8, ZC_ERR_PARSE, NULL);
    expect_bad(",1", 2, 8, ZC_ERR_PARSE, NULL);
    expect_bad("0,,1", 2, 8, ZC_ERR_PARSE, NULL);
    expect_bad("a", 2, 8, ZC_ERR_PARSE, "'a'");
    expect_bad("0, 1", 2, 8, ZC_ERR_PARSE, "' 1'");
    expect_bad("-1", 2, 8, ZC_ERR_PARSE, NULL);
    expect_bad("+1", 2, 8, ZC_ERR_PARSE, NULL);
    expect_bad("1x", 2, 8, ZC_ERR_PARSE, "'1x'");
    expect_bad("ALL", 2, 8, ZC_ERR_PARSE, NULL);
    expect_bad("0,1,0", 2, 8, ZC_ERR_INVALID_ARG, "twice");
    expect_bad("2", 2, 8, ZC_ERR_INVALID_ARG, "2 GPUs");
    expect_bad("0,7", 2, 8, ZC_ERR_INVALID_ARG, "GPU 7");
    expect_bad("99999999999999999999", 2, 8, ZC_ERR_INVALID_ARG, NULL);
    expect_bad("0", 0, 8, ZC_ERR_INVALID_ARG, NULL);
    expect_bad("all", 0, 8, ZC_ERR_NO_DEVICE, NULL);
    expect_bad("0,1,2", 4, 2, ZC_ERR_INVALID_ARG, "more than");
    expect_bad("all", 4, 2, ZC_ERR_INVALID_ARG, NULL);
}

static void test_null_arguments(void **state)
{
    (void)state;
    int devices[2];
    size_t n = 0;
    assert_int_equal(zc_device_list_parse(NULL, 2, devices, 2, &n), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_list_parse("0", 2, NULL, 2, &n), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_list_parse("0", 2, devices, 2, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_list_parse("0", -1, devices, 2, &n), ZC_ERR_INVALID_ARG);
}

static void test_device_ptr_for_arguments(void **state)
{
    (void)state;
    void *p = (void *)&p;
    assert_int_equal(zc_buffer_device_ptr_for(NULL, 0, &p), ZC_ERR_INVALID_ARG);
    assert_ptr_equal(p, (void *)&p); /* untouched on failure */
    zc_buffer *buf = NULL;
    assert_int_equal(zc_buffer_alloc(4096, ZC_BUFFER_PAGEABLE, 0, -1, &buf), ZC_OK);
    assert_int_equal(zc_buffer_device_ptr_for(buf, 0, NULL), ZC_ERR_INVALID_ARG);
    /* Without a GPU there is no device to ask for; with one, -1 is not a GPU number. */
    zc_status st = zc_buffer_device_ptr_for(buf, -1, &p);
    assert_true(st == ZC_ERR_INVALID_ARG || st == ZC_ERR_NO_DEVICE);
    assert_ptr_equal(p, (void *)&p);
    assert_int_equal(zc_buffer_free(buf), ZC_OK);
    assert_int_equal(zc_buffer_device_ptr_for(buf, 0, &p), ZC_ERR_DOUBLE_FREE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_and_lists),
        cmocka_unit_test(test_bad_lists),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_device_ptr_for_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
