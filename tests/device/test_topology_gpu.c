/* SPDX-License-Identifier: Apache-2.0 */
/* GPU-to-GPU topology against the runtime's answers; needs two GPUs, skips with fewer. */
#include "test_support.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "zerocopy/device.h"

static void test_pairs_match_runtime(void **state)
{
    (void)state;
    int count = 0;
    assert_int_equal(zc_device_count(&count), ZC_OK);
    for (int a = 0; a < count; a++) {
        for (int b = 0; b < count; b++) {
            if (a == b)
                continue;
            zc_peer_link link;
            assert_int_equal(zc_device_peer_link_get(a, b, &link), ZC_OK);
            int can = -1;
            assert_int_equal(cudaDeviceCanAccessPeer(&can, a, b), cudaSuccess);
            assert_int_equal(link.can_access_peer, can);
            assert_int_equal(link.from, a);
            assert_int_equal(link.to, b);
            assert_true(strlen(link.path) > 0);
            assert_true(link.nvlink >= -1 && link.nvlink <= 1);
            if (link.nvlink == -1)
                assert_non_null(strstr(link.path, "unknown"));
            fprintf(stderr, "%d -> %d: peer %d, rank %d, path %s\n", a, b, can,
                    link.performance_rank, link.path);
        }
    }
}

static void test_enabled_state_is_seen_and_left_alone(void **state)
{
    (void)state;
    zc_peer_link link;
    assert_int_equal(zc_device_peer_link_get(0, 1, &link), ZC_OK);
    if (!link.can_access_peer) {
        fprintf(stderr, "GPUs 0 and 1 cannot access each other; enabled-state check not run\n");
        return;
    }
    assert_int_equal(link.access_enabled, 0);
    /* Querying twice must not have turned access on. */
    assert_int_equal(zc_device_peer_link_get(0, 1, &link), ZC_OK);
    assert_int_equal(link.access_enabled, 0);

    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    assert_int_equal(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    assert_int_equal(zc_device_peer_link_get(0, 1, &link), ZC_OK);
    assert_int_equal(link.access_enabled, 1);
    /* Still enabled after the query: disabling succeeds exactly once. */
    assert_int_equal(cudaDeviceDisablePeerAccess(1), cudaSuccess);
    assert_int_equal(zc_device_peer_link_get(0, 1, &link), ZC_OK);
    assert_int_equal(link.access_enabled, 0);
}

static void test_bad_pairs(void **state)
{
    (void)state;
    int count = 0;
    assert_int_equal(zc_device_count(&count), ZC_OK);
    zc_peer_link link;
    assert_int_equal(zc_device_peer_link_get(0, 0, &link), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_peer_link_get(0, count, &link), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_peer_link_get(-1, 0, &link), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_peer_link_get(0, 1, NULL), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    zc_test_require_gpu("gpu_topology");
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
        fprintf(stderr, "SKIP gpu_topology: needs two GPUs, found %d\n", count);
        return ZC_TEST_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_match_runtime),
        cmocka_unit_test(test_enabled_state_is_seen_and_left_alone),
        cmocka_unit_test(test_bad_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
