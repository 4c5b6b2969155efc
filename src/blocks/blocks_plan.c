/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover's validation and engine choice, free of CUDA (blocks_plan.h): every refusal
 * comes before anything moves. */
#include "blocks/blocks_plan.h"

#include <stdlib.h>
#include <string.h>

#include "blocks/blocks_engines.h"
#include "core/checked_math.h"
#include "core/error.h"

static const char *const zc__list_names[2] = {"to_device", "to_host"};

void zc__blocks_plan_init(zc__blocks_plan *plan)
{
    memset(plan, 0, sizeof *plan);
}

void zc__blocks_plan_fini(zc__blocks_plan *plan)
{
    free(plan->items);
    free(plan->dsts);
    free(plan->srcs);
    memset(plan, 0, sizeof *plan);
}

/* Room for n items and their ranges; the scratch only grows. */
static zc_status zc__plan_reserve(zc__blocks_plan *plan, const char *who, size_t n)
{
    if (n <= plan->cap)
        return ZC_OK;
    size_t item_bytes = 0, range_bytes = 0;
    if (!zc__size_mul(n, sizeof *plan->items, &item_bytes) ||
        !zc__size_mul(n, sizeof *plan->dsts, &range_bytes))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "%s: %zu blocks do not fit in memory", who, n);
    zc__blocks_item *items = realloc(plan->items, item_bytes);
    if (items != NULL)
        plan->items = items;
    zc__blocks_range *dsts = realloc(plan->dsts, range_bytes);
    if (dsts != NULL)
        plan->dsts = dsts;
    zc__blocks_range *srcs = realloc(plan->srcs, range_bytes);
    if (srcs != NULL)
        plan->srcs = srcs;
    if (items == NULL || dsts == NULL || srcs == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no memory for the plan of %zu blocks", who, n);
    plan->cap = n;
    return ZC_OK;
}

/* The list named by side (0 to the device, 1 to the host), checked against dir. */
static zc_status zc__list_check(const char *who, const zc_blocks_desc *desc, int side)
{
    const zc_blocks_list *l = side == 0 ? &desc->to_device : &desc->to_host;
    unsigned bit = side == 0 ? (unsigned)ZC_BLOCKS_TO_DEVICE : (unsigned)ZC_BLOCKS_TO_HOST;
    if (((unsigned)desc->dir & bit) == 0) {
        if (l->count != 0 || l->blocks != NULL || l->src_base != NULL || l->dst_base != NULL ||
            l->block_bytes != 0 || l->src_index != NULL || l->dst_index != NULL)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %s is not all 0 but dir (%d) does not name it",
                           who, zc__list_names[side], (int)desc->dir);
        return ZC_OK;
    }
    if (l->count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %s.count is 0", who, zc__list_names[side]);
    if (l->blocks != NULL) {
        if (l->src_base != NULL || l->dst_base != NULL || l->block_bytes != 0 ||
            l->src_index != NULL || l->dst_index != NULL)
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "%s: %s has both blocks and the indexed form's fields; give one form",
                           who, zc__list_names[side]);
        return ZC_OK;
    }
    const char *missing = l->src_base == NULL    ? "src_base"
                          : l->dst_base == NULL  ? "dst_base"
                          : l->src_index == NULL ? "src_index"
                          : l->dst_index == NULL ? "dst_index"
                                                 : NULL;
    if (missing != NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %s has no blocks and its %s is NULL", who,
                       zc__list_names[side], missing);
    if (l->block_bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %s.block_bytes is 0", who, zc__list_names[side]);
    return ZC_OK;
}

/* base + index * block_bytes, refused where it leaves the address space. */
static zc_status zc__indexed_addr(const char *who, int side, size_t i, const char *what,
                                  uintptr_t base, size_t index, size_t block_bytes,
                                  uintptr_t *addr_p)
{
    size_t offset = 0;
    if (!zc__size_mul(index, block_bytes, &offset) || offset > UINTPTR_MAX - base)
        return ZC_FAIL(ZC_ERR_OVERFLOW,
                       "%s: %s block %zu: %s + %s_index %zu * block_bytes %zu overflows the "
                       "address space",
                       who, zc__list_names[side], i, what, what, index, block_bytes);
    *addr_p = base + offset;
    return ZC_OK;
}

