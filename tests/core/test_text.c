/* SPDX-License-Identifier: Apache-2.0 */
/* Text made valid UTF-8 and printable (zerocopy/text.h): what is UTF-8 and what is not
 * (overlong forms, surrogates, sequences cut short, bytes that never start one), each ill-formed
 * part replaced by one U+FFFD as Unicode recommends (and as Python's decoder does: checked
 * against it on random bytes), control characters kept from a terminal, outputs cut only
 * between characters. */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

#include "core/text.h"
#include "zerocopy/text.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

static void test_valid(void **state)
{
    (void)state;
    static const char *const good[] = {"",
                                       "plain ASCII",
                                       "\xc3\xa9" /* e acute */,
                                       "\xe2\x82\xac" /* euro */,
                                       "\xf0\x9f\x98\x80" /* U+1F600 */,
                                       "\xf4\x8f\xbf\xbf" /* U+10FFFF */,
                                       "\xed\x9f\xbf" /* U+D7FF, below the surrogates */,
                                       "\xee\x80\x80" /* U+E000 */,
                                       "\xc2\x80" /* U+0080, smallest of 2 bytes */,
                                       "\xe0\xa0\x80" /* U+0800 */,
                                       "\xf0\x90\x80\x80" /* U+10000 */,
                                       "\x1b[31m" /* controls are UTF-8 */};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        if (!zc_utf8_valid(good[i], strlen(good[i])))
            fail_msg("good[%zu] taken for not UTF-8", i);
    }
    static const char *const bad[] = {"\xc0\x80",         /* overlong NUL */
                                      "\xc1\xbf",         /* overlong DEL */
                                      "\xe0\x80\x80",     /* overlong, 3 bytes */
                                      "\xe0\x9f\xbf",     /* overlong U+07FF */
                                      "\xf0\x8f\xbf\xbf", /* overlong U+FFFF */
                                      "\xf8\x88\x80\x80\x80",
                                      "\xed\xa0\x80",     /* surrogate U+D800 */
                                      "\xed\xbf\xbf",     /* surrogate U+DFFF */
                                      "\xf4\x90\x80\x80", /* U+110000 */
                                      "\xf5\x80\x80\x80",
                                      "\xff",
                                      "\xfe",
                                      "\x80",
                                      "\xbf",
                                      "\xe2\x82", /* cut short */
                                      "\xf0\x9f\x98",
                                      "\xc3",
                                      "a\xc3",
                                      "\xc3\x61" /* C3 then 'a' */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (zc_utf8_valid(bad[i], strlen(bad[i])))
            fail_msg("bad[%zu] taken for UTF-8", i);
    }
    assert_false(zc_utf8_valid(NULL, 0));
    /* A NUL inside the length is U+0000, a character. */
    assert_true(zc_utf8_valid("a\0b", 3));
}

/* text cleaned in mode; fails unless it gives want (whole, and measured right). */
static void cleans(const char *text, size_t len, zc_text_mode mode, const char *want)
{
    char out[256];
    size_t need = 0;
    assert_int_equal(zc_text_clean(text, len, mode, out, sizeof out, &need), ZC_OK);
    if (strcmp(out, want) != 0 || need != strlen(want))
        fail_msg("cleaned (mode %d) into '%s' (%zu bytes), expected '%s'", (int)mode, out, need,
                 want);
    assert_true(zc_utf8_valid(out, strlen(out)));
}

#define CLEANS(text, mode, want) cleans(text, sizeof(text) - 1, mode, want)

static void test_replacement(void **state)
{
    (void)state;
    /* Unicode 15, section 3.9, table 3-8: the standard's own example of maximal subparts. */
    CLEANS("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64", ZC_TEXT_UTF8,
           "a" R R R "b" R "c" R R "d");
    CLEANS("a\xff"
           "b",
           ZC_TEXT_UTF8, "a" R "b");
    CLEANS("\xc0\x80", ZC_TEXT_UTF8, R R);             /* overlong: C0 never starts one */
    CLEANS("\xe0\x80\x80", ZC_TEXT_UTF8, R R R);       /* E0 needs A0..BF next */
    CLEANS("\xed\xa0\x80", ZC_TEXT_UTF8, R R R);       /* surrogate: ED needs 80..9F */
    CLEANS("\xf4\x90\x80\x80", ZC_TEXT_UTF8, R R R R); /* past U+10FFFF */
    CLEANS("x\xe2\x82", ZC_TEXT_UTF8, "x" R);          /* cut short at the end: one */
    CLEANS("\xe2\x82x", ZC_TEXT_UTF8, R "x");          /* cut short by a letter */
    CLEANS("\xf0\x9f\x98"
           "A\xf0\x9f\x98\x80",
           ZC_TEXT_UTF8, R "A\xf0\x9f\x98\x80");
    CLEANS("\xe2\x82\xe2\x82\xac", ZC_TEXT_UTF8, R "\xe2\x82\xac"); /* the next one is whole */
    /* Valid text comes through unchanged, controls too in ZC_TEXT_UTF8. */
    CLEANS("caf\xc3\xa9 \xe2\x82\xac \x1b[0m\t\n", ZC_TEXT_UTF8,
           "caf\xc3\xa9 \xe2\x82\xac \x1b[0m\t\n");
    /* A NUL is kept: all three bytes are there. */
    char out[8];
    size_t need = 0;
    assert_int_equal(zc_text_clean("a\0b", 3, ZC_TEXT_UTF8, out, sizeof out, &need), ZC_OK);
    assert_int_equal(need, 3);
    assert_memory_equal(out, "a\0b", 4);
}

