/* The report's plots as gnuplot scripts with their data inline (SVG terminal). */
#include "report_page.h"

#include "advise_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char zc__header[] =
    "set terminal svg size 760,420 dynamic enhanced font 'DejaVu Sans,11' background rgb "
    "'white'\n"
    "set grid lc rgb '#dddddd'\n"
    "set key top left box opaque\n"
    "set datafile missing '-'\n";

static const char *const zc__colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e",
                                         "#9467bd", "#8c564b", "#17becf"};

/* A series name from an input file, safe inside a single-quoted gnuplot title: a quote would
 * end the string and a line break the command, and what followed would run as gnuplot. */
static void zc__series_name(char *out, size_t size, const cJSON *name)
{
    const char *text = cJSON_IsString(name) ? name->valuestring : "stream";
    size_t j = 0;
    for (const char *c = text; *c && j + 1 < size; c++)
        out[j++] = *c == '\'' || (unsigned char)*c < 0x20 || *c == 0x7f ? ' ' : *c;
    out[j] = '\0';
}

/* The buffer's text, or NULL (why filled) when it failed. */
static char *zc__done(zc_buf *b, char *why, size_t size)
{
    if (b->failed) {
        zc_buf_free(b);
        snprintf(why, size, "out of memory");
        return NULL;
    }
    return b->data;
}

char *zc_report_plot_copy(const zc_report_input *in, zc_direction dir, char *why, size_t size)
{
    zc_buf b = {0};
    int series = 0;
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        const zc_curve *c = &in->measured.copy[k][dir];
        if (c->count == 0)
            continue;
        zc_buf_printf(&b, "$%s << EOD\n", zc_host_kind_key((zc_host_kind)k));
        for (size_t i = 0; i < c->count; i++)
            zc_buf_printf(&b, "%zu %.6g\n", c->bytes[i], c->gbps[i]);
        zc_buf_printf(&b, "EOD\n");
        series++;
    }
    if (series == 0) {
        zc_buf_free(&b);
        snprintf(why, size, "no %s copy was measured", dir == ZC_DIR_H2D ? "H2D" : "D2H");
        return NULL;
    }
    zc_buf_printf(&b, "%s", zc__header);
    zc_buf_printf(&b,
                  "set title 'cudaMemcpy %s: bandwidth against size, per host memory kind'\n"
                  "set logscale x 2\nset format x '%%.0b %%BB'\nset xlabel 'bytes per copy'\n"
                  "set ylabel 'GB/s (1e9 bytes per second)'\nset yrange [0:*]\nplot ",
                  dir == ZC_DIR_H2D ? "host to device" : "device to host");
    int first = 1;
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++) {
        if (in->measured.copy[k][dir].count == 0)
            continue;
        /* Pinned, write-combined and registered often coincide: dashes and point shapes keep
         * each line visible under the others. */
        zc_buf_printf(
            &b,
            "%s$%s using 1:2 with linespoints lw 2 dt %d pt %d lc rgb '%s' title '%s' noenhanced",
            first ? "" : ", ", zc_host_kind_key((zc_host_kind)k), k + 1, 7 + 2 * k, zc__colors[k],
            zc_host_kind_key((zc_host_kind)k));
        first = 0;
    }
    zc_buf_printf(&b, "\n");
    return zc__done(&b, why, size);
}

