/* SPDX-License-Identifier: Apache-2.0 */
/* The zc trace log's records: one writer and one reader per kind, side by side, so that the
 * injection library and the analysis cannot disagree on a field (trace_record.h lists them). */
#include "trace_record.h"

#include <inttypes.h>
#include <string.h>

void zc__trace_write_header(FILE *f, long pid, unsigned long long ram)
{
    fprintf(f, "zctrace %d pid=%ld ram=%llu\n", ZC__TRACE_LOG_VERSION, pid, ram);
}

void zc__trace_write_copy(FILE *f, const zc_trace_copy *r, unsigned device)
{
    fprintf(f, "copy %s %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %d %u\n",
            zc_trace_dir_name(r->dir), zc_trace_mem_name(r->src), zc_trace_mem_name(r->dst),
            r->bytes, r->start, r->end, r->stream, r->async ? 1 : 0, device);
}

void zc__trace_write_memset(FILE *f, const zc_trace_memset *r)
{
    fprintf(f, "memset %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %d\n",
            zc_trace_mem_name(r->kind), r->bytes, r->start, r->end, r->stream, r->async ? 1 : 0);
}

void zc__trace_write_kernel(FILE *f, const zc_trace_kernel *r, const char *name)
{
    char word[ZC__TRACE_KERNEL_NAME_MAX];
    zc__trace_word(name, word, sizeof word);
    fprintf(f, "kernel %" PRIu64 " %" PRIu64 " %" PRIu32 " %s %" PRIu32 "\n", r->start, r->end,
            r->stream, word, r->correlation);
}

void zc__trace_write_um(FILE *f, const zc_trace_um *r)
{
    fprintf(f, "um %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", zc__trace_um_name(r->counter),
            r->value, r->start, r->end);
}

void zc__trace_write_api(FILE *f, const zc_trace_api *r)
{
    fprintf(f, "api %s %" PRIu64 " %u %" PRIx64 " %" PRIu64 " %" PRIu64 " %d %s\n",
            zc_trace_call_name(r->call), r->bytes, r->flags, r->pointer, r->start, r->end,
            r->ok ? 1 : 0, r->runtime ? "rt" : "drv");
}

void zc__trace_write_launch(FILE *f, const zc_trace_launch *r)
{
    char word[ZC_TRACE_LAUNCH_NAME];
    zc__trace_word(r->name, word, sizeof word);
    fprintf(f, "launch %" PRIu32 " %" PRIu64 " %s", r->correlation, r->time, word);
    for (size_t i = 0; i < r->range_count && i < ZC_TRACE_LAUNCH_RANGES; i++)
        fprintf(f, " %" PRIx64, r->ranges[i]);
    fputc('\n', f);
}

void zc__trace_write_launches(FILE *f, uint64_t runtime, uint64_t inspected, uint64_t failed)
{
    fprintf(f, "launches %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", runtime, inspected, failed);
}

void zc__trace_write_note(FILE *f, const char *key, const char *text)
{
    char word[64];
    zc__trace_word(key, word, sizeof word);
    /* The text runs to the end of the line: keep it on one. */
    fprintf(f, "note %s ", word);
    for (const char *c = text ? text : ""; *c != '\0'; c++)
        fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
    fputc('\n', f);
}

void zc__trace_write_dropped(FILE *f, uint64_t records)
{
    fprintf(f, "dropped %" PRIu64 "\n", records);
}

void zc__trace_write_end(FILE *f)
{
    fputs("end\n", f);
}

zc_status zc__trace_parse_header(const char *line, long *pid_p, unsigned long long *ram_p,
                                 char *why, size_t why_size)
{
    int version = 0;
    if (sscanf(line, "zctrace %d pid=%ld ram=%llu", &version, pid_p, ram_p) != 3) {
        snprintf(why, why_size, "not a zc trace log");
        return ZC_ERR_PARSE;
    }
    if (version < 1 || version > ZC__TRACE_LOG_VERSION) {
        snprintf(why, why_size, "log version %d, this zc reads 1 to %d", version,
                 ZC__TRACE_LOG_VERSION);
        return ZC_ERR_PARSE;
    }
    return ZC_OK;
}

