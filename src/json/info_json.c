/* SPDX-License-Identifier: Apache-2.0 */
/* GPUs as JSON: one GPU, the path between two, the "zerocopy.info/1" document of a set. */
#include "zerocopy/json.h"

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/version.h"

#define ZC__CAP(name, field)                                                                       \
    {                                                                                              \
        name, offsetof(zc_device_info, field)                                                      \
    }

static const zc_capability_field zc__capability_fields[] = {
    ZC__CAP("unifiedAddressing", unified_addressing),
    ZC__CAP("canMapHostMemory", can_map_host_memory),
    ZC__CAP("integrated", integrated),
    ZC__CAP("pageableMemoryAccess", pageable_memory_access),
    ZC__CAP("pageableMemoryAccessUsesHostPageTables", pageable_memory_access_uses_host_page_tables),
    ZC__CAP("concurrentManagedAccess", concurrent_managed_access),
    ZC__CAP("managedMemory", managed_memory),
    ZC__CAP("hostNativeAtomicSupported", host_native_atomic_supported),
    ZC__CAP("onlyPartialHostNativeAtomicSupported", only_partial_host_native_atomic_supported),
    ZC__CAP("hostRegisterSupported", host_register_supported),
    ZC__CAP("hostRegisterReadOnlySupported", host_register_read_only_supported),
    ZC__CAP("canUseHostPointerForRegisteredMem", can_use_host_pointer_for_registered_mem),
    ZC__CAP("asyncEngineCount", async_engine_count),
    ZC__CAP("directManagedMemAccessFromHost", direct_managed_mem_access_from_host),
};

#define ZC__CAPABILITY_COUNT (sizeof zc__capability_fields / sizeof zc__capability_fields[0])

ZC_EXTERN const zc_capability_field *zc_capability_fields(size_t *count_p)
{
    if (count_p != NULL)
        *count_p = ZC__CAPABILITY_COUNT;
    return zc__capability_fields;
}

ZC_EXTERN int zc_capability_value(const zc_device_info *info, const zc_capability_field *field)
{
    if (info == NULL || field == NULL || field->offset + sizeof(int) > sizeof *info)
        return 0;
    return *(const int *)((const char *)info + field->offset);
}

static const char *zc__verdict_word(zc_verdict verdict)
{
    switch (verdict) {
    case ZC_VERDICT_YES:
        return "yes";
    case ZC_VERDICT_LIMITED:
        return "limited";
    default:
        return "no";
    }
}

static cJSON *zc__link_json(const zc_pcie_link *link)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    cJSON_AddBoolToObject(obj, "known", link->known);
    if (link->known) {
        cJSON_AddNumberToObject(obj, "gen_current", link->gen_current);
        cJSON_AddNumberToObject(obj, "width_current", link->width_current);
        cJSON_AddNumberToObject(obj, "gen_max", link->gen_max);
        cJSON_AddNumberToObject(obj, "width_max", link->width_max);
        cJSON_AddNumberToObject(obj, "gts_current", link->gts_current);
        cJSON_AddNumberToObject(obj, "gts_max", link->gts_max);
        cJSON_AddNumberToObject(obj, "gbps_per_direction_current", link->gbps_current);
        cJSON_AddNumberToObject(obj, "gbps_per_direction_max", link->gbps_max);
        cJSON_AddStringToObject(obj, "source", link->source);
    } else {
        cJSON_AddStringToObject(obj, "why_unknown", link->why_unknown);
    }
    return obj;
}

