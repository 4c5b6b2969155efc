/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation cost: what allocating, pinning and freeing host and device memory cost per size,
 * from zc bench's alloc.* points, from the pinning benchmark, or from the profile's fixed and
 * per-MiB costs when neither was given; and the measured points as a table. */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zerocopy/buffer.h"

/* Most kinds of allocation and sizes one plot shows. */
#define ZC__MAX_KINDS 16
#define ZC__MAX_SIZES 64

/* The bench's allocation points: per kind (the allocating call's name), per size, the median
 * time of allocating and of freeing. */
typedef struct zc__alloc {
    char kind[ZC__MAX_KINDS][96];
    size_t kinds;
    double size[ZC__MAX_SIZES];
    size_t sizes;
    double us[ZC__MAX_KINDS][ZC__MAX_SIZES][2]; /* [kind][size][0: allocate, 1: free]; NAN */
} zc__alloc;

static size_t zc__index_of_size(zc__alloc *a, double bytes)
{
    size_t i = 0;
    while (i < a->sizes && a->size[i] != bytes)
        i++;
    if (i == a->sizes && a->sizes < ZC__MAX_SIZES)
        a->size[a->sizes++] = bytes;
    return i;
}

static size_t zc__index_of_kind(zc__alloc *a, const char *kind, size_t len)
{
    size_t i = 0;
    while (i < a->kinds && (strlen(a->kind[i]) != len || strncmp(a->kind[i], kind, len) != 0))
        i++;
    if (i == a->kinds && a->kinds < ZC__MAX_KINDS)
        snprintf(a->kind[a->kinds++], sizeof a->kind[0], "%.*s", (int)len, kind);
    return i;
}

/* Every ok case of the alloc group; a point's variant is "<kind>: allocate" or "<kind>: free". */
static void zc__alloc_read(const cJSON *bench, zc__alloc *a)
{
    memset(a, 0, sizeof *a);
    for (size_t k = 0; k < ZC__MAX_KINDS; k++)
        for (size_t s = 0; s < ZC__MAX_SIZES; s++)
            a->us[k][s][0] = a->us[k][s][1] = NAN;
    const cJSON *c, *pt;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(bench, "cases"))
    {
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(c, "key");
        const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(c, "outcome");
        if (!cJSON_IsString(key) || strncmp(key->valuestring, "alloc.", 6) != 0 ||
            !cJSON_IsString(outcome) || strcmp(outcome->valuestring, "ok") != 0)
            continue;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points"))
        {
            const cJSON *variant = cJSON_GetObjectItemCaseSensitive(pt, "variant");
            const cJSON *metric = cJSON_GetObjectItemCaseSensitive(pt, "metric");
            double bytes = zc__report_num(pt, "bytes");
            double med = zc__report_num(cJSON_GetObjectItemCaseSensitive(pt, "stats"), "median");
            if (!cJSON_IsString(variant) || !isfinite(bytes) || !(bytes > 0.0) || !isfinite(med) ||
                !(med > 0.0) ||
                (cJSON_IsString(metric) && strcmp(metric->valuestring, "duration") != 0 &&
                 strcmp(metric->valuestring, "latency") != 0))
                continue;
            const char *v = variant->valuestring;
            const char *colon = strrchr(v, ':');
            int op = 0;
            size_t len = strlen(v);
            if (colon != NULL) {
                op = strstr(colon, "free") != NULL;
                len = (size_t)(colon - v);
            }
            size_t k = zc__index_of_kind(a, v, len), s = zc__index_of_size(a, bytes);
            if (k < ZC__MAX_KINDS && s < ZC__MAX_SIZES)
                a->us[k][s][op] = med;
        }
    }
    /* Sizes ascending, the order the lines are drawn in. */
    for (size_t i = 1; i < a->sizes; i++) {
        for (size_t j = i; j > 0 && a->size[j - 1] > a->size[j]; j--) {
            double t = a->size[j];
            a->size[j] = a->size[j - 1];
            a->size[j - 1] = t;
            for (size_t k = 0; k < a->kinds; k++) {
                for (int op = 0; op < 2; op++) {
                    double u = a->us[k][j][op];
                    a->us[k][j][op] = a->us[k][j - 1][op];
                    a->us[k][j - 1][op] = u;
                }
            }
        }
    }
}

