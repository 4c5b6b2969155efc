/* SPDX-License-Identifier: Apache-2.0 */
/* zc_advise_validate: workloads run for real with every technique, in interleaved rounds. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "advise/kernel_internal.h"
#include "core/error.h"
#include "zerocopy/device.h"

ZC_EXTERN void zc_validation_config_init(zc_validation_config *config_p)
{
    if (config_p == NULL)
        return;
    memset(config_p, 0, sizeof *config_p);
    config_p->rounds = 5;
    /* Short runs, many rounds: the rounds, not the length of one run, give the spread. */
    config_p->seconds_per_run = 0.04;
}

/* One round of one technique: its measured total, setup and single-transfer time. */
static zc_status zc__round(const zc_validation_config *c, const zc_workload *w, zc_technique t,
                           zc_validation_technique *v)
{
    zc_measurement m;
    zc_status status = zc_advise_run(c->device, w, t, c->seconds_per_run, &m);
    if (status != ZC_OK) {
        if (v->ran != -1)
            snprintf(v->why, sizeof v->why, "%s: %s", zc_status_str(status), zc_last_error());
        v->ran = -1;
        return status;
    }
    if (v->ran == 1 && v->rounds < ZC_VALIDATION_ROUNDS_MAX) {
        v->total_us[v->rounds] = m.total_us;
        /* Setup and one-transfer times: their mean over the rounds, for the table; the
         * verdict is on the totals' median. */
        v->setup_us += m.setup_us;
        v->per_transfer_us += m.per_transfer_us;
        v->rounds++;
    }
    return ZC_OK;
}

/* Every round of one workload: A B C .. then B C .. A, so that no technique always runs first
 * (right after the allocations and frees of another) or always last. */
static zc_status zc__workload(const zc_profile *p, const zc_validation_config *c,
                              const zc_validation_workload *vw, zc_validation_result *r)
{
    memset(r, 0, sizeof *r);
    r->workload = *vw;
    r->winner = r->runner_up = -1;
    ZC_CHECK(zc_advise_rank(p, &vw->workload, &r->rec));
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        ZC_CHECK(zc_advise_predict(p, &vw->workload, (zc_technique)t, &r->tech[t].predicted));
        r->tech[t].ran = r->tech[t].predicted.usable ? 1 : 0;
    }
    zc_status worst = ZC_OK;
    for (size_t round = 0; round < c->rounds; round++) {
        for (int j = 0; j < ZC_TECH_COUNT; j++) {
            int t = (int)((j + round) % ZC_TECH_COUNT);
            zc_validation_technique *v = &r->tech[t];
            if (v->ran != 1)
                continue;
            zc_status status = zc__round(c, &vw->workload, (zc_technique)t, v);
            if (status == ZC_ERR_NO_DEVICE)
                return status;
            if (status == ZC_ERR_VERIFY)
                worst = status;
        }
    }
    for (int t = 0; t < ZC_TECH_COUNT; t++) {
        zc_validation_technique *v = &r->tech[t];
        if (v->ran == 1 && v->rounds > 0) {
            v->setup_us /= (double)v->rounds;
            v->per_transfer_us /= (double)v->rounds;
        }
    }
    return worst;
}

/*
 * The figures of the runner's host side that zc bench does not measure, measured here on the
 * machine being validated when the profile only assumes them: the CPU's fill rate (the
 * summary's figure; each workload measures the fill at its own size before its runs) and its
 * writes into managed pages the GPU holds. Small host-side timings of the runner's own steps,
 * not a second bench.
 */
