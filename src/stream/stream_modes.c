/* SPDX-License-Identifier: Apache-2.0 */
/* The stream modes' table: one row per mode, in the enum's order (stream_modes.h). */
#include "stream/stream_modes.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"

#define ZC__GPU ZC_STREAM_MODE_ON_GPU

static const zc__stream_mode_row zc__modes[] = {
    {ZC_STREAM_ZEROCOPY, "zerocopy",
     "a persistent kernel polls a ring in mapped pinned memory; results\n"
     "come back the same way (protocol LL or FLAG, see --protocol)",
     ZC__GPU | ZC_STREAM_MODE_ON_RING, &zc__filter_ring_ops, NULL},
    {ZC_STREAM_MAPPED_LAUNCH, "mapped-launch",
     "one kernel launch per frame on mapped memory, event sync", ZC__GPU, &zc__filter_launch_ops,
     &zc__launch_mapped},
    {ZC_STREAM_CLASSIC_PAGEABLE, "classic-pageable", "malloc + cudaMemcpy + launch + cudaMemcpy",
     ZC__GPU, &zc__filter_launch_ops, &zc__launch_pageable},
    {ZC_STREAM_CLASSIC_PINNED, "classic-pinned",
     "pinned + cudaMemcpyAsync + launch + cudaMemcpyAsync + sync", ZC__GPU, &zc__filter_launch_ops,
     &zc__launch_pinned},
    {ZC_STREAM_GRAPH, "graph", "a CUDA graph of copy, kernel, copy, launched per frame", ZC__GPU,
     &zc__filter_launch_ops, &zc__launch_graph},
    {ZC_STREAM_CPU, "cpu", "the same filter on the host (no GPU needed): the baseline", 0,
     &zc__filter_host_ops, NULL},
    {ZC_STREAM_CLASSIC_OVERLAP, "classic-overlap",
     "classic-pinned over three streams: copies of one frame\n"
     "overlap the kernel of another (with --in-flight 2 or more)",
     ZC__GPU, &zc__filter_launch_ops, &zc__launch_overlap},
    {ZC_STREAM_STREAM_WAIT, "stream-wait",
     "no persistent kernel: each frame's kernel waits, queued ahead,\n"
     "on a word the CPU writes (cuStreamWaitValue64); no SM is\n"
     "held while idle (skipped where the GPU lacks it)",
     ZC__GPU | ZC_STREAM_MODE_MEMOPS, &zc__filter_wait_ops, NULL},
    {ZC_STREAM_HYBRID, "hybrid",
     "zerocopy's persistent kernel reads frames in place; its results\n"
     "leave by the copy engine into pinned memory: two engines, one\n"
     "per direction (--protocol is the frames'; skipped where the GPU\n"
     "lacks stream memory operations)",
     ZC__GPU | ZC_STREAM_MODE_ON_RING | ZC_STREAM_MODE_RESULTS_COPY | ZC_STREAM_MODE_MEMOPS,
     &zc__filter_ring_ops, NULL},
};
_Static_assert(sizeof zc__modes / sizeof zc__modes[0] == (size_t)ZC_STREAM_MODE_COUNT,
               "every stream mode of filter.h has its row here, in the enum's order");

const zc__stream_mode_row *zc__stream_mode_row_of(zc_stream_mode mode)
{
    if ((int)mode < 0 || (int)mode >= ZC_STREAM_MODE_COUNT)
        return NULL;
    return &zc__modes[mode];
}

ZC_EXTERN const char *zc_stream_mode_name(zc_stream_mode mode)
{
    const zc__stream_mode_row *row = zc__stream_mode_row_of(mode);
    return row != NULL ? row->name : "unknown";
}

ZC_EXTERN const char *zc_stream_mode_help(zc_stream_mode mode)
{
    const zc__stream_mode_row *row = zc__stream_mode_row_of(mode);
    return row != NULL ? row->help : "";
}

ZC_EXTERN unsigned zc_stream_mode_flags(zc_stream_mode mode)
{
    const zc__stream_mode_row *row = zc__stream_mode_row_of(mode);
    return row != NULL ? row->flags : 0u;
}

ZC_EXTERN int zc_stream_mode_on_ring(zc_stream_mode mode)
{
    return (zc_stream_mode_flags(mode) & ZC_STREAM_MODE_ON_RING) != 0;
}

ZC_EXTERN zc_status zc_stream_mode_parse(const char *name, zc_stream_mode *mode_p)
{
    ZC_REQUIRE_ARG(name);
    ZC_REQUIRE_ARG(mode_p);
    for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++) {
        if (strcmp(name, zc__modes[i].name) == 0) {
            *mode_p = (zc_stream_mode)i;
            return ZC_OK;
        }
    }
    /* The names known, from the table, so that a new mode is named here without a change. */
    char known[256] = "";
    for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", zc__modes[i].name);
    }
    return ZC_FAIL(ZC_ERR_PARSE, "zc_stream_mode_parse: unknown mode '%s' (%s)", name, known);
}

/* The suffix a ring protocol gives a run's name. */
static const char *zc__protocol_suffix(zc_ring_protocol protocol)
{
    return protocol == ZC_RING_PROTO_LL ? "ll" : protocol == ZC_RING_PROTO_FLAG ? "flag" : NULL;
}

ZC_EXTERN zc_status zc_stream_run_name(zc_stream_mode mode, zc_ring_protocol protocol, char *out,
                                       size_t size)
{
    ZC_REQUIRE_ARG(out);
    const zc__stream_mode_row *row = zc__stream_mode_row_of(mode);
    if (row == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_run_name: unknown mode %d", (int)mode);
    const char *suffix = zc__protocol_suffix(protocol);
    if ((row->flags & ZC_STREAM_MODE_ON_RING) && suffix == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_stream_run_name: unknown protocol %d",
                       (int)protocol);
    int n = (row->flags & ZC_STREAM_MODE_ON_RING) ? snprintf(out, size, "%s-%s", row->name, suffix)
                                                  : snprintf(out, size, "%s", row->name);
    if (n < 0 || (size_t)n >= size)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_stream_run_name: %zu bytes are too few for '%s'", size,
                       row->name);
    return ZC_OK;
}

ZC_EXTERN zc_status zc_stream_run_parse(const char *name, zc_stream_mode *mode_p,
                                        zc_ring_protocol *protocol_p)
{
    ZC_REQUIRE_ARG(name);
    ZC_REQUIRE_ARG(mode_p);
    ZC_REQUIRE_ARG(protocol_p);
    /* FLAG first: a mode off the ring is named once, and its protocol is then FLAG (0). */
    static const zc_ring_protocol protocols[] = {ZC_RING_PROTO_FLAG, ZC_RING_PROTO_LL};
    char run[64];
    for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++) {
        const int on_ring = (zc__modes[i].flags & ZC_STREAM_MODE_ON_RING) != 0;
        for (size_t p = 0; p < (on_ring ? 2u : 1u); p++) {
            if (zc_stream_run_name((zc_stream_mode)i, protocols[p], run, sizeof run) == ZC_OK &&
                strcmp(run, name) == 0) {
                *mode_p = (zc_stream_mode)i;
                *protocol_p = protocols[p];
                return ZC_OK;
            }
        }
    }
    return ZC_FAIL(ZC_ERR_PARSE, "zc_stream_run_parse: '%s' names no stream run", name);
}
