/* SPDX-License-Identifier: Apache-2.0 */
/* Inputs read whole, up to a stated size, every failure named. */
#include "zerocopy/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

/* Read fd to its end into a growing buffer; name is what the messages call it. */
static zc_status zc__read_fd(int fd, const char *name, size_t max, char **text_p, size_t *len_p)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL)
            return ZC_FAIL(ZC_ERR_NO_MEMORY, "cannot read %s: out of memory", name);
        if (len == cap - 1) {
            if (cap - 1 > max) {
                free(buf);
                return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s is over %zu bytes", name, max);
            }
            char *grown = realloc(buf, cap * 2);
            if (grown == NULL)
                free(buf);
            buf = grown;
            cap *= 2;
            continue;
        }
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            free(buf);
            return ZC_FAIL(ZC_ERR_IO, "cannot read %s: %s", name, strerror(saved));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (len > max) {
        free(buf);
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s is over %zu bytes", name, max);
    }
    buf[len] = '\0';
    *text_p = buf;
    if (len_p != NULL)
        *len_p = len;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_file_read_fd(int fd, const char *name, size_t max, char **text_p,
                                    size_t *len_p)
{
    ZC_REQUIRE_ARG(name);
    ZC_REQUIRE_ARG(text_p);
    *text_p = NULL;
    if (fd < 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "cannot read %s: no descriptor (%d)", name, fd);
    return zc__read_fd(fd, name, max, text_p, len_p);
}

ZC_EXTERN zc_status zc_file_read(const char *path, size_t max, char **text_p, size_t *len_p)
{
    ZC_REQUIRE_ARG(path);
    ZC_REQUIRE_ARG(text_p);
    *text_p = NULL;
    const int from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "stdin" : path;
    int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "cannot read %s: %s", name, strerror(errno));
    struct stat info;
    zc_status status;
    if (fstat(fd, &info) == 0 && S_ISDIR(info.st_mode))
        status = ZC_FAIL(ZC_ERR_INVALID_ARG, "cannot read %s: it is a directory", name);
    else
        status = zc__read_fd(fd, name, max, text_p, len_p);
    if (!from_stdin)
        close(fd);
    return status;
}
