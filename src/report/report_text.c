/* SPDX-License-Identifier: Apache-2.0 */
/* The report's growing strings, and text escaped for each language it is put into: HTML,
 * gnuplot's single-quoted strings and graphviz's double-quoted ones. */
#include "report/report_page.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

void zc__buf_put(zc__buf *b, const char *text, size_t len)
{
    if (b->failed)
        return;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *bigger = realloc(b->data, cap);
        if (bigger == NULL) {
            b->failed = 1;
            return;
        }
        b->data = bigger;
        b->cap = cap;
    }
    memcpy(b->data + b->len, text, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void zc__buf_printf(zc__buf *b, const char *fmt, ...)
{
    char small[1024];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        zc__buf_put(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        b->failed = 1;
        return;
    }
    va_start(args, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, args);
    va_end(args);
    zc__buf_put(b, big, (size_t)n);
    free(big);
}

void zc__buf_free(zc__buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void zc__buf_html(zc__buf *b, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text != NULL ? text : "");
    for (size_t left = strlen((const char *)s); left > 0;) {
        uint32_t cp;
        size_t n = zc__utf8_next(s, left, &cp);
        /* Text from the inputs (names of devices, files, runs) may be any bytes: what is not
         * UTF-8, and control characters but tab and line feed (an escape sequence from a log;
         * HTML forbids them), become U+FFFD. */
        if (cp == ZC__UTF8_BAD || (zc__is_control(cp) && cp != '\t' && cp != '\n'))
            zc__buf_put(b, ZC__UTF8_REPLACEMENT, 3);
        else if (cp == '&')
            zc__buf_put(b, "&amp;", 5);
        else if (cp == '<')
            zc__buf_put(b, "&lt;", 4);
        else if (cp == '>')
            zc__buf_put(b, "&gt;", 4);
        else if (cp == '"')
            zc__buf_put(b, "&quot;", 6);
        else
            zc__buf_put(b, (const char *)s, n);
        s += n;
        left -= n;
    }
}

/*
 * Put text with every character the target language treats specially replaced: quote is
 * written as quote_as, a backslash as backslash_as (NULL: as it is); control characters become
 * spaces (a line break would end a gnuplot command, and XML forbids most of them) and what is
 * not UTF-8 U+FFFD (the pictures are SVG, an XML document: one stray byte and the browser shows
 * no image at all).
 */
static void zc__put_escaped(zc__buf *b, const char *text, char quote, const char *quote_as,
                            const char *backslash_as)
{
    const unsigned char *s = (const unsigned char *)(text != NULL ? text : "");
    for (size_t left = strlen((const char *)s); left > 0;) {
        uint32_t cp;
        size_t n = zc__utf8_next(s, left, &cp);
        if (cp == ZC__UTF8_BAD)
            zc__buf_put(b, ZC__UTF8_REPLACEMENT, 3);
        else if (zc__is_control(cp))
            zc__buf_put(b, " ", 1);
        else if (cp == (unsigned char)quote)
            zc__buf_put(b, quote_as, strlen(quote_as));
        else if (cp == '\\' && backslash_as != NULL)
            zc__buf_put(b, backslash_as, strlen(backslash_as));
        else
            zc__buf_put(b, (const char *)s, n);
        s += n;
        left -= n;
    }
}

void zc__buf_gnuplot_string(zc__buf *b, const char *text)
{
    /* In single quotes gnuplot expands neither backquotes nor macros nor backslashes; the only
     * escape is a doubled quote. */
    zc__buf_put(b, "'", 1);
    zc__put_escaped(b, text, '\'', "''", NULL);
    zc__buf_put(b, "'", 1);
}

void zc__buf_dot(zc__buf *b, const char *text)
{
    /* A backslash is doubled too: "\N" or "\G" would be replaced by graphviz, and one at the
     * end would swallow the closing quote. */
    zc__put_escaped(b, text, '"', "\\\"", "\\\\");
}
