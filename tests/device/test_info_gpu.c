/* SPDX-License-Identifier: Apache-2.0 */
/* Every zc info field against the CUDA runtime's own answers, on every GPU. */
#include "test_support.h"

#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "zerocopy/device.h"

static int attribute(enum cudaDeviceAttr attr, int device)
{
    int value = -1;
    assert_int_equal(cudaDeviceGetAttribute(&value, attr, device), cudaSuccess);
    return value;
}

static void test_fields_match_runtime(void **state)
{
    (void)state;
    int count = 0;
    assert_int_equal(zc_device_count(&count), ZC_OK);
    int runtime_count = 0;
    assert_int_equal(cudaGetDeviceCount(&runtime_count), cudaSuccess);
    assert_int_equal(count, runtime_count);

    for (int dev = 0; dev < count; dev++) {
        zc_device_info info;
        assert_int_equal(zc_device_info_get(dev, &info), ZC_OK);
        struct cudaDeviceProp prop;
        assert_int_equal(cudaGetDeviceProperties(&prop, dev), cudaSuccess);
        assert_int_equal(info.ordinal, dev);
        assert_string_equal(info.name, prop.name);
        assert_int_equal(info.cc_major, prop.major);
        assert_int_equal(info.cc_minor, prop.minor);
        assert_int_equal(info.sm_count, prop.multiProcessorCount);
        assert_int_equal(info.total_memory, prop.totalGlobalMem);
        assert_true(info.free_memory > 0 && info.free_memory <= info.total_memory);
        int driver = 0, runtime = 0;
        assert_int_equal(cudaDriverGetVersion(&driver), cudaSuccess);
        assert_int_equal(cudaRuntimeGetVersion(&runtime), cudaSuccess);
        assert_int_equal(info.driver_version, driver);
        assert_int_equal(info.runtime_version, runtime);
        char bus[32];
        assert_int_equal(cudaDeviceGetPCIBusId(bus, sizeof bus, dev), cudaSuccess);
        assert_string_equal(info.pci_bus_id, bus);

        assert_int_equal(info.unified_addressing, prop.unifiedAddressing);
        assert_int_equal(info.can_map_host_memory, prop.canMapHostMemory);
        assert_int_equal(info.integrated, prop.integrated);
        assert_int_equal(info.pageable_memory_access, prop.pageableMemoryAccess);
        assert_int_equal(info.pageable_memory_access_uses_host_page_tables,
                         prop.pageableMemoryAccessUsesHostPageTables);
        assert_int_equal(info.concurrent_managed_access, prop.concurrentManagedAccess);
        assert_int_equal(info.managed_memory, prop.managedMemory);
        assert_int_equal(info.host_native_atomic_supported, prop.hostNativeAtomicSupported);
        assert_int_equal(info.host_register_supported, prop.hostRegisterSupported);
        assert_int_equal(info.host_register_read_only_supported,
                         prop.hostRegisterReadOnlySupported);
        assert_int_equal(info.can_use_host_pointer_for_registered_mem,
                         prop.canUseHostPointerForRegisteredMem);
        assert_int_equal(info.async_engine_count, prop.asyncEngineCount);
        assert_int_equal(info.direct_managed_mem_access_from_host,
                         prop.directManagedMemAccessFromHost);
        assert_int_equal(info.only_partial_host_native_atomic_supported,
                         attribute(cudaDevAttrOnlyPartialHostNativeAtomicSupported, dev));

        /* The link: either read and sane, or unknown with a reason; never invented. */
        if (info.link.known) {
            assert_in_range(info.link.gen_current, 1, 6);
            assert_in_range(info.link.gen_max, info.link.gen_current, 6);
            assert_true(info.link.width_current == 1 || info.link.width_current == 2 ||
                        info.link.width_current == 4 || info.link.width_current == 8 ||
                        info.link.width_current == 16 || info.link.width_current == 32);
            assert_true(info.link.width_max >= info.link.width_current);
            assert_double_equal(info.link.gbps_current,
                                zc_pcie_gbps(info.link.gen_current, info.link.width_current), 1e-9);
            fprintf(stderr, "GPU %d link: Gen%d x%d (%.1f GB/s per direction)\n", dev,
                    info.link.gen_current, info.link.width_current, info.link.gbps_current);
        } else {
            assert_true(strlen(info.link.why_unknown) > 0);
            fprintf(stderr, "GPU %d link unknown: %s\n", dev, info.link.why_unknown);
        }
    }
}

static void test_bad_device_number(void **state)
{
    (void)state;
    int count = 0;
    assert_int_equal(zc_device_count(&count), ZC_OK);
    zc_device_info info;
    assert_int_equal(zc_device_info_get(count, &info), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_info_get(-1, &info), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_info_get(0, NULL), ZC_ERR_INVALID_ARG);
    assert_int_equal(zc_device_count(NULL), ZC_ERR_INVALID_ARG);
}

static void test_zc_info_json_matches(void **state)
{
    (void)state;
    zc_test_output r;
    zc_test_run_zc((const char *[]){"info", "--json", "-", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    int count = 0;
    assert_int_equal(cudaGetDeviceCount(&count), cudaSuccess);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "devices")), count);
    cJSON *dev0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "devices"), 0);
    struct cudaDeviceProp prop;
    assert_int_equal(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    assert_string_equal(cJSON_GetObjectItem(dev0, "name")->valuestring, prop.name);
    cJSON *caps = cJSON_GetObjectItem(dev0, "capabilities");
    assert_int_equal(cJSON_GetObjectItem(caps, "canMapHostMemory")->valueint,
                     prop.canMapHostMemory);
    assert_int_equal(cJSON_GetObjectItem(caps, "asyncEngineCount")->valueint,
                     prop.asyncEngineCount);
    cJSON_Delete(doc);
    zc_test_output_free(&r);

    zc_test_run_zc((const char *[]){"info", "--device", "0", NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(strstr(r.out, prop.name));
    assert_non_null(strstr(r.out, "PCIe link"));
    assert_non_null(strstr(r.out, "GPU access to malloc memory"));
    zc_test_output_free(&r);

    char too_far[16];
    snprintf(too_far, sizeof too_far, "%d", count);
    zc_test_run_zc((const char *[]){"info", "--device", too_far, NULL}, NULL, &r);
    assert_int_equal(r.exit_code, 2);
    zc_test_output_free(&r);
}

int main(void)
{
    zc_test_require_gpu("gpu_info");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_match_runtime),
        cmocka_unit_test(test_bad_device_number),
        cmocka_unit_test(test_zc_info_json_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