static zc_status zc__bad(char *why, size_t why_size, const char *what)
{
    snprintf(why, why_size, "%s", what);
    return ZC_ERR_PARSE;
}

static zc_status zc__parse_copy(const char *rest, zc_trace_copy *r, char *why, size_t n)
{
    char a[64], b[64], c[64];
    int async = 0;
    unsigned device = 0;
    memset(r, 0, sizeof *r);
    if (sscanf(rest, "%63s %63s %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32 " %d %u", a, b,
               c, &r->bytes, &r->start, &r->end, &r->stream, &async, &device) != 9)
        return zc__bad(why, n, "malformed copy record");
    int dir = zc__trace_dir_lookup(a), src = zc__trace_mem_lookup(b), dst = zc__trace_mem_lookup(c);
    if (dir < 0 || src < 0 || dst < 0 || r->end < r->start)
        return zc__bad(why, n, "copy record with unknown kind or times");
    r->dir = (zc_trace_dir)dir;
    r->src = (zc_trace_mem)src;
    r->dst = (zc_trace_mem)dst;
    r->async = async != 0;
    return ZC_OK;
}

static zc_status zc__parse_memset(const char *rest, zc_trace_memset *r, char *why, size_t n)
{
    char a[64];
    int async = 0;
    memset(r, 0, sizeof *r);
    if (sscanf(rest, "%63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32 " %d", a, &r->bytes,
               &r->start, &r->end, &r->stream, &async) != 6)
        return zc__bad(why, n, "malformed memset record");
    int kind = zc__trace_mem_lookup(a);
    if (kind < 0 || r->end < r->start)
        return zc__bad(why, n, "memset record with unknown kind or times");
    r->kind = (zc_trace_mem)kind;
    r->async = async != 0;
    return ZC_OK;
}

static zc_status zc__parse_kernel(const char *rest, zc_trace_kernel *r, char *why, size_t n)
{
    char name[ZC__TRACE_KERNEL_NAME_MAX];
    memset(r, 0, sizeof *r);
    int fields = sscanf(rest, "%" SCNu64 " %" SCNu64 " %" SCNu32 " %159s %" SCNu32, &r->start,
                        &r->end, &r->stream, name, &r->correlation);
    if (fields < 3 || r->end < r->start)
        return zc__bad(why, n, "malformed kernel record");
    return ZC_OK;
}

static zc_status zc__parse_um(const char *rest, zc_trace_um *r, char *why, size_t n)
{
    char a[64];
    memset(r, 0, sizeof *r);
    if (sscanf(rest, "%63s %" SCNu64 " %" SCNu64 " %" SCNu64, a, &r->value, &r->start, &r->end) !=
        4)
        return zc__bad(why, n, "malformed um record");
    int counter = zc__trace_um_lookup(a);
    r->counter = counter < 0 ? ZC_TRACE_UM_UNKNOWN : (zc_trace_um_counter)counter;
    return ZC_OK;
}

static zc_status zc__parse_api(const char *rest, zc_trace_api *r, char *why, size_t n)
{
    char a[64], domain[8] = "rt";
    int ok = 0;
    memset(r, 0, sizeof *r);
    int fields = sscanf(rest, "%63s %" SCNu64 " %u %" SCNx64 " %" SCNu64 " %" SCNu64 " %d %7s", a,
                        &r->bytes, &r->flags, &r->pointer, &r->start, &r->end, &ok, domain);
    if (fields < 7 || r->end < r->start ||
        (strcmp(domain, "rt") != 0 && strcmp(domain, "drv") != 0))
        return zc__bad(why, n, "malformed api record");
    r->runtime = strcmp(domain, "rt") == 0;
    int call = zc__trace_call_lookup(a);
    if (call < 0) {
        snprintf(why, n, "api record for unknown call '%s'", a);
        return ZC_ERR_PARSE;
    }
    r->call = (zc_trace_call)call;
    r->ok = ok != 0;
    return ZC_OK;
}

