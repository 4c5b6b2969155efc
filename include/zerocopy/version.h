/* SPDX-License-Identifier: Apache-2.0 */
/* The library's version, at compile time and at run time. */
#ifndef ZEROCOPY_VERSION_H
#define ZEROCOPY_VERSION_H

#include "zerocopy/export.h"

#define ZC_VERSION_MAJOR 0
#define ZC_VERSION_MINOR 1
#define ZC_VERSION_PATCH 0

/* One integer that orders versions: (major << 16) | (minor << 8) | patch. */
#define ZC_VERSION_HEX ((ZC_VERSION_MAJOR << 16) | (ZC_VERSION_MINOR << 8) | ZC_VERSION_PATCH)

ZC_BEGIN_DECLS

/* The version of the library actually loaded, as ZC_VERSION_HEX encodes it. */
ZC_EXTERN unsigned int zc_version(void);

/* The same as "MAJOR.MINOR.PATCH". */
ZC_EXTERN const char *zc_version_string(void);

ZC_END_DECLS

#endif
