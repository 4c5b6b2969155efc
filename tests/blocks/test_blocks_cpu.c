/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover's planning and validation with fake memory: every refusal and its detail,
 * both forms of a list, overlaps, the engine choice from a given profile and its override. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "blocks/blocks_pieces.h"
#include "blocks/blocks_plan.h"
#include "zerocopy/blocks.h"
#include "zerocopy/status.h"

#define KIB ((size_t)1024)
#define MIB ((size_t)1024 * 1024)

/* The fake machine's allocations: addresses are numbers, never touched. */
#define MAPPED_BASE   ((uintptr_t)0x10000000u) /* mapped pinned, 4 MiB, reached at DEV_OF_MAPPED */
#define DEV_OF_MAPPED ((uintptr_t)0x90000000u)
#define PINNED_BASE   ((uintptr_t)0x20000000u) /* pinned, not mapped, 4 MiB */
#define PAGEABLE_BASE ((uintptr_t)0x30000000u) /* pageable, 1 MiB */
#define DEVICE_BASE   ((uintptr_t)0x40000000u) /* device memory of GPU 0, 16 MiB */
#define OTHER_GPU     ((uintptr_t)0x50000000u) /* device memory of GPU 1, 1 MiB */
#define MANAGED_BASE  ((uintptr_t)0x60000000u) /* managed, 1 MiB */
#define NOSIZE_BASE   ((uintptr_t)0x70000000u) /* mapped, 1 MiB, extent not told */

typedef struct fake_world {
    size_t queries;
} fake_world;

static zc_status fake_query(void *ctx, uintptr_t addr, zc__blocks_region *r)
{
    fake_world *w = ctx;
    w->queries++;
    static const zc__blocks_region table[] = {
        {ZC__BLOCKS_MEM_MAPPED, -1, MAPPED_BASE, 4 * MIB, DEV_OF_MAPPED},
        {ZC__BLOCKS_MEM_PINNED, -1, PINNED_BASE, 4 * MIB, 0},
        {ZC__BLOCKS_MEM_PAGEABLE, -1, PAGEABLE_BASE, MIB, 0},
        {ZC__BLOCKS_MEM_DEVICE, 0, DEVICE_BASE, 16 * MIB, 0},
        {ZC__BLOCKS_MEM_DEVICE, 1, OTHER_GPU, MIB, 0},
        {ZC__BLOCKS_MEM_MANAGED, -1, MANAGED_BASE, MIB, 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (addr >= table[i].base && addr - table[i].base < table[i].size) {
            *r = table[i];
            return ZC_OK;
        }
    }
    if (addr >= NOSIZE_BASE && addr - NOSIZE_BASE < MIB) {
        /* As the runtime answers for memory zerocopy did not make: this byte, no extent. */
        *r = (zc__blocks_region){ZC__BLOCKS_MEM_MAPPED, -1, addr, 0,
                                 DEV_OF_MAPPED + 0x1000000u + (addr - NOSIZE_BASE)};
        return ZC_OK;
    }
    *r = (zc__blocks_region){ZC__BLOCKS_MEM_OTHER, -1, addr, 0, 0};
    return ZC_OK;
}

/* Costs chosen for the test: the per-block copy pays 3 us a block, the batch 10 us a call and
 * 0.5 us a block, the kernel 5 us a launch, 0.1 us a block and 2 GB/s per SM. */
static zc_blocks_profile test_profile(void)
{
    zc_blocks_profile p;
    assert_int_equal(zc_blocks_profile_default(&p), ZC_OK);
    const zc_blocks_cost copy = {0.0, 3.0, 50.0}, batch = {10.0, 0.5, 50.0},
                         kernel = {5.0, 0.1, 40.0};
    p.to_device[ZC_BLOCKS_COPY] = p.to_host[ZC_BLOCKS_COPY] = copy;
    p.to_device[ZC_BLOCKS_BATCH] = p.to_host[ZC_BLOCKS_BATCH] = batch;
    p.to_device[ZC_BLOCKS_KERNEL] = p.to_host[ZC_BLOCKS_KERNEL] = kernel;
    p.kernel_sm_gbps = 2.0;
    p.batch_max = 100;
    p.measured = 1;
    return p;
}

typedef struct fixture {
    fake_world world;
    zc_blocks_profile profile;
    zc__blocks_env env;
    zc__blocks_plan plan;
    zc_blocks_options options;
    zc_block blocks[2][2100];
    zc_blocks_desc desc;
} fixture;

static fixture *fixture_new(void)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->profile = test_profile();
    f->env = (zc__blocks_env){{fake_query, &f->world}, "zc_blocks_plan", 0, 132, 8, 1, &f->profile};
    zc__blocks_plan_init(&f->plan);
    f->options.stream = (struct CUstream_st *)(uintptr_t)0x1000; /* a stream of the caller's */
    return f;
}

