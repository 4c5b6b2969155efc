/* SPDX-License-Identifier: Apache-2.0 */
/* Portable memory on several GPUs: each GPU writes its part of one portable mapped buffer
 * through its own device pointer; the pointer query's device mask. Needs two GPUs. */
#include "test_support.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu_checks.h"
#include "gpu_kernels.h"
#include "zerocopy/buffer.h"

static int g_count;

#define WORDS ((size_t)1 << 18) /* 1 MiB per GPU */

static uint64_t all_mask(void)
{
    return g_count >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << g_count) - 1;
}

static void test_every_gpu_writes_its_part(void **state)
{
    (void)state;
    zc_buffer *buf = NULL;
    ZC_OK_OR_FAIL(zc_buffer_alloc(WORDS * 4 * (size_t)g_count, ZC_BUFFER_MAPPED,
                                  ZC_BUFFER_FLAG_MAPPED | ZC_BUFFER_FLAG_PORTABLE, 0, &buf));
    uint32_t *host = zc_buffer_host_ptr(buf);
    assert_non_null(host);
    memset(host, 0, WORDS * 4 * (size_t)g_count);
    for (int d = 0; d < g_count; d++) {
        void *dev = NULL;
        ZC_OK_OR_FAIL(zc_buffer_device_ptr_for(buf, d, &dev));
        assert_non_null(dev);
        if (d == 0)
            assert_ptr_equal(dev, zc_buffer_device_ptr(buf));
        fprintf(stderr, "GPU %d: host %p, device pointer %p\n", d, (void *)host, dev);
        CUDA_OK(cudaSetDevice(d));
        CUDA_OK(zc_test_write_pattern((uint32_t *)dev + (size_t)d * WORDS, WORDS,
                                      0x5EED0000u + (uint32_t)d, 0));
    }
    for (int d = 0; d < g_count; d++) {
        CUDA_OK(cudaSetDevice(d));
        CUDA_OK(cudaDeviceSynchronize());
    }
    CUDA_OK(cudaSetDevice(0));
    for (int d = 0; d < g_count; d++) {
        size_t bad =
            zc_test_check_words(host + (size_t)d * WORDS, WORDS, 0x5EED0000u + (uint32_t)d, 0);
        if (bad != WORDS)
            fail_msg("GPU %d's part: word %zu is 0x%08x, expected 0x%08x", d, bad,
                     host[(size_t)d * WORDS + bad],
                     zc_test_pattern_word(bad, 0x5EED0000u + (uint32_t)d));
    }
    zc_pointer_info info;
    ZC_OK_OR_FAIL(zc_pointer_query(host + WORDS, &info));
    if (info.device_mask != all_mask())
        fail_msg("portable buffer: device mask 0x%llx, expected 0x%llx",
                 (unsigned long long)info.device_mask, (unsigned long long)all_mask());
    ZC_OK_OR_FAIL(zc_buffer_free(buf));
}

static void test_non_portable_is_refused_elsewhere(void **state)
{
    (void)state;
    zc_buffer *buf = NULL;
    ZC_OK_OR_FAIL(zc_buffer_alloc(WORDS * 4, ZC_BUFFER_MAPPED, ZC_BUFFER_FLAG_MAPPED, 0, &buf));
    void *dev = NULL;
    ZC_OK_OR_FAIL(zc_buffer_device_ptr_for(buf, 0, &dev));
    assert_ptr_equal(dev, zc_buffer_device_ptr(buf));
    void *other = (void *)&other;
    assert_int_equal(zc_buffer_device_ptr_for(buf, 1, &other), ZC_ERR_WRONG_KIND);
    assert_non_null(strstr(zc_last_error(), "PORTABLE"));
    assert_ptr_equal(other, (void *)&other);
    assert_int_equal(zc_buffer_device_ptr_for(buf, g_count, &other), ZC_ERR_INVALID_ARG);
    zc_pointer_info info;
    ZC_OK_OR_FAIL(zc_pointer_query(zc_buffer_host_ptr(buf), &info));
    assert_int_equal(info.device_mask, 1);
    /* The query must leave the current device alone. */
    int current = -1;
    CUDA_OK(cudaGetDevice(&current));
    assert_int_equal(current, 0);
    ZC_OK_OR_FAIL(zc_buffer_free(buf));
}

static void test_device_memory_and_peer_access(void **state)
{
    (void)state;
    zc_buffer *buf = NULL;
    ZC_OK_OR_FAIL(zc_buffer_alloc(WORDS * 4, ZC_BUFFER_DEVICE, 0, 1, &buf));
    void *own = zc_buffer_device_ptr(buf);
    zc_pointer_info info;
    ZC_OK_OR_FAIL(zc_pointer_query(own, &info));
    assert_int_equal(info.device_mask, (uint64_t)1 << 1);
    int can = 0;
    CUDA_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
    void *p = NULL;
    if (!can) {
        fprintf(stderr, "GPU 0 cannot access GPU 1's memory; peer part not run\n");
        assert_int_equal(zc_buffer_device_ptr_for(buf, 0, &p), ZC_ERR_UNSUPPORTED);
        ZC_OK_OR_FAIL(zc_buffer_free(buf));
        return;
    }
    assert_int_equal(zc_buffer_device_ptr_for(buf, 0, &p), ZC_ERR_UNSUPPORTED);
    CUDA_OK(cudaSetDevice(0));
    CUDA_OK(cudaDeviceEnablePeerAccess(1, 0));
    ZC_OK_OR_FAIL(zc_pointer_query(own, &info));
    assert_int_equal(info.device_mask, 3);
    ZC_OK_OR_FAIL(zc_buffer_device_ptr_for(buf, 0, &p));
    assert_ptr_equal(p, own);
    /* GPU 0 writes GPU 1's memory through the peer mapping; the host reads it back. */
    CUDA_OK(zc_test_write_pattern(p, WORDS, 0xBEEF, 0));
    CUDA_OK(cudaDeviceSynchronize());
    uint32_t *back = malloc(WORDS * 4);
    assert_non_null(back);
    CUDA_OK(cudaMemcpy(back, own, WORDS * 4, cudaMemcpyDefault));
    size_t bad = zc_test_check_words(back, WORDS, 0xBEEF, 0);
    if (bad != WORDS)
        fail_msg("GPU 0 writing GPU 1's memory: word %zu is 0x%08x, expected 0x%08x", bad,
                 back[bad], zc_test_pattern_word(bad, 0xBEEF));
    free(back);
    CUDA_OK(cudaDeviceDisablePeerAccess(1));
    ZC_OK_OR_FAIL(zc_pointer_query(own, &info));
    assert_int_equal(info.device_mask, (uint64_t)1 << 1);
    ZC_OK_OR_FAIL(zc_buffer_free(buf));
}

int main(void)
{
    zc_test_require_gpu("gpu_portable");
    if (cudaGetDeviceCount(&g_count) != cudaSuccess || g_count < 2) {
        fprintf(stderr, "SKIP gpu_portable: needs two GPUs, found %d\n", g_count);
        return ZC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_gpu_writes_its_part),
        cmocka_unit_test(test_non_portable_is_refused_elsewhere),
        cmocka_unit_test(test_device_memory_and_peer_access),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
