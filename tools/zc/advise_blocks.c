/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --blocks: the engines' predicted times for people; the fit, the ranking and the
 * document are the library's. */
#include "advise_blocks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "advise_input.h"
#include "cli.h"
#include "cli_io.h"
#include "cli_json.h"
#include "zerocopy/advise.h"
#include "zerocopy/json.h"
#include "zerocopy/size.h"

static const char *zc__dir_words(zc_blocks_dir dir)
{
    return dir == ZC_BLOCKS_TO_DEVICE ? "to the device"
           : dir == ZC_BLOCKS_TO_HOST ? "to the host"
                                      : "both ways at once";
}

/* The engine's worst miss over the points of the directions the move uses. */
static double zc__worst(const zc_blocks_fit *fit, zc_blocks_dir dir, zc_blocks_engine e)
{
    double w = 0.0;
    if (dir & ZC_BLOCKS_TO_DEVICE)
        w = fmax(w, fit->worst[0][e]);
    if (dir & ZC_BLOCKS_TO_HOST)
        w = fmax(w, fit->worst[1][e]);
    return w;
}

static void zc__beside_print(FILE *out, const zc_blocks_beside *b, uint64_t asked)
{
    char at[24], want[24];
    zc_size_format(b->block_bytes, at, sizeof at);
    zc_size_format(asked, want, sizeof want);
    fprintf(out,
            "\nBeside compute: a memory-bound kernel's loss while the engine moves blocks both "
            "ways\n(blocks.beside at %s x%zu, the measured size nearest %s; the kernel alone "
            "%.0f GB/s):\n",
            at, b->count, want, b->alone_gbps);
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        if (isfinite(b->loss[e]))
            fprintf(out, "  beside %-7s %5.1f %%\n", zc_blocks_engine_name((zc_blocks_engine)e),
                    100.0 * b->loss[e]);
        else
            fprintf(out, "  beside %-7s not measured\n",
                    zc_blocks_engine_name((zc_blocks_engine)e));
    }
}

static void zc__print(FILE *out, const char *source, const zc_blocks_profile *p,
                      const zc_blocks_fit *fit, const zc_blocks_workload *w,
                      const zc_blocks_advice *a, const zc_blocks_beside *beside)
{
    char bs[24], total[24], lo[24], hi[24], tlo[24], thi[24];
    zc_size_format(w->block_bytes, bs, sizeof bs);
    zc_size_format((uint64_t)w->block_bytes * w->count, total, sizeof total);
    zc_size_format(fit->bytes_min, lo, sizeof lo);
    zc_size_format(fit->bytes_max, hi, sizeof hi);
    zc_size_format(fit->total_min, tlo, sizeof tlo);
    zc_size_format(fit->total_max, thi, sizeof thi);
    fprintf(out, "Block move  %s x%zu %s (%s%s), the kernel engine on %u SMs\n", bs, w->count,
            zc__dir_words(w->dir), total, w->dir == ZC_BLOCKS_BOTH ? " each way" : "",
            w->sms != 0 ? w->sms : ZC_BLOCKS_DEFAULT_MAX_SMS);
    fprintf(out, "Profile     fitted to %s: blocks of %s to %s, moves of %s to %s\n", source, lo,
            hi, tlo, thi);
    fprintf(out, "\n  %-7s %14s %9s %9s %12s\n", "engine", "predicted us", "GB/s", "calls",
            "fit's worst");
    for (size_t i = 0; i < a->count; i++) {
        const zc_blocks_option *o = &a->ranked[i];
        fprintf(out, "  %-7s %14.1f %9.2f %9zu %11.1f%%\n", zc_blocks_engine_name(o->engine),
                o->predicted_us, o->gbps, o->calls, 100.0 * zc__worst(fit, w->dir, o->engine));
    }
    fprintf(out, "\nThe mover chooses %s: the least predicted time%s.\n",
            zc_blocks_engine_name(a->choice),
            p->measured ? " on this profile" : " on the placeholders");
    if (a->outside)
        fprintf(out,
                "Outside the measured moves: the fitted costs hold at the moves measured and may "
                "not here\n(a batch's and a launch's cost carry what the form misses at those "
                "sizes: docs/blocks.md).\n");
    if (beside != NULL)
        zc__beside_print(out, beside, w->block_bytes);
}

/* The document's faults are the input's: exit 2, saying which file and why. */
static int zc__bad_bench(const char *path, zc_status st)
{
    fprintf(stderr, "zc advise: --bench %s: %s\n", path, zc_last_error());
    return st == ZC_ERR_NO_MEMORY ? ZC_EXIT_FAILURE : ZC_EXIT_USAGE;
}

int zc_cli_advise_blocks(const zc_cli_blocks_args *args, zc_cli_output *json_out)
{
    zc_blocks_workload w = {(size_t)args->block_bytes, (size_t)args->count,
                            args->both_ways ? ZC_BLOCKS_BOTH
                            : args->to_host ? ZC_BLOCKS_TO_HOST
                                            : ZC_BLOCKS_TO_DEVICE,
                            0};
    int code = ZC_EXIT_OK;
    cJSON *doc = zc_cli_read_json("advise", args->bench, &code);
    if (doc == NULL)
        return code;
    zc_blocks_profile p;
    zc_blocks_fit fit;
    zc_blocks_beside beside;
    zc_blocks_advice a;
    char source[160];
    zc_cli_bench_source(doc, source, sizeof source);
    zc_status st =
        zc_blocks_bench_from_json(doc, w.block_bytes, &p, &fit, args->beside ? &beside : NULL);
    cJSON_Delete(doc);
    if (st != ZC_OK)
        return zc__bad_bench(args->bench, st);
    st = zc_blocks_advise(&p, &fit, &w, &a);
    if (st != ZC_OK)
        return zc_cli_fail("advise", "the block move", st);
    if (json_out != NULL) {
        cJSON *out = NULL;
        zc_status built =
            zc_blocks_advice_to_json(&p, &fit, source, &w, &a, args->beside ? &beside : NULL, &out);
        code = zc_cli_json_commit_built("advise", built, out, json_out);
    }
    if (json_out == NULL || strcmp(json_out->path, "-") != 0)
        zc__print(stdout, source, &p, &fit, &w, &a, args->beside ? &beside : NULL);
    return code;
}
