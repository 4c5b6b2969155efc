/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: numbers written and read with the C locale's decimal point, whatever locale the
 * program using the library chose (setlocale(LC_ALL, "de_DE.UTF-8") writes 1.5 as "1,5", which
 * no zc grammar, JSON reader or gnuplot reads back). */
#ifndef ZC_CORE_C_LOCALE_H
#define ZC_CORE_C_LOCALE_H

#if defined(ZC_PART) && !defined(ZC_SEES_core)
#error "src/core/ included from below core: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <locale.h>
#include <stdarg.h>
#include <stddef.h>

#include "core/error.h" /* ZC__PRINTF */

#ifdef __cplusplus
extern "C" {
#endif

/* snprintf and vsnprintf in the C locale: "%.2f" of 1.5 is "1.50" in every program. The
 * calling thread's locale is the same afterwards (uselocale, which is per thread). */
int zc__snprintf_c(char *out, size_t size, const char *fmt, ...) ZC__PRINTF(3, 4);
int zc__vsnprintf_c(char *out, size_t size, const char *fmt, va_list args) ZC__PRINTF(3, 0);

/* strtod in the C locale: "2.5" is 2.5 in every program. */
double zc__strtod_c(const char *text, char **end_p);

/*
 * The C locale for this thread until zc__c_locale_end(what this gave): for a public function
 * whose callees format numbers (the report's page, a profile's notes), so that every one of them
 * writes the same text. Pairs nest.
 */
locale_t zc__c_locale_begin(void);
void zc__c_locale_end(locale_t before);

/* c in lower case if it is an ASCII capital, as the C locale has it: tolower('I') is 'I' in a
 * Turkish locale, whose lower-case I is the dotless one. */
static inline int zc__ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

#ifdef __cplusplus
}
#endif

#endif
