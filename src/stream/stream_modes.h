/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the stream modes as rows of one table, where each mode's name, help, properties and
 * transport come from (filter.h's enum names the rows; stream_modes.c holds them). */
#ifndef ZC_STREAM_STREAM_MODES_H
#define ZC_STREAM_STREAM_MODES_H

#if defined(ZC_PART) && !defined(ZC_SEES_stream)
#error "src/stream/ included from below stream: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include "stream/filter_internal.h"

typedef struct zc__stream_mode_row {
    zc_stream_mode mode; /* its own value: cpu_stream_modes checks every row is in its place */
    const char *name;
    const char *help;
    unsigned flags; /* ZC_STREAM_MODE_* */
    const zc__filter_ops *family;
    const zc__launch_variant *launch; /* the launch family's per-mode choices, else NULL */
} zc__stream_mode_row;

/* The row of mode, or NULL for a value that is no mode. */
const zc__stream_mode_row *zc__stream_mode_row_of(zc_stream_mode mode);

#endif