static void test_terminal(void **state)
{
    (void)state;
    /* An escape sequence loses its ESC; tab and line feed stay, carriage return does not. */
    CLEANS("\x1b[31mred\x1b[0m", ZC_TEXT_TERMINAL, R "[31mred" R "[0m");
    CLEANS("a\tb\nc\rd\be\x7f"
           "f",
           ZC_TEXT_TERMINAL, "a\tb\nc" R "d" R "e" R "f");
    CLEANS("\xc2\x9b"
           "2J",
           ZC_TEXT_TERMINAL, R "2J"); /* C1 CSI, as UTF-8: one character */
    CLEANS("\x9b"
           "2J",
           ZC_TEXT_TERMINAL, R "2J"); /* C1 CSI as a raw byte: not UTF-8 */
    CLEANS("\xc2\xa0"
           "x",
           ZC_TEXT_TERMINAL,
           "\xc2\xa0"
           "x"); /* U+00A0 is no control */
    cleans("a\0b", 3, ZC_TEXT_TERMINAL, "a" R "b");
    CLEANS("a\tb\nc", ZC_TEXT_ONE_LINE, "a" R "b" R "c");
    CLEANS("\x1b]0;title\x07", ZC_TEXT_ONE_LINE, R "]0;title" R);
}

static void test_cut_between_characters(void **state)
{
    (void)state;
    const char text[] = "a\xc3\xa9\xe2\x82\xac\xff"
                        "b"; /* a, e acute, euro, bad, b */
    /* In size bytes: size - 1 of text and the NUL. */
    const char *want[] = {"",
                          "a",
                          "a",
                          "a\xc3\xa9",
                          "a\xc3\xa9",
                          "a\xc3\xa9",
                          "a\xc3\xa9\xe2\x82\xac",
                          "a\xc3\xa9\xe2\x82\xac",
                          "a\xc3\xa9\xe2\x82\xac",
                          "a\xc3\xa9\xe2\x82\xac" R,
                          "a\xc3\xa9\xe2\x82\xac" R "b"};
    for (size_t size = 1; size < sizeof want / sizeof want[0] + 1; size++) {
        char out[32];
        memset(out, 'z', sizeof out);
        size_t need = 0;
        assert_int_equal(zc_text_clean(text, sizeof text - 1, ZC_TEXT_UTF8, out, size, &need),
                         ZC_OK);
        assert_int_equal(need, 1 + 2 + 3 + 3 + 1);
        if (strcmp(out, want[size - 1]) != 0)
            fail_msg("in %zu bytes: '%s', expected '%s'", size, out, want[size - 1]);
        /* A character left out leaves out every one after it, even one that would fit. */
        assert_true(strlen(out) < size);
    }
    /* Measuring only. */
    size_t need = 0;
    assert_int_equal(zc_text_clean("\xff\xff", 2, ZC_TEXT_UTF8, NULL, 0, &need), ZC_OK);
    assert_int_equal(need, 6);
    /* Text of len bytes never needs more than 3 * len. */
    char small[4];
    assert_string_equal(zc_text_printable("\x01", ZC_TEXT_ONE_LINE, small, sizeof small), R);
}

static void test_arguments(void **state)
{
    (void)state;
    char out[8];
    assert_int_equal(zc_text_clean(NULL, 1, ZC_TEXT_UTF8, out, sizeof out, NULL),
                     ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_text_clean("a", 1, ZC_TEXT_UTF8, NULL, 4, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_text_clean("a", 1, (zc_text_mode)7, out, sizeof out, NULL),
                     ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "zc_text_clean"));
    assert_int_equal(zc_text_clean(NULL, 0, ZC_TEXT_UTF8, out, sizeof out, NULL), ZC_OK);
    assert_string_equal(out, "");
    assert_string_equal(zc_text_printable(NULL, ZC_TEXT_TERMINAL, out, sizeof out), "");
    assert_string_equal(zc_text_printable("ab", (zc_text_mode)7, out, sizeof out), "");
    assert_null(zc_text_printable("ab", ZC_TEXT_TERMINAL, NULL, 8));
    assert_null(zc_text_printable("ab", ZC_TEXT_TERMINAL, out, 0));
}

