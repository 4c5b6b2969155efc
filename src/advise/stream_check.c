/* SPDX-License-Identifier: Apache-2.0 */
/* Stream advice judged by zc stream runs it was not made from. */
#include "zerocopy/advise.h"

#include <math.h>
#include <string.h>

#include "core/error.h"

/* Below this the two runs of one mode are the same figure: the runs' own jitter. */
#define ZC__STREAM_NOISE_FLOOR 0.03

static const zc_stream_option *zc__row(const zc_stream_advice *a, int mode, int protocol)
{
    for (size_t i = 0; i < a->count; i++) {
        if (a->ranked[i].mode == mode && a->ranked[i].protocol == protocol)
            return &a->ranked[i];
    }
    return NULL;
}

/* The figure a workload is judged by: latency with a rate, input GB/s without. */
static double zc__figure(const zc_stream_workload *w, const zc_stream_option *o)
{
    return w->rate_hz > 0.0 ? o->p50_us : o->gbps;
}

/* How much a mode's figure moved from the profile's runs to the checked ones. */
static double zc__moved(const zc_stream_workload *w, const zc_stream_advice *model,
                        const zc_stream_option *checked)
{
    const zc_stream_option *m = zc__row(model, checked->mode, checked->protocol);
    if (m == NULL || !m->usable || !checked->usable || !(zc__figure(w, checked) > 0.0))
        return 0.0;
    return fabs(zc__figure(w, m) - zc__figure(w, checked)) / zc__figure(w, checked);
}

ZC_EXTERN zc_status zc_stream_check_advice(const zc_profile *profile, const zc_profile *measured,
                                           const zc_stream_workload *workload,
                                           zc_stream_check *check_p)
{
    ZC_REQUIRE_ARG(measured);
    ZC_REQUIRE_ARG(check_p);
    zc_stream_check c;
    memset(&c, 0, sizeof c);
    c.workload = *workload;
    zc_stream_advice got;
    ZC_CHECK(zc_stream_advise(profile, workload, &c.advice));
    ZC_CHECK(zc_stream_advise(measured, workload, &got));
    c.best = got.ranked[0];
    const zc_stream_option *pick =
        zc__row(&got, c.advice.ranked[0].mode, c.advice.ranked[0].protocol);
    if (pick == NULL || !pick->usable)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_stream_check_advice: the checked runs lack the advised mode");
    c.pick = *pick;
    c.noise = fmax(ZC__STREAM_NOISE_FLOOR, fmax(zc__moved(workload, &c.advice, &c.pick),
                                                zc__moved(workload, &c.advice, &c.best)));
    c.pick_wins = c.pick.mode == c.best.mode && c.pick.protocol == c.best.protocol;
    double p = zc__figure(workload, &c.pick), b = zc__figure(workload, &c.best);
    double behind = workload->rate_hz > 0.0 ? (p - b) / b : (b - p) / b;
    c.pick_tied = c.pick_wins || behind <= c.noise;
    *check_p = c;
    return ZC_OK;
}
