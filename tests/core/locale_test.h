/* SPDX-License-Identifier: Apache-2.0 */
/* For the locale tests: run in a program locale that writes a decimal comma (de_DE, fr_FR,
 * tr_TR), as a program of the library's users may have chosen with setlocale. */
#ifndef ZC_LOCALE_TEST_H
#define ZC_LOCALE_TEST_H

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * setlocale(LC_ALL, name): the machine's locale, else the one tests/core/make_locales.sh made
 * into ZC_TEST_LOCALES (glibc's LOCPATH). Without either the program exits with ZC_TEST_SKIP
 * (77), so that ctest shows it skipped, never passed. A locale that does not write 1.5 as
 * "1,5" would prove nothing: the program fails instead.
 */
static inline void locale_test_enter(const char *name)
{
    if (setlocale(LC_ALL, name) == NULL) {
        setenv("LOCPATH", ZC_TEST_LOCALES, 1);
        if (setlocale(LC_ALL, name) == NULL) {
            fprintf(stderr,
                    "SKIP: locale %s is not installed and tests/core/make_locales.sh could not "
                    "make it in %s (Debian: apt-get install locales)\n",
                    name, ZC_TEST_LOCALES);
            exit(77);
        }
    }
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    if (strcmp(probe, "1,5") != 0) {
        fprintf(stderr, "locale %s writes 1.5 as %s: not a decimal-comma locale\n", name, probe);
        exit(1);
    }
}

#endif
