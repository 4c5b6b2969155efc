/* SPDX-License-Identifier: Apache-2.0 */
/* The block-copies finding: many blocks of one size moved between pinned host memory and
 * device memory one call each, priced against the block mover's measured profile. */
#include "trace_findings.h"
#include "blocks/blocks_plan.h"
#include "core/c_locale.h"
#include "core/checked_math.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A copy the mover could have made: pinned host memory to device memory or back (pageable
 * copies are pageable_transfers' to report: the mover refuses pageable memory, and pinning it
 * comes first), of a block's size. */
static int zc__is_block(const zc_trace_copy *c)
{
    int to_device = c->dir == ZC_TRACE_DIR_H2D && c->src == ZC_TRACE_MEM_PINNED &&
                    c->dst == ZC_TRACE_MEM_DEVICE;
    int to_host = c->dir == ZC_TRACE_DIR_D2H && c->src == ZC_TRACE_MEM_DEVICE &&
                  c->dst == ZC_TRACE_MEM_PINNED;
    return (to_device || to_host) && c->bytes >= ZC_TRACE_BLOCK_MIN_BYTES &&
           c->bytes <= ZC_TRACE_BLOCK_MAX_BYTES;
}

/* n blocks of size bytes, or SIZE_MAX when the product does not fit. */
static size_t zc__blocks_bytes(uint64_t n, uint64_t size)
{
    size_t bytes = SIZE_MAX;
    return zc__size_mul((size_t)n, (size_t)size, &bytes) ? bytes : SIZE_MAX;
}

/* Copies of one move next to each other: by process, direction, size, then start. */
static int zc__by_move(const void *a, const void *b)
{
    const zc_trace_copy *x = *(const zc_trace_copy *const *)a;
    const zc_trace_copy *y = *(const zc_trace_copy *const *)b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    if (x->dir != y->dir)
        return x->dir < y->dir ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The moves found, added up. */
typedef struct zc__block_moves {
    uint64_t moves, count, bytes, ns;
    uint64_t to_device, to_host; /* copies each way */
    uint64_t largest_count, largest_size;
    zc_trace_dir largest_dir;
    int priced;            /* 1 when every move was priced */
    double mover_s;        /* the mover's predicted time for them all */
    double saving_s;       /* summed per move, none negative */
    zc_blocks_engine best; /* the best engine for the largest move */
} zc__block_moves;

/* The least time the mover's engines predict for one move of n blocks, in seconds; which
 * engine into *engine_p. As zc_blocks_advise, every engine is taken to reach the memory: a
 * pinned allocation is mapped for the device under unified addressing. */
static double zc__mover_s(const zc_blocks_profile *p, int to_device, uint64_t n, uint64_t size,
                          zc_blocks_engine *engine_p)
{
    size_t count = (size_t)n, bytes = zc__blocks_bytes(n, size);
    double best = INFINITY;
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        double us = zc__blocks_predict_us(p, (zc_blocks_engine)e, to_device ? count : 0,
                                          to_device ? bytes : 0, to_device ? 0 : count,
                                          to_device ? 0 : bytes, ZC_BLOCKS_DEFAULT_MAX_SMS);
        if (us >= 0.0 && us < best) {
            best = us;
            *engine_p = (zc_blocks_engine)e;
        }
    }
    return best * 1e-6;
}

/* Add the run of copies run[0 .. n - 1] to sum when it is a move. */
static void zc__add_move(zc__block_moves *sum, const zc_trace_copy *const *run, uint64_t n,
                         const zc_blocks_profile *profile)
{
    if (n < ZC_TRACE_BLOCK_MIN_COUNT)
        return;
    uint64_t ns = 0;
    for (uint64_t i = 0; i < n; i++) /* a record that ends before it starts took no time */
        ns += run[i]->end > run[i]->start ? run[i]->end - run[i]->start : 0;
    const zc_trace_copy *c = run[0];
    const int to_device = c->dir == ZC_TRACE_DIR_H2D;
    sum->moves++;
    sum->count += n;
    sum->bytes = zc__u64_add_sat(sum->bytes, zc__blocks_bytes(n, c->bytes));
    sum->ns += ns;
    *(to_device ? &sum->to_device : &sum->to_host) += n;
    const int largest =
        zc__blocks_bytes(n, c->bytes) > zc__blocks_bytes(sum->largest_count, sum->largest_size);
    if (largest) {
        sum->largest_count = n;
        sum->largest_size = c->bytes;
        sum->largest_dir = c->dir;
    }
    if (!sum->priced)
        return;
    zc_blocks_engine engine = ZC_BLOCKS_AUTO;
    double mover = zc__mover_s(profile, to_device, n, c->bytes, &engine);
    if (!isfinite(mover)) {
        sum->priced = 0;
        return;
    }
    double copies = zc__trace_seconds(ns);
    sum->mover_s += mover;
    sum->saving_s += copies > mover ? copies - mover : 0.0;
    if (largest)
        sum->best = engine;
}

