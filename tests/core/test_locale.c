/* SPDX-License-Identifier: Apache-2.0 */
/* Numbers the library writes and reads do not depend on the program's locale: in a program that
 * chose German, French or Turkish numbers (setlocale(LC_ALL, "de_DE.UTF-8")), sizes still print
 * as "1.5 KiB" and read back, details of failures keep their decimal point, and the program's own
 * locale is left as it was. The locale is the program's argument (ctest runs one per locale). */
#include "test_support.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "core/c_locale.h"
#include "locale_test.h"
#include "zerocopy/advise.h"
#include "zerocopy/json.h"
#include "zerocopy/size.h"

static const char *g_locale;

/* zc_size_format of bytes with the C locale in force: what every locale must print. */
static void format_in_c(uint64_t bytes, char *out, size_t size)
{
    char *was = strdup(setlocale(LC_NUMERIC, NULL));
    assert_non_null(was);
    assert_non_null(setlocale(LC_NUMERIC, "C"));
    zc_size_format(bytes, out, size);
    assert_non_null(setlocale(LC_NUMERIC, was));
    free(was);
}

static void test_sizes_print_and_read_back(void **state)
{
    (void)state;
    char text[32];
    assert_string_equal(zc_size_format(1536, text, sizeof text), "1.5 KiB");
    const uint64_t sizes[] = {1,
                              1023,
                              1536,
                              1572864,
                              12884901888ull,
                              5000000,
                              123456789ull,
                              1ull << 40,
                              3ull << 39,
                              999999999999ull,
                              65537,
                              1ull << 49,
                              (1ull << 50) - 1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char want[32];
        format_in_c(sizes[i], want, sizeof want);
        zc_size_format(sizes[i], text, sizeof text);
        if (strcmp(text, want) != 0)
            fail_msg("%s: %llu prints as '%s', in the C locale '%s'", g_locale,
                     (unsigned long long)sizes[i], text, want);
        /* What it prints reads back, within the rounding to three digits. */
        uint64_t back = 0;
        zc_status st = zc_size_parse(text, UINT64_MAX, &back);
        if (st != ZC_OK && strstr(zc_last_error(), "whole number of bytes") == NULL)
            fail_msg("%s: '%s' does not read back: %s", g_locale, text, zc_last_error());
        if (st == ZC_OK && fabs((double)back - (double)sizes[i]) > 0.005 * (double)sizes[i])
            fail_msg("'%s' reads back as %llu, not about %llu", text, (unsigned long long)back,
                     (unsigned long long)sizes[i]);
    }
    uint64_t back = 0;
    assert_int_equal(zc_size_parse("1.5 KiB", UINT64_MAX, &back), ZC_OK);
    assert_int_equal(back, 1536);
}

static void test_failure_details_keep_the_point(void **state)
{
    (void)state;
    /* A library call whose detail holds a fraction. */
    zc_workload w = {.bytes = 4096, .transfers = 1, .gpu_accesses = 0.5};
    assert_int_equal(zc_workload_check(&w), ZC_ERR_INVALID_ARG);
    if (strstr(zc_last_error(), "got 0.5") == NULL)
        fail_msg("%s: the detail says: %s", g_locale, zc_last_error());
}

static void test_helpers_leave_the_program_locale(void **state)
{
    (void)state;
    char text[64];
    int n = zc__snprintf_c(text, sizeof text, "%.2f %g %e", 1.5, 0.25, 2e-3);
    assert_string_equal(text, "1.50 0.25 2.000000e-03");
    assert_int_equal(n, strlen(text));
    char *end = NULL;
    const char *number = "2.5 GT/s";
    assert_double_equal(zc__strtod_c(number, &end), 2.5, 0.0);
    assert_ptr_equal(end, number + 3);
    /* The program's own formatting is its locale's still. */
    snprintf(text, sizeof text, "%.2f", 1.5);
    assert_string_equal(text, "1,50");
    assert_double_equal(strtod("2,5", NULL), 2.5, 0.0);
}

static void test_json_numbers(void **state)
{
    (void)state;
    /* cJSON prints and reads numbers with '.', whatever the locale (it swaps the locale's
     * decimal point itself): the documents stay JSON. */
    cJSON *arr = cJSON_CreateArray();
    assert_non_null(arr);
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(1.5));
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(0.1));
    char *text = cJSON_PrintUnformatted(arr);
    assert_string_equal(text, "[1.5,0.1]");
    cJSON *back = cJSON_Parse("[2.5, 1e-3]");
    assert_non_null(back);
    assert_double_equal(cJSON_GetArrayItem(back, 0)->valuedouble, 2.5, 0.0);
    assert_double_equal(cJSON_GetArrayItem(back, 1)->valuedouble, 1e-3, 0.0);
    cJSON_Delete(back);
    cJSON_free(text);
    cJSON_Delete(arr);
}

static void test_ascii_case(void **state)
{
    (void)state;
    /* In Turkish, tolower('I') is not 'i': a word matched without regard to case is matched
     * in ASCII. */
    cJSON *doc = cJSON_Parse("{\"results\":[{\"name\":\"PINNED H2D\",\"median_gbps\":55.3}]}");
    assert_non_null(doc);
    double gbps = 0.0;
    assert_int_equal(zc_bench_copy_ceiling_from_json(doc, &gbps), ZC_OK);
    assert_double_equal(gbps, 55.3, 1e-12);
    cJSON_Delete(doc);
}

int main(int argc, char **argv)
{
    g_locale = argc > 1 ? argv[1] : "de_DE.UTF-8";
    locale_test_enter(g_locale); /* or exit 77 */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_print_and_read_back),
        cmocka_unit_test(test_failure_details_keep_the_point),
        cmocka_unit_test(test_helpers_leave_the_program_locale),
        cmocka_unit_test(test_json_numbers),
        cmocka_unit_test(test_ascii_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
