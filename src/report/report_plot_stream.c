/* SPDX-License-Identifier: Apache-2.0 */
/* The stream plots, latency percentiles and histogram, for any number of zc stream results:
 * one colour per mode (the same in both plots and for every file), one line style per input
 * file, and a key that names each mode and each file once, below the plot area. */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zerocopy/filter.h"

/* Most series one stream plot draws; beyond, runs are left out and the caption says so. */
#define ZC__MAX_SERIES 256

/* Line styles of the input files: a dash pattern and a point shape each. */
static const char *const zc__dashes[] = {"1",     "2",         "3", "4", "5", "(12,4,2,4,2,4)",
                                         "(2,6)", "(16,4,4,4)"};
static const int zc__points[] = {7, 5, 9, 11, 13, 4, 6, 8};
#define ZC__STYLES 8

/* The run lists a stream result may hold, in the shapes results have had. */
static const char *const zc__lists[] = {"runs", "modes", "results"};

/* One series: a run of one file. */
typedef struct zc__series {
    size_t file;
    char mode[64];
} zc__series;

/* The modes of every stream input, known ones first in their fixed order, then others in the
 * order they first appear; a mode's colour is its place here. */
typedef struct zc__modes {
    char name[ZC__MAX_SERIES][64];
    size_t count;
} zc__modes;

/* A run's name: "name" (tells the zerocopy protocols apart), else "mode". */
static void zc__run_name(const cJSON *run, char *out, size_t size)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(run, "name");
    if (!cJSON_IsString(name))
        name = cJSON_GetObjectItemCaseSensitive(run, "mode");
    snprintf(out, size, "%s", cJSON_IsString(name) ? name->valuestring : "stream");
}

static void zc__modes_collect(const zc_report_input *in, zc__modes *m)
{
    /* Runs with a colour of their own, whatever the inputs hold: every mode's in the library's
     * order, a mode on a ring once per protocol (LL first), as docs/json.md lists them. */
    m->count = 0;
    for (int mode = 0; mode < ZC_STREAM_MODE_COUNT; mode++) {
        const int protocols = zc_stream_mode_on_ring((zc_stream_mode)mode) ? 2 : 1;
        for (int p = 0; p < protocols; p++)
            if (zc_stream_run_name((zc_stream_mode)mode,
                                   p == 0 ? ZC_RING_PROTO_LL : ZC_RING_PROTO_FLAG,
                                   m->name[m->count], sizeof m->name[0]) == ZC_OK)
                m->count++;
    }
    for (size_t s = 0; s < in->stream_count; s++) {
        for (size_t l = 0; l < 3; l++) {
            const cJSON *run;
            cJSON_ArrayForEach(run,
                               cJSON_GetObjectItemCaseSensitive(in->streams[s].doc, zc__lists[l]))
            {
                char name[64];
                zc__run_name(run, name, sizeof name);
                size_t i = 0;
                while (i < m->count && strcmp(m->name[i], name) != 0)
                    i++;
                if (i == m->count && m->count < ZC__MAX_SERIES)
                    snprintf(m->name[m->count++], sizeof m->name[0], "%s", name);
            }
        }
    }
}

static size_t zc__mode_index(const zc__modes *m, const char *name)
{
    for (size_t i = 0; i < m->count; i++) {
        if (strcmp(m->name[i], name) == 0)
            return i;
    }
    return 0;
}

static const char *zc__mode_colour(const zc__modes *m, const char *name)
{
    return zc__report_colours[zc__mode_index(m, name) % zc__report_colour_count];
}

/* A file's dash pattern and point shape; past eight files the shapes shift against the dashes,
 * so that 64 files still differ in one of the two. */
static void zc__file_style(size_t file, const char **dash_p, int *point_p)
{
    *dash_p = zc__dashes[file % ZC__STYLES];
    *point_p = zc__points[(file + file / ZC__STYLES) % ZC__STYLES];
}

/*
 * The key: each mode drawn once with its colour, then each file once with its line style (in
 * black), when there are several files. Entries made with keyentry draw nothing in the plot.
 */
static void zc__key(zc__buf *b, const zc_report_input *in, const zc__modes *m, const int *mode_used,
                    int with_points)
{
    for (size_t i = 0; i < m->count; i++) {
        if (!mode_used[i])
            continue;
        zc__buf_printf(b, ", keyentry with %s lw 2 %s lc rgb '%s' title ",
                       with_points ? "linespoints" : "lines", with_points ? "pt 7" : "",
                       zc__report_colours[i % zc__report_colour_count]);
        zc__buf_gnuplot_string(b, m->name[i]);
    }
    if (in->stream_count < 2)
        return;
    for (size_t f = 0; f < in->stream_count; f++) {
        const char *dash;
        int point;
        zc__file_style(f, &dash, &point);
        zc__buf_printf(b, ", keyentry with %s lw 2 dt %s", with_points ? "linespoints" : "lines",
                       dash);
        if (with_points)
            zc__buf_printf(b, " pt %d", point);
        zc__buf_printf(b, " lc rgb 'black' title ");
        zc__buf_gnuplot_string(b, in->streams[f].name);
    }
}

