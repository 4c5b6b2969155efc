/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: profile and bench JSON as zc advise and zc trace read them (--profile, --bench),
 * then the model priced on what was read. */
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
    zc_profile p;
    for (int as_bench = 0; as_bench < 2; as_bench++) {
        zc_status st =
            as_bench ? zc_profile_from_bench_json(doc, &p, NULL, 0) : zc_profile_from_json(doc, &p);
        if (st != ZC_OK)
            continue;
        char notes[2048] = "";
        if (zc_profile_fill_gaps(&p, notes, sizeof notes) != ZC_OK)
            continue;
        cJSON *saved = NULL;
        if (zc_profile_to_saved_json(&p, notes, &saved) == ZC_OK)
            cJSON_Delete(saved);
        zc_workload w;
        memset(&w, 0, sizeof w);
        w.bytes = 4096;
        w.transfers = 1000.0;
        w.gpu_accesses = 1.0;
        zc_recommendation rec;
        (void)zc_advise_rank(&p, &w, &rec);
        /* And stream advice, for a profile that carries zc stream runs. */
        zc_stream_workload s = {65536, 0.0};
        zc_stream_advice adv;
        (void)zc_stream_advise(&p, &s, &adv);
        s.rate_hz = 1000.0;
        (void)zc_stream_advise(&p, &s, &adv);
    }
    double ceiling = 0.0;
    (void)zc_bench_copy_ceiling_from_json(doc, &ceiling);
    cJSON_Delete(doc);
    return 0;
}
