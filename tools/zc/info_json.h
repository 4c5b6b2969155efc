/* zc info's JSON: one object per GPU, schema "zerocopy.info/1" (docs/json.md). */
#ifndef ZC_INFO_JSON_H
#define ZC_INFO_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "zerocopy/device.h"
#include "zerocopy/version.h"

#define ZC_INFO_SCHEMA "zerocopy.info/1"

/* The capability flags in the order zc info prints them, named as CUDA names them. */
typedef struct zc_capability_field {
    const char *name;
    size_t offset; /* of an int in zc_device_info */
} zc_capability_field;

extern const zc_capability_field zc_cli_capability_fields[];
extern const size_t zc_cli_capability_field_count;

/* The value of a capability field of info. */
int zc_cli_capability_value(const zc_device_info *info, const zc_capability_field *field);

/* A new JSON object describing one GPU; NULL when out of memory. */
cJSON *zc_cli_info_device_json(const zc_device_info *info);

/* A new JSON object for the path between two GPUs; NULL when out of memory. */
cJSON *zc_cli_info_peer_json(const zc_peer_link *peer);

/* A new JSON document for a set of GPUs and the paths between them (peers may be NULL when
 * peer_count is 0); NULL when out of memory. */
cJSON *zc_cli_info_json(const zc_device_info *infos, int count, const zc_peer_link *peers,
                        int peer_count);

#endif