static zc_status zc__measure_missing(zc_profile *p, int device)
{
    zc_status st = ZC_OK;
    double v = 0.0;
    if (p->origin[ZC_PF_HOST_WRITE_GBPS] != ZC_ORIGIN_MEASURED) {
        ZC_CHECK(zc_advise_measure_host_write(&v));
        (void)zc_profile_set(p, ZC_PF_HOST_WRITE_GBPS, v, ZC_ORIGIN_MEASURED);
    }
    /* Only the model without managed.transfer's curve prices the touch on its own. */
    if (p->origin[ZC_PF_MANAGED_CPU_TOUCH_GBPS] != ZC_ORIGIN_MEASURED &&
        p->managed_transfer_origin[ZC_DIR_H2D] != ZC_ORIGIN_MEASURED &&
        p->managed_prefetch_gbps > 0.0) {
        st = zc_advise_measure_managed_touch(device, &v);
        if (st == ZC_OK)
            (void)zc_profile_set(p, ZC_PF_MANAGED_CPU_TOUCH_GBPS, v, ZC_ORIGIN_MEASURED);
        else if (st != ZC_ERR_UNSUPPORTED)
            return st;
        zc_clear_error();
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_advise_validate(const zc_profile *profile,
                                       const zc_validation_workload *workloads, size_t count,
                                       const zc_validation_config *config,
                                       zc_validation_result *results,
                                       zc_validation_summary *summary_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(workloads);
    ZC_REQUIRE_ARG(config);
    ZC_REQUIRE_ARG(results);
    ZC_REQUIRE_ARG(summary_p);
    if (count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_validate: no workload");
    if (config->rounds < 1 || config->rounds > ZC_VALIDATION_ROUNDS_MAX)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_validate: %zu rounds, 1 to %d allowed",
                       config->rounds, ZC_VALIDATION_ROUNDS_MAX);
    if (!(config->seconds_per_run > 0.0) || config->seconds_per_run > 60.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_advise_validate: %g seconds per run, more than 0 and at most 60 allowed",
                       config->seconds_per_run);
    /* No GPU, no validation: said at once (as zc_device_count says why), not as a table of
     * failed runs. */
    int devices = 0;
    ZC_CHECK(zc_device_count(&devices));
    if (config->device < 0 || config->device >= devices)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_advise_validate: GPU %d of %d", config->device,
                       devices);
    zc_profile local = *profile;
    ZC_CHECK(zc__measure_missing(&local, config->device));
    summary_p->managed_cpu_touch_gbps = local.managed_cpu_touch_gbps;
    zc_status worst = ZC_OK;
    for (size_t i = 0; i < count; i++) {
        /* The CPU's fill at this workload's own size, measured just before its runs, is the
         * one point of the fill curve its predictions read: the rate a process sees can change
         * over seconds (after another gave back much memory), and the fill is most of a large
         * workload's time. One point, not a growing curve: any number of sizes fits. */
        const zc_workload *w = &workloads[i].workload;
        if (w->direction != ZC_DIR_D2H) {
            double fill_us = 0.0;
            ZC_CHECK(zc__host_fill_at(w->bytes, &fill_us));
            memset(&local.host_fill, 0, sizeof local.host_fill);
            ZC_CHECK(zc_cost_curve_add(&local.host_fill, w->bytes, fill_us));
            local.host_fill_origin = ZC_ORIGIN_MEASURED;
        }
        zc_status status = zc__workload(&local, config, &workloads[i], &results[i]);
        if (status == ZC_ERR_NO_DEVICE)
            return status;
        if (status == ZC_ERR_VERIFY)
            worst = status;
        else
            ZC_CHECK(status);
        if (config->progress != NULL) {
            zc_validation_summary partial;
            (void)zc_validation_judge(&results[i], 1, &partial);
            config->progress(config->progress_user, i + 1, count, &results[i]);
        }
    }
    ZC_CHECK(zc_validation_judge(results, count, summary_p));
    summary_p->managed_cpu_touch_gbps = local.managed_cpu_touch_gbps;
    summary_p->rounds = config->rounds;
    summary_p->host_write_gbps = local.host_write_gbps;
    if (worst != ZC_OK)
        return ZC_FAIL(worst, "zc_advise_validate: a run's data was wrong (its row says which)");
    return ZC_OK;
}