static void fixture_free(fixture *f)
{
    zc__blocks_plan_fini(&f->plan);
    free(f);
}

/* n blocks of bytes to the device, from host base (stride apart) to device memory. */
static void to_device(fixture *f, uintptr_t host, uintptr_t dev, size_t n, size_t bytes)
{
    f->desc.dir |= ZC_BLOCKS_TO_DEVICE;
    for (size_t i = 0; i < n; i++)
        f->blocks[0][i] =
            (zc_block){(const void *)(host + i * bytes), (void *)(dev + i * bytes), bytes};
    f->desc.to_device = (zc_blocks_list){n, f->blocks[0], NULL, NULL, 0, NULL, NULL};
}

static void to_host(fixture *f, uintptr_t dev, uintptr_t host, size_t n, size_t bytes)
{
    f->desc.dir |= ZC_BLOCKS_TO_HOST;
    for (size_t i = 0; i < n; i++)
        f->blocks[1][i] =
            (zc_block){(const void *)(dev + i * bytes), (void *)(host + i * bytes), bytes};
    f->desc.to_host = (zc_blocks_list){n, f->blocks[1], NULL, NULL, 0, NULL, NULL};
}

static zc_status plan(fixture *f)
{
    zc_clear_error();
    return zc__blocks_plan_make(&f->plan, &f->env, &f->desc, &f->options);
}

/* The plan is refused with status, its detail naming the call and containing words. */
static void expect_refused(fixture *f, zc_status status, const char *words)
{
    zc_status st = plan(f);
    if (st != status || strstr(zc_last_error(), words) == NULL ||
        strstr(zc_last_error(), "zc_blocks_plan") == NULL)
        fail_msg("expected %s with \"%s\", got %s: %s", zc_status_name(status), words,
                 zc_status_name(st), zc_last_error());
}

static void test_list_refusals(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    f->desc.dir = (zc_blocks_dir)5;
    expect_refused(f, ZC_ERR_INVALID_ARG, "dir is 5");
    f->desc.dir = ZC_BLOCKS_TO_DEVICE;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_device.count is 0");
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, KIB);
    f->desc.to_host.count = 1;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_host is not all 0 but dir (1) does not name it");
    f->desc.to_host.count = 0;
    f->blocks[0][2].src = NULL;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_device block 2: src is NULL");
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, KIB);
    f->blocks[0][3].dst = NULL;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_device block 3: dst is NULL");
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, KIB);
    f->blocks[0][1].bytes = 0;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_device block 1: bytes is 0");
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, KIB);
    f->blocks[0][0].dst = (void *)(UINTPTR_MAX - 100);
    f->blocks[0][0].bytes = 101;
    /* To the last byte of the address space: no overflow, but no memory there. */
    expect_refused(f, ZC_ERR_WRONG_KIND, "to_device block 0: dst is memory unknown to CUDA");
    f->blocks[0][0].bytes = 102;
    expect_refused(f, ZC_ERR_OVERFLOW, "to_device block 0: 102 bytes run past the address space");
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, KIB);
    f->desc.to_device.block_bytes = KIB;
    expect_refused(f, ZC_ERR_INVALID_ARG, "has both blocks and the indexed form's fields");
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, KIB);
    f->options.engine = (zc_blocks_engine)9;
    expect_refused(f, ZC_ERR_INVALID_ARG, "options' engine 9 is not a zc_blocks_engine");
    fixture_free(f);
}