/* Room for the key below the plot: rows of entries as wide as the longest name. */
static int zc__height_for_key(const zc_report_input *in, const zc__modes *m, const int *used)
{
    size_t entries = 0, longest = 8;
    for (size_t i = 0; i < m->count; i++) {
        if (used[i]) {
            entries++;
            longest = strlen(m->name[i]) > longest ? strlen(m->name[i]) : longest;
        }
    }
    if (in->stream_count >= 2) {
        for (size_t f = 0; f < in->stream_count; f++) {
            entries++;
            size_t n = strlen(in->streams[f].name);
            longest = n > longest ? n : longest;
        }
    }
    size_t column = longest * 7 + 70, columns = 860 / column;
    if (columns < 1)
        columns = 1;
    size_t rows = (entries + columns - 1) / columns;
    return 430 + (int)(rows > 40 ? 40 : rows) * 18;
}

/* The caption's ending: which files, told apart how. */
static void zc__caption_files(const zc_report_input *in, char *out, size_t size, size_t dropped)
{
    size_t used = strlen(out);
    if (in->stream_count == 1)
        snprintf(out + used, size - used, " From %s.", in->streams[0].name);
    else
        snprintf(out + used, size - used,
                 " Colour: the mode, the same in every plot; line style: the input file (%zu "
                 "files, named in the key).",
                 in->stream_count);
    used = strlen(out);
    if (dropped > 0)
        snprintf(out + used, size - used, " %zu runs beyond the first %d are not drawn.", dropped,
                 ZC__MAX_SERIES);
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
            pct[i] = zc__report_num(lat, names[i][0]);
            if (!isfinite(pct[i]))
                pct[i] = zc__report_num(lat, names[i][1]);
            if (!(pct[i] > 0.0)) /* a log axis: zero and below cannot be drawn */
                pct[i] = NAN;
            found += isfinite(pct[i]);
        }
        if (found >= 2)
            return 1;
    }
    return 0;
}

/* What both stream plots build: the modes, the series drawn (a run of one file each), which
 * modes they use, the script, and the range of the values. */
typedef struct zc__stream_plot {
    zc__modes *m;
    zc__series *series;
    int *used;
    zc__buf b;
    size_t count, dropped;
    double lo, hi;
} zc__stream_plot;

/* Start a stream plot with its caption: 0 (why said in plot) when there is nothing to draw. */
static int zc__stream_plot_begin(const zc_report_input *in, zc__report_plot *plot,
                                 const char *caption, zc__stream_plot *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->lo = INFINITY;
    snprintf(plot->caption, sizeof plot->caption, "%s", caption);
    if (in->stream_count == 0) {
        plot->script = NULL;
        snprintf(plot->why, sizeof plot->why, "no zc stream result was given");
        return 0;
    }
    sp->m = calloc(1, sizeof *sp->m);
    sp->series = calloc(ZC__MAX_SERIES, sizeof *sp->series);
    sp->used = calloc(ZC__MAX_SERIES, sizeof *sp->used);
    if (sp->m == NULL || sp->series == NULL || sp->used == NULL) {
        sp->b.failed = 1;
        return 1; /* the end says out of memory */
    }
    zc__modes_collect(in, sp->m);
    return 1;
}

/* A new series for run of file s: its index, or -1 when the plot holds as many as it may (the
 * run is counted as left out). */
static long zc__stream_plot_series(zc__stream_plot *sp, size_t s, const cJSON *run)
{
    if (sp->count >= ZC__MAX_SERIES) {
        sp->dropped++;
        return -1;
    }
    zc__series *x = &sp->series[sp->count];
    x->file = s;
    zc__run_name(run, x->mode, sizeof x->mode);
    sp->used[zc__mode_index(sp->m, x->mode)] = 1;
    return (long)sp->count++;
}

/* Finish: the script into plot when it was built, out of memory said when it was not. */
static void zc__stream_plot_end(zc__report_plot *plot, zc__stream_plot *sp)
{
    if (sp->b.failed) {
        zc__buf_free(&sp->b);
        snprintf(plot->why, sizeof plot->why, "out of memory");
    }
    free(sp->m);
    free(sp->series);
    free(sp->used);
}

