/* SPDX-License-Identifier: Apache-2.0 */
/* Times as zc trace's findings and summary write them (byte counts: zc_size_format). */
#include <stdio.h>

#include "zerocopy/trace.h"
#include "core/c_locale.h"

const char *zc_trace_format_time(double seconds, char *out, size_t size)
{
    if (out == NULL || size == 0)
        return out;
    if (seconds >= 1.0)
        zc__snprintf_c(out, size, "%.2f s", seconds);
    else if (seconds >= 1e-3)
        zc__snprintf_c(out, size, "%.1f ms", seconds * 1e3);
    else
        zc__snprintf_c(out, size, "%.1f us", seconds * 1e6);
    return out;
}