static void test_indexed_refusals_and_form(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    size_t src_index[3] = {5, 0, 2}, dst_index[3] = {1, 7, 3};
    f->desc.dir = ZC_BLOCKS_TO_HOST;
    f->desc.to_host = (zc_blocks_list){
        3, NULL, (const void *)DEVICE_BASE, (void *)MAPPED_BASE, 4 * KIB, src_index, dst_index};
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(f->plan.n_to_device, 0);
    assert_int_equal(f->plan.n_to_host, 3);
    for (size_t i = 0; i < 3; i++) {
        const zc__blocks_item *it = &f->plan.items[i];
        assert_int_equal(it->src, DEVICE_BASE + src_index[i] * 4 * KIB);
        assert_int_equal(it->dst, MAPPED_BASE + dst_index[i] * 4 * KIB);
        assert_int_equal(it->bytes, 4 * KIB);
        /* Where the kernel reaches the host end: the mapping's address of the same byte. */
        assert_int_equal(it->host_dev, DEV_OF_MAPPED + dst_index[i] * 4 * KIB);
    }
    assert_int_equal(f->plan.choice.bytes_to_host, 12 * KIB);
    assert_int_equal(f->plan.choice.blocks, 3);

    f->desc.to_host.src_index = NULL;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_host has no blocks and its src_index is NULL");
    f->desc.to_host.src_index = src_index;
    f->desc.to_host.dst_base = NULL;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_host has no blocks and its dst_base is NULL");
    f->desc.to_host.dst_base = (void *)MAPPED_BASE;
    f->desc.to_host.block_bytes = 0;
    expect_refused(f, ZC_ERR_INVALID_ARG, "to_host.block_bytes is 0");
    f->desc.to_host.block_bytes = 4 * KIB;
    src_index[1] = SIZE_MAX / 2;
    expect_refused(f, ZC_ERR_OVERFLOW,
                   "to_host block 1: src + src_index 9223372036854775807 * block_bytes 4096 "
                   "overflows");
    src_index[1] = (size_t)(UINTPTR_MAX - DEVICE_BASE) / (4 * KIB) + 1;
    expect_refused(f, ZC_ERR_OVERFLOW, "to_host block 1: src + src_index");
    src_index[1] = 0;
    /* An index past the allocation: the block runs past it. */
    dst_index[2] = 1024; /* 4 MiB in: the first byte after the mapped allocation */
    expect_refused(f, ZC_ERR_WRONG_KIND, "to_host block 2: dst");
    dst_index[2] = 1023;
    assert_int_equal(plan(f), ZC_OK);
    fixture_free(f);
}

static void test_kind_refusals(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    to_device(f, PAGEABLE_BASE, DEVICE_BASE, 2, KIB);
    expect_refused(f, ZC_ERR_WRONG_KIND,
                   "to_device block 0: src is pageable host memory; the host side must be "
                   "pinned (zc_buffer_alloc) or registered (zc_buffer_register) memory");
    to_device(f, MANAGED_BASE, DEVICE_BASE, 2, KIB);
    expect_refused(f, ZC_ERR_WRONG_KIND, "src is managed memory; the host side must be pinned");
    to_device(f, 0x7f0000000000u, DEVICE_BASE, 2, KIB);
    expect_refused(f, ZC_ERR_WRONG_KIND, "src is memory unknown to CUDA");
    to_device(f, PINNED_BASE, PINNED_BASE + MIB, 2, KIB);
    expect_refused(f, ZC_ERR_WRONG_KIND,
                   "to_device block 0: dst is pinned host memory; the device side must be "
                   "device memory of GPU 0");
    to_device(f, PINNED_BASE, OTHER_GPU, 2, KIB);
    expect_refused(f, ZC_ERR_WRONG_KIND, "dst is device memory of GPU 1, not of the mover's GPU 0");
    /* The last block's last byte one past the 16 MiB of device memory. */
    to_device(f, PINNED_BASE, DEVICE_BASE + 16 * MIB - 2 * KIB, 2, KIB);
    f->blocks[0][1].bytes = KIB + 1;
    expect_refused(f, ZC_ERR_WRONG_KIND, "to_device block 1: dst");
    expect_refused(f, ZC_ERR_WRONG_KIND, "runs past its allocation (device memory from");
    f->blocks[0][1].bytes = KIB;
    assert_int_equal(plan(f), ZC_OK);
    /* An allocation whose extent the query does not tell: its last byte is asked about. */
    to_device(f, NOSIZE_BASE + MIB - 2 * KIB, DEVICE_BASE, 2, KIB);
    assert_int_equal(plan(f), ZC_OK);
    f->blocks[0][1].bytes = KIB + 1;
    expect_refused(f, ZC_ERR_WRONG_KIND, "to_device block 1: src");
    expect_refused(f, ZC_ERR_WRONG_KIND, "runs past its allocation (mapped pinned host memory");
    fixture_free(f);
}

