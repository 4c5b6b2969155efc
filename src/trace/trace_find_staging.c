/* SPDX-License-Identifier: Apache-2.0 */
/* The staging finding: the program's host copies into and out of pinned memory it allocated,
 * a framework's own staging (CuPy's cp.asarray, JAX's transfers), which the CUDA copies beside
 * them do not show: they move pinned memory at the link's speed while one memcpy on one thread
 * takes most of the transfer's time. */
#include "trace_findings.h"
#include "core/c_locale.h"
#include "core/checked_math.h"

/* The host copies of one direction, added up. */
typedef struct zc__host_copies {
    uint64_t count, bytes, ns;
} zc__host_copies;

static void zc__add(zc__host_copies *sum, const zc_trace_api *a)
{
    sum->count++;
    sum->bytes = zc__u64_add_sat(sum->bytes, a->bytes);
    sum->ns += a->end > a->start ? a->end - a->start : 0;
}

/* A host copy whose pinned side is an allocation or registration of the program's, live then
 * (not managed memory, which the copy library hears of too). */
static int zc__through_pinned(const zc__trace_facts *facts, const zc_trace_api *a)
{
    if (!a->ok || a->call != ZC_TRACE_CALL_HOSTCOPY)
        return 0;
    const zc__trace_alloc *at =
        zc__trace_allocs_at(&facts->allocs, a->process, a->pointer, a->start);
    return at != NULL &&
           (at->call == ZC_TRACE_CALL_HOSTALLOC || at->call == ZC_TRACE_CALL_HOSTREGISTER);
}

/* "N host copies (memcpy) moved B into (out of) pinned memory the program allocated, in T (R
 * GB/s)", or "" for none. */
static void zc__say(const zc__host_copies *c, const char *way, char *out, size_t size)
{
    char b[32], t[32];
    if (c->count == 0) {
        out[0] = '\0';
        return;
    }
    zc__snprintf_c(out, size,
                   "%llu host copies (memcpy) moved %s %s pinned memory the program allocated, "
                   "in %s (%.1f GB/s)",
                   (unsigned long long)c->count, zc_size_format(c->bytes, b, sizeof b), way,
                   zc_trace_format_time(zc__trace_seconds(c->ns), t, sizeof t),
                   c->ns > 0 ? (double)c->bytes / (double)c->ns : 0.0);
}

zc_status zc__trace_find_staging(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc_trace_log *log = facts->log;
    zc__host_copies into = {0, 0, 0}, out_of = {0, 0, 0};
    for (size_t i = 0; i < log->api_count; i++) {
        const zc_trace_api *a = &log->apis[i];
        if (zc__through_pinned(facts, a))
            zc__add(a->flags & ZC_TRACE_HOSTCOPY_INTO ? &into : &out_of, a);
    }
    uint64_t bytes = zc__u64_add_sat(into.bytes, out_of.bytes);
    if (bytes < ZC_TRACE_STAGING_MIN_BYTES)
        return ZC_OK;
    char in_text[192], out_text[192], link[96] = "";
    zc__say(&into, "into", in_text, sizeof in_text);
    zc__say(&out_of, "out of", out_text, sizeof out_text);
    double ceiling = facts->params->ceiling_gbps;
    if (ceiling > 0.0)
        zc__snprintf_c(link, sizeof link, "; the link moves pinned memory at %.1f GB/s", ceiling);
    zc__trace_evidence_set(
        ev, into.count + out_of.count, bytes, zc__trace_seconds(into.ns + out_of.ns), -1.0, NULL,
        "%s%s%s, timed in the calls that made them: staging of a framework's "
        "own (CuPy's cp.asarray, JAX's transfers), every byte copied once more "
        "on the host beside its DMA%s",
        in_text, in_text[0] != '\0' && out_text[0] != '\0' ? "; " : "", out_text, link);
    return ZC_OK;
}