static cJSON *zc__device_json(const zc_device_info *info)
{
    cJSON *dev = cJSON_CreateObject();
    if (dev == NULL)
        return NULL;
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", info->cc_major, info->cc_minor);
    cJSON_AddNumberToObject(dev, "ordinal", info->ordinal);
    cJSON_AddStringToObject(dev, "name", info->name);
    cJSON_AddStringToObject(dev, "compute_capability", cc);
    cJSON_AddNumberToObject(dev, "sm_count", info->sm_count);
    cJSON_AddNumberToObject(dev, "total_memory_bytes", (double)info->total_memory);
    cJSON_AddNumberToObject(dev, "free_memory_bytes", (double)info->free_memory);
    cJSON_AddNumberToObject(dev, "driver_version", info->driver_version);
    cJSON_AddNumberToObject(dev, "runtime_version", info->runtime_version);
    cJSON_AddStringToObject(dev, "pci_bus_id", info->pci_bus_id);
    if (info->numa_node >= 0)
        cJSON_AddNumberToObject(dev, "numa_node", info->numa_node);
    else
        cJSON_AddNullToObject(dev, "numa_node");
    cJSON_AddItemToObject(dev, "pcie_link", zc__link_json(&info->link));

    cJSON *caps = cJSON_AddObjectToObject(dev, "capabilities");
    for (size_t i = 0; caps != NULL && i < ZC__CAPABILITY_COUNT; i++)
        cJSON_AddNumberToObject(caps, zc__capability_fields[i].name,
                                zc_capability_value(info, &zc__capability_fields[i]));

    zc_technique_note notes[ZC_TECHNIQUE_NOTE_COUNT];
    cJSON *techniques = cJSON_AddArrayToObject(dev, "techniques");
    if (techniques != NULL && zc_device_technique_notes(info, notes) == ZC_OK) {
        for (int i = 0; i < ZC_TECHNIQUE_NOTE_COUNT; i++) {
            cJSON *t = cJSON_CreateObject();
            cJSON_AddStringToObject(t, "key", notes[i].key);
            cJSON_AddStringToObject(t, "title", notes[i].title);
            cJSON_AddStringToObject(t, "verdict", zc__verdict_word(notes[i].verdict));
            cJSON_AddStringToObject(t, "text", notes[i].text);
            cJSON_AddItemToArray(techniques, t);
        }
    }
    return dev;
}

static cJSON *zc__peer_json(const zc_peer_link *peer)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL)
        return NULL;
    cJSON_AddNumberToObject(obj, "from", peer->from);
    cJSON_AddNumberToObject(obj, "to", peer->to);
    cJSON_AddBoolToObject(obj, "can_access_peer", peer->can_access_peer);
    cJSON_AddBoolToObject(obj, "access_enabled", peer->access_enabled);
    if (peer->performance_rank >= 0)
        cJSON_AddNumberToObject(obj, "performance_rank", peer->performance_rank);
    else
        cJSON_AddNullToObject(obj, "performance_rank");
    cJSON_AddBoolToObject(obj, "native_atomics", peer->native_atomics);
    if (peer->nvlink >= 0)
        cJSON_AddBoolToObject(obj, "nvlink", peer->nvlink);
    else
        cJSON_AddNullToObject(obj, "nvlink");
    cJSON_AddStringToObject(obj, "path", peer->path);
    return obj;
}

cJSON *zc__info_doc(const zc_device_info *infos, int count, const zc_peer_link *peers,
                    int peer_count)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_INFO_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON_AddNumberToObject(doc, "device_count", count);
    cJSON *devices = cJSON_AddArrayToObject(doc, "devices");
    for (int i = 0; devices != NULL && i < count; i++)
        cJSON_AddItemToArray(devices, zc__device_json(&infos[i]));
    cJSON *links = cJSON_AddArrayToObject(doc, "peers");
    for (int i = 0; links != NULL && i < peer_count; i++)
        cJSON_AddItemToArray(links, zc__peer_json(&peers[i]));
    return doc;
}

ZC_EXTERN zc_status zc_device_info_to_json(const zc_device_info *info, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(info);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__device_json(info), "zc_device_info_to_json", doc_p);
}

ZC_EXTERN zc_status zc_peer_link_to_json(const zc_peer_link *peer, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(peer);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__peer_json(peer), "zc_peer_link_to_json", doc_p);
}

ZC_EXTERN zc_status zc_info_to_json(const zc_device_info *infos, int count,
                                    const zc_peer_link *peers, int peer_count, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(doc_p);
    if (count < 0 || peer_count < 0 || (infos == NULL && count > 0) ||
        (peers == NULL && peer_count > 0))
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_info_to_json: %d GPUs at %p, %d paths at %p", count,
                       (const void *)infos, peer_count, (const void *)peers);
    return zc__json_give(zc__info_doc(infos, count, peers, peer_count), "zc_info_to_json", doc_p);
}