/* Block i of a list as an item, its pointers and size checked. */
static zc_status zc__item_of(const char *who, const zc_blocks_list *l, int side, size_t i,
                             zc__blocks_item *item)
{
    memset(item, 0, sizeof *item);
    if (l->blocks != NULL) {
        const zc_block *b = &l->blocks[i];
        if (b->src == NULL || b->dst == NULL)
            return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %s block %zu: %s is NULL", who,
                           zc__list_names[side], i, b->src == NULL ? "src" : "dst");
        item->src = (uintptr_t)b->src;
        item->dst = (uintptr_t)b->dst;
        item->bytes = b->bytes;
    } else {
        ZC_CHECK(zc__indexed_addr(who, side, i, "src", (uintptr_t)l->src_base, l->src_index[i],
                                  l->block_bytes, &item->src));
        ZC_CHECK(zc__indexed_addr(who, side, i, "dst", (uintptr_t)l->dst_base, l->dst_index[i],
                                  l->block_bytes, &item->dst));
        item->bytes = l->block_bytes;
    }
    if (item->bytes == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: %s block %zu: bytes is 0", who,
                       zc__list_names[side], i);
    uintptr_t room = UINTPTR_MAX - (item->src > item->dst ? item->src : item->dst);
    if (item->bytes - 1 > room)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "%s: %s block %zu: %zu bytes run past the address space",
                       who, zc__list_names[side], i, item->bytes);
    return ZC_OK;
}

/* Every block of both lists as items, to the device first. */
static zc_status zc__items_make(zc__blocks_plan *plan, const char *who, const zc_blocks_desc *desc)
{
    size_t n_dev = ((unsigned)desc->dir & ZC_BLOCKS_TO_DEVICE) ? desc->to_device.count : 0;
    size_t n_host = ((unsigned)desc->dir & ZC_BLOCKS_TO_HOST) ? desc->to_host.count : 0;
    size_t n = 0;
    if (!zc__size_add(n_dev, n_host, &n))
        return ZC_FAIL(ZC_ERR_OVERFLOW, "%s: %zu + %zu blocks overflow", who, n_dev, n_host);
    ZC_CHECK(zc__plan_reserve(plan, who, n));
    for (size_t i = 0; i < n_dev; i++)
        ZC_CHECK(zc__item_of(who, &desc->to_device, 0, i, &plan->items[i]));
    for (size_t i = 0; i < n_host; i++)
        ZC_CHECK(zc__item_of(who, &desc->to_host, 1, i, &plan->items[n_dev + i]));
    plan->n_to_device = n_dev;
    plan->n_to_host = n_host;
    return ZC_OK;
}

/* The list and index within it of item k, for details. */
static void zc__item_name(const zc__blocks_plan *plan, size_t k, const char **list_p, size_t *i_p)
{
    int host = k >= plan->n_to_device;
    *list_p = zc__list_names[host];
    *i_p = host ? k - plan->n_to_device : k;
}

static int zc__range_cmp(const void *a, const void *b)
{
    const zc__blocks_range *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->item < y->item ? -1 : (x->item > y->item);
}

/* The destinations (or sources) of every item, sorted by start: O(n log n). */
static void zc__ranges_sort(zc__blocks_plan *plan, int dst)
{
    size_t n = plan->n_to_device + plan->n_to_host;
    zc__blocks_range *r = dst ? plan->dsts : plan->srcs;
    for (size_t k = 0; k < n; k++) {
        uintptr_t start = dst ? plan->items[k].dst : plan->items[k].src;
        r[k] = (zc__blocks_range){start, start + (plan->items[k].bytes - 1), k};
    }
    qsort(r, n, sizeof *r, zc__range_cmp);
}

/*
 * No two destinations share a byte: sorted by start, any overlap shows between neighbours, as a
 * range that starts at or before the end of the one before it (touching is fine). Then no
 * source shares a byte with a destination (a race: the blocks move in no set order), each
 * source found among the sorted destinations by binary search. O(n log n) in all.
 */
