/* SPDX-License-Identifier: Apache-2.0 */
/* The pool's bookkeeping with fake blocks, and a pageable pool through the public API. */
#include "test_support.h"

#include <pthread.h>
#include <string.h>

#include "core/host.h"
#include "mem/pages.h"
#include "mem/pool_core.h"
#include "zerocopy/buffer.h"
#include "zerocopy/pool.h"

#define KIB ((size_t)1024)
#define MIB ((size_t)1024 * 1024)

/* Fake blocks and events: a block is a number; an event is a flag the test sets. */
typedef struct fake_event {
    int done;
    int destroyed;
} fake_event;

typedef struct fake_world {
    int released[64];
    size_t release_count;
    int event_released_pending; /* a block released while its event was not done */
} fake_world;

static int fake_done(void *ctx, void *event)
{
    (void)ctx;
    return ((fake_event *)event)->done;
}

static void fake_destroy(void *ctx, void *event)
{
    (void)ctx;
    ((fake_event *)event)->destroyed = 1;
}

static void fake_release(void *ctx, void *block, void *event)
{
    fake_world *w = ctx;
    if (event != NULL) {
        fake_event *e = event;
        if (!e->done)
            w->event_released_pending++;
        e->destroyed = 1;
    }
    assert_true(w->release_count < 64);
    w->released[w->release_count++] = (int)(intptr_t)block;
}

static zc__pool_core make_core(fake_world *w, size_t max_cached)
{
    memset(w, 0, sizeof *w);
    zc__pool_ops ops = {fake_done, fake_destroy, fake_release, w};
    zc__pool_core core;
    zc__pool_core_init(&core, max_cached, &ops);
    return core;
}

#define BLOCK(n) ((void *)(intptr_t)(n))

static void test_fit_limit(void **state)
{
    (void)state;
    size_t page = zc__page_size();
    assert_int_equal(zc__pool_fit_limit(4 * MIB), 5 * MIB + page);
    assert_int_equal(zc__pool_fit_limit(100), 100 + 25 + page);
    assert_int_equal(zc__pool_fit_limit(SIZE_MAX - 1), SIZE_MAX);
}

static void test_miss_hit_best_fit(void **state)
{
    (void)state;
    fake_world w;
    zc__pool_core core = make_core(&w, 0);
    void *block = NULL;
    size_t cap = 0;
    /* Empty: a miss. */
    assert_int_equal(zc__pool_core_take(&core, MIB, &block, &cap), 0);
    zc__pool_core_added(&core, MIB, MIB);
    assert_int_equal(core.stats.misses, 1);
    assert_int_equal(core.stats.bytes_requested, MIB);
    assert_int_equal(core.stats.bytes_in_use, MIB);

    /* Three blocks come back: 1 MiB, 1.2 MiB and 8 MiB. */
    zc__pool_core_added(&core, 1200 * KIB, 1200 * KIB);
    zc__pool_core_added(&core, 8 * MIB, 8 * MIB);
    zc__pool_core_put(&core, BLOCK(2), 1200 * KIB, 1200 * KIB, NULL);
    zc__pool_core_put(&core, BLOCK(3), 8 * MIB, 8 * MIB, NULL);
    zc__pool_core_put(&core, BLOCK(1), MIB, MIB, NULL);
    assert_int_equal(core.stats.blocks_cached, 3);
    assert_int_equal(core.stats.bytes_cached, 9 * MIB + 1200 * KIB);
    assert_int_equal(core.stats.bytes_in_use, 0);
    assert_int_equal(core.stats.bytes_requested, 0);

    /* 1000 KiB: both 1 MiB and 1.2 MiB fit within the bound; the smaller wins. */
    assert_int_equal(zc__pool_core_take(&core, 1000 * KIB, &block, &cap), 1);
    assert_ptr_equal(block, BLOCK(1));
    assert_int_equal(cap, MIB);
    assert_int_equal(core.stats.bytes_requested, 1000 * KIB);
    assert_int_equal(core.stats.bytes_in_use, MIB);
    /* 1000 KiB again: the 1.2 MiB block is within 25% + a page of it. */
    assert_int_equal(zc__pool_core_take(&core, 1000 * KIB, &block, &cap), 1);
    assert_ptr_equal(block, BLOCK(2));
    /* 2 MiB: the 8 MiB block would waste too much, so a miss, not a power-of-two round-up. */
    assert_int_equal(zc__pool_core_take(&core, 2 * MIB, &block, &cap), 0);
    /* 7 MiB: the 8 MiB block is within bound (7 + 1.75 MiB). */
    assert_int_equal(zc__pool_core_take(&core, 7 * MIB, &block, &cap), 1);
    assert_ptr_equal(block, BLOCK(3));
    assert_int_equal(core.stats.hits, 3);
    assert_int_equal(core.stats.misses, 2);
    assert_int_equal(core.stats.bytes_requested, 2000 * KIB + 7 * MIB);
    assert_int_equal(core.stats.bytes_in_use, 9 * MIB + 1200 * KIB);
    assert_int_equal(core.stats.bytes_pinned, 9 * MIB + 1200 * KIB);
    assert_int_equal(core.stats.blocks_cached, 0);
    zc__pool_core_fini(&core);
    assert_int_equal(w.release_count, 0);
}

