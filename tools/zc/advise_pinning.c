/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --pinning: the pinning ways' predicted times for people; the curves, the pricing
 * and the document are the library's. */
#include "advise_pinning.h"

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

/* A ratio to a floor, or a dash where the floor was not measured. */
static void zc__ratio(double x, char *out, size_t size)
{
    if (isfinite(x))
        snprintf(out, size, "%.2f", x);
    else
        snprintf(out, size, "-");
}

static void zc__floor_print(FILE *out, const zc_pinning_option *f)
{
    if (!isfinite(f->seconds)) {
        fprintf(out, "  %-15s not measured\n", zc_pinning_way_name(f->way));
        return;
    }
    fprintf(out, "  %-15s %9.3f %8.3f%s\n", zc_pinning_way_name(f->way), f->seconds, f->s_per_gib,
            f->extrapolated ? " *" : "");
}

static void zc__ways_print(FILE *out, const zc_pinning_advice *a)
{
    fprintf(out, "\n  %-15s %9s %8s %11s %11s\n", "way", "seconds", "s/GiB", "x 4K floor",
            "x THP floor");
    for (size_t i = 0; i < a->count; i++) {
        const zc_pinning_option *o = &a->ranked[i];
        char x4[16], xt[16];
        zc__ratio(o->x_floor_4k, x4, sizeof x4);
        zc__ratio(o->x_floor_thp, xt, sizeof xt);
        fprintf(out, "  %-15s %9.3f %8.3f %11s %11s%s\n", zc_pinning_way_name(o->way), o->seconds,
                o->s_per_gib, x4, xt, o->extrapolated ? " *" : "");
    }
    fprintf(out, "\nThe floor under them (the pages faulted in, nothing pinned):\n");
    for (int f = ZC_PINNING_FLOOR_4K; f <= ZC_PINNING_FLOOR_THP; f++)
        zc__floor_print(out, &a->floors[f]);
}

/* The way of the list at way, or NULL when it was not measured. */
static const zc_pinning_option *zc__find(const zc_pinning_advice *a, zc_pinning_way way)
{
    for (size_t i = 0; i < a->count; i++) {
        if (a->ranked[i].way == way)
            return &a->ranked[i];
    }
    return NULL;
}

/* text after an indent of 18, its lines broken at spaces to stay within 96 columns. */
static void zc__wrapped(FILE *out, const char *text)
{
    const int width = 96 - 18;
    while ((int)strlen(text) > width) {
        int cut = width;
        while (cut > 0 && text[cut] != ' ')
            cut--;
        if (cut == 0)
            break; /* one word longer than the line: printed whole */
        fprintf(out, "%.*s\n%18s", cut, text, "");
        text += cut + 1;
    }
    fprintf(out, "%s\n", text);
}

static void zc__print(FILE *out, const char *source, const zc_pinning_advice *a)
{
    char want[24], lo[24], hi[24];
    zc_size_format(a->bytes, want, sizeof want);
    zc_size_format(a->bytes_min, lo, sizeof lo);
    zc_size_format(a->bytes_max, hi, sizeof hi);
    fprintf(out, "Pinning     %s of pinned host memory, each way zc bench measured\n", want);
    fprintf(out, "Curves      %s: sizes %s to %s\n", source, lo, hi);
    zc__ways_print(out, a);
    fprintf(out, "\nHow a program gets each way:\n");
    for (size_t i = 0; i < a->count; i++) {
        fprintf(out, "  %-15s ", zc_pinning_way_name(a->ranked[i].way));
        zc__wrapped(out, zc_pinning_way_how(a->ranked[i].way));
    }
    const zc_pinning_option *best = &a->ranked[0], *driver = zc__find(a, ZC_PINNING_HOST_ALLOC);
    fprintf(out, "\nFastest: %s", zc_pinning_way_name(best->way));
    if (driver != NULL && driver != best)
        fprintf(out, ", %.1f times less time than cudaHostAlloc", driver->seconds / best->seconds);
    fprintf(out, ".\n");
    if (a->extrapolated)
        fprintf(out,
                "* extrapolated: %s lies outside the sizes that way was measured at; the cost per\n"
                "  byte of its nearest measured size holds.\n",
                want);
}

/* The document's faults are the input's: exit 2, saying which file and why. */
static int zc__bad_bench(const char *path, zc_status st)
{
    fprintf(stderr, "zc advise: --bench %s: %s\n", path, zc_last_error());
    return st == ZC_ERR_NO_MEMORY ? ZC_EXIT_FAILURE : ZC_EXIT_USAGE;
}

int zc_cli_advise_pinning(const zc_cli_pinning_args *args, zc_cli_output *json_out)
{
    int code = ZC_EXIT_OK;
    cJSON *doc = zc_cli_read_json("advise", args->bench, &code);
    if (doc == NULL)
        return code;
    zc_pinning_curves curves;
    zc_pinning_advice a;
    char source[160];
    zc_cli_bench_source(doc, source, sizeof source);
    zc_status st = zc_pinning_bench_from_json(doc, &curves);
    cJSON_Delete(doc);
    if (st != ZC_OK)
        return zc__bad_bench(args->bench, st);
    st = zc_pinning_advise(&curves, (size_t)args->bytes, &a);
    if (st != ZC_OK)
        return zc_cli_fail("advise", "pricing the pinning ways", st);
    if (json_out != NULL) {
        cJSON *out = NULL;
        zc_status built = zc_pinning_advice_to_json(&curves, source, &a, &out);
        code = zc_cli_json_commit_built("advise", built, out, json_out);
    }
    if (json_out == NULL || strcmp(json_out->path, "-") != 0)
        zc__print(stdout, source, &a);
    return code;
}