char *zc_report_plot_zerocopy(const zc_report_input *in, char *why, size_t size)
{
    const zc_profile *p = &in->measured;
    int any = 0;
    for (int a = 0; a < ZC_ACCESS_COUNT; a++)
        any |= p->mapped_read_gbps[a] > 0.0 || p->mapped_write_gbps[a] > 0.0;
    if (!any) {
        snprintf(why, size, "no zero-copy access was measured");
        return NULL;
    }
    zc_buf b = {0};
    zc_buf_printf(&b, "$d << EOD\n");
    for (int a = 0; a < ZC_ACCESS_COUNT; a++) {
        zc_buf_printf(&b, "%s", zc_access_key((zc_access)a));
        double v[2] = {p->mapped_read_gbps[a], p->mapped_write_gbps[a]};
        for (int i = 0; i < 2; i++) {
            if (v[i] > 0.0)
                zc_buf_printf(&b, " %.6g", v[i]);
            else
                zc_buf_printf(&b, " -");
        }
        zc_buf_printf(&b, "\n");
    }
    zc_buf_printf(&b, "EOD\n%s", zc__header);
    zc_buf_printf(&b, "set title 'A kernel reading and writing mapped host memory, by access "
                      "pattern'\nset style data histograms\n"
                      "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
                      "set ylabel 'GB/s of useful data'\nset yrange [0:*]\n");
    if (p->device_gbps > 0.0)
        zc_buf_printf(&b, "set label 1 'device memory: %.0f GB/s' at graph 0.6, graph 0.9\n",
                      p->device_gbps);
    zc_buf_printf(&b,
                  "plot $d using 2:xtic(1) lc rgb '%s' title 'read', $d using 3 lc rgb '%s' "
                  "title 'write'\n",
                  zc__colors[1], zc__colors[3]);
    return zc__done(&b, why, size);
}

/* Measured points of the bench's crossover case for one variant, at its largest size. */
static int zc__bench_crossover(const cJSON *bench, const char *variant, zc_buf *b, double *bytes_p)
{
    const cJSON *c, *pt;
    const cJSON *found = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(bench, "cases"))
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "key");
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(c, "outcome");
        if (cJSON_IsString(k) && strcmp(k->valuestring, "crossover.read_k") == 0 &&
            cJSON_IsString(o) && strcmp(o->valuestring, "ok") == 0)
            found = c;
    }
    double largest = 0.0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(found, "points"))
    {
        const cJSON *by = cJSON_GetObjectItemCaseSensitive(pt, "bytes");
        if (cJSON_IsNumber(by) && by->valuedouble > largest)
            largest = by->valuedouble;
    }
    int n = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(found, "points"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(pt, "variant");
        const cJSON *by = cJSON_GetObjectItemCaseSensitive(pt, "bytes");
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(pt, "param");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(pt, "stats"), "median");
        if (!cJSON_IsString(v) || strcmp(v->valuestring, variant) != 0 || !cJSON_IsNumber(by) ||
            by->valuedouble != largest || !cJSON_IsNumber(k) || !cJSON_IsNumber(m))
            continue;
        zc_buf_printf(b, "%g %.6g\n", k->valuedouble, m->valuedouble);
        n++;
    }
    *bytes_p = largest;
    return n;
}

