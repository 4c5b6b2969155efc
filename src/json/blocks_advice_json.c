/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --blocks in documents: the block mover's profile fitted from a bench document, and
 * the "zerocopy.advise-blocks/1" document of its engines ranked. */
#include "zerocopy/json.h"

#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/version.h"

/* The SMs zc bench's mover gave the kernel engine: its default limit, no more than the GPU
 * measured has (case_blocks.c leaves max_sms 0); 0 when the document does not say the GPU's. */
static unsigned zc__bench_sms(const cJSON *doc)
{
    double ordinal = zc__json_number_of(doc, "device");
    const cJSON *dev = NULL;
    cJSON_ArrayForEach(dev, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(doc, "machine"), "devices"))
    {
        if (zc__json_number_of(dev, "ordinal") != ordinal)
            continue;
        double sms = zc__json_number_of(dev, "sm_count");
        if (!(sms >= 1.0 && sms <= 1e6))
            return 0;
        return sms < ZC_BLOCKS_DEFAULT_MAX_SMS ? (unsigned)sms : ZC_BLOCKS_DEFAULT_MAX_SMS;
    }
    return 0;
}

static zc_status zc__from_json(const cJSON *doc, size_t beside_bytes, zc_blocks_profile *profile_p,
                               zc_blocks_fit *fit_p, zc_blocks_beside *beside_p)
{
    size_t count = 0;
    zc_bench_result *rs = NULL;
    ZC_CHECK(zc__bench_doc_results(
        doc, "zc_blocks_bench_from_json",
        "the block mover's profile comes from zc bench --case blocks --json", &rs, &count));
    zc_blocks_profile p;
    zc_blocks_fit fit;
    zc_blocks_beside beside;
    zc_status st = zc_blocks_profile_from_bench(rs, count, zc__bench_sms(doc), &p, &fit);
    if (st == ZC_OK && beside_p != NULL)
        st = zc_blocks_beside_from_bench(rs, count, beside_bytes, &beside);
    zc__bench_results_free(rs, count);
    ZC_CHECK(st);
    *profile_p = p;
    if (fit_p != NULL)
        *fit_p = fit;
    if (beside_p != NULL)
        *beside_p = beside;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_blocks_bench_from_json(const cJSON *doc, size_t beside_bytes,
                                              zc_blocks_profile *profile_p, zc_blocks_fit *fit_p,
                                              zc_blocks_beside *beside_p)
{
    ZC_REQUIRE_ARG(doc);
    ZC_REQUIRE_ARG(profile_p);
    locale_t before = zc__c_locale_begin();
    zc_status st = zc__from_json(doc, beside_bytes, profile_p, fit_p, beside_p);
    zc__c_locale_end(before);
    return st;
}

/* One direction's fitted costs and how well they hold their points. */
static cJSON *zc__costs(const zc_blocks_cost *costs, const zc_blocks_fit *fit, int dir)
{
    cJSON *o = cJSON_CreateObject();
    for (int e = 1; o != NULL && e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        cJSON *x = cJSON_AddObjectToObject(o, zc_blocks_engine_name((zc_blocks_engine)e));
        (void)zc_json_add_number(x, "call_us", costs[e].call_us);
        (void)zc_json_add_number(x, "block_us", costs[e].block_us);
        (void)zc_json_add_number(x, "gbps", costs[e].gbps);
        cJSON_AddNumberToObject(x, "points", (double)fit->points[dir][e]);
        (void)zc_json_add_number(x, "worst_error", fit->worst[dir][e]);
    }
    return o;
}

static cJSON *zc__profile_json(const zc_blocks_profile *p, const zc_blocks_fit *fit,
                               const char *source)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "source", source != NULL ? source : "");
    cJSON_AddBoolToObject(o, "measured", p->measured);
    cJSON_AddItemToObject(o, "to_device", zc__costs(p->to_device, fit, 0));
    cJSON_AddItemToObject(o, "to_host", zc__costs(p->to_host, fit, 1));
    (void)zc_json_add_number(o, "kernel_sm_gbps", p->kernel_sm_gbps);
    (void)zc_json_add_number(o, "both_gbps", p->both_gbps);
    cJSON_AddNumberToObject(o, "batch_max", (double)p->batch_max);
    cJSON_AddNumberToObject(o, "measured_sms", fit->sms);
    cJSON_AddNumberToObject(o, "block_bytes_min", (double)fit->bytes_min);
    cJSON_AddNumberToObject(o, "block_bytes_max", (double)fit->bytes_max);
    cJSON_AddNumberToObject(o, "move_bytes_min", (double)fit->total_min);
    cJSON_AddNumberToObject(o, "move_bytes_max", (double)fit->total_max);
    return o;
}

