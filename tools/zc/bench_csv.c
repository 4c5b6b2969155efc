/* SPDX-License-Identifier: Apache-2.0 */
/* zc bench's CSV: one row per measured point, one per case that has none. */
#include <string.h>

#include "bench_output.h"

static const char zc__csv_header[] =
    "key,group,technique,direction,outcome,variant,bytes,param_name,param,metric,unit,count,"
    "median,min,max,mean,stddev,cov,p90,p99,p999,verified\n";

/* A text field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
static void zc__csv_text(FILE *out, const char *s)
{
    if (s == NULL)
        s = "";
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int zc_cli_bench_write_csv(FILE *out, const zc_bench_document *report)
{
    fputs(zc__csv_header, out);
    for (size_t i = 0; i < report->count; i++) {
        const zc_bench_result *r = &report->results[i];
        const zc_bench_case_info *info = zc_bench_case_find(r->key);
        size_t rows = r->point_count ? r->point_count : 1;
        for (size_t j = 0; j < rows; j++) {
            zc__csv_text(out, r->key);
            fputc(',', out);
            zc__csv_text(out, info ? info->group : "");
            fputc(',', out);
            zc__csv_text(out, info ? info->technique : "");
            fputc(',', out);
            zc__csv_text(out, info ? info->direction : "");
            fputc(',', out);
            zc__csv_text(out, zc_bench_outcome_name(r->outcome));
            if (r->point_count == 0) {
                fputs(",,,,,,,,,,,,,,,,,\n", out);
                continue;
            }
            const zc_bench_point *p = &r->points[j];
            const zc_stats *s = &p->stats;
            fputc(',', out);
            zc__csv_text(out, p->variant);
            fprintf(out, ",%zu,", p->bytes);
            zc__csv_text(out, p->param_name);
            if (p->param_name)
                fprintf(out, ",%.17g", p->param);
            else
                fputc(',', out);
            fprintf(out, ",%s,%s,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d\n",
                    zc_bench_metric_name(p->metric), zc_bench_metric_unit(p->metric), s->count,
                    s->median, s->min, s->max, s->mean, s->stddev, s->cov, s->p90, s->p99, s->p999,
                    p->verified);
        }
    }
    return ferror(out) ? -1 : 0;
}
