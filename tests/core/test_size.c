/* SPDX-License-Identifier: Apache-2.0 */
/* The one size grammar (zerocopy/size.h): what it reads, what it refuses, how it prints. */
#include "test_support.h"

#include <string.h>

#include "zerocopy/size.h"

#define BIG UINT64_MAX

static uint64_t ok(const char *text)
{
    uint64_t v = 0;
    zc_status st = zc_size_parse(text, BIG, &v);
    if (st != ZC_OK)
        fail_msg("'%s' refused: %s", text, zc_last_error());
    return v;
}

static void refused(const char *text, uint64_t max)
{
    uint64_t v = 12345;
    if (zc_size_parse(text, max, &v) != ZC_ERR_PARSE)
        fail_msg("'%s' was taken as %llu", text, (unsigned long long)v);
    assert_int_equal(v, 12345); /* left as it was */
    assert_non_null(strstr(zc_last_error(), "'"));
}

static void test_reads(void **state)
{
    (void)state;
    assert_int_equal(ok("4096"), 4096);
    assert_int_equal(ok("4096B"), 4096);
    assert_int_equal(ok("4K"), 4096);
    assert_int_equal(ok("4k"), 4096);
    assert_int_equal(ok("4KiB"), 4096);
    assert_int_equal(ok("4KB"), 4096);
    assert_int_equal(ok("4 KiB"), 4096);
    assert_int_equal(ok("1.5M"), 1572864);
    assert_int_equal(ok("1.5MiB"), 1572864);
    assert_int_equal(ok("2G"), 2147483648ull);
    assert_int_equal(ok("1T"), 1099511627776ull);
    assert_int_equal(ok("0.5K"), 512);
    assert_int_equal(ok(".5K"), 512);
}

static void test_refuses(void **state)
{
    (void)state;
    const char *bad[] = {"",   "K",  "-4K",  "+4K",  "0x10",  "1e3",          "inf", "nan",
                         "4 ", " 4", "4  K", "4Q",   "4KiBs", "4iB",          "1.5", "1.3K",
                         "0",  "0K", "4.K ", "..5K", "4,5K",  "1.0000000001G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(bad[i], BIG);
    refused("16E", BIG);                  /* 2^64: one past the most 64 bits hold */
    refused("20000000000G", BIG);         /* overflows 64 bits */
    refused("99999999999999999999", BIG); /* so do the digits alone */
    refused("65K", 64 * 1024);            /* above the caller's limit, which the detail says */
    assert_non_null(strstr(zc_last_error(), "64 KiB"));
    uint64_t v = 0;
    assert_int_equal(zc_size_parse("64K", 64 * 1024, &v), ZC_OK);
    assert_int_equal(v, 65536);
    assert_int_equal(zc_size_parse(NULL, BIG, &v), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_size_parse("4K", BIG, NULL), ZC_ERR_INVALID_ARG);
}

static void test_prints(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(zc_size_format(0, b, sizeof b), "0 B");
    assert_string_equal(zc_size_format(512, b, sizeof b), "512 B");
    assert_string_equal(zc_size_format(4096, b, sizeof b), "4 KiB");
    assert_string_equal(zc_size_format(1572864, b, sizeof b), "1.5 MiB");
    assert_string_equal(zc_size_format(64ull << 30, b, sizeof b), "64 GiB");
    assert_string_equal(zc_size_format(1000 * 1024, b, sizeof b), "1000 KiB");
    assert_string_equal(zc_size_format(12900000000ull, b, sizeof b), "12 GiB");
    /* What it prints reads back (exactly, for whole units). */
    uint64_t v = 0;
    assert_int_equal(zc_size_parse(zc_size_format(3ull << 20, b, sizeof b), BIG, &v), ZC_OK);
    assert_int_equal(v, 3ull << 20);
    char tiny[4];
    zc_size_format(4096, tiny, sizeof tiny); /* cut short, still terminated */
    assert_int_equal(strlen(tiny), 3);
}

/* What zc_size_format prints reads back as the same figure within its rounding (three
 * significant digits: 0.5 % at most), for every power of two and its neighbours up to
 * UINT64_MAX: 1 PiB and 8 EiB among them, and the values that would round to 16 EiB. */
static void test_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < 64; k++) {
        const uint64_t p = (uint64_t)1 << k;
        const uint64_t near[] = {p - 1, p, p + 1, p + p / 2};
        for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
            const uint64_t x = near[i];
            if (x == 0 || (i == 3 && k == 63))
                continue;
            char b[32];
            uint64_t back = 0;
            zc_size_format(x, b, sizeof b);
            if (zc_size_parse(b, BIG, &back) != ZC_OK)
                fail_msg("%llu printed as '%s', which does not read back: %s",
                         (unsigned long long)x, b, zc_last_error());
            const double off = ((double)back - (double)x) / (double)x;
            if (off > 0.005 || off < -0.005)
                fail_msg("%llu printed as '%s', read back as %llu", (unsigned long long)x, b,
                         (unsigned long long)back);
        }
    }
    char b[32];
    uint64_t v = 0;
    assert_string_equal(zc_size_format(1ull << 50, b, sizeof b), "1 PiB");
    assert_int_equal(zc_size_parse(b, BIG, &v), ZC_OK);
    assert_int_equal(v, 1ull << 50);
    assert_string_equal(zc_size_format(1ull << 63, b, sizeof b), "8 EiB");
    assert_int_equal(zc_size_parse(b, BIG, &v), ZC_OK);
    assert_int_equal(v, 1ull << 63);
    assert_string_equal(zc_size_format(UINT64_MAX, b, sizeof b), "16383 PiB");
    assert_int_equal(ok("2P"), 2ull << 50);
    assert_int_equal(ok("15.5 EiB"), 31ull << 59);
    assert_int_equal(ok("1 EB"), 1ull << 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads),
        cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_prints),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