void zc__report_plot_latency(const zc_report_input *in, zc__report_plot *plot)
{
    zc__stream_plot sp;
    if (!zc__stream_plot_begin(in, plot,
                               "zc stream: frames through each mode, latency percentiles from "
                               "publishing a frame to its result seen by the CPU.",
                               &sp))
        return;
    for (size_t s = 0; s < in->stream_count && !sp.b.failed; s++) {
        for (size_t l = 0; l < 3; l++) {
            const cJSON *run;
            cJSON_ArrayForEach(run,
                               cJSON_GetObjectItemCaseSensitive(in->streams[s].doc, zc__lists[l]))
            {
                double pct[5];
                if (!zc__stream_percentiles(run, pct))
                    continue;
                long k = zc__stream_plot_series(&sp, s, run);
                if (k < 0)
                    continue;
                zc__buf_printf(&sp.b, "$s%ld << EOD\n", k);
                static const char *const labels[] = {"p50", "p90", "p99", "p99.9", "max"};
                for (int i = 0; i < 5; i++) {
                    if (!isfinite(pct[i]))
                        continue;
                    zc__buf_printf(&sp.b, "%d %s %.6g\n", i, labels[i], pct[i]);
                    sp.lo = pct[i] < sp.lo ? pct[i] : sp.lo;
                    sp.hi = pct[i] > sp.hi ? pct[i] : sp.hi;
                }
                zc__buf_printf(&sp.b, "EOD\n");
            }
        }
    }
    if (!sp.b.failed && sp.count == 0) {
        zc__buf_free(&sp.b);
        snprintf(plot->why, sizeof plot->why,
                 "the zc stream results given hold no latency percentiles");
    } else if (!sp.b.failed) {
        zc__buf *b = &sp.b;
        zc__report_plot_header(b, 900, zc__height_for_key(in, sp.m, sp.used), 1);
        zc__buf_printf(b, "set title 'Frame round-trip latency per stream mode'\nset logscale y\n"
                          "set xlabel 'percentile'\nset ylabel 'latency'\nset xrange [-0.5:4.5]\n");
        zc__report_plot_time_tics(b, "y", sp.lo, sp.hi);
        zc__buf_printf(b, "plot ");
        for (size_t i = 0; i < sp.count; i++) {
            const char *dash;
            int point;
            zc__file_style(sp.series[i].file, &dash, &point);
            zc__buf_printf(b,
                           "%s$s%zu using 1:3:xtic(2) with linespoints lw 2 dt %s pt %d lc rgb "
                           "'%s' notitle",
                           i ? ", " : "", i, dash, point, zc__mode_colour(sp.m, sp.series[i].mode));
        }
        zc__key(b, in, sp.m, sp.used, 1);
        zc__buf_printf(b, "\n");
        zc__caption_files(in, plot->caption, sizeof plot->caption, sp.dropped);
        zc__report_plot_finish(plot, b);
    }
    zc__stream_plot_end(plot, &sp);
}

void zc__report_plot_histogram(const zc_report_input *in, zc__report_plot *plot)
{
    zc__stream_plot sp;
    if (!zc__stream_plot_begin(in, plot,
                               "The whole distribution: share of frames per latency bucket (zc "
                               "stream's histogram, four buckets per octave).",
                               &sp))
        return;
    for (size_t s = 0; s < in->stream_count && !sp.b.failed; s++) {
        const cJSON *run;
        cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(in->streams[s].doc, "runs"))
        {
            const cJSON *h = cJSON_GetObjectItemCaseSensitive(run, "histogram_us");
            double total = 0.0;
            const cJSON *bin;
            cJSON_ArrayForEach(bin, h)
            {
                double c = zc__report_num(bin, "count");
                if (isfinite(c) && c > 0.0)
                    total += c;
            }
            if (!(total > 0.0) || !isfinite(total))
                continue;
            long k = zc__stream_plot_series(&sp, s, run);
            if (k < 0)
                continue;
            zc__buf_printf(&sp.b, "$h%ld << EOD\n", k);
            cJSON_ArrayForEach(bin, h)
            {
                double l = zc__report_num(bin, "lo"), c = zc__report_num(bin, "count");
                if (isfinite(l) && l > 0.0 && isfinite(c) && c > 0.0) {
                    zc__buf_printf(&sp.b, "%.6g %.6g\n", l, 100.0 * c / total);
                    sp.lo = l < sp.lo ? l : sp.lo;
                    sp.hi = l > sp.hi ? l : sp.hi;
                }
            }
            zc__buf_printf(&sp.b, "EOD\n");
        }
    }
    if (!sp.b.failed && sp.count == 0) {
        zc__buf_free(&sp.b);
        snprintf(plot->why, sizeof plot->why,
                 "the zc stream results given hold no latency histogram");
    } else if (!sp.b.failed) {
        zc__buf *b = &sp.b;
        zc__report_plot_header(b, 900, zc__height_for_key(in, sp.m, sp.used), 1);
        zc__buf_printf(b, "set title 'Distribution of frame latency per stream run'\n"
                          "set logscale xy\nset xlabel 'latency (bucket start)'\n"
                          "set ylabel 'share of frames'\nset format y '%%g%%%%'\n");
        zc__report_plot_time_tics(b, "x", sp.lo, sp.hi * 2.0);
        zc__buf_printf(b, "plot ");
        for (size_t i = 0; i < sp.count; i++) {
            const char *dash;
            int point;
            zc__file_style(sp.series[i].file, &dash, &point);
            zc__buf_printf(b, "%s$h%zu using 1:2 with steps lw 2 dt %s lc rgb '%s' notitle",
                           i ? ", " : "", i, dash, zc__mode_colour(sp.m, sp.series[i].mode));
        }
        zc__key(b, in, sp.m, sp.used, 0);
        zc__buf_printf(b, "\n");
        zc__caption_files(in, plot->caption, sizeof plot->caption, sp.dropped);
        zc__report_plot_finish(plot, b);
    }
    zc__stream_plot_end(plot, &sp);
}