static void test_overlaps(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    /* Destinations given out of order, touching: fine. */
    to_device(f, PINNED_BASE, DEVICE_BASE, 3, 4 * KIB);
    f->blocks[0][0].dst = (void *)(DEVICE_BASE + 8 * KIB);
    f->blocks[0][2].dst = (void *)DEVICE_BASE;
    assert_int_equal(plan(f), ZC_OK);
    /* By one byte: refused, naming both blocks. */
    f->blocks[0][2].bytes = 4 * KIB + 1;
    expect_refused(f, ZC_ERR_OVERLAP, "destinations overlap: to_device block 2");
    expect_refused(f, ZC_ERR_OVERLAP, "and to_device block 1");
    /* Equal starts overlap too. */
    f->blocks[0][2].bytes = 4 * KIB;
    f->blocks[0][2].dst = f->blocks[0][1].dst;
    expect_refused(f, ZC_ERR_OVERLAP, "destinations overlap");
    /* Both directions: a to-host destination on a to-device source is a race. */
    memset(&f->desc, 0, sizeof f->desc);
    to_device(f, PINNED_BASE, DEVICE_BASE, 2, 4 * KIB);
    to_host(f, DEVICE_BASE + MIB, PINNED_BASE + 8 * KIB, 2, 4 * KIB);
    assert_int_equal(plan(f), ZC_OK);
    f->blocks[1][0].dst = (void *)(PINNED_BASE + 8 * KIB - 1);
    expect_refused(f, ZC_ERR_OVERLAP,
                   "to_device block 1's source overlaps to_host block 0's "
                   "destination");
    fixture_free(f);
}

/* One query per allocation, not per block: the sorted ranges reuse the allocation seen last. */
static void test_queries_per_allocation(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    to_device(f, MAPPED_BASE, DEVICE_BASE, 2000, 512);
    f->world.queries = 0;
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(f->world.queries, 2);
    /* Where the extent is not told: each range's first and last byte. */
    to_device(f, NOSIZE_BASE, DEVICE_BASE, 100, 512);
    f->world.queries = 0;
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(f->world.queries, 1 + 2 * 100);
    fixture_free(f);
}