/* The bench with allocation points: the profile's, else the first that has them. */
static const cJSON *zc__alloc_bench(const zc_report_input *in)
{
    zc__alloc probe;
    if (in->bench != NULL) {
        zc__alloc_read(in->bench, &probe);
        if (probe.kinds > 0)
            return in->bench;
    }
    for (size_t i = 0; i < in->bench_count; i++) {
        zc__alloc_read(in->benches[i].doc, &probe);
        if (probe.kinds > 0)
            return in->benches[i].doc;
    }
    return NULL;
}

static void zc__plot_bench_alloc(const cJSON *bench, zc__report_plot *plot)
{
    zc__alloc *a = malloc(sizeof *a);
    if (a == NULL) {
        snprintf(plot->why, sizeof plot->why, "out of memory");
        return;
    }
    zc__alloc_read(bench, a);
    zc__buf b = {0};
    double lo = INFINITY, hi = 0.0;
    for (size_t k = 0; k < a->kinds; k++) {
        for (int op = 0; op < 2; op++) {
            zc__buf_printf(&b, "$a%zu_%d << EOD\n", k, op);
            for (size_t s = 0; s < a->sizes; s++) {
                double us = a->us[k][s][op];
                if (!isfinite(us))
                    continue;
                zc__buf_printf(&b, "%.0f %.6g\n", a->size[s], us);
                lo = us < lo ? us : lo;
                hi = us > hi ? us : hi;
            }
            zc__buf_printf(&b, "EOD\n");
        }
    }
    zc__report_plot_header(&b, 900, 460, 0);
    zc__buf_printf(&b, "set title 'Allocating and freeing memory, per kind (zc bench, medians)'\n"
                       "set logscale x 2\nset logscale y 10\nset format x '%%.0b %%BB'\n"
                       "set xlabel 'bytes allocated'\nset ylabel 'time of one call'\n");
    zc__report_plot_time_tics(&b, "y", lo, hi);
    zc__buf_printf(&b, "plot ");
    int first = 1;
    for (size_t k = 0; k < a->kinds; k++) {
        for (int op = 0; op < 2; op++) {
            int any = 0;
            for (size_t s = 0; s < a->sizes; s++)
                any |= isfinite(a->us[k][s][op]);
            if (!any)
                continue;
            /* One colour per kind; allocating solid with filled points, freeing dashed. */
            zc__buf_printf(&b,
                           "%s$a%zu_%d using 1:2 with linespoints lw 2 dt %d pt %d lc rgb '%s' ",
                           first ? "" : ", ", k, op, op ? 2 : 1, op ? 6 : 7,
                           zc__report_colours[k % zc__report_colour_count]);
            if (op == 0) {
                zc__buf_printf(&b, "title ");
                zc__buf_gnuplot_string(&b, a->kind[k]);
            } else {
                zc__buf_printf(&b, "notitle");
            }
            first = 0;
        }
    }
    zc__buf_printf(&b, ", keyentry with linespoints lw 2 dt 1 pt 7 lc rgb 'black' title "
                       "'allocate', keyentry with linespoints lw 2 dt 2 pt 6 lc rgb 'black' "
                       "title 'free'\n");
    snprintf(plot->caption, sizeof plot->caption,
             "What one call costs, measured by zc bench at each size: colour is the kind of "
             "memory and call, solid lines allocating, dashed ones freeing. Pinning is "
             "expensive and grows with size: allocate pinned buffers once and reuse them (a "
             "pool hit costs almost nothing).");
    free(a);
    zc__report_plot_finish(plot, &b);
}

