/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover on a GPU: every engine, each direction and both at once, every byte checked
 * (and the bytes between blocks left alone), in stream order behind a kernel that writes the
 * sources, and the refusals that need real memory. */
#include "test_support.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_kernels.h"
#include "zerocopy/blocks.h"
#include "zerocopy/buffer.h"

#define KIB        ((size_t)1024)
#define MIB        ((size_t)1024 * 1024)
#define AREA       (8 * MIB) /* each side's buffer */
#define HALF       (AREA / 2)
#define MAX_BLOCKS 600

#define CUDA_OK(call) assert_int_equal((call), cudaSuccess)

typedef struct world {
    zc_blocks *mover;
    cudaStream_t stream;
    zc_buffer *dev, *dev2, *mapped, *pinned, *pageable;
    unsigned char *d, *d2; /* device memory: sources and destinations of the two lists */
    unsigned char *m, *p;  /* mapped and pinned (not mapped) host memory */
    unsigned char *expect; /* what a destination area should hold */
    unsigned char *seen;   /* a device area read back */
} world;

static world W;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(zc_blocks_create(0, &W.mover), ZC_OK);
    CUDA_OK(cudaStreamCreateWithFlags(&W.stream, cudaStreamNonBlocking));
    assert_int_equal(zc_buffer_alloc(AREA, ZC_BUFFER_DEVICE, 0, 0, &W.dev), ZC_OK);
    assert_int_equal(zc_buffer_alloc(AREA, ZC_BUFFER_DEVICE, 0, 0, &W.dev2), ZC_OK);
    assert_int_equal(zc_buffer_alloc(AREA, ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_MAPPED, 0, &W.mapped),
                     ZC_OK);
    assert_int_equal(
        zc_buffer_alloc(AREA, ZC_BUFFER_PINNED, ZC_BUFFER_FLAG_HOST_ALLOC, 0, &W.pinned), ZC_OK);
    assert_int_equal(zc_buffer_alloc(MIB, ZC_BUFFER_PAGEABLE, 0, 0, &W.pageable), ZC_OK);
    W.d = zc_buffer_device_ptr(W.dev);
    W.d2 = zc_buffer_device_ptr(W.dev2);
    W.m = zc_buffer_host_ptr(W.mapped);
    W.p = zc_buffer_host_ptr(W.pinned);
    W.expect = malloc(AREA);
    W.seen = malloc(AREA);
    assert_non_null(W.expect);
    assert_non_null(W.seen);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(W.expect);
    free(W.seen);
    zc_buffer_free(W.pageable);
    zc_buffer_free(W.pinned);
    zc_buffer_free(W.mapped);
    zc_buffer_free(W.dev2);
    zc_buffer_free(W.dev);
    CUDA_OK(cudaStreamDestroy(W.stream));
    zc_blocks_destroy(W.mover);
    return 0;
}

/* n blocks of varied sizes and alignments within a HALF-byte area of each side: sources packed
 * from the bottom in order with odd gaps, destinations from the top in the reverse order, none
 * overlapping. */
static void layout(zc_block *b, size_t n, size_t max_bytes, const void *src, void *dst)
{
    size_t s = 3, d = HALF;
    for (size_t i = 0; i < n; i++) {
        size_t bytes = 1 + (size_t)((i * 2654435761u + 13u) % max_bytes);
        if (i % 5 == 0)
            bytes = (bytes + 15u) & ~(size_t)15u; /* some whole 16-byte runs */
        d -= bytes + (i % 3) * 8u;
        assert_true(s + bytes <= d);
        b[i] = (zc_block){(const char *)src + s, (char *)dst + d, bytes};
        s += bytes + i % 7;
    }
}

/* The pattern of seed over an area, as zc_test_write_pattern writes it. */
static void host_fill(unsigned char *host, uint32_t seed)
{
    for (size_t i = 0; i < AREA / 4; i++) {
        uint32_t w = zc_test_pattern_word(i, seed);
        memcpy(host + 4 * i, &w, 4);
    }
}

/* Every block's bytes at its destination, every other byte of the len-byte destination area
 * (seen as area, the blocks' dst relative to dst_base) 0xee; content is what the sources' area
 * held, from src_base. */
static void check_area(const unsigned char *area, size_t len, const unsigned char *dst_base,
                       const zc_block *b, size_t n, const unsigned char *content,
                       const unsigned char *src_base)
{
    memset(W.expect, 0xee, len);
    for (size_t i = 0; i < n; i++)
        memcpy(W.expect + ((const unsigned char *)b[i].dst - dst_base),
               content + ((const unsigned char *)b[i].src - src_base), b[i].bytes);
    for (size_t k = 0; k < len; k++) {
        if (area[k] != W.expect[k])
            fail_msg("byte %zu of the destination is %#x, expected %#x", k, area[k], W.expect[k]);
    }
}

