/* SPDX-License-Identifier: Apache-2.0 */
/* The one grammar for byte counts, and the one way they are printed. */
#include "zerocopy/size.h"

#include <stdio.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"

#define ZC__SIZE_GRAMMAR                                                                           \
    "a byte count: a decimal number, an optional space, an optional unit B, K, M, G, T, P or E "   \
    "(KiB and KB alike mean 1024)"

/* The unit at s (its shift in bits), or -1; *len_p gets how many characters it takes. */
static int zc__unit(const char *s, size_t *len_p)
{
    static const char letters[] = "kmgtpe";
    *len_p = 0;
    if (*s == '\0')
        return 0;
    if (s[0] == 'B' || s[0] == 'b') {
        *len_p = 1;
        return 0;
    }
    char c = (char)(s[0] | 0x20);
    const char *at = strchr(letters, c);
    if (at == NULL)
        return -1;
    int shift = 10 * (int)(at - letters + 1);
    if ((s[1] == 'i' || s[1] == 'I') && (s[2] == 'B' || s[2] == 'b'))
        *len_p = 3;
    else if (s[1] == 'B' || s[1] == 'b')
        *len_p = 2;
    else
        *len_p = 1;
    return shift;
}

ZC_EXTERN zc_status zc_size_parse(const char *text, uint64_t max, uint64_t *bytes_p)
{
    ZC_REQUIRE_ARG(text);
    ZC_REQUIRE_ARG(bytes_p);
    const char *p = text;
    uint64_t whole = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return ZC_FAIL(ZC_ERR_PARSE, "'%.40s' is too large for %s", text, ZC__SIZE_GRAMMAR);
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    /* The fraction, as an exact decimal: numerator over 10^fdigits (at most 9 digits). */
    uint64_t frac = 0, fscale = 1;
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++, digits++) {
            if (fscale >= 1000000000ull)
                return ZC_FAIL(ZC_ERR_PARSE, "'%.40s': more than 9 digits after the point", text);
            frac = frac * 10 + (uint64_t)(*p - '0');
            fscale *= 10;
        }
    }
    if (digits == 0)
        return ZC_FAIL(ZC_ERR_PARSE, "'%.40s' is not %s", text, ZC__SIZE_GRAMMAR);
    if (*p == ' ')
        p++;
    size_t ulen = 0;
    int shift = zc__unit(p, &ulen);
    if (shift < 0 || p[ulen] != '\0' || (ulen == 0 && p > text && p[-1] == ' '))
        return ZC_FAIL(ZC_ERR_PARSE, "'%.40s' is not %s", text, ZC__SIZE_GRAMMAR);
    const uint64_t unit = (uint64_t)1 << shift;
    if (whole > UINT64_MAX / unit)
        return ZC_FAIL(ZC_ERR_PARSE, "'%.40s' is too large for %s", text, ZC__SIZE_GRAMMAR);
    /* frac / fscale of a unit must be whole bytes: frac * unit divisible by fscale. */
    uint64_t part = 0;
    if (frac != 0) {
        unsigned __int128 num = (unsigned __int128)frac * unit;
        if (num % fscale != 0)
            return ZC_FAIL(ZC_ERR_PARSE, "'%.40s' is not a whole number of bytes", text);
        part = (uint64_t)(num / fscale);
    }
    uint64_t bytes = whole * unit;
    if (bytes > UINT64_MAX - part)
        return ZC_FAIL(ZC_ERR_PARSE, "'%.40s' is too large for %s", text, ZC__SIZE_GRAMMAR);
    bytes += part;
    char limit[32];
    if (bytes == 0 || bytes > max)
        return ZC_FAIL(ZC_ERR_PARSE, "'%.40s' is not a size from 1 B to %s", text,
                       zc_size_format(max, limit, sizeof limit));
    *bytes_p = bytes;
    return ZC_OK;
}

ZC_EXTERN const char *zc_size_format(uint64_t bytes, char *out, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (out == NULL || size == 0)
        return out;
    int u = 0;
    double v = (double)bytes;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    /* From 15.95 EiB up the figure would round to 16 EiB, 2^64, which no uint64_t holds and
     * zc_size_parse refuses: those few are printed in whole PiB, rounded down (2^64 - 1 is
     * "16383 PiB", off by less than 0.01 %), which reads back. */
    if (u == 6 && v >= 15.95) {
        snprintf(out, size, "%llu PiB", (unsigned long long)(bytes >> 50));
        return out;
    }
    /* Three significant digits at most, no trailing zeros: 1.5 MiB, 12.3 GiB, 640 KiB. */
    char num[32];
    zc__snprintf_c(num, sizeof num, "%.*f", u == 0 || v >= 100.0 ? 0 : v >= 10.0 ? 1 : 2, v);
    char *dot = strchr(num, '.');
    if (dot != NULL) {
        char *end = num + strlen(num) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *end = '\0';
    }
    snprintf(out, size, "%s %s", num, units[u]);
    return out;
}