static void test_choice_by_size(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    /* 2000 blocks of 512 bytes, mapped host memory: copy 6000 us, batch 20 calls (200 us) + 1000
     * us + 1024000 B at 50 GB/s (20.48 us), kernel 2 launches (10 us) + 200 us + 1024000 B at
     * 16 GB/s (8 SMs * 2; 64 us). */
    to_device(f, MAPPED_BASE, DEVICE_BASE, 2000, 512);
    assert_int_equal(plan(f), ZC_OK);
    const zc_blocks_choice *c = &f->plan.choice;
    assert_int_equal(c->reachable,
                     (1u << ZC_BLOCKS_COPY) | (1u << ZC_BLOCKS_BATCH) | (1u << ZC_BLOCKS_KERNEL));
    assert_double_equal(c->predicted_us[ZC_BLOCKS_COPY], 6000.0 + 20.48, 1e-9);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_BATCH], 200.0 + 1000.0 + 20.48, 1e-9);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_KERNEL], 10.0 + 200.0 + 64.0, 1e-9);
    assert_int_equal(c->engine, ZC_BLOCKS_KERNEL);
    assert_int_equal(c->sms, 8);
    assert_int_equal(c->calls, 2);
    /* The same on pinned memory that is not mapped: the kernel cannot reach it. */
    to_device(f, PINNED_BASE, DEVICE_BASE, 2000, 512);
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(c->reachable, (1u << ZC_BLOCKS_COPY) | (1u << ZC_BLOCKS_BATCH));
    assert_double_equal(c->predicted_us[ZC_BLOCKS_KERNEL], -1.0, 0.0);
    assert_int_equal(c->engine, ZC_BLOCKS_BATCH);
    assert_int_equal(c->calls, 20);
    /* Four blocks of 1 MiB: the copy engine, block by block (kernel at 16 GB/s loses). */
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, MIB);
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(c->engine, ZC_BLOCKS_COPY);
    assert_int_equal(c->calls, 4);
    /* A larger SM limit in the options lifts the kernel's bandwidth, up to the GPU's SMs. */
    f->options.max_sms = 1000;
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(c->sms, 132);
    f->options.max_sms = 0;
    /* Both directions at once: the copy engines' slower direction is their time. */
    memset(&f->desc, 0, sizeof f->desc);
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, MIB);
    to_host(f, DEVICE_BASE + 8 * MIB, PINNED_BASE + 2 * MIB, 2, MIB);
    assert_int_equal(plan(f), ZC_OK);
    double d = 4 * 3.0 + 4.0 * MIB / 50e3, h = 2 * 3.0 + 2.0 * MIB / 50e3;
    assert_double_equal(c->predicted_us[ZC_BLOCKS_COPY], d > h ? d : h, 1e-9);
    assert_int_equal(c->blocks, 6);
    assert_int_equal(c->bytes_to_device, 4 * MIB);
    assert_int_equal(c->bytes_to_host, 2 * MIB);
    /* One list's host side not mapped: no kernel for the move. */
    assert_int_equal(c->reachable & (1u << ZC_BLOCKS_KERNEL), 0);
    /* Many small blocks both ways: one host thread queues both lists, so their host sides add
     * up (copy 1000 * 3 us each way; batch 10 calls * 10 us + 1000 * 0.5 us each way), longer
     * than either direction alone. */
    memset(&f->desc, 0, sizeof f->desc);
    to_device(f, MAPPED_BASE, DEVICE_BASE, 1000, 512);
    to_host(f, DEVICE_BASE + 8 * MIB, PINNED_BASE + 2 * MIB, 1000, 512);
    assert_int_equal(plan(f), ZC_OK);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_COPY], 2 * 1000 * 3.0, 1e-9);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_BATCH], 2 * (10 * 10.0 + 1000 * 0.5), 1e-9);
    assert_int_equal(c->engine, ZC_BLOCKS_BATCH);
    /* Large blocks both ways on a link that carries 60 GB/s both ways (50 each way alone): both
     * directions' bytes at 60, plus the slower direction's costs per call and block, bound the
     * copy engines, whose own costs still rank them (two blocks a way: the batch's 10 us call
     * costs more than the per-block copy's 3 us a block). */
    memset(&f->desc, 0, sizeof f->desc);
    to_device(f, MAPPED_BASE, DEVICE_BASE, 2, MIB);
    to_host(f, DEVICE_BASE + 8 * MIB, PINNED_BASE + 2 * MIB, 2, MIB);
    f->profile.both_gbps = 60.0;
    assert_int_equal(plan(f), ZC_OK);
    double link = 4.0 * MIB / 60e3;
    assert_double_equal(c->predicted_us[ZC_BLOCKS_COPY], link + 2 * 3.0, 1e-9);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_BATCH], link + 10.0 + 2 * 0.5, 1e-9);
    assert_int_equal(c->engine, ZC_BLOCKS_COPY);
    /* One way the ceiling both ways does not bind. */
    memset(&f->desc, 0, sizeof f->desc);
    to_device(f, MAPPED_BASE, DEVICE_BASE, 4, MIB);
    assert_int_equal(plan(f), ZC_OK);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_COPY], 4 * 3.0 + 4.0 * MIB / 50e3, 1e-9);
    f->profile.both_gbps = 0.0;
    /* Both mapped: the kernel moves both lists in the same launches, the directions add up. */
    memset(&f->desc, 0, sizeof f->desc);
    to_device(f, MAPPED_BASE, DEVICE_BASE, 1500, 512);
    to_host(f, DEVICE_BASE + 8 * MIB, MAPPED_BASE + 2 * MIB, 1000, 256);
    assert_int_equal(plan(f), ZC_OK);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_KERNEL],
                        3 * 5.0 + 2500 * 0.1 + (1500.0 * 512 + 1000.0 * 256) / 16e3, 1e-9);
    assert_int_equal(c->engine, ZC_BLOCKS_KERNEL);
    assert_int_equal(c->calls, 3);
    /* A few blocks each way: one launch holds both lists, but each direction is priced with
     * its own launch (5 us each), as each was measured alone. */
    memset(&f->desc, 0, sizeof f->desc);
    to_device(f, MAPPED_BASE, DEVICE_BASE, 10, 512);
    to_host(f, DEVICE_BASE + 8 * MIB, MAPPED_BASE + 2 * MIB, 10, 512);
    assert_int_equal(plan(f), ZC_OK);
    assert_double_equal(c->predicted_us[ZC_BLOCKS_KERNEL], 2 * (5.0 + 10 * 0.1 + 5120.0 / 16e3),
                        1e-9);
    assert_int_equal(c->calls, 1);
    /* Where the kernel reaches each host end. */
    assert_int_equal(f->plan.items[7].host_dev, DEV_OF_MAPPED + 7 * 512);
    assert_int_equal(f->plan.items[1500 + 9].host_dev, DEV_OF_MAPPED + 2 * MIB + 9 * 256);
    fixture_free(f);
}