/* Every move of the log: runs of copies of one process, direction and size, each no further
 * than ZC_TRACE_BLOCK_MAX_GAP_NS after the run's last end. */
static zc_status zc__moves(const zc_trace_log *log, const zc_blocks_profile *profile,
                           zc__block_moves *sum)
{
    const zc_trace_copy **blocks = malloc((log->copy_count + 1) * sizeof *blocks);
    if (blocks == NULL)
        return ZC_ERR_NO_MEMORY;
    size_t n = 0;
    for (size_t i = 0; i < log->copy_count; i++) {
        if (zc__is_block(&log->copies[i]))
            blocks[n++] = &log->copies[i];
    }
    qsort(blocks, n, sizeof *blocks, zc__by_move);
    size_t first = 0;
    uint64_t last_end = 0;
    for (size_t i = 0; i <= n; i++) {
        const zc_trace_copy *c = i < n ? blocks[i] : NULL;
        const zc_trace_copy *f = i > first ? blocks[first] : NULL;
        int same = c != NULL && f != NULL && c->process == f->process && c->dir == f->dir &&
                   c->bytes == f->bytes &&
                   c->start <= zc__u64_add_sat(last_end, ZC_TRACE_BLOCK_MAX_GAP_NS);
        if (!same && f != NULL) {
            zc__add_move(sum, blocks + first, i - first, profile);
            first = i;
        }
        if (c != NULL && (i == first || c->end > last_end))
            last_end = c->end;
    }
    free(blocks);
    return ZC_OK;
}

zc_status zc__trace_find_blocks(const zc__trace_facts *facts, zc__trace_evidence *ev)
{
    const zc_blocks_profile *profile = facts->params->blocks_profile;
    if (profile != NULL && !profile->measured)
        profile = NULL; /* the placeholders would price nothing real */
    zc__block_moves sum = {.priced = profile != NULL, .best = ZC_BLOCKS_AUTO};
    ZC_CHECK(zc__moves(facts->log, profile, &sum));
    if (sum.moves == 0)
        return ZC_OK;
    char b[32], t[32], l[32], m[32], s[32], price[288], ways[96];
    double time_s = zc__trace_seconds(sum.ns);
    if (sum.priced)
        zc__snprintf_c(price, sizeof price,
                       "; the block mover's measured profile predicts %s for the same moves "
                       "(%s for the largest), so up to %s saved",
                       zc_trace_format_time(sum.mover_s, m, sizeof m),
                       zc_blocks_engine_name(sum.best),
                       zc_trace_format_time(sum.saving_s, s, sizeof s));
    else
        zc__snprintf_c(price, sizeof price,
                       "; no price without the mover's measured profile: zc trace --bench FILE "
                       "with a zc bench document that holds the block family (zc bench --case "
                       "blocks) prices it");
    if (sum.to_device > 0 && sum.to_host > 0)
        zc__snprintf_c(ways, sizeof ways, "%llu pinned -> device, %llu device -> pinned",
                       (unsigned long long)sum.to_device, (unsigned long long)sum.to_host);
    else
        zc__snprintf_c(ways, sizeof ways, "all %s",
                       sum.to_device > 0 ? "pinned -> device" : "device -> pinned");
    zc__trace_evidence_set(
        ev, sum.count, sum.bytes, time_s, sum.priced ? sum.saving_s : -1.0, NULL,
        "%llu copies of equal blocks between pinned and device memory, one call each, in %llu "
        "move%s of %u or more blocks of one size one after the other (%s; the largest %llu x %s "
        "%s): %s in %s of copy time, %.2f GB/s%s",
        (unsigned long long)sum.count, (unsigned long long)sum.moves, sum.moves == 1 ? "" : "s",
        ZC_TRACE_BLOCK_MIN_COUNT, ways, (unsigned long long)sum.largest_count,
        zc_size_format(sum.largest_size, l, sizeof l),
        sum.largest_dir == ZC_TRACE_DIR_H2D ? "to the device" : "to the host",
        zc_size_format(sum.bytes, b, sizeof b), zc_trace_format_time(time_s, t, sizeof t),
        time_s > 0 ? (double)sum.bytes / time_s * 1e-9 : 0.0, price);
    return ZC_OK;
}