/* The pinning benchmark's result: median time against size per method. */
static void zc__plot_pinning_doc(const cJSON *doc, zc__report_plot *plot)
{
    static const char *const methods[] = {"host_alloc",
                                          "malloc_register",
                                          "malloc_touch_register",
                                          "mmap_touch_register",
                                          "mmap_huge_register",
                                          "mmap_huge_touch_register",
                                          "mmap_huge_touchn_register",
                                          "zc_buffer_alloc",
                                          "zc_pool_hit"};
    enum { METHODS = sizeof methods / sizeof methods[0] };
    snprintf(plot->caption, sizeof plot->caption,
             "The pinning benchmark: allocating and pinning host memory by each method, "
             "medians. Registering memory you already have costs less than a fresh %s.",
             zc_buffer_method_name(ZC_METHOD_HOST_ALLOC));
    zc__buf b = {0};
    int shown[METHODS] = {0};
    int any = 0;
    double lo = INFINITY, hi = 0.0;
    for (int m = 0; m < METHODS; m++) {
        zc__buf_printf(&b, "$p%d << EOD\n", m);
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "results"))
        {
            const cJSON *meth = cJSON_GetObjectItemCaseSensitive(r, "method");
            double size = zc__report_num(r, "size"), ms = zc__report_num(r, "alloc_median_ms");
            if (cJSON_IsString(meth) && strcmp(meth->valuestring, methods[m]) == 0 &&
                isfinite(size) && size > 0.0 && isfinite(ms) && ms > 0.0) {
                zc__buf_printf(&b, "%.0f %.6g\n", size, ms * 1e3);
                lo = ms * 1e3 < lo ? ms * 1e3 : lo;
                hi = ms * 1e3 > hi ? ms * 1e3 : hi;
                shown[m] = 1;
                any = 1;
            }
        }
        zc__buf_printf(&b, "EOD\n");
    }
    if (!any) {
        zc__buf_free(&b);
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "the pinning result holds no allocation times");
        return;
    }
    zc__report_plot_header(&b, 900, 420, 0);
    zc__buf_printf(&b, "set title 'Allocating and pinning host memory (the pinning benchmark, "
                       "medians)'\nset logscale x 2\nset logscale y 10\n"
                       "set format x '%%.0b %%BB'\nset xlabel 'bytes'\nset ylabel "
                       "'time of one allocation'\n");
    zc__report_plot_time_tics(&b, "y", lo, hi);
    zc__buf_printf(&b, "plot ");
    int first = 1;
    for (int m = 0; m < METHODS; m++) {
        if (!shown[m])
            continue;
        zc__buf_printf(&b, "%s$p%d using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title '%s'",
                       first ? "" : ", ", m,
                       zc__report_colours[(size_t)m % zc__report_colour_count], methods[m]);
        first = 0;
    }
    zc__buf_printf(&b, "\n");
    zc__report_plot_finish(plot, &b);
}

