/* SPDX-License-Identifier: Apache-2.0 */
/* zc advise --trace: the workloads of a traced program, each priced now and with the best
 * technique, printed for people; the document itself is the library's. */
#include "advise_trace.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"
#include "cli_json.h"
#include "zerocopy/json.h"
#include "zerocopy/size.h"

/* "4 KiB" for a class of one size, "4-8 KiB" style ranges as "4 KiB..7.9 KiB". */
static void zc__sizes(const zc_trace_group *g, char *out, size_t size)
{
    char lo[24], hi[24];
    zc_size_format(g->bytes_min, lo, sizeof lo);
    zc_size_format(g->bytes_max, hi, sizeof hi);
    if (g->bytes_min == g->bytes_max)
        snprintf(out, size, "%s", lo);
    else
        snprintf(out, size, "%s..%s", lo, hi);
}

static void zc__group_row(FILE *out, const zc_trace_group *g)
{
    char sizes[56];
    zc__sizes(g, sizes, sizeof sizes);
    fprintf(out, "  %-22s %-4s %-9s %9llu %10.4g %11.4g %11.4g %11.4g  %-10s %11.4g %11.4g  %s\n",
            sizes, zc_direction_key(g->workload.direction), zc_buffer_kind_key(g->host_kind),
            (unsigned long long)g->count, g->rate_hz, g->measured_us / 1e3, g->copies_us / 1e3,
            g->now_us / 1e3, zc_technique_key(g->best), g->best_us / 1e3, g->saving_us / 1e3,
            g->cure[0] ? g->cure : "-");
}

static void zc__unpriced(FILE *out, const zc_trace_advice *a)
{
    if (a->unpriced_count == 0) {
        fprintf(out, "\nUnpriced  nothing: every copy between host and GPU was priced\n");
        return;
    }
    fprintf(out, "\nUnpriced  (%zu part%s)\n", a->unpriced_count,
            a->unpriced_count == 1 ? "" : "s");
    for (size_t i = 0; i < a->unpriced_count; i++) {
        const zc_trace_unpriced *u = &a->unpriced[i];
        char bytes[24];
        zc_size_format(u->bytes, bytes, sizeof bytes);
        fprintf(out, "  %-34s %9llu %12s %11.4g ms  %s\n", u->what, (unsigned long long)u->count,
                bytes, u->time_s * 1e3, u->why);
    }
}

void zc_cli_advise_trace_print(FILE *out, const zc_profile *profile, const char *notes,
                               const char *trace, const zc_trace_advice *a)
{
    int assumed = 0;
    for (const char *c = notes; c != NULL && *c; c++)
        assumed += *c == '\n';
    fprintf(out, "Profile   %s, from %s",
            profile->device_name[0] ? profile->device_name : "unnamed GPU", profile->source);
    if (assumed > 0)
        fprintf(out, " (%d note%s on what was assumed or missing; --json lists them)", assumed,
                assumed == 1 ? "" : "s");
    fprintf(out, "\nTrace     %s: %zu workload%s over a GPU span of %.4g ms%s\n\n", trace,
            a->group_count, a->group_count == 1 ? "" : "s", a->span_s * 1e3,
            a->sized ? "" : " (no size classes in the document: each path at its mean size)");
    fprintf(out, "  %-22s %-4s %-9s %9s %10s %11s %11s %11s  %-10s %11s %11s  %s\n", "size", "dir",
            "host", "count", "rate/s", "measured ms", "copies ms", "now ms", "best", "best ms",
            "saving ms", "cure");
    for (size_t i = 0; i < a->group_count; i++)
        zc__group_row(out, &a->groups[i]);
    fprintf(out,
            "\nTotal     measured %.4g ms of copies; predicted %.4g ms now, %.4g ms with the best "
            "technique of each workload: %.4g ms to save\n",
            a->measured_us / 1e3, a->now_us / 1e3, a->best_us / 1e3, a->saving_us / 1e3);
    if (a->pinning_cure[0] != '\0') {
        fprintf(out, "Pinning   pinned memory allocated in a loop: zc run --fix %s",
                a->pinning_cure);
        if (a->pinning_saving_s >= 0.0)
            fprintf(out, " saves up to %.4g ms", a->pinning_saving_s * 1e3);
        fprintf(out, "\n");
    }
    zc__unpriced(out, a);
}

/* How the input is named in messages. */
static const char *zc__input_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "stdin" : path;
}

int zc_cli_advise_trace_read(const char *path, cJSON **doc_p)
{
    int code = ZC_EXIT_OK;
    cJSON *doc = zc_cli_read_json("advise", path, &code);
    if (doc == NULL)
        return code;
    zc_status status = zc_trace_advice_check(doc);
    if (status != ZC_OK) {
        char what[320];
        snprintf(what, sizeof what, "reading the trace %s%s", strcmp(path, "-") == 0 ? "from " : "",
                 zc__input_name(path));
        cJSON_Delete(doc);
        return zc_cli_fail("advise", what, status);
    }
    *doc_p = doc;
    return ZC_EXIT_OK;
}

int zc_cli_advise_trace(const zc_profile *profile, const char *notes, const cJSON *doc,
                        const char *path, zc_cli_output *json_out)
{
    zc_trace_advice *advice = malloc(sizeof *advice);
    if (advice == NULL) {
        fprintf(stderr, "zc advise: out of memory\n");
        return ZC_EXIT_FAILURE;
    }
    int code = ZC_EXIT_OK;
    zc_status status = zc_advise_trace(profile, doc, advice);
    if (status != ZC_OK) {
        char what[320];
        snprintf(what, sizeof what, "advising on the trace %s", zc__input_name(path));
        code = zc_cli_fail("advise", what, status);
        free(advice);
        return code;
    }
    if (json_out != NULL) {
        cJSON *out = NULL;
        zc_status built = zc_trace_advice_to_json(profile, notes, advice, &out);
        code = zc_cli_json_commit_built("advise", built, out, json_out);
    }
    if (json_out == NULL || strcmp(json_out->path, "-") != 0)
        zc_cli_advise_trace_print(stdout, profile, notes, zc__input_name(path), advice);
    free(advice);
    return code;
}
