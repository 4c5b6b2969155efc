/* SPDX-License-Identifier: Apache-2.0 */
/* The report's plots of copies and zero-copy access, and what every plot's script shares: the
 * terminal, the key outside the data, the colours and time-labelled tics. */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const zc__report_colours[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e",
                                          "#9467bd", "#8c564b", "#17becf", "#e377c2",
                                          "#7f7f7f", "#bcbd22", "#000080", "#808000"};
const size_t zc__report_colour_count = sizeof zc__report_colours / sizeof zc__report_colours[0];

void zc__report_plot_header(zc__buf *b, int width, int height, int key_below)
{
    zc__buf_printf(b,
                   "set terminal svg size %d,%d dynamic enhanced font 'DejaVu Sans,11' "
                   "background rgb 'white'\n"
                   "set grid lc rgb '#dddddd'\n"
                   "set datafile missing '-'\n",
                   width, height);
    /* Outside the plot area the key never covers a line, however many series there are;
     * gnuplot shrinks the plot to make room. Titles come from input files: never enhanced. */
    if (key_below)
        zc__buf_printf(b, "set key outside below left horizontal Left reverse noenhanced "
                          "samplen 4 width 2\n");
    else
        zc__buf_printf(b, "set key outside right top vertical Left reverse noenhanced "
                          "samplen 3\n");
}

void zc__report_plot_time_tics(zc__buf *b, const char *axis, double lo_us, double hi_us)
{
    if (!(lo_us > 0.0) || !(hi_us >= lo_us) || !isfinite(hi_us))
        return;
    /* The decades around the data, found by steps (no libm: see report_units.c). */
    int first = -6, last = 9;
    double d = 1e-6;
    while (first < 9 && d * 10.0 <= lo_us)
        d *= 10.0, first++;
    for (d = 1e9; last > first && d / 10.0 >= hi_us;)
        d /= 10.0, last--;
    /* Within a decade or two the decades alone leave the axis bare; add 2 and 5 between. */
    static const double steps_few[] = {1.0, 2.0, 5.0};
    const int mantissas = last - first <= 2 ? 3 : 1;
    zc__buf_printf(b, "set %stics (", axis);
    int n = 0;
    double decade = 1e-6;
    for (int e = -6; e < first; e++)
        decade *= 10.0;
    for (int e = first; e <= last; e++, decade *= 10.0) {
        for (int m = 0; m < mantissas; m++) {
            double v = steps_few[m] * decade;
            if (e == last && m > 0)
                break;
            char text[32];
            zc__report_time_text(v, text, sizeof text);
            zc__buf_printf(b, "%s'%s' %.9g", n++ ? ", " : "", text, v);
        }
    }
    zc__buf_printf(b, ")\nset m%stics 10\n", axis);
}

void zc__report_plot_finish(zc__report_plot *plot, zc__buf *b)
{
    if (b->failed) {
        zc__buf_free(b);
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "out of memory");
        return;
    }
    plot->script = b->data;
    memset(b, 0, sizeof *b);
}