char *zc_report_plot_crossover(const zc_report_input *in, char *why, size_t size)
{
    if (!in->have_profile) {
        snprintf(why, size, "no profile to predict from");
        return NULL;
    }
    zc_buf b = {0};
    static const zc_technique shown[] = {ZC_TECH_PAGEABLE, ZC_TECH_PINNED, ZC_TECH_MAPPED,
                                         ZC_TECH_MANAGED};
    size_t bytes = (size_t)4 << 20;
    double bench_bytes = 0.0;
    zc_buf_printf(&b, "$zc << EOD\n");
    int measured_zc = zc__bench_crossover(in->bench, "zero-copy", &b, &bench_bytes);
    zc_buf_printf(&b, "EOD\n$cc << EOD\n");
    int measured_cc = zc__bench_crossover(in->bench, "copy-then-compute", &b, &bench_bytes);
    zc_buf_printf(&b, "EOD\n");
    if (measured_zc > 0 && bench_bytes >= 16.0)
        bytes = ((size_t)bench_bytes / 16) * 16; /* predict the size the bench measured */
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        zc_buf_printf(&b, "$t%d << EOD\n", (int)shown[i]);
        for (double k = 1.0; k <= 64.0; k *= 2.0) {
            zc_workload w = {bytes, 1, 0, ZC_DIR_H2D, k, ZC_ACCESS_COALESCED, 0, 0};
            zc_prediction r;
            if (zc_advise_predict(&in->profile, &w, shown[i], &r) == ZC_OK && r.usable)
                zc_buf_printf(&b, "%g %.6g\n", k, r.per_transfer_us - r.cpu_us);
        }
        zc_buf_printf(&b, "EOD\n");
    }
    char size_text[32];
    zc_advise_size_text((double)bytes, size_text, sizeof size_text);
    zc_buf_printf(&b, "%s", zc__header);
    zc_buf_printf(&b,
                  "set title 'One transfer of %s to the GPU, read k times by a kernel: "
                  "predicted (lines)%s'\n"
                  "set logscale x 2\nset logscale y 10\nset xlabel 'k: times the GPU reads each "
                  "byte'\nset ylabel 'microseconds'\nplot ",
                  size_text, measured_zc + measured_cc > 0 ? " and measured (points)" : "");
    int first = 1;
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        zc_workload w = {bytes, 1, 0, ZC_DIR_H2D, 1, ZC_ACCESS_COALESCED, 0, 0};
        zc_prediction r;
        if (zc_advise_predict(&in->profile, &w, shown[i], &r) != ZC_OK || !r.usable)
            continue;
        zc_buf_printf(&b, "%s$t%d using 1:2 with lines lw 2 lc rgb '%s' title '%s'",
                      first ? "" : ", ", (int)shown[i], zc__colors[i],
                      zc_technique_title(shown[i]));
        first = 0;
    }
    if (measured_zc > 0)
        zc_buf_printf(&b,
                      ", $zc using 1:2 with points pt 7 ps 1.2 lc rgb '%s' title 'zero-copy, "
                      "measured'",
                      zc__colors[2]);
    if (measured_cc > 0)
        zc_buf_printf(&b,
                      ", $cc using 1:2 with points pt 5 ps 1.2 lc rgb '%s' title "
                      "'copy then compute, measured'",
                      zc__colors[1]);
    zc_buf_printf(&b, "\n");
    return zc__done(&b, why, size);
}

/* A number field of an object, NAN when absent. */
static double zc__num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The latency percentiles of one stream mode, in any of the shapes a result may give them. */
static int zc__stream_percentiles(const cJSON *mode, double pct[5])
{
    static const char *const objects[] = {"latency_us", "latency", "stats"};
    static const char *const names[5][2] = {
        {"p50", "median"}, {"p90", "p90"}, {"p99", "p99"}, {"p999", "p99.9"}, {"max", "max"}};
    for (size_t o = 0; o < 3; o++) {
        const cJSON *lat = cJSON_GetObjectItemCaseSensitive(mode, objects[o]);
        if (!cJSON_IsObject(lat))
            continue;
        int found = 0;
        for (int i = 0; i < 5; i++) {
            pct[i] = zc__num(lat, names[i][0]);
            if (!isfinite(pct[i]))
                pct[i] = zc__num(lat, names[i][1]);
            found += isfinite(pct[i]);
        }
        if (found >= 2)
            return 1;
    }
    return 0;
}