/* The sources to the device: the host area's lower half, written on the stream behind a spin
 * (by a kernel through the mapping, or by a copy where the memory is not mapped), so that a
 * move reading early would see the bytes of before. */
static void sources_to_device(unsigned char *host, uint32_t seed, unsigned char *content)
{
    host_fill(content, seed);
    if (host == W.m) {
        void *host_dev = NULL;
        assert_int_equal(zc_buffer_device_ptr_for(W.mapped, 0, &host_dev), ZC_OK);
        CUDA_OK(zc_test_spin(2000000, W.stream));
        CUDA_OK(zc_test_write_pattern(host_dev, HALF / 4, seed, W.stream));
        return;
    }
    CUDA_OK(cudaMemcpy(W.d2, content, HALF, cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize()); /* the copy from pageable memory may return early */
    CUDA_OK(zc_test_spin(2000000, W.stream));
    CUDA_OK(cudaMemcpyAsync(host, W.d2, HALF, cudaMemcpyDeviceToHost, W.stream));
}

/*
 * One move of n blocks of at most max_bytes each in dir by engine, verified. To the device:
 * from the host area's lower half to the device area; to the host: from the second device area
 * to the host area's upper half. Each list's sources are written on the stream just before the
 * move (behind a spin): the move must see what was written.
 */
static void move_and_check(zc_blocks_engine engine, zc_blocks_dir dir, unsigned char *host,
                           size_t n, size_t max_bytes)
{
    static zc_block up[MAX_BLOCKS], down[MAX_BLOCKS];
    uint32_t seed_up = 1000u + (uint32_t)engine * 10u + (uint32_t)dir, seed_down = seed_up + 5000u;
    unsigned char *up_content = malloc(AREA), *down_content = malloc(AREA);
    assert_non_null(up_content);
    assert_non_null(down_content);
    zc_blocks_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.dir = dir;
    memset(host, 0xee, AREA);
    CUDA_OK(cudaMemset(W.d, 0xee, AREA));
    CUDA_OK(cudaDeviceSynchronize()); /* the legacy stream's memset, before the mover's stream */
    if (dir & ZC_BLOCKS_TO_DEVICE) {
        sources_to_device(host, seed_up, up_content);
        layout(up, n, max_bytes, host, W.d);
        desc.to_device = (zc_blocks_list){n, up, NULL, NULL, 0, NULL, NULL};
    }
    if (dir & ZC_BLOCKS_TO_HOST) {
        host_fill(down_content, seed_down);
        CUDA_OK(zc_test_spin(2000000, W.stream));
        CUDA_OK(zc_test_write_pattern((uint32_t *)W.d2, AREA / 4, seed_down, W.stream));
        layout(down, n, max_bytes, W.d2, host + HALF);
        desc.to_host = (zc_blocks_list){n, down, NULL, NULL, 0, NULL, NULL};
    }
    zc_blocks_options options = {engine, 0, W.stream};
    zc_blocks_choice choice;
    if (zc_blocks_move(W.mover, &desc, &options, &choice) != ZC_OK)
        fail_msg("%s %d: %s", zc_blocks_engine_name(engine), (int)dir, zc_last_error());
    if (engine != ZC_BLOCKS_AUTO)
        assert_int_equal(choice.engine, engine);
    CUDA_OK(cudaStreamSynchronize(W.stream));
    if (dir & ZC_BLOCKS_TO_DEVICE) {
        CUDA_OK(cudaMemcpy(W.seen, W.d, AREA, cudaMemcpyDeviceToHost));
        check_area(W.seen, AREA, W.d, up, n, up_content, host);
    }
    if (dir & ZC_BLOCKS_TO_HOST) {
        /* The upper half is the area to the host; the lower held the sources to the device. */
        check_area(host + HALF, HALF, host + HALF, down, n, down_content, W.d2);
    }
    free(up_content);
    free(down_content);
}

/* Whether the runtime gives the pinned buffer (cudaHostAlloc without cudaHostAllocMapped) a
 * device address: under unified addressing it does, and the kernel engine reaches it. */
static int pinned_is_mapped(void)
{
    zc_pointer_info info;
    assert_int_equal(zc_pointer_query(W.p, &info), ZC_OK);
    return info.device_ptr != NULL;
}

static void test_engines_directions(void **state)
{
    (void)state;
    const zc_blocks_dir dirs[] = {ZC_BLOCKS_TO_DEVICE, ZC_BLOCKS_TO_HOST, ZC_BLOCKS_BOTH};
    for (int e = 0; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
            if (e == ZC_BLOCKS_BATCH) {
                zc_blocks_desc probe;
                memset(&probe, 0, sizeof probe);
                /* Skipped, and said, where the runtime or driver lacks the batch. */
                zc_block one = {W.m, W.d, 16};
                probe.dir = ZC_BLOCKS_TO_DEVICE;
                probe.to_device = (zc_blocks_list){1, &one, NULL, NULL, 0, NULL, NULL};
                zc_blocks_options o = {ZC_BLOCKS_AUTO, 0, W.stream};
                zc_blocks_choice c;
                assert_int_equal(zc_blocks_plan(W.mover, &probe, &o, &c), ZC_OK);
                if (!(c.reachable & (1u << ZC_BLOCKS_BATCH))) {
                    fprintf(stderr, "batch engine: not in this runtime or driver, skipped\n");
                    continue;
                }
            }
            fprintf(stderr, "%s, dir %d\n", zc_blocks_engine_name((zc_blocks_engine)e),
                    (int)dirs[k]);
            move_and_check((zc_blocks_engine)e, dirs[k], W.m, 400, 9000);
            move_and_check((zc_blocks_engine)e, dirs[k], W.m, 3, 600 * KIB);
            if (e != ZC_BLOCKS_KERNEL || pinned_is_mapped())
                move_and_check((zc_blocks_engine)e, dirs[k], W.p, 200, 5000);
        }
    }
}

