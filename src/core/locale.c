/* SPDX-License-Identifier: Apache-2.0 */
/* The C locale for the library's numbers: made once, put in force per thread around each use. */
#include "core/c_locale.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static locale_t zc__c_locale;
static pthread_once_t zc__c_locale_once = PTHREAD_ONCE_INIT;

static void zc__c_locale_make(void)
{
    /* glibc and musl give "C" without allocating; it cannot fail there. Elsewhere a failure
     * leaves the program's locale in force, as before. */
    zc__c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t zc__c(void)
{
    pthread_once(&zc__c_locale_once, zc__c_locale_make);
    return zc__c_locale;
}

locale_t zc__c_locale_begin(void)
{
    locale_t c = zc__c();
    return c != (locale_t)0 ? uselocale(c) : (locale_t)0;
}

void zc__c_locale_end(locale_t before)
{
    if (before != (locale_t)0)
        uselocale(before);
}

int zc__vsnprintf_c(char *out, size_t size, const char *fmt, va_list args)
{
    locale_t before = zc__c_locale_begin();
    int n = vsnprintf(out, size, fmt, args);
    zc__c_locale_end(before);
    return n;
}

int zc__snprintf_c(char *out, size_t size, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int n = zc__vsnprintf_c(out, size, fmt, args);
    va_end(args);
    return n;
}

double zc__strtod_c(const char *text, char **end_p)
{
    locale_t c = zc__c();
    return c != (locale_t)0 ? strtod_l(text, end_p, c) : strtod(text, end_p);
}