static cJSON *zc__beside_json(const zc_blocks_beside *b)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddNumberToObject(o, "measured_block_bytes", (double)b->block_bytes);
    cJSON_AddNumberToObject(o, "measured_count", (double)b->count);
    (void)zc_json_add_number(o, "alone_gbps", b->alone_gbps);
    cJSON *loss = cJSON_AddObjectToObject(o, "loss");
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++)
        (void)zc_json_add_number(loss, zc_blocks_engine_name((zc_blocks_engine)e), b->loss[e]);
    return o;
}

static const char *zc__dir_key(zc_blocks_dir dir)
{
    return dir == ZC_BLOCKS_TO_DEVICE ? "to_device" : dir == ZC_BLOCKS_TO_HOST ? "to_host" : "both";
}

static cJSON *zc__blocks_doc(const zc_blocks_profile *p, const zc_blocks_fit *fit,
                             const char *source, const zc_blocks_workload *w,
                             const zc_blocks_advice *a, const zc_blocks_beside *beside)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", ZC_ADVISE_BLOCKS_SCHEMA);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON *move = cJSON_AddObjectToObject(doc, "move");
    cJSON_AddNumberToObject(move, "block_bytes", (double)w->block_bytes);
    cJSON_AddNumberToObject(move, "count", (double)w->count);
    cJSON_AddStringToObject(move, "direction", zc__dir_key(w->dir));
    cJSON_AddNumberToObject(move, "sms", w->sms != 0 ? w->sms : ZC_BLOCKS_DEFAULT_MAX_SMS);
    cJSON_AddItemToObject(doc, "profile", zc__profile_json(p, fit, source));
    cJSON_AddStringToObject(doc, "choice", zc_blocks_engine_name(a->choice));
    cJSON_AddBoolToObject(doc, "outside_measured", a->outside);
    cJSON *ranked = cJSON_AddArrayToObject(doc, "ranked");
    for (size_t i = 0; i < a->count; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "engine", zc_blocks_engine_name(a->ranked[i].engine));
        (void)zc_json_add_number(x, "predicted_us", a->ranked[i].predicted_us);
        (void)zc_json_add_number(x, "gbps", a->ranked[i].gbps);
        cJSON_AddNumberToObject(x, "calls", (double)a->ranked[i].calls);
        cJSON_AddItemToArray(ranked, x);
    }
    if (beside != NULL)
        cJSON_AddItemToObject(doc, "beside_compute", zc__beside_json(beside));
    return doc;
}

ZC_EXTERN zc_status zc_blocks_advice_to_json(const zc_blocks_profile *profile,
                                             const zc_blocks_fit *fit, const char *source,
                                             const zc_blocks_workload *workload,
                                             const zc_blocks_advice *advice,
                                             const zc_blocks_beside *beside, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(fit);
    ZC_REQUIRE_ARG(workload);
    ZC_REQUIRE_ARG(advice);
    ZC_REQUIRE_ARG(doc_p);
    if (advice->count == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_blocks_advice_to_json: the advice ranks nothing");
    return zc__json_give(zc__blocks_doc(profile, fit, source, workload, advice, beside),
                         "zc_blocks_advice_to_json", doc_p);
}
