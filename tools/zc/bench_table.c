/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench's human report: results by case, the comparison table, findings and method. */
#include <math.h>
#include <string.h>

#include "bench_output.h"

static const char *zc__size(size_t bytes, char *buf, size_t n)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0, v = bytes;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%zu %s", v, units[u]);
    return buf;
}

static const char *zc__group_title(const char *group)
{
    static const struct {
        const char *group, *title;
    } titles[] = {
        {"copy", "Copies by the copy engine (GB/s, 1 GB = 1e9 bytes)"},
        {"zerocopy", "Zero-copy: kernels reading and writing mapped host memory (GB/s)"},
        {"device", "The same kernels on device memory, for contrast (GB/s)"},
        {"managed", "Managed memory (GB/s)"},
        {"latency", "Latency (microseconds)"},
        {"crossover", "Crossover: read each byte k times (microseconds per job)"},
        {"overlap", "Overlap: chunked pipeline on streams (GB/s of input processed)"},
        {"alloc", "Allocation cost (microseconds)"},
        {"multigpu", "Several GPUs: host to all at once, GPU to GPU (GB/s; --devices)"},
    };
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (strcmp(titles[i].group, group) == 0)
            return titles[i].title;
    return group;
}

static void zc__point_line(FILE *out, const zc_bench_point *p)
{
    char label[96], sz[32];
    size_t used = 0;
    label[0] = '\0';
    if (p->bytes > 0 && p->metric != ZC_BENCH_LATENCY)
        used += (size_t)snprintf(label, sizeof label, "%s", zc__size(p->bytes, sz, sizeof sz));
    else if (p->bytes > 0 && strlen(p->variant) == 0)
        used += (size_t)snprintf(label, sizeof label, "%s", zc__size(p->bytes, sz, sizeof sz));
    if (p->param_name && used < sizeof label && strcmp(p->param_name, "stride_bytes") != 0 &&
        strcmp(p->param_name, "streams") != 0)
        used += (size_t)snprintf(label + used, sizeof label - used, "%s%s=%g", used ? " " : "",
                                 p->param_name, p->param);
    if (p->variant[0] && used < sizeof label)
        snprintf(label + used, sizeof label - used, "%s%s", used ? " " : "", p->variant);
    const zc_stats *s = &p->stats;
    const char *unit = zc_bench_metric_unit(p->metric);
    if (p->metric == ZC_BENCH_LATENCY)
        fprintf(out, "    %-52.52s %10.2f %-4s p99 %9.2f  p99.9 %9.2f  max %9.2f  n=%zu\n", label,
                s->median, unit, s->p99, s->p999, s->max, s->count);
    else
        fprintf(out, "    %-52.52s %10.2f %-4s min %9.2f  max %9.2f  CoV %5.2f%%  n=%zu\n", label,
                s->median, unit, s->min, s->max, 100.0 * s->cov, s->count);
}

static void zc__fmt(char *buf, size_t n, double v, const char *unit)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (strcmp(unit, "GB/s") == 0 && v >= 1000.0)
        snprintf(buf, n, "%.2f TB/s", v / 1000.0);
    else
        snprintf(buf, n, "%.1f %s", v, unit);
}

static void zc__print_compare(FILE *out, const zc_bench_document *report)
{
    zc_bench_compare_row rows[ZC_BENCH_COMPARE_ROWS];
    (void)zc_bench_compare(report->results, report->count, rows);
    fprintf(out, "\nThe chapter's comparison, measured on this machine\n");
    fprintf(out, "  %-42s %-6s %-22s %-26s %-12s %s\n", "technique", "copy?", "transfer H2D / D2H",
            "GPU access read / write", "latency p50", "best use");
    for (int i = 0; i < ZC_BENCH_COMPARE_ROWS; i++) {
        const zc_bench_compare_row *r = &rows[i];
        char h2d[32], d2h[32], rd[32], wr[32], lat[32], xfer[72], access[72];
        zc__fmt(h2d, sizeof h2d, r->h2d_gbps, "GB/s");
        zc__fmt(d2h, sizeof d2h, r->d2h_gbps, "GB/s");
        zc__fmt(rd, sizeof rd, r->access_read_gbps, "GB/s");
        zc__fmt(wr, sizeof wr, r->access_write_gbps, "GB/s");
        zc__fmt(lat, sizeof lat, r->latency_us, "us");
        if (isnan(r->h2d_gbps) && isnan(r->d2h_gbps))
            snprintf(xfer, sizeof xfer, "-");
        else
            snprintf(xfer, sizeof xfer, "%s / %s", h2d, d2h);
        snprintf(access, sizeof access, "%s / %s", rd, wr);
        const char *copy = strncmp(r->needs_copy, "on demand", 9) == 0 ? "migr." : r->needs_copy;
        fprintf(out, "  %-42s %-6s %-22s %-26s %-12s %s\n", r->title, copy, xfer, access, lat,
                r->best_use);
    }
    fprintf(out, "  (transfer: copy engine at the largest size measured; GPU access: where the "
                 "data is read from after the technique is applied; latency: pageable and pinned "
                 "4 KiB in + kernel + 4 KiB out, mapped a CPU-GPU flag round trip)\n");
}

