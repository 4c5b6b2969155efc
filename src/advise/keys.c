/* SPDX-License-Identifier: Apache-2.0 */
/* Stable keys and human names of the advise enums, for input, output and JSON. */
#include "zerocopy/advise.h"

#include <string.h>

#include "core/error.h"

static const char *const zc__tech_keys[ZC_TECH_COUNT] = {
    "pageable", "pinned", "overlapped", "mapped", "registered", "managed",
};

static const char *const zc__tech_titles[ZC_TECH_COUNT] = {
    "pageable copy",    "pinned copy",     "pinned copy overlapped on streams",
    "mapped zero-copy", "registered copy", "managed with prefetch",
};

static const char *const zc__direction_keys[] = {"h2d", "d2h", "both"};
static const char *const zc__access_keys[ZC_ACCESS_COUNT] = {"coalesced", "strided", "random"};
/* The index of key in keys[count], or -1. */
static int zc__find_key(const char *const *keys, int count, const char *key)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(keys[i], key) == 0)
            return i;
    }
    return -1;
}

ZC_EXTERN const char *zc_technique_key(zc_technique technique)
{
    if ((int)technique < 0 || technique >= ZC_TECH_COUNT)
        return NULL;
    return zc__tech_keys[technique];
}

ZC_EXTERN const char *zc_technique_title(zc_technique technique)
{
    if ((int)technique < 0 || technique >= ZC_TECH_COUNT)
        return NULL;
    return zc__tech_titles[technique];
}

ZC_EXTERN zc_status zc_technique_from_key(const char *key, zc_technique *technique_p)
{
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(technique_p);
    int i = zc__find_key(zc__tech_keys, ZC_TECH_COUNT, key);
    if (i < 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_technique_from_key: no technique '%s'", key);
    *technique_p = (zc_technique)i;
    return ZC_OK;
}

ZC_EXTERN const char *zc_direction_key(zc_direction direction)
{
    if ((int)direction < 0 || direction > ZC_DIR_BOTH)
        return NULL;
    return zc__direction_keys[direction];
}

ZC_EXTERN const char *zc_access_key(zc_access access)
{
    if ((int)access < 0 || access >= ZC_ACCESS_COUNT)
        return NULL;
    return zc__access_keys[access];
}

ZC_EXTERN zc_buffer_kind zc_host_kind_buffer_kind(zc_host_kind kind)
{
    return (zc_buffer_kind_props(kind) & ZC_KIND_COPY_SOURCE) ? kind : ZC_BUFFER_UNKNOWN;
}

ZC_EXTERN const char *zc_host_kind_key(zc_host_kind kind)
{
    return zc_buffer_kind_key(zc_host_kind_buffer_kind(kind));
}

ZC_EXTERN zc_status zc_direction_from_key(const char *key, zc_direction *direction_p)
{
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(direction_p);
    int i = zc__find_key(zc__direction_keys, 3, key);
    if (i < 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_direction_from_key: no direction '%s'", key);
    *direction_p = (zc_direction)i;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_access_from_key(const char *key, zc_access *access_p)
{
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(access_p);
    int i = zc__find_key(zc__access_keys, ZC_ACCESS_COUNT, key);
    if (i < 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_access_from_key: no access pattern '%s'", key);
    *access_p = (zc_access)i;
    return ZC_OK;
}

/* Keys only, as profiles write them ("write_combined", not "write-combined"). */
ZC_EXTERN zc_status zc_copy_kind_from_key(const char *key, zc_buffer_kind *kind_p)
{
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(kind_p);
    zc_buffer_kind kind = ZC_BUFFER_UNKNOWN;
    if (zc_buffer_kind_from_name(key, &kind) != ZC_OK ||
        strcmp(key, zc_buffer_kind_key(kind)) != 0 ||
        !(zc_buffer_kind_props(kind) & ZC_KIND_COPY_SOURCE)) {
        zc_clear_error();
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_copy_kind_from_key: no host memory kind '%s' that copies start from",
                       key);
    }
    *kind_p = kind;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_host_kind_from_key(const char *key, zc_host_kind *kind_p)
{
    return zc_copy_kind_from_key(key, kind_p);
}
