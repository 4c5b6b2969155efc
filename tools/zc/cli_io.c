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
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* The rest of fd (blocking) whole, NUL-terminated, at most max bytes; NULL with the reason said
 * and *code_p set as zc_file_read's failures are. */
static char *zc__read_rest(const char *command, int fd, const char *name, size_t max, size_t *len_p,
                           int *code_p)
{
    size_t len = 0, size = 4096;
    char *text = malloc(size);
    for (;;) {
        if (text == NULL) {
            fprintf(stderr, "zc %s: out of memory reading %s\n", command, name);
            *code_p = ZC_EXIT_FAILURE;
            return NULL;
        }
        if (len + 1 == size) {
            char *more = size - 1 > max ? NULL : realloc(text, size * 2);
            if (size - 1 > max) {
                fprintf(stderr, "zc %s: %s is over %zu bytes\n", command, name, max);
                *code_p = ZC_EXIT_USAGE;
                free(text);
                return NULL;
            }
            if (more == NULL)
                free(text);
            text = more;
            size *= 2;
            continue;
        }
        const ssize_t n = read(fd, text + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, "zc %s: cannot read %s: %s\n", command, name, strerror(errno));
            *code_p = ZC_EXIT_FAILURE;
            free(text);
            return NULL;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (len > max) {
        fprintf(stderr, "zc %s: %s is over %zu bytes\n", command, name, max);
        *code_p = ZC_EXIT_USAGE;
        free(text);
        return NULL;
    }
    text[len] = '\0';
    if (len_p != NULL)
        *len_p = len;
    *code_p = ZC_EXIT_OK;
    return text;
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
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = poll(&p, 1, 0);
    if (ready == 0) {
        fprintf(stderr, "zc %s: waiting up to %d s for a writer on the FIFO %s\n", command,
                ZC_CLI_INPUT_FIFO_WAIT_MS / 1000, path);
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        int left = ZC_CLI_INPUT_FIFO_WAIT_MS;
        while ((ready = poll(&p, 1, left)) < 0 && errno == EINTR) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            const long spent =
                (long)(now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
            left = spent >= ZC_CLI_INPUT_FIFO_WAIT_MS ? 0 : ZC_CLI_INPUT_FIFO_WAIT_MS - (int)spent;
        }
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
        text = zc__read_rest(command, fd, path, max, len_p, code_p);
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
