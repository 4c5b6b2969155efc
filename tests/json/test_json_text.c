/* SPDX-License-Identifier: Apache-2.0 */
/* Strings from outside (program, kernel, file and device names) that are not UTF-8 make a printed
 * document that no JSON reader takes: zc_json_sanitize, which every document goes through before
 * it is printed, replaces each ill-formed part of every string value and key by U+FFFD; cJSON
 * escapes control characters itself (\u001b). Python's json module is the judge. */
#include "test_support.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <unistd.h>

#include "zerocopy/json.h"
#include "zerocopy/text.h"

/* A key and a string from a trace log's bytes: cut UTF-8, a surrogate, 0xFF, an escape. */
static const char g_bad_key[] = "kernel\xe2\x82";
static const char g_bad_name[] = "./my\xff"
                                 "app \xed\xa0\x80";
static const char g_escape[] = "\x1b[31mred\x1b[0m\x01\x7f";
static const char g_reference[] = "ref\xc0\xaf";
static const char g_const_key[] = "const\xf5";

static cJSON *bad_document(void)
{
    cJSON *doc = cJSON_CreateObject();
    assert_non_null(doc);
    cJSON_AddStringToObject(doc, "schema", "zerocopy.trace/1");
    cJSON_AddStringToObject(doc, "program", g_bad_name);
    cJSON *kernels = cJSON_AddArrayToObject(doc, "kernels");
    cJSON *k = cJSON_CreateObject();
    cJSON_AddItemToArray(kernels, k);
    cJSON_AddNumberToObject(k, g_bad_key, 3);
    cJSON_AddStringToObject(k, "log", g_escape);
    cJSON_AddItemToArray(kernels, cJSON_CreateStringReference(g_reference));
    cJSON_AddItemToObjectCS(doc, g_const_key, cJSON_CreateString("\xe0\x80\x80"));
    cJSON_AddItemToArray(kernels, cJSON_CreateString("caf\xc3\xa9"));
    return doc;
}

/* What Python's json module makes of text: its own printing of what it read (ASCII, keys
 * sorted), or NULL when it cannot read it. NULL too, with *skipped_p set, without python3. */
static char *python_reads(const char *text, int *skipped_p)
{
    *skipped_p = 0;
    if (system("python3 -c 'pass' >/dev/null 2>&1") != 0) {
        *skipped_p = 1;
        return NULL;
    }
    char dir[] = "/tmp/zc-json-text-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char in[64], out[64], cmd[512];
    snprintf(in, sizeof in, "%s/doc.json", dir);
    snprintf(out, sizeof out, "%s/read.json", dir);
    FILE *f = fopen(in, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json, sys\n"
             "d = json.load(open(sys.argv[1], encoding=\"utf-8\", errors=\"strict\"))\n"
             "print(json.dumps(d, sort_keys=True, ensure_ascii=True), end=\"\")' %s > %s "
             "2>/dev/null",
             in, out);
    char *read = NULL;
    if (system(cmd) == 0)
        read = zc_test_read_file(out, NULL);
    unlink(in);
    unlink(out);
    rmdir(dir);
    return read;
}

