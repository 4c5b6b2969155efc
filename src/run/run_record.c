/* SPDX-License-Identifier: Apache-2.0 */
/* The zc run log's names, writers and reader (run_record.h). */
#include "run_record.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ZC__FIX_NAME(name, text, what) text,
static const char *const zc__fix_names[ZC_RUN_FIX_COUNT] = {ZC_RUN_FIX_MAP(ZC__FIX_NAME)};
#undef ZC__FIX_NAME

#define ZC__COUNTER_NAME(name, text, fix, cured, what) text,
static const char *const zc__counter_names[ZC_RUN_COUNTER_COUNT] = {
    ZC_RUN_COUNTER_MAP(ZC__COUNTER_NAME)};
#undef ZC__COUNTER_NAME

#define ZC__COUNTER_MEANING(name, text, fix, cured, what) what,
static const char *const zc__counter_meanings[ZC_RUN_COUNTER_COUNT] = {
    ZC_RUN_COUNTER_MAP(ZC__COUNTER_MEANING)};
#undef ZC__COUNTER_MEANING

#define ZC__COUNTER_CURED(name, text, fix, cured, what) cured,
static const int zc__counter_cured[ZC_RUN_COUNTER_COUNT] = {ZC_RUN_COUNTER_MAP(ZC__COUNTER_CURED)};
#undef ZC__COUNTER_CURED

#define ZC__COUNTER_FIX(name, text, fix, cured, what) ZC_RUN_FIX_##fix,
static const zc_run_fix zc__counter_fixes[ZC_RUN_COUNTER_COUNT] = {
    ZC_RUN_COUNTER_MAP(ZC__COUNTER_FIX)};
#undef ZC__COUNTER_FIX

static const char *const zc__pricing_names[] = {"none", "measured", "scaled"};

const char *zc__run_fix_name(zc_run_fix fix)
{
    return (unsigned)fix < ZC_RUN_FIX_COUNT ? zc__fix_names[fix] : "unknown";
}

const char *zc__run_counter_name(zc_run_counter counter)
{
    return (unsigned)counter < ZC_RUN_COUNTER_COUNT ? zc__counter_names[counter] : "unknown";
}

const char *zc__run_counter_meaning(zc_run_counter counter)
{
    return (unsigned)counter < ZC_RUN_COUNTER_COUNT ? zc__counter_meanings[counter] : "unknown";
}

int zc__run_counter_cured(zc_run_counter counter)
{
    return (unsigned)counter < ZC_RUN_COUNTER_COUNT ? zc__counter_cured[counter] : 0;
}

zc_run_fix zc__run_counter_fix(zc_run_counter counter)
{
    return (unsigned)counter < ZC_RUN_COUNTER_COUNT ? zc__counter_fixes[counter] : ZC_RUN_FIX_COUNT;
}

const char *zc__run_pricing_name(zc_run_pricing pricing)
{
    return (unsigned)pricing < sizeof zc__pricing_names / sizeof zc__pricing_names[0]
               ? zc__pricing_names[pricing]
               : "unknown";
}

int zc__run_fixes_from_list(const char *list, unsigned *fixes_p, const char **bad_p,
                            size_t *bad_length_p)
{
    unsigned fixes = 0;
    for (const char *p = list;; p++) {
        size_t n = strcspn(p, ",");
        int found = (n == 4 && strncmp(p, "none", 4) == 0);
        if (n == 3 && strncmp(p, "all", 3) == 0) {
            fixes |= ZC_RUN_FIXES_ALL;
            found = 1;
        }
        for (int i = 0; i < ZC_RUN_FIX_COUNT; i++) {
            if (n > 0 && strlen(zc__fix_names[i]) == n && strncmp(p, zc__fix_names[i], n) == 0) {
                fixes |= 1u << i;
                found = 1;
            }
        }
        if (!found) {
            *bad_p = p;
            *bad_length_p = n;
            return -1;
        }
        p += n;
        if (*p == '\0')
            break;
    }
    *fixes_p = fixes;
    return 0;
}

void zc__run_write_header(FILE *f, const zc__run_header *h)
{
    fprintf(f,
            "zcrun %d pid=%ld fixes=%u threads=%u chunk=%" PRIu64 " buffers=%u min=%" PRIu64
            " min_d2h=%" PRIu64 "\n",
            ZC__RUN_LOG_VERSION, h->pid, h->fixes, h->threads, h->chunk_bytes, h->staging_buffers,
            h->min_bytes, h->min_d2h_bytes);
}

void zc__run_write_count(FILE *f, zc_run_counter counter, const zc_run_count *c)
{
    fprintf(f, "count %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
            zc__run_counter_name(counter), c->calls, c->bytes, c->ns, c->uncured_ns,
            zc__run_pricing_name(c->pricing));
}

void zc__run_write_end(FILE *f)
{
    fputs("end\n", f);
}

static int zc__lookup(const char *word, const char *const *names, int count)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(word, names[i]) == 0)
            return i;
    }
    return -1;
}

static int zc__parse_header(const char *text, zc__run_header *h)
{
    int version = 0;
    unsigned long long chunk = 0, min = 0, min_d2h = 0;
    int used = 0;
    if (sscanf(text,
               "zcrun %d pid=%ld fixes=%u threads=%u chunk=%llu buffers=%u min=%llu min_d2h=%llu%n",
               &version, &h->pid, &h->fixes, &h->threads, &chunk, &h->staging_buffers, &min,
               &min_d2h, &used) != 8 ||
        version != ZC__RUN_LOG_VERSION)
        return -1;
    h->chunk_bytes = chunk;
    h->min_bytes = min;
    h->min_d2h_bytes = min_d2h;
    return text[used] == '\0' || text[used] == '\n' ? 0 : -1;
}

static int zc__parse_count(const char *text, zc__run_line *line)
{
    char name[64], pricing[16];
    unsigned long long calls, bytes, ns, uncured;
    int used = 0;
    if (sscanf(text, "count %63s %llu %llu %llu %llu %15s%n", name, &calls, &bytes, &ns, &uncured,
               pricing, &used) != 6)
        return -1;
    if (text[used] != '\0' && text[used] != '\n')
        return -1;
    int counter = zc__lookup(name, zc__counter_names, ZC_RUN_COUNTER_COUNT);
    int how = zc__lookup(pricing, zc__pricing_names,
                         (int)(sizeof zc__pricing_names / sizeof zc__pricing_names[0]));
    if (counter < 0 || how < 0)
        return -1;
    line->counter = (zc_run_counter)counter;
    line->count = (zc_run_count){.calls = calls,
                                 .bytes = bytes,
                                 .ns = ns,
                                 .uncured_ns = uncured,
                                 .pricing = (zc_run_pricing)how};
    return 0;
}

int zc__run_parse_line(const char *text, zc__run_line *line_p)
{
    memset(line_p, 0, sizeof *line_p);
    if (text[0] == '\0' || text[0] == '\n') {
        line_p->tag = ZC__RUN_BLANK;
        return 0;
    }
    if (strncmp(text, "zcrun ", 6) == 0) {
        line_p->tag = ZC__RUN_HEADER;
        return zc__parse_header(text, &line_p->header);
    }
    if (strncmp(text, "count ", 6) == 0) {
        line_p->tag = ZC__RUN_COUNT;
        return zc__parse_count(text, line_p);
    }
    if (strcmp(text, "end") == 0 || strcmp(text, "end\n") == 0) {
        line_p->tag = ZC__RUN_END;
        return 0;
    }
    return -1;
}