static void test_override(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    to_device(f, MAPPED_BASE, DEVICE_BASE, 2000, 512);
    f->options.engine = ZC_BLOCKS_COPY;
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(f->plan.choice.engine, ZC_BLOCKS_COPY);
    assert_int_equal(f->plan.choice.calls, 2000);
    f->options.engine = ZC_BLOCKS_BATCH;
    f->options.stream = NULL;
    expect_refused(f, ZC_ERR_UNSUPPORTED,
                   "engine batch cannot move these blocks: cudaMemcpyBatchAsync refuses the "
                   "legacy default stream");
    f->options.stream = (struct CUstream_st *)(uintptr_t)0x1000;
    f->env.batch_runtime = 0;
    expect_refused(f, ZC_ERR_UNSUPPORTED, "has no cudaMemcpyBatchAsync");
    /* Without the batch, auto never picks it. */
    f->options.engine = ZC_BLOCKS_AUTO;
    assert_int_equal(plan(f), ZC_OK);
    assert_int_equal(f->plan.choice.reachable & (1u << ZC_BLOCKS_BATCH), 0);
    to_device(f, PINNED_BASE, DEVICE_BASE, 2000, 512);
    f->options.engine = ZC_BLOCKS_KERNEL;
    expect_refused(f, ZC_ERR_UNSUPPORTED,
                   "engine kernel cannot move these blocks: a host block is not mapped");
    f->env.max_sms = 0;
    to_device(f, MAPPED_BASE, DEVICE_BASE, 2000, 512);
    expect_refused(f, ZC_ERR_UNSUPPORTED, "the SM limit is 0");
    fixture_free(f);
}

static void test_public_calls(void **state)
{
    (void)state;
    zc_blocks_engine e = ZC_BLOCKS_AUTO;
    for (int i = 0; i < ZC_BLOCKS_ENGINE_COUNT; i++) {
        assert_int_equal(zc_blocks_engine_from_name(zc_blocks_engine_name((zc_blocks_engine)i), &e),
                         ZC_OK);
        assert_int_equal(e, i);
        assert_true(zc_blocks_engine_help((zc_blocks_engine)i)[0] != '\0');
    }
    assert_string_equal(zc_blocks_engine_name(ZC_BLOCKS_KERNEL), "kernel");
    assert_int_equal(zc_blocks_engine_from_name("BATCH", &e), ZC_OK);
    assert_int_equal(e, ZC_BLOCKS_BATCH);
    assert_int_equal(zc_blocks_engine_from_name("dma", &e), ZC_ERR_NOT_FOUND);
    assert_string_equal(zc_blocks_engine_name((zc_blocks_engine)42), "unknown");

    zc_blocks_profile p;
    assert_int_equal(zc_blocks_profile_default(&p), ZC_OK);
    assert_int_equal(p.measured, 0);
    assert_int_equal(zc__blocks_profile_check("t", &p), ZC_OK);
    p.to_host[ZC_BLOCKS_BATCH].block_us = -1.0;
    assert_int_equal(zc__blocks_profile_check("t", &p), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "engine batch must be finite and not negative"));
    assert_int_equal(zc_blocks_profile_default(&p), ZC_OK);
    p.batch_max = 0;
    assert_int_equal(zc__blocks_profile_check("t", &p), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_blocks_profile_default(&p), ZC_OK);
    assert_double_equal(p.both_gbps, 0.0, 0.0); /* the placeholders set no ceiling both ways */
    p.both_gbps = -1.0;
    assert_int_equal(zc__blocks_profile_check("t", &p), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "both_gbps must be finite and not negative"));
    p.both_gbps = NAN;
    assert_int_equal(zc__blocks_profile_check("t", &p), ZC_ERR_INVALID_ARG);

    zc_blocks_choice choice;
    zc_blocks_desc desc;
    zc_blocks_options options;
    memset(&desc, 0, sizeof desc);
    memset(&options, 0, sizeof options);
    assert_int_equal(zc_blocks_plan(NULL, &desc, &options, &choice), ZC_ERR_INVALID_ARG);
    assert_non_null(strstr(zc_last_error(), "argument 'mover' is NULL"));
    assert_int_equal(zc_blocks_move(NULL, &desc, &options, NULL), ZC_ERR_INVALID_ARG);
    zc_blocks_destroy(NULL);
    if (!zc_test_gpu_present()) {
        zc_blocks *m = NULL;
        assert_int_equal(zc_blocks_create(0, &m), ZC_ERR_NO_DEVICE);
        assert_null(m);
    }
}

