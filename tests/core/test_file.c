/* SPDX-License-Identifier: Apache-2.0 */
/* zc_file_read and zc_file_read_fd: an input read whole, its size capped, each failure named. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zerocopy/file.h"

/* A temporary file holding n bytes of text (repeated); its path in path. */
static void make_file(char *path, size_t size, const char *text, size_t n)
{
    snprintf(path, size, "/tmp/zc-test-file-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    for (size_t done = 0; done < n;) {
        size_t chunk = n - done < len ? n - done : len;
        assert_int_equal(write(fd, text, chunk), (ssize_t)chunk);
        done += chunk;
    }
    close(fd);
}

static void test_reads_whole_file(void **state)
{
    (void)state;
    char path[64];
    /* Larger than the first buffer (64 KiB), so that it has to grow. */
    make_file(path, sizeof path, "0123456789", 200000);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(zc_file_read(path, 1 << 20, &text, &len), ZC_OK);
    assert_int_equal(len, 200000);
    assert_int_equal(strlen(text), 200000);
    assert_memory_equal(text + 199990, "0123456789", 10);
    free(text);
    /* An empty file is an empty text, not a failure. */
    unlink(path);
    make_file(path, sizeof path, "x", 0);
    assert_int_equal(zc_file_read(path, 16, &text, NULL), ZC_OK);
    assert_string_equal(text, "");
    free(text);
    unlink(path);
}

/* From a descriptor the caller opened (here a pipe): read to its end under the name given,
 * left open; the cap and a bad descriptor named as from a path. */
static void test_reads_whole_descriptor(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "through a pipe", 14), 14);
    assert_int_equal(close(fds[1]), 0);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(zc_file_read_fd(fds[0], "the pipe", 64, &text, &len), ZC_OK);
    assert_int_equal(len, 14);
    assert_string_equal(text, "through a pipe");
    free(text);
    assert_int_equal(close(fds[0]), 0); /* still open: the caller's to close */
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "0123456789", 10), 10);
    assert_int_equal(close(fds[1]), 0);
    assert_int_equal(zc_file_read_fd(fds[0], "the pipe", 4, &text, NULL), ZC_ERR_INVALID_ARG);
    assert_null(text);
    assert_non_null(strstr(zc_last_error(), "the pipe is over 4 bytes"));
    assert_int_equal(close(fds[0]), 0);
    assert_int_equal(zc_file_read_fd(-1, "nothing", 4, &text, NULL), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "cannot read nothing"));
    assert_int_equal(zc_file_read_fd(0, "stdin", 4, NULL, NULL), ZC_ERR_INVALID_ARG);
}

static void test_failures_are_named(void **state)
{
    (void)state;
    char *text = (char *)"untouched";
    assert_int_equal(zc_file_read("/nonexistent/zc.json", 16, &text, NULL), ZC_ERR_INVALID_ARG);
    assert_null(text);
    assert_non_null(strstr(zc_last_error(), "cannot read /nonexistent/zc.json"));
    assert_int_equal(zc_file_read("/tmp", 16, &text, NULL), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "it is a directory"));
    char path[64];
    make_file(path, sizeof path, "abc", 100);
    assert_int_equal(zc_file_read(path, 99, &text, NULL), ZC_ERR_INVALID_ARG);
    assert_null(text);
    assert_non_null(strstr(zc_last_error(), "is over 99 bytes"));
    assert_int_equal(zc_file_read(path, 100, &text, NULL), ZC_OK);
    free(text);
    unlink(path);
    assert_int_equal(zc_file_read(NULL, 16, &text, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_file_read("/tmp", 16, NULL, NULL), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_whole_file),
        cmocka_unit_test(test_reads_whole_descriptor),
        cmocka_unit_test(test_failures_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
