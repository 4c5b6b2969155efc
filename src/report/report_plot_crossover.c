/* SPDX-License-Identifier: Apache-2.0 */
/* The crossover: when copying first pays off against zero-copy. A plot of one transfer read
 * once, over the sizes zc bench measured, with a caption that says what those sizes showed, and
 * a table of every size and number of reads measured. */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most measured points read from the bench's crossover case. */
#define ZC__MAX_POINTS 256

/* Sizes predicted when the bench measured no crossover: 4 KiB to 256 MiB. */
#define ZC__DEFAULT_LO ((size_t)4 << 10)
#define ZC__DEFAULT_HI ((size_t)256 << 20)

/* One measured pair at (bytes, k): zero-copy against copy then compute. */
typedef struct zc__pair {
    size_t bytes;
    double k;
    double zero_copy_us, copy_us; /* NAN until measured */
} zc__pair;

typedef struct zc__measured {
    zc__pair pair[ZC__MAX_POINTS];
    size_t count;
} zc__measured;

static zc__pair *zc__pair_at(zc__measured *m, size_t bytes, double k)
{
    for (size_t i = 0; i < m->count; i++) {
        if (m->pair[i].bytes == bytes && m->pair[i].k == k)
            return &m->pair[i];
    }
    if (m->count >= ZC__MAX_POINTS)
        return NULL;
    zc__pair *p = &m->pair[m->count++];
    p->bytes = bytes;
    p->k = k;
    p->zero_copy_us = p->copy_us = NAN;
    return p;
}

static int zc__by_size_then_k(const void *a, const void *b)
{
    const zc__pair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* The bench's crossover.read_k points, sorted by size then k. 0 when a size is out of range
 * (recorded in in->bad). */
static int zc__read_measured(const zc_report_input *in, zc__measured *m)
{
    m->count = 0;
    const cJSON *c = zc__report_bench_case(in->bench, "crossover.read_k"), *pt;
    int i = 0;
    cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(pt, "variant");
        double by = zc__report_num(pt, "bytes"), k = zc__report_num(pt, "param");
        double med = zc__report_num(cJSON_GetObjectItemCaseSensitive(pt, "stats"), "median");
        char field[96];
        snprintf(field, sizeof field, "case crossover.read_k, point %d, bytes", i++);
        size_t bytes = 0;
        if (!cJSON_IsString(v) || !isfinite(by) || !(k >= 1.0) || !isfinite(k) || !(med > 0.0) ||
            !isfinite(med))
            continue;
        if (!zc__report_size(by, in->bench_path, field, in->bad, &bytes))
            return 0;
        if (bytes == 0)
            continue;
        zc__pair *p = zc__pair_at(m, bytes, k);
        if (p == NULL)
            break;
        if (strcmp(v->valuestring, "zero-copy") == 0)
            p->zero_copy_us = med;
        else if (strcmp(v->valuestring, "copy-then-compute") == 0)
            p->copy_us = med;
    }
    qsort(m->pair, m->count, sizeof m->pair[0], zc__by_size_then_k);
    return 1;
}

/* Sizes where one side won at k = 1, as "64 KiB and 1 MiB"; 0 when none. */
static int zc__winners(const zc__measured *m, int zero_copy, char *out, size_t size)
{
    size_t sizes[ZC__MAX_POINTS], n = 0;
    for (size_t i = 0; i < m->count; i++) {
        const zc__pair *p = &m->pair[i];
        if (p->k != 1.0 || !isfinite(p->zero_copy_us) || !isfinite(p->copy_us))
            continue;
        if ((p->zero_copy_us < p->copy_us) == zero_copy)
            sizes[n++] = p->bytes;
    }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char text[32];
        zc__report_bytes_text((double)sizes[i], text, sizeof text);
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s", i == 0 ? "" : (i + 1 == n ? " and " : ", "),
                 text);
    }
    return n > 0;
}

/* The size after s in the plot's range: the next power of two, then the range's end; 0 after
 * the end. */
static size_t zc__next(size_t s, size_t hi)
{
    if (s >= hi)
        return 0;
    return s * 2 > hi ? hi : s * 2;
}

/* Predicted time of one transfer of bytes read k times with technique t; NAN when unusable. */
static double zc__predict(const zc_report_input *in, size_t bytes, double k, zc_technique t)
{
    zc_workload w = {bytes, 1, 0, ZC_DIR_H2D, k, ZC_ACCESS_COALESCED, 0, 0};
    zc_prediction r;
    if (zc_advise_predict(&in->profile, &w, t, &r) != ZC_OK || !r.usable)
        return NAN;
    return r.per_transfer_us - r.cpu_us;
}