static void test_limit_evicts_oldest(void **state)
{
    (void)state;
    fake_world w;
    zc__pool_core core = make_core(&w, 4 * MIB);
    for (int i = 1; i <= 5; i++)
        zc__pool_core_added(&core, MIB, MIB);
    for (int i = 1; i <= 4; i++)
        zc__pool_core_put(&core, BLOCK(i), MIB, MIB, NULL);
    assert_int_equal(core.stats.bytes_cached, 4 * MIB);
    assert_int_equal(w.release_count, 0);
    /* The fifth passes the bound: block 1, the oldest, goes. */
    zc__pool_core_put(&core, BLOCK(5), MIB, MIB, NULL);
    assert_int_equal(w.release_count, 1);
    assert_int_equal(w.released[0], 1);
    assert_int_equal(core.stats.bytes_cached, 4 * MIB);
    assert_int_equal(core.stats.releases, 1);
    /* A block larger than the bound itself is released at once. */
    zc__pool_core_added(&core, 5 * MIB, 5 * MIB);
    zc__pool_core_put(&core, BLOCK(6), 5 * MIB, 5 * MIB, NULL);
    assert_int_equal(w.released[1], 6);
    assert_int_equal(core.stats.bytes_cached, 4 * MIB);
    /* The peak: four cached blocks and the large one lent at the same time. */
    assert_int_equal(core.stats.peak_bytes_pinned, 9 * MIB);

    /* Trim to 2 MiB: the two oldest go (2 and 3). */
    zc__pool_core_trim(&core, 2 * MIB);
    assert_int_equal(w.release_count, 4);
    assert_int_equal(w.released[2], 2);
    assert_int_equal(w.released[3], 3);
    assert_int_equal(core.stats.bytes_cached, 2 * MIB);
    zc__pool_core_trim(&core, 0);
    assert_int_equal(core.stats.bytes_cached, 0);
    assert_int_equal(core.stats.bytes_pinned, 0);
    assert_int_equal(w.release_count, 6);
    zc__pool_core_fini(&core);
    assert_int_equal(w.event_released_pending, 0);
}

static void test_events_block_reuse(void **state)
{
    (void)state;
    fake_world w;
    zc__pool_core core = make_core(&w, 0);
    fake_event e1 = {0, 0}, e2 = {0, 0};
    zc__pool_core_added(&core, MIB, MIB);
    zc__pool_core_added(&core, MIB, MIB);
    zc__pool_core_put(&core, BLOCK(1), MIB, MIB, &e1);
    zc__pool_core_put(&core, BLOCK(2), MIB, MIB, &e2);
    void *block = NULL;
    size_t cap = 0;
    /* Neither copy is done: no reuse. */
    assert_int_equal(zc__pool_core_take(&core, MIB, &block, &cap), 0);
    assert_int_equal(core.stats.waits_skipped, 2);
    /* Trim keeps blocks still in use by the GPU. */
    zc__pool_core_trim(&core, 0);
    assert_int_equal(w.release_count, 0);
    /* The second finishes first; it is the one handed out, its event destroyed. */
    e2.done = 1;
    assert_int_equal(zc__pool_core_take(&core, MIB, &block, &cap), 1);
    assert_ptr_equal(block, BLOCK(2));
    assert_int_equal(e2.destroyed, 1);
    assert_int_equal(e1.destroyed, 0);
    /* Destroying the pool releases the last one, waiting on its event (the release hook). */
    zc__pool_core_fini(&core);
    assert_int_equal(w.release_count, 1);
    assert_int_equal(w.released[0], 1);
    assert_int_equal(e1.destroyed, 1);
}

