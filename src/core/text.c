/* SPDX-License-Identifier: Apache-2.0 */
/* Text made valid UTF-8, and printable: one reader of UTF-8 for every writer of text. */
#include "core/text.h"

#include <string.h>

#include "core/error.h"

size_t zc__utf8_next(const unsigned char *s, size_t len, uint32_t *cp_p)
{
    const unsigned char b = s[0];
    if (b < 0x80) {
        *cp_p = b;
        return 1;
    }
    /* The well-formed sequences of Unicode's table 3-7: the second byte's range depends on the
     * first (no overlong forms, no surrogates, nothing past U+10FFFF), the others are 80..BF. */
    size_t need;
    uint32_t cp;
    unsigned char lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
        need = 1;
        cp = b & 0x1fu;
    } else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        cp = b & 0x0fu;
        lo = b == 0xe0 ? 0xa0 : 0x80;
        hi = b == 0xed ? 0x9f : 0xbf;
    } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        cp = b & 0x07u;
        lo = b == 0xf0 ? 0x90 : 0x80;
        hi = b == 0xf4 ? 0x8f : 0xbf;
    } else {
        *cp_p = ZC__UTF8_BAD; /* 80..C1 and F5..FF never start a character */
        return 1;
    }
    for (size_t i = 1; i <= need; i++) {
        if (i >= len || s[i] < lo || s[i] > hi) {
            /* The bytes so far began a character and are replaced together: the maximal
             * subpart. The byte that broke it starts afresh. */
            *cp_p = ZC__UTF8_BAD;
            return i;
        }
        cp = (cp << 6) | (s[i] & 0x3fu);
        lo = 0x80;
        hi = 0xbf;
    }
    *cp_p = cp;
    return need + 1;
}

ZC_EXTERN int zc_utf8_valid(const char *text, size_t len)
{
    if (text == NULL)
        return 0;
    const unsigned char *s = (const unsigned char *)text;
    for (size_t at = 0; at < len;) {
        uint32_t cp;
        at += zc__utf8_next(s + at, len - at, &cp);
        if (cp == ZC__UTF8_BAD)
            return 0;
    }
    return 1;
}

/* Does mode replace the character cp? */
static int zc__replaced(uint32_t cp, zc_text_mode mode)
{
    if (cp == ZC__UTF8_BAD)
        return 1;
    if (mode == ZC_TEXT_UTF8 || !zc__is_control(cp))
        return 0;
    return mode == ZC_TEXT_ONE_LINE || (cp != '\t' && cp != '\n');
}

ZC_EXTERN zc_status zc_text_clean(const char *text, size_t len, zc_text_mode mode, char *out,
                                  size_t size, size_t *len_p)
{
    if (text == NULL && len > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_text_clean: text is NULL");
    if (out == NULL && size > 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_text_clean: out is NULL");
    if (mode != ZC_TEXT_UTF8 && mode != ZC_TEXT_TERMINAL && mode != ZC_TEXT_ONE_LINE)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_text_clean: unknown mode %d", (int)mode);
    const unsigned char *s = (const unsigned char *)text;
    size_t total = 0, written = 0;
    int full = size == 0; /* once a character does not fit, none after it is written */
    for (size_t at = 0; at < len;) {
        uint32_t cp;
        size_t n = zc__utf8_next(s + at, len - at, &cp);
        const char *piece = zc__replaced(cp, mode) ? ZC__UTF8_REPLACEMENT : (const char *)s + at;
        size_t piece_len = piece == (const char *)s + at ? n : 3;
        if (!full && written + piece_len < size) {
            memcpy(out + written, piece, piece_len);
            written += piece_len;
        } else {
            full = 1;
        }
        total += piece_len;
        at += n;
    }
    if (size > 0)
        out[written] = '\0';
    if (len_p != NULL)
        *len_p = total;
    return ZC_OK;
}

ZC_EXTERN const char *zc_text_printable(const char *text, zc_text_mode mode, char *out, size_t size)
{
    if (out == NULL || size == 0)
        return NULL;
    out[0] = '\0';
    /* An unknown mode gives "" (and leaves the thread's last error as it was). */
    if (text != NULL &&
        (mode == ZC_TEXT_UTF8 || mode == ZC_TEXT_TERMINAL || mode == ZC_TEXT_ONE_LINE))
        (void)zc_text_clean(text, strlen(text), mode, out, size, NULL);
    return out;
}
