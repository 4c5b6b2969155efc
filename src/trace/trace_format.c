/* Byte counts and times as zc trace's findings and summary write them. */
#include <stdio.h>

#include "zerocopy/trace.h"

const char *zc_trace_format_bytes(uint64_t bytes, char *out, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (out == NULL || size == 0)
        return out;
    double value = (double)bytes;
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        unit++;
    }
    if (unit == 0)
        snprintf(out, size, "%llu B", (unsigned long long)bytes);
    else
        snprintf(out, size, "%.1f %s", value, units[unit]);
    return out;
}

const char *zc_trace_format_time(double seconds, char *out, size_t size)
{
    if (out == NULL || size == 0)
        return out;
    if (seconds >= 1.0)
        snprintf(out, size, "%.2f s", seconds);
    else if (seconds >= 1e-3)
        snprintf(out, size, "%.1f ms", seconds * 1e3);
    else
        snprintf(out, size, "%.1f us", seconds * 1e6);
    return out;
}