static void zc__caption(const zc_report_input *in, const zc__measured *m, size_t lo, size_t hi,
                        char *out, size_t size)
{
    char lo_text[32], hi_text[32];
    zc__report_bytes_text((double)lo, lo_text, sizeof lo_text);
    zc__report_bytes_text((double)hi, hi_text, sizeof hi_text);
    snprintf(out, size,
             "One transfer to the GPU, read once by a kernel, for transfers of %s to %s: the time "
             "predicted from the measured profile (lines)%s.",
             lo_text, hi_text, m->count > 0 ? " and measured by zc bench (points)" : "");
    /* What the predictions say: the largest size at which zero-copy is still ahead. */
    size_t ahead = 0;
    for (size_t s = lo; s > 0; s = zc__next(s, hi)) {
        double z = zc__predict(in, s, 1.0, ZC_TECH_MAPPED);
        double c = zc__predict(in, s, 1.0, ZC_TECH_PINNED);
        if (isfinite(z) && isfinite(c) && z < c)
            ahead = s;
    }
    size_t used = strlen(out);
    char text[32];
    zc__report_bytes_text((double)ahead, text, sizeof text);
    if (ahead == hi)
        snprintf(out + used, size - used,
                 " Predicted, zero-copy is faster than a pinned copy over the whole range.");
    else if (ahead > 0)
        snprintf(out + used, size - used,
                 " Predicted, zero-copy is faster than a pinned copy up to %s; above that, "
                 "copying first is.",
                 text);
    else
        snprintf(out + used, size - used,
                 " Predicted, a pinned copy is faster than zero-copy at every size shown.");
    char zc_won[256], copy_won[256];
    int z = zc__winners(m, 1, zc_won, sizeof zc_won),
        c = zc__winners(m, 0, copy_won, sizeof copy_won);
    used = strlen(out);
    if (z && c)
        snprintf(out + used, size - used,
                 " Measured here, zero-copy was faster at %s, copying first at %s.", zc_won,
                 copy_won);
    else if (z)
        snprintf(out + used, size - used, " Measured here, zero-copy was faster at %s.", zc_won);
    else if (c)
        snprintf(out + used, size - used, " Measured here, copying first was faster at %s.",
                 copy_won);
    if (m->count > 0) {
        used = strlen(out);
        snprintf(out + used, size - used,
                 " The table below has every size and number of reads measured.");
    }
}

void zc__report_plot_crossover(const zc_report_input *in, zc__report_plot *plot)
{
    snprintf(plot->caption, sizeof plot->caption,
             "One transfer to the GPU, read once by a kernel: zero-copy against copying first.");
    if (!in->have_profile) {
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "no profile to predict from");
        return;
    }
    zc__measured *m = calloc(1, sizeof *m);
    if (m == NULL) {
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "out of memory");
        return;
    }
    if (!zc__read_measured(in, m)) {
        free(m);
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "a measured size is out of range");
        return;
    }
    /* The range: the sizes measured, else the sizes the report predicts on its own. */
    size_t lo = ZC__DEFAULT_LO, hi = ZC__DEFAULT_HI;
    if (m->count > 0) {
        lo = m->pair[0].bytes;
        hi = m->pair[m->count - 1].bytes;
        if (lo == hi) {
            lo = lo / 4 > 0 ? lo / 4 : 1;
            hi *= 4;
        }
    }
    zc__buf b = {0};
    static const zc_technique shown[] = {ZC_TECH_PAGEABLE, ZC_TECH_PINNED, ZC_TECH_MAPPED,
                                         ZC_TECH_MANAGED};
    double t_lo = INFINITY, t_hi = 0.0;
    for (int v = 0; v < 2; v++) {
        zc__buf_printf(&b, "$m%d << EOD\n", v);
        for (size_t i = 0; i < m->count; i++) {
            double us = v == 0 ? m->pair[i].zero_copy_us : m->pair[i].copy_us;
            if (m->pair[i].k != 1.0 || !isfinite(us))
                continue;
            zc__buf_printf(&b, "%zu %.6g\n", m->pair[i].bytes, us);
            t_lo = us < t_lo ? us : t_lo;
            t_hi = us > t_hi ? us : t_hi;
        }
        zc__buf_printf(&b, "EOD\n");
    }
    int predicted[4] = {0};
    for (size_t i = 0; i < 4; i++) {
        zc__buf_printf(&b, "$t%zu << EOD\n", i);
        /* Every power of two in the range, and its ends. */
        for (size_t s = lo; s > 0; s = zc__next(s, hi)) {
            double us = zc__predict(in, s, 1.0, shown[i]);
            if (isfinite(us) && us > 0.0) {
                zc__buf_printf(&b, "%zu %.6g\n", s, us);
                predicted[i] = 1;
                t_lo = us < t_lo ? us : t_lo;
                t_hi = us > t_hi ? us : t_hi;
            }
        }
        zc__buf_printf(&b, "EOD\n");
    }
    zc__report_plot_header(&b, 900, 420, 0);
    zc__buf_printf(&b,
                   "set title 'One transfer to the GPU read once by a kernel: time against "
                   "size'\nset logscale x 2\nset logscale y 10\nset format x '%%.0b %%BB'\n"
                   "set xrange [%zu:%zu]\nset xlabel 'bytes per transfer'\n"
                   "set ylabel 'time of one transfer'\n",
                   lo, hi);
    zc__report_plot_time_tics(&b, "y", t_lo, t_hi);
    zc__buf_printf(&b, "plot ");
    int first = 1;
    for (size_t i = 0; i < 4; i++) {
        if (!predicted[i])
            continue;
        zc__buf_printf(&b, "%s$t%zu using 1:2 with lines lw 2 lc rgb '%s' title ",
                       first ? "" : ", ", i, zc__report_colours[i]);
        char title[96];
        snprintf(title, sizeof title, "%s, predicted", zc_technique_title(shown[i]));
        zc__buf_gnuplot_string(&b, title);
        first = 0;
    }
    /* Measured points in the colour of the predicted line they are measured against. */
    for (int v = 0; v < 2; v++) {
        int any = 0;
        for (size_t i = 0; i < m->count; i++)
            any |= m->pair[i].k == 1.0 &&
                   isfinite(v == 0 ? m->pair[i].zero_copy_us : m->pair[i].copy_us);
        if (any)
            zc__buf_printf(&b, "%s$m%d using 1:2 with points pt %d ps 1.3 lc rgb '%s' title '%s'",
                           first ? "" : ", ", v, v == 0 ? 7 : 5, zc__report_colours[v == 0 ? 2 : 1],
                           v == 0 ? "zero-copy, measured" : "copy then compute, measured");
        first = first && !any;
    }
    zc__buf_printf(&b, "\n");
    zc__caption(in, m, lo, hi, plot->caption, sizeof plot->caption);
    free(m);
    zc__report_plot_finish(plot, &b);
}

