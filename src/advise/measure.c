/* SPDX-License-Identifier: Apache-2.0 */
/* A profile measured in process by the bench engine: advise has no measuring engine of its own. */
#include "zerocopy/advise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "zerocopy/device.h"

/* Append why a case gave no figures, one line. */
static void zc__why(char *notes, size_t size, const zc_bench_result *r)
{
    if (notes == NULL || size == 0)
        return;
    size_t used = strlen(notes);
    if (used + 2 < size)
        snprintf(notes + used, size - used, "bench case %s %s: %.200s\n", r->key,
                 zc_bench_outcome_name(r->outcome), r->reason);
}

ZC_EXTERN zc_status zc_profile_measure(int device, zc_bench_mode mode,
                                       zc_bench_progress_fn progress, void *progress_user,
                                       zc_profile *profile_p, char *notes, size_t notes_size)
{
    zc_bench_config config;
    zc_bench_config_init(&config);
    config.device = device;
    config.mode = mode;
    config.progress = progress;
    config.progress_user = progress_user;
    return zc_profile_measure_config(&config, profile_p, notes, notes_size);
}

ZC_EXTERN zc_status zc_profile_measure_config(const zc_bench_config *config_in,
                                              zc_profile *profile_p, char *notes, size_t notes_size)
{
    ZC_REQUIRE_ARG(config_in);
    ZC_REQUIRE_ARG(profile_p);
    if (notes != NULL && notes_size > 0)
        notes[0] = '\0';
    zc_bench_case_id ids[ZC_BENCH_CASE_ID_COUNT];
    size_t n = 0;
    ZC_CHECK(zc_profile_bench_cases(ids, ZC_BENCH_CASE_ID_COUNT, &n));
    int device = config_in->device;
    zc_bench_mode mode = config_in->mode;
    zc_device_info info;
    ZC_CHECK(zc_device_info_get(device, &info));
    /* The cases' own sizes (the model wants their spread), one GPU. */
    zc_bench_config config = *config_in;
    config.sizes = NULL;
    config.size_count = 0;
    config.devices = NULL;
    config.device_count = 0;
    zc_bench_ctx *ctx = NULL;
    ZC_CHECK(zc_bench_ctx_create(&config, &ctx));
    zc_status status = ZC_OK;
    zc_bench_result *results = calloc(n, sizeof *results);
    size_t done = 0;
    if (results == NULL) {
        status = ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_profile_measure: %zu results", n);
        goto destroy;
    }
    ZC_CHECK_GOTO(zc_bench_ctx_plan(ctx, n), status, destroy);
    for (; done < n; done++) {
        ZC_CHECK_GOTO(zc_bench_run(ctx, (size_t)ids[done], &results[done]), status, destroy);
        if (results[done].outcome != ZC_BENCH_OK)
            zc__why(notes, notes_size, &results[done]);
    }
    {
        size_t used = notes != NULL ? strlen(notes) : 0;
        zc_profile p;
        status = zc_profile_from_bench(results, n, &p, notes != NULL ? notes + used : NULL,
                                       notes != NULL ? notes_size - used : 0);
        if (status == ZC_OK) {
            snprintf(p.device_name, sizeof p.device_name, "%.127s", info.name);
            snprintf(p.source, sizeof p.source,
                     "zc bench --%s in process (the %zu cases the model reads), GPU %d",
                     zc_bench_mode_name(mode), n, device);
            *profile_p = p;
        }
    }
destroy:
    for (size_t i = 0; results != NULL && i < done; i++)
        zc_bench_result_clear(&results[i]);
    free(results);
    zc_bench_ctx_destroy(ctx);
    return status;
}
