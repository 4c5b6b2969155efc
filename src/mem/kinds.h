/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the table of memory kinds made from zerocopy/buffer.h's one list, and each kind's key
 * as a named constant that static tables of the parts above may point at. */
#ifndef ZC_MEM_KINDS_H
#define ZC_MEM_KINDS_H

#if defined(ZC_PART) && !defined(ZC_SEES_mem)
#error "src/mem/ included from below mem: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "zerocopy/buffer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One row of the table, indexed by zc_buffer_kind (row 0 is UNKNOWN's). */
typedef struct zc__kind_row {
    zc_buffer_kind kind;
    const char *name;  /* "write-combined" */
    const char *key;   /* "write_combined" */
    unsigned props;    /* ZC_KIND_* */
    unsigned flags;    /* ZC_BUFFER_FLAG_* its buffers take */
    const char *title; /* "write-combined pinned" */
} zc__kind_row;

/* The row of kind, or NULL for ZC_BUFFER_UNKNOWN and values outside the enum. */
const zc__kind_row *zc__kind_of(zc_buffer_kind kind);

/* zc__kind_key_PINNED, ...: the key of each kind ("pinned"), an address constant for a static
 * table that names a kind by its key (the bench catalogue's techniques). */
#define ZC__KIND_KEY_DECLARE(A, NAME, ...) extern const char zc__kind_key_##NAME[];
ZC_BUFFER_KIND_MAP(ZC__KIND_KEY_DECLARE, _)
#undef ZC__KIND_KEY_DECLARE

#ifdef __cplusplus
}
#endif

#endif
