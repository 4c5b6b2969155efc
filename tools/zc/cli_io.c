/* SPDX-License-Identifier: Apache-2.0 */
/* Inputs of every zc command: the "-" convention, size-capped inputs, JSON with the place of its
 * first error (outputs: cli_output.c). */
#include "cli_io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "zerocopy/clock.h"

int zc_cli_wait_readable(int fd, int timeout_ms)
{
    const uint64_t deadline = zc_clock_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        uint64_t now = zc_clock_ns();
        int left_ms = now >= deadline ? 0 : (int)((deadline - now + 999999u) / 1000000u);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, left_ms);
        if (r >= 0 || errno != EINTR)
            return r;
    }
}

/*
 * A FIFO named as an input: a plain open would block until some writer opens it, for ever when
 * none comes. Opened without blocking instead, then waited on for its first bytes (or a writer
 * that came and went) at most ZC_CLI_INPUT_FIFO_WAIT_MS, said while it waits; then read whole.
 */
static char *zc__read_fifo(const char *command, const char *path, size_t max, size_t *len_p,
                           int *code_p)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "zc %s: cannot read %s: %s\n", command, path, strerror(errno));
        *code_p = ZC_EXIT_USAGE;
        return NULL;
    }
    int ready = zc_cli_wait_readable(fd, 0);
    if (ready == 0) {
        fprintf(stderr, "zc %s: waiting up to %d s for a writer on the FIFO %s\n", command,
                ZC_CLI_INPUT_FIFO_WAIT_MS / 1000, path);
        ready = zc_cli_wait_readable(fd, ZC_CLI_INPUT_FIFO_WAIT_MS);
    }
    char *text = NULL;
    if (ready == 0) {
        fprintf(stderr, "zc %s: nothing was written to the FIFO %s within %d s\n", command, path,
                ZC_CLI_INPUT_FIFO_WAIT_MS / 1000);
        *code_p = ZC_EXIT_USAGE;
    } else if (ready < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        fprintf(stderr, "zc %s: cannot read %s: %s\n", command, path, strerror(errno));
        *code_p = ZC_EXIT_FAILURE;
    } else {
        zc_status status = zc_file_read_fd(fd, path, max, &text, len_p);
        *code_p = zc_cli_exit_code(status);
        if (status != ZC_OK)
            fprintf(stderr, "zc %s: %s\n", command, zc_last_error());
    }
    close(fd);
    return text;
}

char *zc_cli_read_input(const char *command, const char *path, size_t max, size_t *len_p,
                        int *code_p)
{
    struct stat info;
    if (strcmp(path, "-") != 0 && stat(path, &info) == 0 && S_ISFIFO(info.st_mode))
        return zc__read_fifo(command, path, max, len_p, code_p);
    char *text = NULL;
    zc_status status = zc_file_read(path, max, &text, len_p);
    *code_p = zc_cli_exit_code(status);
    if (status != ZC_OK) {
        /* A missing, unreadable or oversized input is the command line's fault (exit 2); a
         * read error or no memory is a run-time failure (exit 1). */
        fprintf(stderr, "zc %s: %s\n", command, zc_last_error());
        return NULL;
    }
    return text;
}

/* Line and column of offset in text, for a parse error. */
static void zc__where(const char *text, size_t offset, size_t *line_p, size_t *col_p)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < offset && text[i] != '\0'; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    *line_p = line;
    *col_p = col;
}

cJSON *zc_cli_read_json(const char *command, const char *path, int *code_p)
{
    size_t len = 0;
    char *text = zc_cli_read_input(command, path, ZC_CLI_INPUT_MAX, &len, code_p);
    if (text == NULL)
        return NULL;
    /* The input's name as the messages give it: a path may hold any bytes, escapes among them. */
    char shown[3 * 4096 + 1];
    const char *name = zc_text_printable(strcmp(path, "-") == 0 ? "stdin" : path, ZC_TEXT_ONE_LINE,
                                         shown, sizeof shown);
    /* The most values and the deepest nesting zc reads, checked before cJSON builds anything:
     * it takes some 64 bytes a value, gigabytes for 64 MiB of small numbers. Bad input: exit 2. */
    zc_status limits = zc_json_check_limits(text, len, name, NULL);
    if (limits != ZC_OK) {
        fprintf(stderr, "zc %s: %s\n", command, zc_last_error());
        *code_p = zc_cli_exit_code(limits);
        free(text);
        return NULL;
    }
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    /* One document and nothing after it but white space (a NUL byte is not white space). */
    while (doc != NULL && end < text + len &&
           (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    if (doc != NULL && end != text + len) {
        cJSON_Delete(doc);
        doc = NULL;
    }
    if (doc == NULL) {
        size_t line = 0, col = 0;
        const char *at = end != NULL && end > text ? end : cJSON_GetErrorPtr();
        zc__where(text, at != NULL && at >= text && at <= text + len ? (size_t)(at - text) : 0,
                  &line, &col);
        fprintf(stderr, "zc %s: %s is not JSON (line %zu, column %zu)\n", command, name, line, col);
        *code_p = ZC_EXIT_USAGE;
    }
    free(text);
    return doc;
}
