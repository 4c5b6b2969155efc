/* SPDX-License-Identifier: Apache-2.0 */
/* The run's side that zc run reads: the cure names, a --fix list, the logs summed. */
#include "zerocopy/run.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "run_record.h"

ZC_EXTERN const char *zc_run_fix_name(zc_run_fix fix)
{
    return zc__run_fix_name(fix);
}

ZC_EXTERN const char *zc_run_counter_name(zc_run_counter counter)
{
    return zc__run_counter_name(counter);
}

ZC_EXTERN const char *zc_run_counter_meaning(zc_run_counter counter)
{
    return zc__run_counter_meaning(counter);
}

ZC_EXTERN int zc_run_counter_cured(zc_run_counter counter)
{
    return zc__run_counter_cured(counter);
}

ZC_EXTERN zc_run_fix zc_run_counter_fix(zc_run_counter counter)
{
    return zc__run_counter_fix(counter);
}

ZC_EXTERN const char *zc_run_pricing_name(zc_run_pricing pricing)
{
    return zc__run_pricing_name(pricing);
}

ZC_EXTERN zc_status zc_run_fixes_parse(const char *list, unsigned *fixes_p)
{
    ZC_REQUIRE_ARG(list);
    ZC_REQUIRE_ARG(fixes_p);
    unsigned fixes = 0;
    const char *bad;
    size_t n;
    if (zc__run_fixes_from_list(list, &fixes, &bad, &n) != 0) {
        char known[128] = "";
        for (int i = 0; i < ZC_RUN_FIX_COUNT; i++) {
            strncat(known, zc__run_fix_name((zc_run_fix)i), sizeof known - strlen(known) - 1);
            strncat(known, ", ", sizeof known - strlen(known) - 1);
        }
        return ZC_FAIL(ZC_ERR_PARSE, "zc_run_fixes_parse: unknown cure '%.*s' (known: %sall, none)",
                       (int)(n > 64 ? 64 : n), bad, known);
    }
    *fixes_p = fixes;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_run_fixes_format(unsigned fixes, char *out, size_t size)
{
    ZC_REQUIRE_ARG(out);
    if (size == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_run_fixes_format: no room (size 0)");
    out[0] = '\0';
    for (int i = 0; i < ZC_RUN_FIX_COUNT; i++) {
        if (!(fixes & (1u << i)))
            continue;
        if (out[0] != '\0')
            strncat(out, ",", size - strlen(out) - 1);
        strncat(out, zc__run_fix_name((zc_run_fix)i), size - strlen(out) - 1);
    }
    if (out[0] == '\0')
        snprintf(out, size, "none");
    return ZC_OK;
}

/* A log's counts added to the summary; the pricing kept is the weakest of those with calls. */
static void zc__add_count(zc_run_count *sum, const zc_run_count *c)
{
    if (c->calls == 0)
        return;
    if (sum->calls == 0 || c->pricing < sum->pricing)
        sum->pricing = c->pricing;
    sum->calls += c->calls;
    sum->bytes += c->bytes;
    sum->ns += c->ns;
    sum->uncured_ns += c->uncured_ns;
}

static zc_status zc__read_log(const char *path, zc_run_summary *summary)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return ZC_FAIL(ZC_ERR_IO, "zc_run_logs_read: cannot open %s: %s", path, strerror(errno));
    char text[ZC__RUN_LINE_MAX];
    unsigned number = 0;
    int ended = 0, headed = 0;
    zc_status status = ZC_OK;
    while (fgets(text, sizeof text, f) != NULL) {
        number++;
        zc__run_line line;
        if (zc__run_parse_line(text, &line) != 0 || (line.tag != ZC__RUN_HEADER && !headed) ||
            (line.tag == ZC__RUN_HEADER && headed)) {
            status = ZC_FAIL(ZC_ERR_PARSE, "zc_run_logs_read: %s line %u is not a zc run record",
                             path, number);
            break;
        }
        if (line.tag == ZC__RUN_HEADER) {
            headed = 1;
            summary->fixes |= line.header.fixes;
            if (summary->processes == 0) {
                summary->threads = line.header.threads;
                summary->chunk_bytes = line.header.chunk_bytes;
                summary->staging_buffers = line.header.staging_buffers;
                summary->min_bytes = line.header.min_bytes;
                summary->min_d2h_bytes = line.header.min_d2h_bytes;
            }
        } else if (line.tag == ZC__RUN_COUNT) {
            zc__add_count(&summary->counts[line.counter], &line.count);
        } else if (line.tag == ZC__RUN_END) {
            ended = 1;
        }
    }
    fclose(f);
    ZC_CHECK(status);
    if (!headed)
        return ZC_OK; /* created but never written: the process died before its exit */
    summary->processes++;
    if (!ended)
        summary->processes_cut++;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_run_logs_read(const char *dir, zc_run_summary *summary_p)
{
    ZC_REQUIRE_ARG(dir);
    ZC_REQUIRE_ARG(summary_p);
    DIR *folder = opendir(dir);
    if (folder == NULL)
        return ZC_FAIL(ZC_ERR_IO, "zc_run_logs_read: cannot open the folder %s: %s", dir,
                       strerror(errno));
    zc_run_summary summary;
    memset(&summary, 0, sizeof summary);
    zc_status status = ZC_OK;
    struct dirent *entry;
    while (status == ZC_OK && (entry = readdir(folder)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length < 5 || strcmp(entry->d_name + length - 4, ".run") != 0)
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, entry->d_name) >= (int)sizeof path) {
            status = ZC_FAIL(ZC_ERR_OVERFLOW, "zc_run_logs_read: path too long in %s", dir);
            break;
        }
        status = zc__read_log(path, &summary);
    }
    closedir(folder);
    if (status == ZC_OK)
        *summary_p = summary;
    return status;
}