static zc_status zc__overlaps_check(const zc__blocks_plan *plan, const char *who)
{
    size_t n = plan->n_to_device + plan->n_to_host;
    const char *la = NULL, *lb = NULL;
    size_t ia = 0, ib = 0;
    for (size_t k = 1; k < n; k++) {
        const zc__blocks_range *a = &plan->dsts[k - 1], *b = &plan->dsts[k];
        if (b->start <= a->last) {
            zc__item_name(plan, a->item, &la, &ia);
            zc__item_name(plan, b->item, &lb, &ib);
            return ZC_FAIL(ZC_ERR_OVERLAP,
                           "%s: destinations overlap: %s block %zu [%#jx, %#jx] and %s block %zu "
                           "[%#jx, %#jx]",
                           who, la, ia, (uintmax_t)a->start, (uintmax_t)a->last, lb, ib,
                           (uintmax_t)b->start, (uintmax_t)b->last);
        }
    }
    for (size_t k = 0; k < n; k++) {
        const zc__blocks_range *s = &plan->srcs[k];
        /* The last destination starting at or before the source's end: the only one that may
         * reach into it, since the sorted destinations do not overlap. */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (plan->dsts[mid].start <= s->last)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0 || plan->dsts[lo - 1].last < s->start)
            continue;
        zc__item_name(plan, s->item, &la, &ia);
        zc__item_name(plan, plan->dsts[lo - 1].item, &lb, &ib);
        return ZC_FAIL(ZC_ERR_OVERLAP,
                       "%s: %s block %zu's source overlaps %s block %zu's destination", who, la, ia,
                       lb, ib);
    }
    return ZC_OK;
}

static const char *zc__mem_words(zc__blocks_mem mem)
{
    switch (mem) {
    case ZC__BLOCKS_MEM_PAGEABLE:
        return "pageable host memory";
    case ZC__BLOCKS_MEM_PINNED:
        return "pinned host memory";
    case ZC__BLOCKS_MEM_MAPPED:
        return "mapped pinned host memory";
    case ZC__BLOCKS_MEM_DEVICE:
        return "device memory";
    case ZC__BLOCKS_MEM_MANAGED:
        return "managed memory";
    default:
        return "memory unknown to CUDA";
    }
}

/* The walk over sorted ranges of one side (sources or destinations) and the allocation seen
 * last, so that blocks of one allocation cost one query. */
typedef struct zc__walk {
    const zc__blocks_plan *plan;
    const zc__blocks_env *env;
    int dst;
    zc__blocks_region region;
    int have_region;
    int all_host_mapped;
} zc__walk;

/* Whether memory of this region may be the side of a block that the item's list names. */
static zc_status zc__side_check(const zc__walk *w, const zc__blocks_range *r, int host_side)
{
    const char *list = NULL;
    size_t i = 0;
    zc__item_name(w->plan, r->item, &list, &i);
    const char *end = w->dst ? "dst" : "src";
    zc__blocks_mem mem = w->region.mem;
    if (host_side && mem != ZC__BLOCKS_MEM_PINNED && mem != ZC__BLOCKS_MEM_MAPPED)
        return ZC_FAIL(ZC_ERR_WRONG_KIND,
                       "%s: %s block %zu: %s is %s; the host side must be pinned "
                       "(zc_buffer_alloc) or registered (zc_buffer_register) memory",
                       w->env->who, list, i, end, zc__mem_words(mem));
    if (!host_side && mem != ZC__BLOCKS_MEM_DEVICE)
        return ZC_FAIL(ZC_ERR_WRONG_KIND,
                       "%s: %s block %zu: %s is %s; the device side must be device memory of "
                       "GPU %d",
                       w->env->who, list, i, end, zc__mem_words(mem), w->env->device);
    if (!host_side && w->region.device != w->env->device)
        return ZC_FAIL(ZC_ERR_WRONG_KIND,
                       "%s: %s block %zu: %s is device memory of GPU %d, not of the mover's GPU "
                       "%d",
                       w->env->who, list, i, end, w->region.device, w->env->device);
    return ZC_OK;
}

static zc_status zc__past_end(const zc__walk *w, const zc__blocks_range *r)
{
    const char *list = NULL;
    size_t i = 0;
    zc__item_name(w->plan, r->item, &list, &i);
    return ZC_FAIL(ZC_ERR_WRONG_KIND,
                   "%s: %s block %zu: %s [%#jx, %#jx] runs past its allocation (%s from %#jx, "
                   "%zu bytes)",
                   w->env->who, list, i, w->dst ? "dst" : "src", (uintmax_t)r->start,
                   (uintmax_t)r->last, zc__mem_words(w->region.mem), (uintmax_t)w->region.base,
                   w->region.size);
}