static void test_python_reads_the_sanitized_document(void **state)
{
    (void)state;
    cJSON *doc = bad_document();
    int skipped = 0;
    /* As it is, the document is not UTF-8: Python refuses it. */
    char *text = cJSON_Print(doc);
    assert_false(zc_utf8_valid(text, strlen(text)));
    char *read = python_reads(text, &skipped);
    if (!skipped && read != NULL)
        fail_msg("Python read the raw document: %s", read);
    cJSON_free(text);
    size_t fixed = 0;
    assert_int_equal(zc_json_sanitize(doc, &fixed), ZC_OK);
    assert_int_equal(fixed, 5); /* program, the key, the reference, the const key, its value */
    text = cJSON_Print(doc);
    assert_true(zc_utf8_valid(text, strlen(text)));
    /* cJSON escapes the control characters: none is in the text raw (DEL is allowed raw). */
    assert_null(strchr(text, '\x1b'));
    assert_null(strchr(text, '\x01'));
    assert_non_null(strstr(text, "\\u001b[31mred"));
    read = python_reads(text, &skipped);
    cJSON_free(text);
    cJSON_Delete(doc);
    if (skipped)
        skip();
    if (read == NULL)
        fail_msg("Python cannot read the sanitized document");
    /* Each ill-formed part one U+FFFD, as Python itself would decode the bytes; the escape
     * and the other control characters come back as they were. */
    const char *want =
        "{\"const\\ufffd\": \"\\ufffd\\ufffd\\ufffd\", \"kernels\": "
        "[{\"kernel\\ufffd\": 3, \"log\": \"\\u001b[31mred\\u001b[0m\\u0001\\u007f\"}, "
        "\"ref\\ufffd\\ufffd\", \"caf\\u00e9\"], \"program\": "
        "\"./my\\ufffdapp \\ufffd\\ufffd\\ufffd\", \"schema\": \"zerocopy.trace/1\"}";
    if (strcmp(read, want) != 0)
        fail_msg("Python read:\n%s\nexpected:\n%s", read, want);
    free(read);
}

static void test_what_is_kept(void **state)
{
    (void)state;
    /* Valid strings are not copied; the reference's own bytes are left alone. */
    cJSON *doc = bad_document();
    cJSON *caf = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "kernels"), 2);
    const char *before = caf->valuestring;
    assert_int_equal(zc_json_sanitize(doc, NULL), ZC_OK);
    assert_ptr_equal(caf->valuestring, before);
    assert_memory_equal(g_reference, "ref\xc0\xaf", sizeof g_reference);
    assert_memory_equal(g_const_key, "const\xf5", sizeof g_const_key);
    /* Sanitizing again finds nothing. */
    size_t fixed = 99;
    assert_int_equal(zc_json_sanitize(doc, &fixed), ZC_OK);
    assert_int_equal(fixed, 0);
    cJSON_Delete(doc);
    /* A raw JSON item (printed as it is) is made valid too; scalars alone are fine. */
    cJSON *raw = cJSON_CreateRaw("\"\xff\"");
    assert_int_equal(zc_json_sanitize(raw, &fixed), ZC_OK);
    assert_int_equal(fixed, 1);
    assert_string_equal(raw->valuestring, "\"\xef\xbf\xbd\"");
    cJSON_Delete(raw);
    cJSON *n = cJSON_CreateNumber(1);
    assert_int_equal(zc_json_sanitize(n, NULL), ZC_OK);
    cJSON_Delete(n);
    assert_int_equal(zc_json_sanitize(NULL, NULL), ZC_ERR_INVALID_ARG);
}

static void test_notes_are_cut_between_characters(void **state)
{
    (void)state;
    /* A profile's notes go into lines of at most 255 bytes: a line of 300 two-byte characters
     * is cut before a whole one, never inside one. */
    char notes[700] = "";
    for (int i = 0; i < 300; i++)
        strcat(notes, "\xc3\xa9");
    strcat(notes, "\nshort line");
    zc_profile p;
    memset(&p, 0, sizeof p);
    cJSON *doc = NULL;
    assert_int_equal(zc_profile_to_saved_json(&p, notes, &doc), ZC_OK);
    const cJSON *lines = cJSON_GetObjectItem(doc, "not_measured");
    assert_int_equal(cJSON_GetArraySize(lines), 2);
    const char *first = cJSON_GetArrayItem(lines, 0)->valuestring;
    assert_true(strlen(first) <= 255);
    assert_true(strlen(first) >= 254);
    if (!zc_utf8_valid(first, strlen(first)))
        fail_msg("the first line was cut inside a character (%zu bytes)", strlen(first));
    assert_string_equal(cJSON_GetArrayItem(lines, 1)->valuestring, "short line");
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_reads_the_sanitized_document),
        cmocka_unit_test(test_what_is_kept),
        cmocka_unit_test(test_notes_are_cut_between_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
