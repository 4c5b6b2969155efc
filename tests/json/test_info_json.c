/* SPDX-License-Identifier: Apache-2.0 */
/* The shape of zc info's JSON and the technique notes, from device records made up here. */
#include "test_support.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "zerocopy/json.h"

static zc_device_info h200_like(void)
{
    zc_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "Test GPU");
    d.cc_major = 9;
    d.sm_count = 132;
    d.total_memory = 150000000000ull;
    d.free_memory = 149000000000ull;
    d.driver_version = 13000;
    d.runtime_version = 13000;
    snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "0000:00:06.0");
    d.numa_node = -1;
    d.link.known = 1;
    d.link.gen_current = d.link.gen_max = 5;
    d.link.width_current = d.link.width_max = 16;
    d.link.gts_current = d.link.gts_max = 32.0;
    d.link.gbps_current = d.link.gbps_max = zc_pcie_gbps(5, 16);
    snprintf(d.link.source, sizeof d.link.source, "sysfs");
    d.unified_addressing = d.can_map_host_memory = d.concurrent_managed_access = 1;
    d.managed_memory = d.host_register_supported = d.host_register_read_only_supported = 1;
    d.async_engine_count = 3;
    d.only_partial_host_native_atomic_supported = 0;
    return d;
}

static const char *technique_verdict(const cJSON *dev, const char *key)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(dev, "techniques"))
    {
        if (strcmp(cJSON_GetObjectItem(t, "key")->valuestring, key) == 0)
            return cJSON_GetObjectItem(t, "verdict")->valuestring;
    }
    return NULL;
}

static void test_document_shape_round_trips(void **state)
{
    (void)state;
    zc_device_info d[2] = {h200_like(), h200_like()};
    d[1].ordinal = 1;
    d[1].numa_node = 1;
    d[1].link.known = 0;
    snprintf(d[1].link.why_unknown, sizeof d[1].link.why_unknown, "not readable");

    zc_peer_link peers[2] = {
        {.from = 0, .to = 1, .can_access_peer = 1, .performance_rank = 0, .nvlink = 1},
        {.from = 1, .to = 0, .can_access_peer = 0, .performance_rank = -1, .nvlink = -1},
    };
    snprintf(peers[0].path, sizeof peers[0].path, "NVLink");
    snprintf(peers[1].path, sizeof peers[1].path, "unknown: NVML not available");
    cJSON *doc = NULL;
    assert_int_equal(zc_info_to_json(d, 2, peers, 2, &doc), ZC_OK);
    assert_non_null(doc);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    cJSON *back = cJSON_Parse(text);
    free(text);
    assert_non_null(back);

    assert_string_equal(cJSON_GetObjectItem(back, "schema")->valuestring, "zerocopy.info/1");
    assert_true(cJSON_IsString(cJSON_GetObjectItem(back, "zerocopy_version")));
    assert_int_equal(cJSON_GetObjectItem(back, "device_count")->valueint, 2);
    cJSON *devices = cJSON_GetObjectItem(back, "devices");
    assert_int_equal(cJSON_GetArraySize(devices), 2);

    cJSON *dev = cJSON_GetArrayItem(devices, 0);
    const char *keys[] = {"ordinal",
                          "name",
                          "compute_capability",
                          "sm_count",
                          "total_memory_bytes",
                          "free_memory_bytes",
                          "driver_version",
                          "runtime_version",
                          "pci_bus_id",
                          "numa_node",
                          "pcie_link",
                          "capabilities",
                          "techniques"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!cJSON_HasObjectItem(dev, keys[i]))
            fail_msg("device object lacks '%s'", keys[i]);
    }
    assert_string_equal(cJSON_GetObjectItem(dev, "compute_capability")->valuestring, "9.0");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(dev, "numa_node")));
    cJSON *link = cJSON_GetObjectItem(dev, "pcie_link");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(link, "known")));
    assert_int_equal(cJSON_GetObjectItem(link, "gen_current")->valueint, 5);
    assert_int_equal(cJSON_GetObjectItem(link, "width_current")->valueint, 16);
    assert_double_equal(cJSON_GetObjectItem(link, "gbps_per_direction_current")->valuedouble,
                        63.015, 0.001);

    cJSON *caps = cJSON_GetObjectItem(dev, "capabilities");
    size_t field_count = 0;
    assert_non_null(zc_capability_fields(&field_count));
    assert_int_equal(cJSON_GetArraySize(caps), (int)field_count);
    assert_int_equal(cJSON_GetObjectItem(caps, "asyncEngineCount")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(caps, "pageableMemoryAccess")->valueint, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(dev, "techniques")),
                     ZC_TECHNIQUE_NOTE_COUNT);

    cJSON *second = cJSON_GetArrayItem(devices, 1);
    assert_int_equal(cJSON_GetObjectItem(second, "numa_node")->valueint, 1);
    cJSON *unknown = cJSON_GetObjectItem(second, "pcie_link");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(unknown, "known")));
    assert_false(cJSON_HasObjectItem(unknown, "gen_current"));
    assert_string_equal(cJSON_GetObjectItem(unknown, "why_unknown")->valuestring, "not readable");

    cJSON *links = cJSON_GetObjectItem(back, "peers");
    assert_int_equal(cJSON_GetArraySize(links), 2);
    cJSON *p0 = cJSON_GetArrayItem(links, 0), *p1 = cJSON_GetArrayItem(links, 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p0, "can_access_peer")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p0, "nvlink")));
    assert_int_equal(cJSON_GetObjectItem(p0, "performance_rank")->valueint, 0);
    assert_string_equal(cJSON_GetObjectItem(p0, "path")->valuestring, "NVLink");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(p1, "nvlink")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(p1, "performance_rank")));
    assert_int_equal(cJSON_GetObjectItem(p1, "from")->valueint, 1);
    cJSON_Delete(back);
}

static void test_technique_verdicts_follow_capabilities(void **state)
{
    (void)state;
    zc_device_info d = h200_like();
    cJSON *dev = NULL;
    assert_int_equal(zc_device_info_to_json(&d, &dev), ZC_OK);
    assert_string_equal(technique_verdict(dev, "mapped"), "yes");
    assert_string_equal(technique_verdict(dev, "pageable_gpu_access"), "no");
    assert_string_equal(technique_verdict(dev, "host_atomics"), "no");
    assert_string_equal(technique_verdict(dev, "managed"), "yes");
    cJSON_Delete(dev);

    d.can_map_host_memory = 0;
    d.concurrent_managed_access = 0;
    d.pageable_memory_access = 1;
    dev = NULL;
    assert_int_equal(zc_device_info_to_json(&d, &dev), ZC_OK);
    assert_string_equal(technique_verdict(dev, "mapped"), "no");
    assert_string_equal(technique_verdict(dev, "managed"), "limited");
    assert_string_equal(technique_verdict(dev, "pageable_gpu_access"), "yes");
    cJSON_Delete(dev);

    zc_technique_note notes[ZC_TECHNIQUE_NOTE_COUNT];
    d = h200_like();
    assert_int_equal(zc_device_technique_notes(&d, notes), ZC_OK);
    int found = 0;
    for (int i = 0; i < ZC_TECHNIQUE_NOTE_COUNT; i++) {
        if (strcmp(notes[i].key, "pageable_gpu_access") == 0) {
            assert_non_null(strstr(notes[i].text, "context is lost"));
            found = 1;
        }
    }
    assert_true(found);
    assert_int_equal(zc_device_technique_notes(NULL, notes), ZC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document_shape_round_trips),
        cmocka_unit_test(test_technique_verdicts_follow_capabilities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
