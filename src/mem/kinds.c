/* SPDX-License-Identifier: Apache-2.0 */
/* The table of memory kinds, every row made from zerocopy/buffer.h's ZC_BUFFER_KIND_MAP, and the
 * public calls that read it. */
#include "mem/kinds.h"

#include <string.h>

#include "core/error.h"

#define ZC__KIND_KEY_DEFINE(A, NAME, name, key, ...) const char zc__kind_key_##NAME[] = key;
ZC_BUFFER_KIND_MAP(ZC__KIND_KEY_DEFINE, _)
#undef ZC__KIND_KEY_DEFINE

#define ZC__KIND_ROW(A, NAME, name, key, copy, props, flags, title)                                \
    [ZC_BUFFER_##                                                                                  \
        NAME] = {ZC_BUFFER_##NAME, name, zc__kind_key_##NAME, (props) | ZC_KIND_COPY_BIT_##copy,   \
                 (flags),          title},

static const zc__kind_row zc__kind_rows[] = {
    [ZC_BUFFER_UNKNOWN] = {ZC_BUFFER_UNKNOWN, "unknown", "unknown", 0u, 0u, "unknown"},
    ZC_BUFFER_KIND_MAP(ZC__KIND_ROW, _)};

#undef ZC__KIND_ROW

_Static_assert(sizeof zc__kind_rows / sizeof zc__kind_rows[0] == ZC_BUFFER_KIND_COUNT,
               "every memory kind of buffer.h has its row here");
/* The published values (zerocopy/buffer.h): a kind goes at the end of the list. */
_Static_assert(ZC_BUFFER_PAGEABLE == 1 && ZC_BUFFER_PINNED == 2 && ZC_BUFFER_MAPPED == 3 &&
                   ZC_BUFFER_WRITE_COMBINED == 4 && ZC_BUFFER_REGISTERED == 5 &&
                   ZC_BUFFER_MANAGED == 6 && ZC_BUFFER_DEVICE == 7,
               "the memory kinds keep their published values");

const zc__kind_row *zc__kind_of(zc_buffer_kind kind)
{
    if ((int)kind < (int)ZC_BUFFER_KIND_FIRST || (int)kind >= ZC_BUFFER_KIND_COUNT)
        return NULL;
    return &zc__kind_rows[kind];
}

ZC_EXTERN const char *zc_buffer_kind_name(zc_buffer_kind kind)
{
    const zc__kind_row *row = zc__kind_of(kind);
    return row != NULL ? row->name : zc__kind_rows[ZC_BUFFER_UNKNOWN].name;
}

ZC_EXTERN const char *zc_buffer_kind_key(zc_buffer_kind kind)
{
    const zc__kind_row *row = zc__kind_of(kind);
    return row != NULL ? row->key : NULL;
}

ZC_EXTERN const char *zc_buffer_kind_title(zc_buffer_kind kind)
{
    const zc__kind_row *row = zc__kind_of(kind);
    return row != NULL ? row->title : NULL;
}

ZC_EXTERN unsigned zc_buffer_kind_props(zc_buffer_kind kind)
{
    const zc__kind_row *row = zc__kind_of(kind);
    return row != NULL ? row->props : 0u;
}

ZC_EXTERN unsigned zc_buffer_kind_flags(zc_buffer_kind kind)
{
    const zc__kind_row *row = zc__kind_of(kind);
    return row != NULL ? row->flags : 0u;
}

ZC_EXTERN zc_status zc_buffer_kind_from_name(const char *name, zc_buffer_kind *kind_p)
{
    ZC_REQUIRE_ARG(name);
    ZC_REQUIRE_ARG(kind_p);
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        const zc__kind_row *row = &zc__kind_rows[k];
        if (strcmp(name, row->name) == 0 || strcmp(name, row->key) == 0) {
            *kind_p = row->kind;
            return ZC_OK;
        }
    }
    return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_buffer_kind_from_name: no memory kind '%s'", name);
}