static zc_status zc__parse_launch(const char *rest, zc_trace_launch *r, char *why, size_t n)
{
    int used = 0;
    memset(r, 0, sizeof *r);
    if (sscanf(rest, "%" SCNu32 " %" SCNu64 " %63s%n", &r->correlation, &r->time, r->name, &used) !=
        3)
        return zc__bad(why, n, "malformed launch record");
    const char *p = rest + used;
    uint64_t range = 0;
    while (sscanf(p, " %" SCNx64 "%n", &range, &used) == 1) {
        if (r->range_count == ZC_TRACE_LAUNCH_RANGES)
            return zc__bad(why, n, "launch record with too many allocations");
        r->ranges[r->range_count++] = range;
        p += used;
    }
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    if (*p != '\0' || r->range_count == 0)
        return zc__bad(why, n, "malformed launch record");
    return ZC_OK;
}

zc_status zc__trace_parse(const char *line, zc__trace_line *out, char *why, size_t why_size)
{
    char tag[16];
    int used = 0;
    out->tag = ZC__TRACE_BLANK;
    if (sscanf(line, "%15s%n", tag, &used) != 1)
        return ZC_OK;
    const char *rest = line + used;
    if (strcmp(tag, "copy") == 0) {
        out->tag = ZC__TRACE_COPY;
        return zc__parse_copy(rest, &out->u.copy, why, why_size);
    }
    if (strcmp(tag, "memset") == 0) {
        out->tag = ZC__TRACE_MEMSET;
        return zc__parse_memset(rest, &out->u.memset, why, why_size);
    }
    if (strcmp(tag, "kernel") == 0) {
        out->tag = ZC__TRACE_KERNEL;
        return zc__parse_kernel(rest, &out->u.kernel, why, why_size);
    }
    if (strcmp(tag, "um") == 0) {
        out->tag = ZC__TRACE_UM;
        return zc__parse_um(rest, &out->u.um, why, why_size);
    }
    if (strcmp(tag, "api") == 0) {
        out->tag = ZC__TRACE_API;
        return zc__parse_api(rest, &out->u.api, why, why_size);
    }
    if (strcmp(tag, "launch") == 0) {
        out->tag = ZC__TRACE_LAUNCH;
        return zc__parse_launch(rest, &out->u.launch, why, why_size);
    }
    if (strcmp(tag, "launches") == 0) {
        out->tag = ZC__TRACE_LAUNCHES;
        if (sscanf(rest, "%" SCNu64 " %" SCNu64 " %" SCNu64, &out->u.launches.runtime,
                   &out->u.launches.inspected, &out->u.launches.failed) != 3)
            return zc__bad(why, why_size, "malformed launches record");
        return ZC_OK;
    }
    if (strcmp(tag, "note") == 0) {
        out->tag = ZC__TRACE_NOTE;
        out->u.note.text[0] = '\0';
        if (sscanf(rest, "%63s %199[^\n]", out->u.note.key, out->u.note.text) < 1)
            return zc__bad(why, why_size, "malformed note");
        return ZC_OK;
    }
    if (strcmp(tag, "dropped") == 0) {
        out->tag = ZC__TRACE_DROPPED;
        if (sscanf(rest, "%" SCNu64, &out->u.dropped) != 1)
            return zc__bad(why, why_size, "malformed dropped record");
        return ZC_OK;
    }
    if (strcmp(tag, "end") == 0) {
        out->tag = ZC__TRACE_END;
        return ZC_OK;
    }
    snprintf(why, why_size, "unknown record '%s'", tag);
    return ZC_ERR_PARSE;
}
