/* SPDX-License-Identifier: Apache-2.0 */
/* Text from outside the library (program, kernel, file and device names, trace logs) made fit for
 * where it goes: valid UTF-8 for JSON and HTML, printable for a terminal. */
#ifndef ZEROCOPY_TEXT_H
#define ZEROCOPY_TEXT_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* What zc_text_clean replaces by U+FFFD, besides every byte sequence that is not UTF-8. */
typedef enum zc_text_mode {
    ZC_TEXT_UTF8 = 0,     /* nothing else: every character is kept */
    ZC_TEXT_TERMINAL = 1, /* every control character but tab and line feed: the rest of C0
                             (ESC, CR, BS, NUL...), DEL and C1 (U+0080..U+009F, CSI among them) */
    ZC_TEXT_ONE_LINE = 2  /* the same, tab and line feed too: the text stays on its line */
} zc_text_mode;

ZC_BEGIN_DECLS

/* 1 when text[0, len) is well-formed UTF-8 (Unicode, table 3-7: no overlong form, no surrogate,
 * nothing past U+10FFFF, no sequence cut short); 0 otherwise, and for NULL text. */
ZC_EXTERN int zc_utf8_valid(const char *text, size_t len);

/*
 * text[0, len) into out (size bytes with the terminating NUL) with each maximal ill-formed
 * subsequence (Unicode's recommended practice, what Python's decode(errors="replace") does) and
 * each character mode names replaced by U+FFFD (EF BF BD). A text that does not fit is cut
 * before a whole character; *len_p (may be NULL) gets the length of the whole result without
 * its NUL, so out held it all when *len_p < size, and 3 * len + 1 bytes always do. size 0 (out
 * may then be NULL) only measures. A NUL byte in text is kept in ZC_TEXT_UTF8, replaced in the
 * others. ZC_ERR_INVALID_ARG for NULL text (with len > 0), NULL out (with size > 0) or an
 * unknown mode.
 */
ZC_EXTERN zc_status zc_text_clean(const char *text, size_t len, zc_text_mode mode, char *out,
                                  size_t size, size_t *len_p);

/*
 * The NUL-terminated text made printable on a terminal (mode ZC_TEXT_TERMINAL or
 * ZC_TEXT_ONE_LINE; ZC_TEXT_UTF8 for valid UTF-8 alone) into out, which it gives back, to go
 * straight into printf: printf("%s\n", zc_text_printable(name, ZC_TEXT_ONE_LINE, buf,
 * sizeof buf)). An escape sequence from a log never reaches the terminal. Cut before a whole
 * character when out is too small (3 bytes per byte of text and one always do); "" for NULL
 * text or an unknown mode; NULL only for NULL out or size 0.
 */
ZC_EXTERN const char *zc_text_printable(const char *text, zc_text_mode mode, char *out,
                                        size_t size);

ZC_END_DECLS

#endif
