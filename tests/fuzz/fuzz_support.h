/* SPDX-License-Identifier: Apache-2.0 */
/* What the fuzz targets share: the input as a NUL-terminated string, and as a file. */
#ifndef ZC_FUZZ_SUPPORT_H
#define ZC_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input with a NUL after it (free it). */
static inline char *zc_fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text != NULL) {
        memcpy(text, data, size);
        text[size] = '\0';
    }
    return text;
}

/* The input as an anonymous file; *path_p gets a name that opens it (/proc/self/fd/N). Gives the
 * descriptor to close, or -1. */
static inline int zc_fuzz_file(const uint8_t *data, size_t size, char *path, size_t path_size)
{
    int fd = memfd_create("zc-fuzz", 0);
    if (fd < 0)
        return -1;
    if (size > 0 && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    snprintf(path, path_size, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
