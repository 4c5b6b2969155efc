/* SPDX-License-Identifier: Apache-2.0 */
/* Reading an input whole: a JSON document, a log, a taps file, a tool's output. */
#ifndef ZEROCOPY_FILE_H
#define ZEROCOPY_FILE_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

ZC_BEGIN_DECLS

/*
 * The whole input at path ("-": standard input, left open), NUL-terminated, into *text_p
 * (malloc'd; free() it), its length in *len_p (may be NULL). At most max bytes. On failure
 * *text_p is NULL and the detail names the input: ZC_ERR_INVALID_ARG when it cannot be opened
 * ("cannot read P: <why>"), is a directory ("cannot read P: it is a directory") or is over max
 * bytes ("P is over N bytes"); ZC_ERR_IO for a read error; ZC_ERR_NO_MEMORY.
 */
ZC_EXTERN zc_status zc_file_read(const char *path, size_t max, char **text_p, size_t *len_p);

/*
 * The same from an open descriptor, read to its end (left open; blocking reads), name being what
 * the details call it: for an input the caller had to open its own way (a FIFO waited on for a
 * writer within a bound). The same failures, but for the opening.
 */
ZC_EXTERN zc_status zc_file_read_fd(int fd, const char *name, size_t max, char **text_p,
                                    size_t *len_p);

ZC_END_DECLS

#endif
