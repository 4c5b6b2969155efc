/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's analysis of a recorded run: the facts every finding reads (trace_facts.c), then
 * each row of the findings table (trace_findings.c) in turn, its finding added when it fires. */
#include "trace_findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/blocks_plan.h"
#include "core/error.h"
#include "core/size_curve.h"
#include "zerocopy/advise.h"

const zc_trace_finding *zc_trace_report_find(const zc_trace_report *report, const char *key)
{
    for (size_t i = 0; report != NULL && key != NULL && i < report->finding_count; i++) {
        if (strcmp(report->findings[i].key, key) == 0)
            return &report->findings[i];
    }
    return NULL;
}

/* Ask row's finder and add its finding to report when it fires: the key, severity, title and
 * fix from the row, the figures and evidence from the finder. */
static zc_status zc__ask(const zc__trace_finding_row *row, const zc__trace_facts *facts,
                         zc_trace_report *report)
{
    zc__trace_evidence ev = {.found = 0, .saving_s = -1.0};
    ZC_CHECK(row->find(facts, &ev));
    if (!ev.found || report->finding_count == ZC_TRACE_FINDING_MAX)
        return ZC_OK;
    zc_trace_finding *f = &report->findings[report->finding_count++];
    memset(f, 0, sizeof *f);
    f->key = row->key;
    f->title = ev.title != NULL ? ev.title : row->title;
    f->severity = row->severity;
    f->count = ev.count;
    f->bytes = ev.bytes;
    f->time_s = ev.time_s;
    f->saving_s = ev.saving_s;
    snprintf(f->evidence, sizeof f->evidence, "%s", ev.text);
    snprintf(f->fix, sizeof f->fix, "%s", row->fix);
    return ZC_OK;
}

zc_status zc_trace_analyze(const zc_trace_log *log, const zc_trace_params *params,
                           zc_trace_report *report_p)
{
    return zc_trace_analyze_measured(log, params, NULL, report_p);
}

zc_status zc_trace_analyze_measured(const zc_trace_log *log, const zc_trace_params *params,
                                    const zc_trace_counters *counters, zc_trace_report *report_p)
{
    static const zc_trace_counters none = {NULL, 0, NULL};
    if (log == NULL || params == NULL || report_p == NULL)
        return ZC_ERR_INVALID_ARG;
    /* The block mover's profile prices block_copies: one it would refuse prices nothing. */
    if (params->blocks_profile != NULL)
        ZC_CHECK(zc__blocks_profile_check("zc_trace_analyze", params->blocks_profile));
    /* zerocopy's pinning curve prices slow_pinned_alloc's cure: one out of order prices
     * nonsense. */
    const zc_pinning_curves *pin = params->pinning_curves;
    if (pin != NULL && (pin->way[ZC_PINNING_ZEROCOPY].count > ZC_PINNING_SIZES_MAX ||
                        !zc__size_curve_ok(pin->way[ZC_PINNING_ZEROCOPY].bytes,
                                           pin->way[ZC_PINNING_ZEROCOPY].seconds,
                                           pin->way[ZC_PINNING_ZEROCOPY].count)))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_trace_analyze: params->pinning_curves: zerocopy's curve (%zu sizes) "
                       "does not ascend from 1 byte with finite positive times",
                       pin->way[ZC_PINNING_ZEROCOPY].count);
    zc_trace_report *r = calloc(1, sizeof *r);
    if (r == NULL)
        return ZC_ERR_NO_MEMORY;
    zc__trace_facts facts;
    zc_status status = ZC_OK;
    ZC_CHECK_GOTO(
        zc__trace_facts_build(log, params, counters != NULL ? counters : &none, r, &facts), status,
        free_report);
    for (size_t i = 0; i < zc__trace_finding_row_count; i++)
        ZC_CHECK_GOTO(zc__ask(&zc__trace_finding_rows[i], &facts, r), status, free_facts);
    *report_p = *r;
free_facts:
    zc__trace_facts_free(&facts);
free_report:
    free(r);
    return status;
}