/* The profile's fixed and per-MiB costs, drawn as lines: a model, said so in the title. */
static void zc__plot_model(const zc_profile *p, zc__report_plot *plot)
{
    /* Each line named by its call, as src/mem names it (zc_buffer_method_name). */
    struct {
        zc_buffer_method method;
        const char *suffix;
        double fixed, per_mib;
        zc_profile_field field;
    } kinds[] = {
        {ZC_METHOD_HOST_ALLOC, " (pinned)", p->alloc_pinned_fixed_us, p->alloc_pinned_us_per_mib,
         ZC_PF_ALLOC_PINNED_US_PER_MIB},
        {ZC_METHOD_USER_REGISTER, "", p->register_fixed_us, p->register_us_per_mib,
         ZC_PF_REGISTER_US_PER_MIB},
        {ZC_METHOD_MALLOC_MANAGED, "", 0.0, p->alloc_managed_us_per_mib,
         ZC_PF_ALLOC_MANAGED_US_PER_MIB},
        {ZC_METHOD_MALLOC_DEVICE, "", 0.0, p->alloc_device_us_per_mib,
         ZC_PF_ALLOC_DEVICE_US_PER_MIB},
    };
    /* An assumed figure is not plotted under "from the measured costs". */
    for (int i = 0; i < 4; i++) {
        if (p->origin[kinds[i].field] == ZC_ORIGIN_ASSUMED)
            kinds[i].per_mib = 0.0;
    }
    snprintf(plot->caption, sizeof plot->caption,
             "Allocation cost from the profile's fixed and per-MiB figures (a straight-line "
             "model, not measured points). Pinning is expensive: allocate pinned buffers once "
             "and reuse them.");
    int any = 0;
    for (int i = 0; i < 4; i++)
        any |= kinds[i].per_mib > 0.0;
    if (!any) {
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "no allocation cost was measured");
        return;
    }
    zc__buf b = {0};
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < 4; i++) {
        if (!(kinds[i].per_mib > 0.0))
            continue;
        zc__buf_printf(&b, "$a%d << EOD\n", i);
        for (double mib = 1.0; mib <= 4096.0; mib *= 2.0) {
            double us = kinds[i].fixed + mib * kinds[i].per_mib;
            zc__buf_printf(&b, "%.0f %.6g\n", mib * 1048576.0, us);
            lo = us < lo ? us : lo;
            hi = us > hi ? us : hi;
        }
        zc__buf_printf(&b, "EOD\n");
    }
    zc__report_plot_header(&b, 900, 420, 0);
    zc__buf_printf(&b, "set title 'What it costs to allocate or pin memory (from the measured "
                       "fixed and per-MiB costs)'\nset logscale x 2\nset logscale y 10\n"
                       "set format x '%%.0b %%BB'\nset xlabel 'bytes'\nset ylabel "
                       "'time of one allocation'\n");
    zc__report_plot_time_tics(&b, "y", lo, hi);
    zc__buf_printf(&b, "plot ");
    int first = 1;
    for (int i = 0; i < 4; i++) {
        if (!(kinds[i].per_mib > 0.0))
            continue;
        zc__buf_printf(&b, "%s$a%d using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title '%s%s'",
                       first ? "" : ", ", i, zc__report_colours[i],
                       zc_buffer_method_name(kinds[i].method), kinds[i].suffix);
        first = 0;
    }
    zc__buf_printf(&b, "\n");
    zc__report_plot_finish(plot, &b);
}

void zc__report_plot_alloc(const zc_report_input *in, zc__report_plot *plot)
{
    const cJSON *bench = zc__alloc_bench(in);
    if (bench != NULL)
        zc__plot_bench_alloc(bench, plot);
    else if (in->pinning != NULL)
        zc__plot_pinning_doc(in->pinning, plot);
    else
        zc__plot_model(&in->measured, plot);
}

void zc__report_plot_pinning(const zc_report_input *in, zc__report_plot *plot)
{
    plot->script = NULL;
    snprintf(plot->why, sizeof plot->why, "no pinning benchmark result was given");
    if (in->pinning != NULL && zc__alloc_bench(in) != NULL)
        zc__plot_pinning_doc(in->pinning, plot);
}

void zc__report_alloc_table(zc__buf *page, const zc_report_input *in)
{
    const cJSON *bench = zc__alloc_bench(in);
    if (bench == NULL)
        return;
    zc__alloc *a = malloc(sizeof *a);
    if (a == NULL) {
        page->failed = 1;
        return;
    }
    zc__alloc_read(bench, a);
    zc__buf_printf(page, "<details><summary>Allocation cost, every measured point</summary>\n"
                         "<table>\n<tr><th>kind</th><th>size</th><th>allocate</th><th>free</th>"
                         "</tr>\n");
    for (size_t k = 0; k < a->kinds; k++) {
        for (size_t s = 0; s < a->sizes; s++) {
            if (!isfinite(a->us[k][s][0]) && !isfinite(a->us[k][s][1]))
                continue;
            char size[32], alloc[32], release[32];
            zc__report_bytes_text(a->size[s], size, sizeof size);
            zc__report_time_text(a->us[k][s][0], alloc, sizeof alloc);
            zc__report_time_text(a->us[k][s][1], release, sizeof release);
            zc__buf_printf(page, "<tr><td>");
            zc__buf_html(page, a->kind[k]);
            zc__buf_printf(page,
                           "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td "
                           "class=\"n\">%s</td></tr>\n",
                           size, alloc, release);
        }
    }
    zc__buf_printf(page, "</table>\n</details>\n");
    free(a);
}
