/* SPDX-License-Identifier: Apache-2.0 */
/* The thread-local detail string behind zc_last_error(). */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/c_locale.h"

/* Long enough for a CUDA call's text, its error name and description, and a path. */
#define ZC__ERROR_DETAIL_MAX 768

static _Thread_local char zc__error_detail[ZC__ERROR_DETAIL_MAX];

/* Above zero while a cleanup runs under ZC_CHECK_IGNORE: its failures leave the detail of the
 * failure being cleaned up after. */
static _Thread_local int zc__error_held;

void zc__error_hold(int hold)
{
    zc__error_held += hold ? 1 : -1;
}

zc_status zc__fail(zc_status status, const char *file, int line, const char *fmt, ...)
{
    if (zc__error_held > 0)
        return status;
    va_list args;
    va_start(args, fmt);
    /* In the C locale: a detail reads the same in every program ("got 0.5", never "0,5"). */
    int used = zc__vsnprintf_c(zc__error_detail, sizeof zc__error_detail, fmt, args);
    va_end(args);
    if (used < 0)
        used = 0;
    if ((size_t)used < sizeof zc__error_detail) {
        /* Only the path from src/ on is kept: full build paths add nothing. */
        const char *shown = strstr(file, "src/");
        snprintf(zc__error_detail + used, sizeof zc__error_detail - (size_t)used, " (%s:%d)",
                 shown ? shown : file, line);
    }
    return status;
}

ZC_EXTERN const char *zc_last_error(void)
{
    return zc__error_detail;
}

ZC_EXTERN void zc_clear_error(void)
{
    zc__error_detail[0] = '\0';
}