/* Random bytes, mostly of the ranges UTF-8 is made of, so that many sequences nearly work. */
static size_t random_text(uint64_t *seed, unsigned char *out, size_t cap)
{
    static const unsigned char pool[] = {0x00, 0x09, 0x0a, 0x1b, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f,
                                         0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed,
                                         0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff};
    *seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17;
    size_t n = 1 + (size_t)(*seed % (cap - 1));
    for (size_t i = 0; i < n; i++) {
        *seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17;
        out[i] = (*seed >> 40) % 3 == 0 ? (unsigned char)(*seed >> 8)
                                        : pool[(*seed >> 16) % sizeof pool];
    }
    return n;
}

static void test_every_output_is_clean(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 20000; round++) {
        unsigned char text[24];
        size_t len = random_text(&seed, text, sizeof text);
        for (int mode = ZC_TEXT_UTF8; mode <= ZC_TEXT_ONE_LINE; mode++) {
            char out[3 * sizeof text + 1];
            size_t need = 0;
            assert_int_equal(
                zc_text_clean((const char *)text, len, (zc_text_mode)mode, out, sizeof out, &need),
                ZC_OK);
            assert_true(need < sizeof out);
            if (!zc_utf8_valid(out, need))
                fail_msg("round %d, mode %d: the output is not UTF-8", round, mode);
            if (mode == ZC_TEXT_UTF8)
                continue;
            for (size_t i = 0; i < need; i++) {
                unsigned char c = (unsigned char)out[i];
                int allowed = mode == ZC_TEXT_TERMINAL && (c == '\t' || c == '\n');
                if ((c < 0x20 && !allowed) || c == 0x7f ||
                    (c == 0xc2 && i + 1 < need && (unsigned char)out[i + 1] < 0xa0))
                    fail_msg("round %d, mode %d: control byte %#x at %zu", round, mode, c, i);
            }
        }
    }
}

/* The same replacements as Python's decoder (bytes.decode("utf-8", "replace")), an
 * implementation of its own, on random bytes: one file of lines of hex in, one out. */
static void test_as_python_decodes(void **state)
{
    (void)state;
    if (system("python3 -c 'pass' >/dev/null 2>&1") != 0)
        skip();
    char dir[] = "/tmp/zc-text-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char in_path[64], out_path[64], cmd[512];
    snprintf(in_path, sizeof in_path, "%s/in.hex", dir);
    snprintf(out_path, sizeof out_path, "%s/out.hex", dir);
    enum { ROUNDS = 3000 };
    static unsigned char texts[ROUNDS][40];
    static size_t lens[ROUNDS];
    uint64_t seed = 0x1234567887654321ull;
    FILE *f = fopen(in_path, "w");
    assert_non_null(f);
    for (int r = 0; r < ROUNDS; r++) {
        lens[r] = random_text(&seed, texts[r], sizeof texts[r]);
        for (size_t i = 0; i < lens[r]; i++)
            fprintf(f, "%02x", texts[r][i]);
        fprintf(f, "\n");
    }
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import sys\nfor l in open(sys.argv[1]):\n"
             "    print(bytes.fromhex(l.strip()).decode(\"utf-8\", \"replace\")"
             ".encode(\"utf-8\").hex())' %s > %s",
             in_path, out_path);
    assert_int_equal(system(cmd), 0);
    f = fopen(out_path, "r");
    assert_non_null(f);
    char line[512];
    for (int r = 0; r < ROUNDS; r++) {
        assert_non_null(fgets(line, sizeof line, f));
        line[strcspn(line, "\n")] = '\0';
        char out[3 * sizeof texts[r] + 1], hex[sizeof out * 2 + 1];
        size_t need = 0;
        assert_int_equal(
            zc_text_clean((const char *)texts[r], lens[r], ZC_TEXT_UTF8, out, sizeof out, &need),
            ZC_OK);
        for (size_t i = 0; i < need; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)out[i]);
        hex[2 * need] = '\0';
        if (strcmp(hex, line) != 0)
            fail_msg("round %d: zc gives %s, Python %s", r, hex, line);
    }
    fclose(f);
    unlink(in_path);
    unlink(out_path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_replacement),
        cmocka_unit_test(test_terminal),
        cmocka_unit_test(test_cut_between_characters),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_every_output_is_clean),
        cmocka_unit_test(test_as_python_decodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