/* The indexed form: 64 KiB blocks picked by index, to the device and back. */
static void test_indexed(void **state)
{
    (void)state;
    size_t src_index[16], dst_index[16];
    for (size_t i = 0; i < 16; i++) {
        src_index[i] = (i * 5) % 16;
        dst_index[i] = 31 - i;
    }
    host_fill(W.m, 77);
    CUDA_OK(cudaMemset(W.d, 0, AREA));
    CUDA_OK(cudaDeviceSynchronize());
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        zc_blocks_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.dir = ZC_BLOCKS_TO_DEVICE;
        desc.to_device = (zc_blocks_list){16, NULL, W.m, W.d, 64 * KIB, src_index, dst_index};
        zc_blocks_options options = {(zc_blocks_engine)e, 0, W.stream};
        zc_status st = zc_blocks_move(W.mover, &desc, &options, NULL);
        if (st == ZC_ERR_UNSUPPORTED && e == ZC_BLOCKS_BATCH)
            continue;
        assert_int_equal(st, ZC_OK);
        CUDA_OK(cudaStreamSynchronize(W.stream));
        CUDA_OK(cudaMemcpy(W.seen, W.d, AREA, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < 16; i++)
            assert_memory_equal(W.seen + dst_index[i] * 64 * KIB, W.m + src_index[i] * 64 * KIB,
                                64 * KIB);
    }
}

static void test_refusals_on_real_memory(void **state)
{
    (void)state;
    unsigned char *pageable = zc_buffer_host_ptr(W.pageable);
    zc_block b = {pageable, W.d, 4096};
    zc_blocks_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.dir = ZC_BLOCKS_TO_DEVICE;
    desc.to_device = (zc_blocks_list){1, &b, NULL, NULL, 0, NULL, NULL};
    zc_blocks_options options = {ZC_BLOCKS_AUTO, 0, W.stream};
    zc_blocks_choice choice;
    assert_int_equal(zc_blocks_move(W.mover, &desc, &options, &choice), ZC_ERR_WRONG_KIND);
    assert_non_null(strstr(zc_last_error(), "pageable host memory"));
    /* The kernel engine on pinned memory: refused where the runtime gives it no device
     * address; under unified addressing cudaHostAlloc'd memory has one, and the kernel moves. */
    b.src = W.p;
    options.engine = ZC_BLOCKS_KERNEL;
    zc_status st = zc_blocks_move(W.mover, &desc, &options, &choice);
    if (pinned_is_mapped()) {
        assert_int_equal(st, ZC_OK);
        CUDA_OK(cudaStreamSynchronize(W.stream));
    } else {
        assert_int_equal(st, ZC_ERR_UNSUPPORTED);
        assert_non_null(strstr(zc_last_error(), "not mapped"));
    }
    /* Past the end of the device buffer (a zerocopy buffer: its extent is known). */
    options.engine = ZC_BLOCKS_AUTO;
    b.dst = W.d + AREA - 100;
    assert_int_equal(zc_blocks_move(W.mover, &desc, &options, &choice), ZC_ERR_WRONG_KIND);
    assert_non_null(strstr(zc_last_error(), "runs past its allocation"));
    /* The legacy default stream: no batch. */
    b.dst = W.d;
    options.stream = NULL;
    options.engine = ZC_BLOCKS_BATCH;
    assert_int_equal(zc_blocks_move(W.mover, &desc, &options, &choice), ZC_ERR_UNSUPPORTED);
    options.engine = ZC_BLOCKS_COPY;
    assert_int_equal(zc_blocks_move(W.mover, &desc, &options, &choice), ZC_OK);
    CUDA_OK(cudaDeviceSynchronize());
}

int main(void)
{
    zc_test_require_gpu("gpu_blocks");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engines_directions),
        cmocka_unit_test(test_indexed),
        cmocka_unit_test(test_refusals_on_real_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
