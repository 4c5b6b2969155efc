/* SPDX-License-Identifier: Apache-2.0 */
/* Figures in units people read: rates, times and sizes with three significant digits and a
 * unit chosen to fit, never "3.83e+03 GB/s". */
#include "report/report_page.h"

#include <math.h>
#include <string.h>

/* The power of ten of v's first digit (v > 0): -2 for 0.05, 3 for 3830. A loop, not log10: zc
 * links libm only through the library, and this needs no more than a few steps. */
static int zc__decade(double v)
{
    int e = 0;
    while (v >= 10.0 && e < 400)
        v /= 10.0, e++;
    while (v < 1.0 && e > -400)
        v *= 10.0, e--;
    return e;
}

void zc__report_number_text(double v, char *out, size_t size)
{
    if (!isfinite(v)) {
        snprintf(out, size, "-");
        return;
    }
    double mag = v < 0.0 ? -v : v;
    int decimals = 0;
    if (mag > 0.0 && mag < 100.0) {
        /* Three significant digits: as many decimals as the first digit's position needs. */
        decimals = 2 - zc__decade(mag);
        if (decimals > 12)
            decimals = 12;
        if (decimals < 0)
            decimals = 0;
    }
    snprintf(out, size, "%.*f", decimals, v);
    /* 5.630 reads as 5.63 and 63.0 as 63: trailing zeros after the point say nothing. */
    if (strchr(out, '.') != NULL) {
        size_t n = strlen(out);
        while (n > 0 && out[n - 1] == '0')
            out[--n] = '\0';
        if (n > 0 && out[n - 1] == '.')
            out[--n] = '\0';
    }
}

/* value / scale with the unit of the first step it reaches, of steps ascending. */
static int zc__scaled(double v, const double *scale, const char *const *unit, size_t steps,
                      char *out, size_t size)
{
    if (!isfinite(v) || !(v > 0.0)) {
        snprintf(out, size, "-");
        return 0;
    }
    size_t i = 0;
    /* 999.6 would print as "1000": round first, then choose the unit. */
    while (i + 1 < steps && v / scale[i + 1] >= 0.9995)
        i++;
    char num[48];
    zc__report_number_text(v / scale[i], num, sizeof num);
    snprintf(out, size, "%s %s", num, unit[i]);
    return 1;
}

int zc__report_rate_text(double gbps, char *out, size_t size)
{
    static const double scale[] = {1e-6, 1e-3, 1.0, 1e3};
    static const char *const unit[] = {"kB/s", "MB/s", "GB/s", "TB/s"};
    return zc__scaled(gbps, scale, unit, 4, out, size);
}

int zc__report_time_text(double us, char *out, size_t size)
{
    static const double scale[] = {1e-3, 1.0, 1e3, 1e6};
    static const char *const unit[] = {"ns", "us", "ms", "s"};
    return zc__scaled(us, scale, unit, 4, out, size);
}

int zc__report_bytes_text(double bytes, char *out, size_t size)
{
    static const double scale[] = {1.0,          1024.0,          1048576.0,
                                   1073741824.0, 1099511627776.0, 1125899906842624.0};
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes == 0.0) {
        snprintf(out, size, "0 B");
        return 1;
    }
    return zc__scaled(bytes, scale, unit, 6, out, size);
}