void zc__report_crossover_table(zc__buf *page, const zc_report_input *in)
{
    zc__measured *m = calloc(1, sizeof *m);
    if (m == NULL) {
        page->failed = 1;
        return;
    }
    if (!zc__read_measured(in, m) || m->count == 0) {
        free(m);
        return;
    }
    /* The k values measured, ascending: the table's columns. */
    double ks[32];
    size_t nk = 0;
    for (size_t i = 0; i < m->count; i++) {
        size_t j = 0;
        while (j < nk && ks[j] != m->pair[i].k)
            j++;
        if (j == nk && nk < 32)
            ks[nk++] = m->pair[i].k;
    }
    for (size_t i = 1; i < nk; i++) {
        for (size_t j = i; j > 0 && ks[j - 1] > ks[j]; j--) {
            double t = ks[j];
            ks[j] = ks[j - 1];
            ks[j - 1] = t;
        }
    }
    zc__buf_printf(page, "<table class=\"crossover\">\n<tr><th>transfer size</th>");
    for (size_t j = 0; j < nk; j++)
        zc__buf_printf(page, "<th>read %g time%s</th>", ks[j], ks[j] == 1.0 ? "" : "s");
    zc__buf_printf(page, "</tr>\n");
    for (size_t i = 0; i < m->count;) {
        size_t bytes = m->pair[i].bytes;
        char size_text[32];
        zc__report_bytes_text((double)bytes, size_text, sizeof size_text);
        zc__buf_printf(page, "<tr><td class=\"n\">%s</td>", size_text);
        for (size_t j = 0; j < nk; j++) {
            const zc__pair *p = NULL;
            for (size_t q = i; q < m->count && m->pair[q].bytes == bytes; q++)
                p = m->pair[q].k == ks[j] ? &m->pair[q] : p;
            if (p == NULL || !isfinite(p->zero_copy_us) || !isfinite(p->copy_us)) {
                zc__buf_printf(page, "<td class=\"n\">-</td>");
                continue;
            }
            char z[32], c[32];
            zc__report_time_text(p->zero_copy_us, z, sizeof z);
            zc__report_time_text(p->copy_us, c, sizeof c);
            int zc_wins = p->zero_copy_us < p->copy_us;
            zc__buf_printf(page, "<td>%szero-copy %s%s<br>%scopy first %s%s</td>",
                           zc_wins ? "<b>" : "", z, zc_wins ? "</b>" : "", zc_wins ? "" : "<b>", c,
                           zc_wins ? "" : "</b>");
        }
        zc__buf_printf(page, "</tr>\n");
        while (i < m->count && m->pair[i].bytes == bytes)
            i++;
    }
    zc__buf_printf(page, "</table>\n<p class=\"note\">Measured by zc bench: the faster of the two "
                         "in bold. Zero-copy reads host memory over PCIe at every read; copying "
                         "first pays the copy once, then reads device memory.</p>\n");
    free(m);
}