/* Where the allocation's extent is unknown, the range's last byte must be the same memory:
 * same kind, same GPU, and for mapped memory the same mapping. */
static zc_status zc__last_byte_check(zc__walk *w, const zc__blocks_range *r)
{
    zc__blocks_region tail;
    ZC_CHECK(w->env->ops.query(w->env->ops.ctx, r->last, &tail));
    int same = tail.mem == w->region.mem && tail.device == w->region.device;
    if (same && tail.mem == ZC__BLOCKS_MEM_MAPPED)
        same = tail.dev_base - w->region.dev_base == tail.base - w->region.base;
    return same ? ZC_OK : zc__past_end(w, r);
}

/* One range: its allocation asked for unless the last one holds it, its kind and extent
 * checked, the kernel's address of a host end noted on the item. */
static zc_status zc__walk_one(zc__walk *w, const zc__blocks_range *r)
{
    const zc__blocks_region *g = &w->region;
    int held =
        w->have_region && g->size != 0 && r->start >= g->base && r->start - g->base < g->size;
    if (!held) {
        w->have_region = 0;
        ZC_CHECK(w->env->ops.query(w->env->ops.ctx, r->start, &w->region));
        w->have_region = 1;
    }
    zc__blocks_item *item = &w->plan->items[r->item];
    int to_host = r->item >= w->plan->n_to_device;
    int host_side = w->dst ? to_host : !to_host;
    ZC_CHECK(zc__side_check(w, r, host_side));
    if (g->size != 0 && r->last - g->base >= g->size)
        return zc__past_end(w, r);
    if (g->size == 0)
        ZC_CHECK(zc__last_byte_check(w, r));
    if (host_side) {
        if (g->mem == ZC__BLOCKS_MEM_MAPPED && g->dev_base != 0)
            item->host_dev = g->dev_base + (r->start - g->base);
        else
            w->all_host_mapped = 0;
    }
    return ZC_OK;
}

/* Every source or destination range: what memory it is, and that it stays in it. */
static zc_status zc__kinds_check(zc__blocks_plan *plan, const zc__blocks_env *env, int dst,
                                 int *all_mapped_p)
{
    zc__walk w;
    memset(&w, 0, sizeof w);
    w.plan = plan;
    w.env = env;
    w.dst = dst;
    w.all_host_mapped = 1;
    size_t n = plan->n_to_device + plan->n_to_host;
    const zc__blocks_range *r = dst ? plan->dsts : plan->srcs;
    for (size_t k = 0; k < n; k++)
        ZC_CHECK(zc__walk_one(&w, &r[k]));
    if (!w.all_host_mapped)
        *all_mapped_p = 0;
    return ZC_OK;
}

/* Why engine cannot move this move, or NULL when it can. */
static const char *zc__unreachable(const zc__blocks_env *env, const zc_blocks_options *options,
                                   zc_blocks_engine engine, int all_mapped)
{
    unsigned needs = zc__blocks_engine_row_of(engine)->needs;
    if ((needs & ZC__BLOCKS_NEEDS_BATCH_RUNTIME) && !env->batch_runtime)
        return "this CUDA runtime or driver has no cudaMemcpyBatchAsync (both need CUDA 12.8 or "
               "newer)";
    if ((needs & ZC__BLOCKS_NEEDS_STREAM) &&
        (options->stream == NULL || (uintptr_t)options->stream == 1u))
        return "cudaMemcpyBatchAsync refuses the legacy default stream: pass a stream";
    if ((needs & ZC__BLOCKS_NEEDS_MAPPED) && !all_mapped)
        return "a host block is not mapped for the device (allocate it with "
               "ZC_BUFFER_FLAG_MAPPED, or register it so)";
    return NULL;
}

/* Each engine's reach and predicted time, and the choice: the one asked for, or the reachable
 * one with the least predicted time (the earlier row on a tie: the copy engines take no SMs). */