void zc__report_plot_copy(const zc_report_input *in, zc_direction dir, zc__report_plot *plot)
{
    zc__buf b = {0};
    int series = 0;
    snprintf(plot->caption, sizeof plot->caption, "%s",
             dir == ZC_DIR_H2D
                 ? "Host to device: cudaMemcpy from each kind of host memory. Pinned, "
                   "write-combined and registered memory go straight to the copy engines; "
                   "pageable memory is staged by the CPU first."
                 : "Device to host, the same kinds.");
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        const zc_curve *c = &in->measured.copy[k][dir];
        if (c->count == 0)
            continue;
        zc__buf_printf(&b, "$%s << EOD\n", zc_buffer_kind_key((zc_buffer_kind)k));
        for (size_t i = 0; i < c->count; i++)
            zc__buf_printf(&b, "%zu %.6g\n", c->bytes[i], c->gbps[i]);
        zc__buf_printf(&b, "EOD\n");
        series++;
    }
    if (series == 0) {
        zc__buf_free(&b);
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "no %s copy was measured",
                 dir == ZC_DIR_H2D ? "host-to-device" : "device-to-host");
        return;
    }
    zc__report_plot_header(&b, 900, 420, 0);
    zc__buf_printf(&b,
                   "set title 'cudaMemcpy %s: bandwidth against size, per host memory kind'\n"
                   "set logscale x 2\nset format x '%%.0b %%BB'\nset xlabel 'bytes per copy'\n"
                   "set ylabel 'GB/s (1e9 bytes per second)'\nset yrange [0:*]\nplot ",
                   dir == ZC_DIR_H2D ? "host to device" : "device to host");
    int first = 1;
    int line = 0; /* the copy kinds' order in the list picks each line's style */
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++) {
        if (!(zc_buffer_kind_props((zc_buffer_kind)k) & ZC_KIND_COPY_SOURCE))
            continue;
        int style = line++;
        if (in->measured.copy[k][dir].count == 0)
            continue;
        /* Pinned, write-combined and registered often coincide: dashes and point shapes keep
         * each line visible under the others. */
        zc__buf_printf(&b,
                       "%s$%s using 1:2 with linespoints lw 2 dt %d pt %d lc rgb '%s' title '%s'",
                       first ? "" : ", ", zc_buffer_kind_key((zc_buffer_kind)k), style + 1,
                       7 + 2 * style, zc__report_colours[(size_t)style % zc__report_colour_count],
                       zc_buffer_kind_title((zc_buffer_kind)k));
        first = 0;
    }
    zc__buf_printf(&b, "\n");
    zc__report_plot_finish(plot, &b);
}

void zc__report_plot_zerocopy(const zc_report_input *in, zc__report_plot *plot)
{
    const zc_profile *p = &in->measured;
    snprintf(plot->caption, sizeof plot->caption,
             "Every access crosses PCIe: coalesced 16-byte loads come close to a pinned copy; "
             "scattered ones waste most of each transaction.");
    int any = 0;
    for (int a = 0; a < ZC_ACCESS_COUNT; a++)
        any |= p->mapped_read_gbps[a] > 0.0 || p->mapped_write_gbps[a] > 0.0;
    if (!any) {
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "no zero-copy access was measured");
        return;
    }
    zc__buf b = {0};
    zc__buf_printf(&b, "$d << EOD\n");
    for (int a = 0; a < ZC_ACCESS_COUNT; a++) {
        zc__buf_printf(&b, "%s", zc_access_key((zc_access)a));
        double v[2] = {p->mapped_read_gbps[a], p->mapped_write_gbps[a]};
        for (int i = 0; i < 2; i++) {
            if (v[i] > 0.0)
                zc__buf_printf(&b, " %.6g", v[i]);
            else
                zc__buf_printf(&b, " -");
        }
        zc__buf_printf(&b, "\n");
    }
    zc__buf_printf(&b, "EOD\n");
    zc__report_plot_header(&b, 900, 420, 0);
    zc__buf_printf(&b, "set title 'A kernel reading and writing mapped host memory, by access "
                       "pattern'\nset style data histograms\n"
                       "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
                       "set ylabel 'GB/s of useful data'\nset yrange [0:*]\n");
    char rate[32];
    if (zc__report_rate_text(p->device_gbps, rate, sizeof rate))
        zc__buf_printf(&b,
                       "set label 1 'device memory, for comparison: %s' at graph 0.5, "
                       "graph 0.93 center\n",
                       rate);
    zc__buf_printf(&b,
                   "plot $d using 2:xtic(1) lc rgb '%s' title 'read', $d using 3 lc rgb '%s' "
                   "title 'write'\n",
                   zc__report_colours[1], zc__report_colours[3]);
    zc__report_plot_finish(plot, &b);
}
