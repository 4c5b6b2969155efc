/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a workload file (zc advise --workload), checked as the command checks it. */
#include "fuzz_support.h"

#include <cjson/cJSON.h>

#include "zerocopy/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* As zc reads it: the limits on its values and nesting first (zc_cli_read_json). */
    if (zc_json_check_limits((const char *)data, size, "fuzz.json", NULL) != ZC_OK)
        return 0;
    cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
    if (doc == NULL)
        return 0;
    zc_workload w;
    memset(&w, 0, sizeof w);
    w.bytes = 4096;
    w.transfers = 1000.0;
    w.gpu_accesses = 1.0;
    if (zc_workload_from_json(doc, &w) == ZC_OK)
        (void)zc_workload_check(&w);
    cJSON_Delete(doc);
    return 0;
}