static zc_status zc__choose(zc__blocks_plan *plan, const zc__blocks_env *env,
                            const zc_blocks_options *options, int all_mapped)
{
    zc_blocks_choice *c = &plan->choice;
    unsigned sms = options->max_sms != 0 ? options->max_sms : env->max_sms;
    if (sms > env->sm_count)
        sms = env->sm_count;
    const char *why[ZC_BLOCKS_ENGINE_COUNT] = {NULL};
    c->engine = ZC_BLOCKS_AUTO;
    c->predicted_us[ZC_BLOCKS_AUTO] = -1.0;
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        zc_blocks_engine engine = (zc_blocks_engine)e;
        why[e] = zc__unreachable(env, options, engine, all_mapped);
        if (why[e] == NULL && (zc__blocks_engine_row_of(engine)->needs & ZC__BLOCKS_USES_SMS) &&
            sms == 0)
            why[e] = "the SM limit is 0";
        c->predicted_us[e] = -1.0;
        if (why[e] != NULL)
            continue;
        c->reachable |= 1u << e;
        c->predicted_us[e] =
            zc__blocks_predict_us(env->profile, engine, plan->n_to_device, c->bytes_to_device,
                                  plan->n_to_host, c->bytes_to_host, sms);
        if (c->engine == ZC_BLOCKS_AUTO || c->predicted_us[e] < c->predicted_us[c->engine])
            c->engine = engine;
    }
    if (options->engine != ZC_BLOCKS_AUTO) {
        if (why[options->engine] != NULL)
            return ZC_FAIL(ZC_ERR_UNSUPPORTED, "%s: engine %s cannot move these blocks: %s",
                           env->who, zc_blocks_engine_name(options->engine), why[options->engine]);
        c->engine = options->engine;
    }
    c->sms = (c->reachable >> ZC_BLOCKS_KERNEL) & 1u ? sms : 0u;
    c->calls = zc__blocks_calls(env->profile, c->engine, plan->n_to_device, plan->n_to_host);
    return ZC_OK;
}

static zc_status zc__totals(zc__blocks_plan *plan, const char *who)
{
    zc_blocks_choice *c = &plan->choice;
    size_t n = plan->n_to_device + plan->n_to_host;
    for (size_t k = 0; k < n; k++) {
        size_t *total = k < plan->n_to_device ? &c->bytes_to_device : &c->bytes_to_host;
        if (!zc__size_add(*total, plan->items[k].bytes, total))
            return ZC_FAIL(ZC_ERR_OVERFLOW, "%s: the blocks' bytes overflow", who);
    }
    c->blocks = n;
    return ZC_OK;
}

zc_status zc__blocks_plan_make(zc__blocks_plan *plan, const zc__blocks_env *env,
                               const zc_blocks_desc *desc, const zc_blocks_options *options)
{
    const char *who = env->who;
    if (desc->dir != ZC_BLOCKS_TO_DEVICE && desc->dir != ZC_BLOCKS_TO_HOST &&
        desc->dir != ZC_BLOCKS_BOTH)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "%s: dir is %d, not ZC_BLOCKS_TO_DEVICE, ZC_BLOCKS_TO_HOST or "
                       "ZC_BLOCKS_BOTH",
                       who, (int)desc->dir);
    if ((int)options->engine < 0 || (int)options->engine >= ZC_BLOCKS_ENGINE_COUNT)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: options' engine %d is not a zc_blocks_engine", who,
                       (int)options->engine);
    ZC_CHECK(zc__list_check(who, desc, 0));
    ZC_CHECK(zc__list_check(who, desc, 1));
    memset(&plan->choice, 0, sizeof plan->choice);
    plan->n_to_device = plan->n_to_host = 0;
    ZC_CHECK(zc__items_make(plan, who, desc));
    ZC_CHECK(zc__totals(plan, who));
    zc__ranges_sort(plan, 1);
    zc__ranges_sort(plan, 0);
    ZC_CHECK(zc__overlaps_check(plan, who));
    int all_mapped = 1;
    ZC_CHECK(zc__kinds_check(plan, env, 1, &all_mapped));
    ZC_CHECK(zc__kinds_check(plan, env, 0, &all_mapped));
    return zc__choose(plan, env, options, all_mapped);
}
