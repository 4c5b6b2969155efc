/* SPDX-License-Identifier: Apache-2.0 */
/* Status strings, generated from the one list in zerocopy/status.h. */
#include "zerocopy/status.h"

#include <stddef.h>

#define ZC__STATUS_CASE_TEXT(name, value, text)                                                    \
    case ZC_##name:                                                                                \
        return text;
#define ZC__STATUS_CASE_NAME(name, value, text)                                                    \
    case ZC_##name:                                                                                \
        return #name;

ZC_EXTERN const char *zc_status_str(zc_status status)
{
    switch (status) {
        ZC_STATUS_MAP(ZC__STATUS_CASE_TEXT)
    }
    return "unknown status";
}

ZC_EXTERN const char *zc_status_name(zc_status status)
{
    switch (status) {
        ZC_STATUS_MAP(ZC__STATUS_CASE_NAME)
    }
    return "UNKNOWN";
}