static void test_public_pageable_pool(void **state)
{
    (void)state;
    zc_buffer_totals before;
    assert_int_equal(zc_buffer_totals_get(&before), ZC_OK);
    zc_pool *pool = NULL;
    assert_int_equal(zc_pool_create(ZC_BUFFER_PAGEABLE, 0, -1, 0, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pool_create(ZC_BUFFER_DEVICE, 0, 0, 0, &pool), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pool_create(ZC_BUFFER_REGISTERED, 0, 0, 0, &pool), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pool_create(ZC_BUFFER_PINNED, 0x4000, 0, 0, &pool), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pool_create(ZC_BUFFER_PINNED, 0, -1, 0, &pool), ZC_ERR_INVALID_ARG);
    assert_null(pool);
    assert_int_equal(zc_pool_create(ZC_BUFFER_PAGEABLE, 0, -1, 0, &pool), ZC_OK);

    zc_buffer *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(zc_pool_alloc(pool, 0, &a), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pool_alloc(pool, SIZE_MAX, &a), ZC_ERR_OVERFLOW);
    assert_int_equal(zc_pool_alloc(NULL, 64, &a), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pool_alloc(pool, 64, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_pool_alloc(pool, 1536 * KIB, &a), ZC_OK);
    void *host_a = zc_buffer_host_ptr(a);
    zc_buffer_info info;
    assert_int_equal(zc_buffer_info_get(a, &info), ZC_OK);
    assert_int_equal(info.size, 1536 * KIB);
    assert_int_equal(info.capacity, 1536 * KIB); /* not rounded to 2 MiB */
    assert_true(info.notes & ZC_BUFFER_NOTE_POOLED);
    memset(host_a, 1, info.size);

    zc_pool_stats st;
    assert_int_equal(zc_pool_stats_get(pool, &st), ZC_OK);
    assert_int_equal(st.misses, 1);
    assert_int_equal(st.bytes_requested, 1536 * KIB);
    assert_int_equal(st.bytes_pinned, 1536 * KIB);

    /* Back to the pool, then served again: the same memory, a new handle. */
    assert_int_equal(zc_pool_free(pool, a), ZC_OK);
    assert_int_equal(zc_pool_free(pool, a), ZC_ERR_DOUBLE_FREE);
    assert_int_equal(zc_buffer_free(a), ZC_ERR_DOUBLE_FREE);
    assert_int_equal(zc_pool_alloc(pool, 1400 * KIB, &b), ZC_OK);
    assert_ptr_equal(zc_buffer_host_ptr(b), host_a);
    assert_int_equal(zc_buffer_size(b), 1400 * KIB);
    assert_ptr_not_equal(a, b);
    assert_int_equal(zc_buffer_free(a), ZC_ERR_DOUBLE_FREE); /* stale handle, live block */
    assert_int_equal(zc_pool_stats_get(pool, &st), ZC_OK);
    assert_int_equal(st.hits, 1);
    assert_int_equal(st.bytes_requested, 1400 * KIB);
    assert_int_equal(st.bytes_in_use, 1536 * KIB);

    /* The pointer query sees the pool's block. */
    zc_pointer_info pi;
    assert_int_equal(zc_pointer_query((char *)host_a + 10, &pi), ZC_OK);
    assert_int_equal(pi.from_zerocopy, 1);
    assert_int_equal(pi.offset, 10);

    /* zc_buffer_free gives a pool's buffer back to its pool. */
    assert_int_equal(zc_buffer_free(b), ZC_OK);
    assert_int_equal(zc_pool_stats_get(pool, &st), ZC_OK);
    assert_int_equal(st.blocks_cached, 1);
    assert_int_equal(st.blocks_in_use, 0);

    /* A buffer from elsewhere is refused and kept. */
    zc_buffer *plain = NULL;
    assert_int_equal(zc_buffer_alloc(4096, ZC_BUFFER_PAGEABLE, 0, -1, &plain), ZC_OK);
    assert_int_equal(zc_pool_free(pool, plain), ZC_ERR_WRONG_KIND);
    assert_non_null(zc_buffer_host_ptr(plain));
    assert_int_equal(zc_buffer_free(plain), ZC_OK);
    assert_int_equal(zc_pool_free(pool, NULL), ZC_OK);

    /* Trim releases the cache; destroy ends lent handles. */
    assert_int_equal(zc_pool_trim(pool, 0), ZC_OK);
    assert_int_equal(zc_pool_stats_get(pool, &st), ZC_OK);
    assert_int_equal(st.bytes_cached, 0);
    assert_int_equal(st.releases, 1);
    assert_int_equal(zc_pool_alloc(pool, 5000, &c), ZC_OK);
    zc_pool_destroy(pool);
    zc_pool_destroy(NULL);
    assert_int_equal(zc_buffer_free(c), ZC_ERR_DOUBLE_FREE);

    zc_buffer_totals after;
    assert_int_equal(zc_buffer_totals_get(&after), ZC_OK);
    assert_int_equal(after.live_buffers, before.live_buffers);
    assert_int_equal(after.live_blocks, before.live_blocks);
    assert_int_equal(after.bytes[ZC_BUFFER_PAGEABLE], before.bytes[ZC_BUFFER_PAGEABLE]);
}

typedef struct worker_arg {
    zc_pool *pool;
    unsigned seed;
    int failures;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *arg = p;
    zc_buffer *held[8] = {0};
    for (int i = 0; i < 2000; i++) {
        arg->seed = arg->seed * 1103515245u + 12345u;
        int slot = (int)((arg->seed >> 16) % 8);
        if (held[slot] != NULL) {
            unsigned char *host = zc_buffer_host_ptr(held[slot]);
            /* Nobody else wrote into the block while it was lent to this thread. */
            if (host == NULL || host[0] != (unsigned char)slot)
                arg->failures++;
            if (zc_pool_free(arg->pool, held[slot]) != ZC_OK)
                arg->failures++;
            held[slot] = NULL;
        } else {
            size_t size = 4096 * (1 + (arg->seed >> 20) % 64);
            if (zc_pool_alloc(arg->pool, size, &held[slot]) != ZC_OK) {
                arg->failures++;
                continue;
            }
            unsigned char *host = zc_buffer_host_ptr(held[slot]);
            memset(host, slot, size);
        }
    }
    for (int s = 0; s < 8; s++) {
        if (held[s] != NULL && zc_pool_free(arg->pool, held[s]) != ZC_OK)
            arg->failures++;
    }
    return NULL;
}

static void test_pool_threads(void **state)
{
    (void)state;
    zc_pool *pool = NULL;
    assert_int_equal(zc_pool_create(ZC_BUFFER_PAGEABLE, 0, -1, 16 * MIB, &pool), ZC_OK);
    enum { THREADS = 6 };
    pthread_t ids[THREADS];
    worker_arg args[THREADS];
    for (int t = 0; t < THREADS; t++) {
        args[t] = (worker_arg){pool, 17u * (unsigned)t + 1, 0};
        assert_int_equal(pthread_create(&ids[t], NULL, worker, &args[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(ids[t], NULL), 0);
        assert_int_equal(args[t].failures, 0);
    }
    zc_pool_stats st;
    assert_int_equal(zc_pool_stats_get(pool, &st), ZC_OK);
    assert_int_equal(st.blocks_in_use, 0);
    assert_int_equal(st.bytes_in_use, 0);
    assert_int_equal(st.bytes_requested, 0);
    assert_true(st.bytes_cached <= 16 * MIB);
    assert_true(st.hits > 0);
    fprintf(stderr, "threads: %llu hits, %llu misses, %llu releases, %zu bytes cached\n",
            (unsigned long long)st.hits, (unsigned long long)st.misses,
            (unsigned long long)st.releases, st.bytes_cached);
    zc_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_limit),
        cmocka_unit_test(test_miss_hit_best_fit),
        cmocka_unit_test(test_limit_evicts_oldest),
        cmocka_unit_test(test_events_block_reuse),
        cmocka_unit_test(test_public_pageable_pool),
        cmocka_unit_test(test_pool_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
