/* The report's growing strings, and text escaped for each language it is put into: HTML,
 * gnuplot's single-quoted strings and graphviz's double-quoted ones. */
#include "report/report_page.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
    for (const char *c = text; c != NULL && *c; c++) {
        switch (*c) {
        case '&':
            zc__buf_put(b, "&amp;", 5);
            break;
        case '<':
            zc__buf_put(b, "&lt;", 4);
            break;
        case '>':
            zc__buf_put(b, "&gt;", 4);
            break;
        case '"':
            zc__buf_put(b, "&quot;", 6);
            break;
        default:
            zc__buf_put(b, c, 1);
            break;
        }
    }
}

/* Length of the well-formed UTF-8 sequence at s, 0 when the bytes there are not one. The
 * pictures are SVG, an XML document: one stray byte and the browser shows no image at all. */
static size_t zc__utf8_length(const unsigned char *s)
{
    size_t n;
    unsigned min;
    unsigned cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0)
        n = 2, min = 0x80, cp = s[0] & 0x1f;
    else if ((s[0] & 0xf0) == 0xe0)
        n = 3, min = 0x800, cp = s[0] & 0x0f;
    else if ((s[0] & 0xf8) == 0xf0)
        n = 4, min = 0x10000, cp = s[0] & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/*
 * Put text with every character the target language treats specially replaced: quote is
 * written as quote_as, a backslash as backslash_as (NULL: as it is); control characters become
 * spaces (a line break would end a gnuplot command, and XML forbids most of them) and bytes
 * that are not UTF-8 become '?'.
 */
static void zc__put_escaped(zc__buf *b, const char *text, char quote, const char *quote_as,
                            const char *backslash_as)
{
    const unsigned char *s = (const unsigned char *)(text != NULL ? text : "");
    while (*s) {
        size_t n = zc__utf8_length(s);
        if (n == 0) {
            zc__buf_put(b, "?", 1);
            s++;
        } else if (n > 1) {
            zc__buf_put(b, (const char *)s, n);
            s += n;
        } else {
            if (*s == (unsigned char)quote)
                zc__buf_put(b, quote_as, strlen(quote_as));
            else if (*s == '\\' && backslash_as != NULL)
                zc__buf_put(b, backslash_as, strlen(backslash_as));
            else if (*s < 0x20 || *s == 0x7f)
                zc__buf_put(b, " ", 1);
            else
                zc__buf_put(b, (const char *)s, 1);
            s++;
        }
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