/* Print text wrapped at width columns after indent spaces. */
static void zc__wrap(FILE *out, const char *text, int indent, int width)
{
    const char *p = text;
    while (*p) {
        int room = width - indent;
        int len = (int)strlen(p);
        int cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = room;
        }
        fprintf(out, "%*s%.*s\n", indent, "", cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
}

/* The crossover as a grid: for each size and k, who wins and the ratio of the two times. */
static void zc__print_crossover(FILE *out, const zc_bench_result *r)
{
    size_t sizes[16], nsizes = 0;
    double ks[16];
    size_t nks = 0;
    for (size_t i = 0; i < r->point_count; i++) {
        const zc_bench_point *p = &r->points[i];
        if (p->param_name == NULL || strcmp(p->param_name, "k") != 0)
            continue;
        size_t j = 0;
        while (j < nsizes && sizes[j] != p->bytes)
            j++;
        if (j == nsizes && nsizes < 16)
            sizes[nsizes++] = p->bytes;
        j = 0;
        while (j < nks && ks[j] != p->param)
            j++;
        if (j == nks && nks < 16)
            ks[nks++] = p->param;
    }
    if (nsizes == 0 || nks == 0)
        return;
    fprintf(out, "    who wins (time of zero-copy / time of copy-then-compute):\n    %-10s",
            "size");
    for (size_t k = 0; k < nks; k++)
        fprintf(out, " %13s%-3g", "k=", ks[k]);
    fputc('\n', out);
    for (size_t s = 0; s < nsizes; s++) {
        char sz[32];
        fprintf(out, "    %-10s", zc__size(sizes[s], sz, sizeof sz));
        for (size_t k = 0; k < nks; k++) {
            double zc = NAN, cp = NAN;
            for (size_t i = 0; i < r->point_count; i++) {
                const zc_bench_point *p = &r->points[i];
                if (p->bytes != sizes[s] || p->param_name == NULL || p->param != ks[k])
                    continue;
                if (strcmp(p->variant, "zero-copy") == 0)
                    zc = p->stats.median;
                else if (strcmp(p->variant, "copy-then-compute") == 0)
                    cp = p->stats.median;
            }
            if (isnan(zc) || isnan(cp) || cp <= 0.0)
                fprintf(out, " %16s", "-");
            else
                fprintf(out, " %10s %5.2f", zc < cp ? "zero-copy" : "copy", zc / cp);
        }
        fputc('\n', out);
    }
}

void zc_cli_bench_print_table(FILE *out, const zc_bench_document *report)
{
    const char *group = NULL;
    for (size_t i = 0; i < report->count; i++) {
        const zc_bench_result *r = &report->results[i];
        const zc_bench_case_info *info = zc_bench_case_find(r->key);
        const char *g = info ? info->group : "other";
        if (group == NULL || strcmp(group, g) != 0) {
            fprintf(out, "%s== %s\n", group ? "\n" : "", zc__group_title(g));
            group = g;
        }
        fprintf(out, "  %-28s %s", r->key, info ? info->title : "");
        if (r->outcome != ZC_BENCH_OK) {
            fprintf(out, "\n    %s: %s\n",
                    r->outcome == ZC_BENCH_SKIPPED ? "skipped"
                    : r->outcome == ZC_BENCH_FAIL  ? "FAIL"
                                                   : "error",
                    r->reason);
            continue;
        }
        fprintf(out, "  (%.1f s)\n", r->seconds);
        for (size_t j = 0; j < r->point_count; j++)
            zc__point_line(out, &r->points[j]);
        if (strcmp(r->key, "crossover.read_k") == 0)
            zc__print_crossover(out, r);
        if (r->reason[0])
            fprintf(out, "    -> %s\n", r->reason);
    }
    zc__print_compare(out, report);
    size_t counts[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < report->count; i++)
        if ((unsigned)report->results[i].outcome < 4)
            counts[report->results[i].outcome]++;
    fprintf(out, "\n%zu case(s): %zu ok, %zu skipped, %zu FAIL, %zu error; %.1f s (%s run)\n",
            report->count, counts[0], counts[1], counts[2], counts[3], report->wall_seconds,
            zc_bench_mode_name(report->mode));
    fprintf(out, "\nMethod\n");
    zc__wrap(out, zc_bench_method_text(), 2, 100);
}
