/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing lists of GPUs ("all", "0,1") for the commands that use several at once. */
#include "zerocopy/device_list.h"

#include <string.h>

#include "core/error.h"

ZC_EXTERN zc_status zc_device_list_parse(const char *text, int device_count, int *devices,
                                         size_t capacity, size_t *count_p)
{
    static const char fn[] = "zc_device_list_parse";
    ZC_REQUIRE_ARG(text);
    ZC_REQUIRE_ARG(devices);
    ZC_REQUIRE_ARG(count_p);
    if (device_count < 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: device_count %d", fn, device_count);
    int parsed[ZC_DEVICE_LIST_MAX];
    size_t n = 0;
    if (strcmp(text, "all") == 0) {
        if (device_count == 0)
            return ZC_FAIL(ZC_ERR_NO_DEVICE, "%s: 'all' with no GPU on this machine", fn);
        if ((size_t)device_count > capacity || device_count > ZC_DEVICE_LIST_MAX)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: 'all' is %d GPUs, at most %zu fit", fn,
                           device_count,
                           capacity < ZC_DEVICE_LIST_MAX ? capacity : (size_t)ZC_DEVICE_LIST_MAX);
        for (int d = 0; d < device_count; d++)
            devices[d] = d;
        *count_p = (size_t)device_count;
        return ZC_OK;
    }
    if (text[0] == '\0')
        return ZC_FAIL(ZC_ERR_PARSE, "%s: empty list (give \"all\" or GPU numbers: \"0,1\")", fn);
    const char *p = text;
    for (;;) {
        /* Digits only: no sign, no white space, no hex, so "1 ", "+1" and "0x1" are refused. */
        const char *start = p;
        long value = 0;
        while (*p >= '0' && *p <= '9') {
            if (value < 100000)
                value = value * 10 + (*p - '0');
            p++;
        }
        if (p == start || (*p != ',' && *p != '\0')) {
            const char *end = strchr(start, ',');
            int len = end ? (int)(end - start) : (int)strlen(start);
            return ZC_FAIL(ZC_ERR_PARSE, "%s: '%.*s' in \"%s\" is not a GPU number", fn, len, start,
                           text);
        }
        if (value >= device_count)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: GPU %ld in \"%s\": this machine has %d GPU%s%s",
                           fn, value, text, device_count, device_count == 1 ? "" : "s",
                           device_count > 0 ? " (numbered from 0)" : "");
        for (size_t i = 0; i < n; i++)
            if (parsed[i] == (int)value)
                return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: GPU %ld is given twice in \"%s\"", fn,
                               value, text);
        if (n >= capacity || n >= ZC_DEVICE_LIST_MAX)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: \"%s\" names more than %zu GPUs", fn, text, n);
        parsed[n++] = (int)value;
        if (*p == '\0')
            break;
        p++; /* the comma; an item must follow it */
    }
    memcpy(devices, parsed, n * sizeof *devices);
    *count_p = n;
    return ZC_OK;
}