/* The kernel engine's sharing of a launch among its CTAs and its 16-byte accesses, run on the
 * CPU with the kernel's own arithmetic (blocks_pieces.h): every byte of every block moved
 * exactly once, whatever the grid, and every wide access aligned on both sides. */
static void test_kernel_pieces(void **state)
{
    (void)state;
    enum { BLOCKS = 24 };
    uint64_t bytes[BLOCKS];
    uintptr_t src[BLOCKS], dst[BLOCKS];
    unsigned char *seen[BLOCKS];
    for (size_t b = 0; b < BLOCKS; b++) {
        bytes[b] = 1 + (b * 2654435761u) % (b % 4 == 0 ? 300000u : 5000u);
        src[b] = 0x10000000u + b * 0x100000u + (b * 5u) % 16u;
        dst[b] = 0x90000000u + b * 0x100000u + (b % 3 == 0 ? (b * 5u) % 16u : b % 16u);
        seen[b] = calloc(bytes[b], 1);
        assert_non_null(seen[b]);
    }
    const uint64_t grids[] = {1, 3, 8, 132};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        for (size_t b = 0; b < BLOCKS; b++)
            memset(seen[b], 0, bytes[b]);
        for (uint64_t cta = 0; cta < grids[g]; cta++) {
            uint64_t number = 0;
            for (size_t b = 0; b < BLOCKS; b++) {
                uint64_t pieces = zc__blocks_pieces(bytes[b]);
                for (uint64_t p = zc__blocks_first_piece(cta, grids[g], number); p < pieces;
                     p += grids[g]) {
                    assert_int_equal((number + p) % grids[g], cta);
                    uint64_t from = p * ZC__BLOCKS_PIECE;
                    uint64_t to =
                        from + ZC__BLOCKS_PIECE < bytes[b] ? from + ZC__BLOCKS_PIECE : bytes[b];
                    uint64_t head = 0, body_end = 0;
                    zc__blocks_split(src[b], dst[b], from, to, &head, &body_end);
                    assert_true(from <= head && head <= body_end && body_end <= to);
                    if (body_end > head) {
                        assert_int_equal((src[b] + head) % 16, 0);
                        assert_int_equal((dst[b] + head) % 16, 0);
                        assert_int_equal((body_end - head) % 16, 0);
                    }
                    for (uint64_t i = from; i < to; i++)
                        seen[b][i]++;
                }
                number += pieces;
            }
        }
        for (size_t b = 0; b < BLOCKS; b++)
            for (uint64_t i = 0; i < bytes[b]; i++)
                if (seen[b][i] != 1)
                    fail_msg("grid %llu: block %zu byte %llu moved %d times",
                             (unsigned long long)grids[g], b, (unsigned long long)i, seen[b][i]);
    }
    for (size_t b = 0; b < BLOCKS; b++)
        free(seen[b]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_refusals),
        cmocka_unit_test(test_indexed_refusals_and_form),
        cmocka_unit_test(test_kind_refusals),
        cmocka_unit_test(test_overlaps),
        cmocka_unit_test(test_queries_per_allocation),
        cmocka_unit_test(test_choice_by_size),
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_kernel_pieces),
        cmocka_unit_test(test_public_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
