/* SPDX-License-Identifier: Apache-2.0 */
/* The run-time version of the library. */
#include "zerocopy/version.h"

#define ZC__STR2(x) #x
#define ZC__STR(x)  ZC__STR2(x)

ZC_EXTERN unsigned int zc_version(void)
{
    return ZC_VERSION_HEX;
}

ZC_EXTERN const char *zc_version_string(void)
{
    return ZC__STR(ZC_VERSION_MAJOR) "." ZC__STR(ZC_VERSION_MINOR) "." ZC__STR(ZC_VERSION_PATCH);
}
