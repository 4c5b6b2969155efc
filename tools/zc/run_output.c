/* SPDX-License-Identifier: Apache-2.0 */
/* zc run's summary and --report document (run_output.h). */
#include "run_output.h"

#include <stdio.h>
#include <string.h>

#include "cli.h" /* zc_last_error() as people read it */
#include "cli_json.h"
#include "zerocopy/size.h"

static double zc__ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* Whether any counter had calls: the program reached what a cure looks at. */
static int zc__any_calls(const zc_run_summary *s)
{
    for (int i = 0; i < ZC_RUN_COUNTER_COUNT; i++)
        if (s->counts[i].calls > 0)
            return 1;
    return 0;
}

int zc_cli_run_read_logs(zc_cli_run *run, const char *dir)
{
    zc_status status = zc_run_logs_read(dir, &run->summary);
    if (status != ZC_OK) {
        snprintf(run->why_not, sizeof run->why_not, "the logs could not be read: %s",
                 zc_last_error());                    /* without locations: cli.h */
        run->library_loaded = status == ZC_ERR_PARSE; /* a log was there, but not as written */
        return -1;
    }
    run->have_summary = 1;
    const zc_run_summary *s = &run->summary;
    /* The library writes its log as it is loaded: no log, no process that loaded it. */
    run->library_loaded = s->processes > 0;
    if (!run->library_loaded)
        snprintf(run->why_not, sizeof run->why_not,
                 "the library was not loaded in any process of the program, so it saw no call "
                 "that a cure looks at (the loader does not preload into a static or setuid "
                 "program, nor into one started without LD_PRELOAD)");
    else if (!zc__any_calls(s) && s->processes_cut == 0)
        snprintf(run->why_not, sizeof run->why_not,
                 "the program made no call that a cure looks at (no CUDA copy or pinned "
                 "allocation) in the %u process%s that loaded the library",
                 s->processes, s->processes == 1 ? "" : "es");
    /* A process cut short wrote no counts: whether it made such calls is not known. */
    else if (!zc__any_calls(s) && s->processes == 1)
        snprintf(run->why_not, sizeof run->why_not,
                 "no call that a cure looks at was counted: the process that loaded the library "
                 "ended before writing its counts (killed, or _exit)");
    else if (!zc__any_calls(s))
        snprintf(run->why_not, sizeof run->why_not,
                 "no call that a cure looks at was counted: %u of the %u processes that loaded "
                 "the library ended before writing their counts (killed, or _exit)",
                 s->processes_cut, s->processes);
    return 0;
}

void zc_cli_run_print_summary(FILE *out, const zc_cli_run *run)
{
    char fixes[128];
    zc_run_fixes_format(run->fixes, fixes, sizeof fixes);
    if (run->start_errno != 0) {
        fprintf(out, "zc run: %s\n", run->why_not);
        return;
    }
    if (!run->have_summary || run->why_not[0] != '\0') {
        fprintf(out, "zc run (cures: %s): nothing cured: %s\n", fixes, run->why_not);
        return;
    }
    const zc_run_summary *s = &run->summary;
    fprintf(out, "zc run (cures: %s): %u process%s", fixes, s->processes,
            s->processes == 1 ? "" : "es");
    if (s->processes_cut > 0)
        fprintf(out, ", %u of them ended before writing their counts (killed, or _exit)",
                s->processes_cut);
    fprintf(out, "; %u copying threads, chunks up to %s x %u, copies from %s (h2d) and %s (d2h)\n",
            s->threads, zc_size_format(s->chunk_bytes, (char[32]){0}, 32), s->staging_buffers,
            zc_size_format(s->min_bytes, (char[32]){0}, 32),
            zc_size_format(s->min_d2h_bytes, (char[32]){0}, 32));
    fprintf(out, "  %-18s %9s %12s %11s %14s  %s\n", "cured", "calls", "bytes", "time ms",
            "as it was ms", "priced");
    int any = 0;
    for (int i = 0; i < ZC_RUN_COUNTER_COUNT; i++) {
        const zc_run_count *c = &s->counts[i];
        if (!zc_run_counter_cured((zc_run_counter)i) || c->calls == 0)
            continue;
        any = 1;
        char uncured[32] = "-";
        if (c->pricing != ZC_RUN_PRICED_NONE)
            snprintf(uncured, sizeof uncured, "%.3f", zc__ms(c->uncured_ns));
        fprintf(out, "  %-18s %9llu %12s %11.3f %14s  %s\n", zc_run_counter_name((zc_run_counter)i),
                (unsigned long long)c->calls, zc_size_format(c->bytes, (char[32]){0}, 32),
                zc__ms(c->ns), uncured, zc_run_pricing_name(c->pricing));
    }
    if (!any)
        fprintf(out, "  (no call needed a cure)\n");
    for (int i = 0; i < ZC_RUN_COUNTER_COUNT; i++) {
        const zc_run_count *c = &s->counts[i];
        if (zc_run_counter_cured((zc_run_counter)i) || c->calls == 0)
            continue;
        fprintf(out, "  %s: %llu call%s, %s: %s\n", zc_run_counter_name((zc_run_counter)i),
                (unsigned long long)c->calls, c->calls == 1 ? "" : "s",
                zc_size_format(c->bytes, (char[32]){0}, 32),
                zc_run_counter_meaning((zc_run_counter)i));
    }
}

