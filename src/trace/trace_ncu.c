/* SPDX-License-Identifier: Apache-2.0 */
/* The kernels' PCIe reads as Nsight Compute reports them (zc trace --pcie-counters): which
 * kernels to ask ncu for, its CSV report read into per-kernel sums, and what its failures mean.
 * Running ncu is the caller's (tools/zc/trace_ncu.c); this part only reads and writes text. */
#include "zerocopy/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define ZC__NCU_FIELDS 32

/* Split one CSV line (fields in double quotes, "" for a quote) into fields, in place. */
static size_t zc__csv_fields(char *line, char **fields, size_t max)
{
    size_t count = 0;
    char *p = line;
    while (*p != '\0' && *p != '\n' && *p != '\r' && count < max) {
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            start = out = p;
            while (*p != '\0' && !(p[0] == '"' && p[1] != '"')) {
                if (p[0] == '"' && p[1] == '"')
                    p++;
                *out++ = *p++;
            }
            if (*p == '"')
                p++;
        } else {
            while (*p != '\0' && *p != ',' && *p != '\n' && *p != '\r')
                *out++ = *p++;
        }
        char next = *p;
        *out = '\0';
        fields[count++] = start;
        if (next != ',')
            break;
        p++;
    }
    return count;
}

static int zc__column(char **fields, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(fields[i], name) == 0)
            return (int)i;
    }
    return -1;
}

ZC_EXTERN zc_status zc_trace_ncu_parse(const char *csv, zc_trace_kernel_reads *reads, size_t max,
                                       size_t *count_p)
{
    ZC_REQUIRE_ARG(csv);
    ZC_REQUIRE_ARG(reads);
    ZC_REQUIRE_ARG(count_p);
    size_t count = 0;
    char *copy = strdup(csv);
    if (copy == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "zc_trace_ncu_parse: %zu bytes of report", strlen(csv));
    int name_at = -1, metric_at = -1, value_at = -1;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] != '"')
            continue; /* ncu's own ==PROF== lines */
        char *fields[ZC__NCU_FIELDS];
        size_t n = zc__csv_fields(line, fields, ZC__NCU_FIELDS);
        if (name_at < 0) {
            name_at = zc__column(fields, n, "Kernel Name");
            metric_at = zc__column(fields, n, "Metric Name");
            value_at = zc__column(fields, n, "Metric Value");
            if (metric_at < 0 || value_at < 0)
                name_at = -1;
            continue;
        }
        if ((size_t)name_at >= n || (size_t)metric_at >= n || (size_t)value_at >= n ||
            strcmp(fields[metric_at], ZC_TRACE_NCU_METRIC) != 0)
            continue;
        /* ncu writes thousands separators in its numbers. */
        char digits[64];
        size_t d = 0;
        for (const char *c = fields[value_at]; *c != '\0' && d + 1 < sizeof digits; c++) {
            if (*c != ',')
                digits[d++] = *c;
        }
        digits[d] = '\0';
        char *end = NULL;
        double value = strtod(digits, &end);
        if (d == 0 || end == NULL || *end != '\0' || value < 0)
            continue;
        char name[ZC_TRACE_LAUNCH_NAME];
        snprintf(name, sizeof name, "%s", fields[name_at]);
        size_t k = 0;
        while (k < count && strcmp(reads[k].name, name) != 0)
            k++;
        if (k == count) {
            if (k == max)
                continue;
            memset(&reads[k], 0, sizeof reads[k]);
            /* Cut as the log cuts the names of launch records, so that the two compare equal. */
            snprintf(reads[k].name, sizeof reads[k].name, "%s", name);
            count++;
        }
        reads[k].launches++;
        reads[k].read_bytes += (uint64_t)value;
        if ((uint64_t)value > reads[k].max_read_bytes)
            reads[k].max_read_bytes = (uint64_t)value;
    }
    free(copy);
    *count_p = count;
    return ZC_OK;
}

/* A prefix of each name, since the log keeps at most 63 characters of one (ncu's report is cut
 * the same way when read). */
ZC_EXTERN zc_status zc_trace_ncu_kernel_filter(const zc_trace_log *log, char *out, size_t size,
                                               size_t *kernels_p)
{
    ZC_REQUIRE_ARG(log);
    ZC_REQUIRE_ARG(out);
    ZC_REQUIRE_ARG(kernels_p);
    char names[ZC_TRACE_NCU_KERNELS][ZC_TRACE_LAUNCH_NAME];
    size_t count = 0;
    for (size_t i = 0; i < log->launch_count && count < ZC_TRACE_NCU_KERNELS; i++) {
        const char *name = log->launches[i].name;
        int usable = name[0] != '\0' && strcmp(name, "?") != 0;
        for (const char *c = name; *c != '\0' && usable; c++)
            usable = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || *c == '_';
        for (size_t j = 0; j < count && usable; j++)
            usable = strcmp(names[j], name) != 0;
        if (usable)
            snprintf(names[count++], sizeof names[0], "%s", name);
    }
    if (count == 0)
        return ZC_FAIL(ZC_ERR_NOT_FOUND,
                       "zc_trace_ncu_kernel_filter: no kernel given host memory has a name");
    size_t at = (size_t)snprintf(out, size, "regex:^(");
    for (size_t j = 0; j < count && at < size; j++)
        at += (size_t)snprintf(out + at, size - at, "%s%s", j ? "|" : "", names[j]);
    if (at >= size || snprintf(out + at, size - at, ")") >= (int)(size - at))
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_trace_ncu_kernel_filter: %zu bytes are too few for %zu kernels", size,
                       count);
    *kernels_p = count;
    return ZC_OK;
}

ZC_EXTERN void zc_trace_ncu_why(const char *text, int code, char *why, size_t size)
{
    if (why == NULL || size == 0)
        return;
    if (text != NULL && strstr(text, "ERR_NVGPUCTRPERM") != NULL) {
        snprintf(why, size,
                 "ncu: the driver refused the performance counters "
                 "(ERR_NVGPUCTRPERM: profiling is restricted to administrators)");
        return;
    }
    const char *line = text != NULL ? strstr(text, "==ERROR==") : NULL;
    if (line != NULL) {
        size_t n = strcspn(line, "\n");
        snprintf(why, size, "ncu: %.*s", (int)(n < 200 ? n : 200), line);
        return;
    }
    snprintf(why, size, "ncu exited with code %d and measured none of the kernels", code);
}