char *zc_report_plot_latency(const zc_report_input *in, char *why, size_t size)
{
    if (in->stream_count == 0) {
        snprintf(why, size, "no zc stream result was given");
        return NULL;
    }
    zc_buf b = {0};
    char names[16][64];
    int series = 0;
    static const char *const lists[] = {"modes", "results", "runs"};
    for (size_t s = 0; s < in->stream_count; s++) {
        for (size_t l = 0; l < 3; l++) {
            const cJSON *m;
            cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(in->streams[s], lists[l]))
            {
                double pct[5];
                /* A run's name tells apart runs of one mode (flag and LL protocols). */
                const cJSON *name = cJSON_GetObjectItemCaseSensitive(m, "name");
                if (!cJSON_IsString(name))
                    name = cJSON_GetObjectItemCaseSensitive(m, "mode");
                if (series >= 16 || !zc__stream_percentiles(m, pct))
                    continue;
                zc__series_name(names[series], sizeof names[series], name);
                zc_buf_printf(&b, "$s%d << EOD\n", series);
                static const char *const labels[] = {"p50", "p90", "p99", "p99.9", "max"};
                for (int i = 0; i < 5; i++) {
                    if (isfinite(pct[i]))
                        zc_buf_printf(&b, "%d %s %.6g\n", i, labels[i], pct[i]);
                }
                zc_buf_printf(&b, "EOD\n");
                series++;
            }
        }
    }
    if (series == 0) {
        zc_buf_free(&b);
        snprintf(why, size, "the zc stream results given hold no latency percentiles");
        return NULL;
    }
    zc_buf_printf(&b, "%s", zc__header);
    zc_buf_printf(&b, "set title 'Frame round-trip latency per stream mode'\nset logscale y\n"
                      "set xlabel 'percentile'\nset ylabel 'microseconds'\nset xrange [-0.5:4.5]\n"
                      "plot ");
    for (int s = 0; s < series; s++) {
        char safe[64];
        size_t j = 0;
        for (const char *c = names[s]; *c && j + 1 < sizeof safe; c++)
            safe[j++] = *c == '\'' || *c == '_' ? ' ' : *c;
        safe[j] = '\0';
        zc_buf_printf(&b,
                      "%s$s%d using 1:3:xtic(2) with linespoints lw 2 pt 7 lc rgb '%s' "
                      "title '%s'",
                      s ? ", " : "", s, zc__colors[s % 7], safe);
    }
    zc_buf_printf(&b, "\n");
    return zc__done(&b, why, size);
}

/* The allocation plot from measure_pinning's results: median time against size per method. */
static char *zc__plot_pinning(const cJSON *doc, char *why, size_t size)
{
    static const char *const methods[] = {
        "host_alloc",      "malloc_register", "malloc_touch_register", "mmap_huge_touch_register",
        "zc_buffer_alloc", "zc_pool_hit"};
    zc_buf b = {0};
    int shown[6] = {0};
    int any = 0;
    for (int m = 0; m < 6; m++) {
        zc_buf_printf(&b, "$p%d << EOD\n", m);
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "results"))
        {
            const cJSON *meth = cJSON_GetObjectItemCaseSensitive(r, "method");
            const cJSON *sz = cJSON_GetObjectItemCaseSensitive(r, "size");
            const cJSON *ms = cJSON_GetObjectItemCaseSensitive(r, "alloc_median_ms");
            if (cJSON_IsString(meth) && strcmp(meth->valuestring, methods[m]) == 0 &&
                cJSON_IsNumber(sz) && cJSON_IsNumber(ms) && ms->valuedouble > 0.0) {
                zc_buf_printf(&b, "%.0f %.6g\n", sz->valuedouble, ms->valuedouble);
                shown[m] = 1;
                any = 1;
            }
        }
        zc_buf_printf(&b, "EOD\n");
    }
    if (!any) {
        zc_buf_free(&b);
        snprintf(why, size, "the pinning result holds no allocation times");
        return NULL;
    }
    zc_buf_printf(&b, "%s", zc__header);
    zc_buf_printf(&b, "set title 'Allocating and pinning host memory (the pinning benchmark, "
                      "medians)'\nset logscale x 2\nset logscale y 10\n"
                      "set format x '%%.0b %%BB'\nset xlabel 'bytes'\nset ylabel "
                      "'milliseconds'\nplot ");
    int first = 1;
    for (int m = 0; m < 6; m++) {
        if (!shown[m])
            continue;
        zc_buf_printf(
            &b, "%s$p%d using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title '%s' noenhanced",
            first ? "" : ", ", m, zc__colors[m], methods[m]);
        first = 0;
    }
    zc_buf_printf(&b, "\n");
    return zc__done(&b, why, size);
}