static void zc__add_seconds(cJSON *o, const char *key, uint64_t ns, int known)
{
    if (known)
        cJSON_AddNumberToObject(o, key, (double)ns / 1e9);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *zc_cli_run_json(const zc_cli_run *run)
{
    cJSON *doc = zc_cli_program_doc(ZC_RUN_SCHEMA, run->argv, run->exit_code, run->signal);
    if (doc == NULL)
        return NULL;
    cJSON *fixes = cJSON_AddArrayToObject(doc, "fixes");
    for (int i = 0; fixes && i < ZC_RUN_FIX_COUNT; i++) {
        if (run->fixes & (1u << i))
            cJSON_AddItemToArray(fixes, cJSON_CreateString(zc_run_fix_name((zc_run_fix)i)));
    }
    const zc_run_summary *s = &run->summary;
    int read = run->have_summary && s->processes > 0;
    cJSON_AddBoolToObject(doc, "cured", read && run->why_not[0] == '\0');
    if (!read || run->why_not[0] != '\0')
        cJSON_AddStringToObject(doc, "why_not", run->why_not);
    cJSON_AddBoolToObject(doc, "library_loaded", run->library_loaded);
    cJSON_AddNumberToObject(doc, "processes", read ? s->processes : 0);
    cJSON_AddNumberToObject(doc, "processes_cut", read ? s->processes_cut : 0);
    cJSON *settings = cJSON_AddObjectToObject(doc, "settings");
    if (settings != NULL && read) {
        cJSON_AddNumberToObject(settings, "threads", s->threads);
        cJSON_AddNumberToObject(settings, "chunk_bytes", (double)s->chunk_bytes);
        cJSON_AddNumberToObject(settings, "staging_buffers", s->staging_buffers);
        cJSON_AddNumberToObject(settings, "min_bytes", (double)s->min_bytes);
        cJSON_AddNumberToObject(settings, "min_d2h_bytes", (double)s->min_d2h_bytes);
    }
    cJSON *counters = cJSON_AddArrayToObject(doc, "counters");
    for (int i = 0; counters && i < ZC_RUN_COUNTER_COUNT; i++) {
        const zc_run_count *c = &s->counts[i];
        cJSON *row = cJSON_CreateObject();
        if (row == NULL)
            break;
        cJSON_AddItemToArray(counters, row);
        zc_run_counter counter = (zc_run_counter)i;
        cJSON_AddStringToObject(row, "name", zc_run_counter_name(counter));
        cJSON_AddStringToObject(row, "fix", zc_run_fix_name(zc_run_counter_fix(counter)));
        cJSON_AddBoolToObject(row, "cured", zc_run_counter_cured(counter));
        cJSON_AddStringToObject(row, "meaning", zc_run_counter_meaning(counter));
        cJSON_AddNumberToObject(row, "calls", read ? (double)c->calls : 0);
        cJSON_AddNumberToObject(row, "bytes", read ? (double)c->bytes : 0);
        zc__add_seconds(row, "seconds", c->ns, 1);
        int priced = read && c->calls > 0 && c->pricing != ZC_RUN_PRICED_NONE;
        zc__add_seconds(row, "uncured_seconds", c->uncured_ns, priced);
        cJSON_AddStringToObject(row, "pricing",
                                zc_run_pricing_name(read ? c->pricing : ZC_RUN_PRICED_NONE));
    }
    return doc;
}
