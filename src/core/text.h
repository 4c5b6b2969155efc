/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: UTF-8 read one character at a time, for the writers of every text format (the
 * report's HTML, gnuplot and graphviz strings) that replace what is not UTF-8 or not printable. */
#ifndef ZC_CORE_TEXT_H
#define ZC_CORE_TEXT_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What zc__utf8_next gives for bytes that are not a character. */
#define ZC__UTF8_BAD 0xffffffffu

/* U+FFFD, the replacement character, in UTF-8. */
#define ZC__UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * The character at s (len > 0 bytes): how many bytes it takes, its code point into *cp_p; or,
 * for bytes that are not one, the length of the maximal ill-formed subpart there (1 to 3 bytes,
 * to be replaced by one U+FFFD) and ZC__UTF8_BAD.
 */
size_t zc__utf8_next(const unsigned char *s, size_t len, uint32_t *cp_p);

/* 1 for a control character: C0 (U+0000..U+001F), DEL and C1 (U+0080..U+009F). */
static inline int zc__is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

#ifdef __cplusplus
}
#endif

#endif