char *zc_report_plot_alloc(const zc_report_input *in, char *why, size_t size)
{
    if (in->pinning != NULL)
        return zc__plot_pinning(in->pinning, why, size);
    const zc_profile *p = &in->measured;
    struct {
        const char *name;
        double fixed, per_mib;
    } kinds[] = {
        {"cudaHostAlloc (pinned)", p->alloc_pinned_fixed_us, p->alloc_pinned_us_per_mib},
        {"cudaHostRegister", p->register_fixed_us, p->register_us_per_mib},
        {"cudaMallocManaged", 0.0, p->alloc_managed_us_per_mib},
        {"cudaMalloc", 0.0, p->alloc_device_us_per_mib},
    };
    int any = 0;
    for (int i = 0; i < 4; i++)
        any |= kinds[i].per_mib > 0.0;
    if (!any) {
        snprintf(why, size, "no allocation cost was measured");
        return NULL;
    }
    zc_buf b = {0};
    for (int i = 0; i < 4; i++) {
        if (!(kinds[i].per_mib > 0.0))
            continue;
        zc_buf_printf(&b, "$a%d << EOD\n", i);
        for (double mib = 1.0; mib <= 4096.0; mib *= 2.0)
            zc_buf_printf(&b, "%.0f %.6g\n", mib * 1048576.0,
                          (kinds[i].fixed + mib * kinds[i].per_mib) / 1e3);
        zc_buf_printf(&b, "EOD\n");
    }
    zc_buf_printf(&b, "%s", zc__header);
    zc_buf_printf(&b, "set title 'What it costs to allocate or pin host memory (from the "
                      "measured fixed and per-MiB costs)'\nset logscale x 2\nset logscale y 10\n"
                      "set format x '%%.0b %%BB'\nset xlabel 'bytes'\nset ylabel "
                      "'milliseconds'\nplot ");
    int first = 1;
    for (int i = 0; i < 4; i++) {
        if (!(kinds[i].per_mib > 0.0))
            continue;
        zc_buf_printf(&b, "%s$a%d using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title '%s'",
                      first ? "" : ", ", i, zc__colors[i], kinds[i].name);
        first = 0;
    }
    zc_buf_printf(&b, "\n");
    return zc__done(&b, why, size);
}

char *zc_report_plot_histogram(const zc_report_input *in, char *why, size_t size)
{
    if (in->stream_count == 0) {
        snprintf(why, size, "no zc stream result was given");
        return NULL;
    }
    zc_buf b = {0};
    char names[16][64];
    int series = 0;
    for (size_t s = 0; s < in->stream_count; s++) {
        const cJSON *run;
        cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(in->streams[s], "runs"))
        {
            const cJSON *h = cJSON_GetObjectItemCaseSensitive(run, "histogram_us");
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(run, "name");
            double total = 0.0;
            const cJSON *bin;
            cJSON_ArrayForEach(bin, h)
            {
                double c = zc__num(bin, "count");
                if (isfinite(c))
                    total += c;
            }
            if (series >= 16 || !(total > 0.0))
                continue;
            zc__series_name(names[series], sizeof names[series], name);
            zc_buf_printf(&b, "$h%d << EOD\n", series);
            cJSON_ArrayForEach(bin, h)
            {
                double lo = zc__num(bin, "lo"), c = zc__num(bin, "count");
                if (isfinite(lo) && lo > 0.0 && isfinite(c) && c > 0.0)
                    zc_buf_printf(&b, "%.6g %.6g\n", lo, c / total);
            }
            zc_buf_printf(&b, "EOD\n");
            series++;
        }
    }
    if (series == 0) {
        zc_buf_free(&b);
        snprintf(why, size, "the zc stream results given hold no latency histogram");
        return NULL;
    }
    zc_buf_printf(&b, "%s", zc__header);
    zc_buf_printf(&b, "set title 'Distribution of frame latency per stream run'\n"
                      "set logscale xy\nset xlabel 'microseconds (bucket start)'\n"
                      "set ylabel 'share of frames'\nplot ");
    for (int i = 0; i < series; i++)
        zc_buf_printf(&b, "%s$h%d using 1:2 with steps lw 2 lc rgb '%s' title '%s' noenhanced",
                      i ? ", " : "", i, zc__colors[i % 7], names[i]);
    zc_buf_printf(&b, "\n");
    return zc__done(&b, why, size);
}
