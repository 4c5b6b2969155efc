/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's summary for people (its JSON document is the library's, zc_trace_to_json). */
#include "trace_output.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "zerocopy/size.h"
#include "zerocopy/text.h"

/*
 * Text for a terminal. Kernel names, notes and the program's name come from the traced program
 * and its log, and an escape sequence in one (ESC [ 2 J, an OSC title, a CSI) would reach the
 * terminal and act there: so every control character but newline and tab, and every byte that
 * is not part of valid UTF-8 (a raw 0x9b is a CSI to an 8-bit terminal), is written as U+FFFD,
 * by the library's one cleaner (zerocopy/text.h). Other UTF-8 text passes unchanged.
 */
static void zc__put_printable(FILE *out, const char *text)
{
    const size_t len = strlen(text);
    char small[1024], *clean = len < sizeof small / 3 ? small : malloc(3 * len + 1);
    size_t n = 0;
    if (clean == NULL || zc_text_clean(text, len, ZC_TEXT_TERMINAL, clean,
                                       clean == small ? sizeof small : 3 * len + 1, &n) != ZC_OK) {
        fputs("(text left out: no memory to make it printable)", out);
    } else {
        fwrite(clean, 1, n, out);
    }
    if (clean != small)
        free(clean);
}

/* fprintf for the summary: what it formats goes through zc__put_printable. */
static void zc__printf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void zc__printf(FILE *out, const char *fmt, ...)
{
    char small[1024], *text = small;
    va_list args, again;
    va_start(args, fmt);
    va_copy(again, args);
    int n = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (n >= (int)sizeof small && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n >= 0)
        zc__put_printable(out, text != NULL ? text : small); /* out of memory: cut */
    if (text != small)
        free(text);
}

static const char *zc__dir_label(zc_trace_dir dir)
{
    switch (dir) {
    case ZC_TRACE_DIR_H2D:
        return "H2D";
    case ZC_TRACE_DIR_D2H:
        return "D2H";
    case ZC_TRACE_DIR_D2D:
        return "D2D";
    case ZC_TRACE_DIR_H2H:
        return "H2H";
    case ZC_TRACE_DIR_P2P:
        return "P2P";
    default:
        return zc_trace_dir_name(dir);
    }
}

static double zc__gbps(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes / (double)ns : 0.0; /* bytes per ns is GB/s */
}

static void zc__print_path(FILE *out, const zc_cli_trace_run *run, const zc_trace_path *p,
                           int memset)
{
    char label[64], b[32], t[32], share[32] = "";
    if (memset)
        snprintf(label, sizeof label, "memset %s", zc_trace_mem_name(p->src));
    else
        snprintf(label, sizeof label, "%s %s->%s", zc__dir_label(p->dir), zc_trace_mem_name(p->src),
                 zc_trace_mem_name(p->dst));
    double gbps = zc__gbps(p->bytes, p->time_ns);
    if (!memset && run->ceiling_gbps > 0 && zc_trace_dir_crosses_pcie(p->dir))
        snprintf(share, sizeof share, "%5.0f%%", 100.0 * gbps / run->ceiling_gbps);
    zc__printf(out, "  %-28s %8llu %6llu %11s %10s %8.2f %7s\n", label,
               (unsigned long long)p->count, (unsigned long long)p->sync_count,
               zc_size_format(p->bytes, b, sizeof b),
               zc_trace_format_time((double)p->time_ns * 1e-9, t, sizeof t), gbps, share);
}

void zc_cli_trace_print_summary(FILE *out, const zc_cli_trace_run *run, const zc_trace_log *log,
                                const zc_trace_report *report)
{
    char b[32], t[32], s[32];
    const char *program = run->argv && run->argv[0] ? run->argv[0] : "?";
    if (run->start_errno != 0) {
        zc__printf(out, "zc trace: cannot run '%s': %s\n", program, strerror(run->start_errno));
        return;
    }
    if (run->signal)
        zc__printf(out, "zc trace: %s was killed by signal %d\n", program, run->signal);
    else
        zc__printf(out, "zc trace: %s exited with code %d\n", program, run->exit_code);
    if (log == NULL || report == NULL || log->process_count == 0) {
        zc__printf(out, "zc trace: %s\n", run->why_not);
        return;
    }
    int recorded =
        log->copy_count + log->memset_count + log->kernel_count + log->um_count + log->api_count >
        0;
    if (!recorded && log->note_count > 0) {
        /* CUPTI refused everything (no GPU, or another profiler holds it): one line says so,
         * with CUPTI's first refusal (not the library's note about hardware counters). */
        size_t first = 0;
        while (first + 1 < log->note_count &&
               strncmp(log->notes[first], "pcie_counters_unavailable", 25) == 0)
            first++;
        zc__printf(out, "zc trace: nothing recorded: CUPTI said %s\n", log->notes[first]);
        return;
    }
    zc__printf(out, "zc trace: %zu process%s traced%s", log->process_count,
               log->process_count == 1 ? "" : "es",
               log->complete_count < log->process_count
                   ? " (some ended without flushing their records: figures may be short)"
                   : "");
    if (log->dropped)
        zc__printf(out, "; CUPTI dropped %llu records", (unsigned long long)log->dropped);
    fputc('\n', out);
    /* A program that starts CUDA children (fork and exec, multiprocessing): one line each. */
    for (size_t i = 0; log->process_count > 1 && i < log->process_count; i++) {
        const zc_trace_process *p = &log->processes[i];
        zc__printf(out, "  process %ld: %llu copies, %llu kernels, %llu host-memory calls%s\n",
                   p->pid, (unsigned long long)p->copies, (unsigned long long)p->kernels,
                   (unsigned long long)p->api_calls,
                   p->complete ? "" : " (ended without flushing its records)");
    }
    for (size_t i = 0; i < log->note_count; i++)
        zc__printf(out, "  note: %s\n", log->notes[i]);

    if (report->path_count + report->memset_count > 0) {
        zc__printf(out, "\nCopies and memsets (time on the GPU, from CUPTI):\n");
        zc__printf(out, "  %-28s %8s %6s %11s %10s %8s %7s\n", "path", "count", "sync", "bytes",
                   "time", "GB/s", "of max");
        for (size_t i = 0; i < report->path_count; i++)
            zc__print_path(out, run, &report->paths[i], 0);
        for (size_t i = 0; i < report->memset_count; i++)
            zc__print_path(out, run, &report->memsets[i], 1);
    } else {
        zc__printf(out, "\nNo copies or memsets.\n");
    }
    if (run->ceiling_gbps > 0)
        zc__printf(out, "  max: %.1f GB/s per direction, %s\n", run->ceiling_gbps,
                   run->ceiling_source);
    else
        zc__printf(out, "  max: unknown (%s)\n", run->ceiling_source);
    zc__printf(out, "Kernels: %llu, %s on the GPU; GPU activity spans %s\n",
               (unsigned long long)report->kernel_count,
               zc_trace_format_time((double)report->kernel_ns * 1e-9, t, sizeof t),
               zc_trace_format_time((double)report->span_ns * 1e-9, s, sizeof s));
    zc__printf(out, "Pinned host memory: %llu calls, %s, %s; at most %s at once",
               (unsigned long long)report->pin_calls,
               zc_size_format(report->pin_bytes, b, sizeof b),
               zc_trace_format_time((double)report->pin_ns * 1e-9, t, sizeof t),
               zc_size_format(report->peak_pinned_bytes, s, sizeof s));
    if (report->ram_bytes)
        zc__printf(out, " (%.1f%% of RAM)",
                   100.0 * (double)report->peak_pinned_bytes / (double)report->ram_bytes);
    if (report->zc_run_pin_calls)
        zc__printf(out, "; besides, %llu pinning calls of zc run's own cures and staging",
                   (unsigned long long)report->zc_run_pin_calls);
    fputc('\n', out);
    if (report->host_copy_calls)
        zc__printf(out,
                   "Host copies into or out of pinned memory (memcpy, 1 MiB and up): %llu, "
                   "%s, %s\n",
                   (unsigned long long)report->host_copy_calls,
                   zc_size_format(report->host_copy_bytes, b, sizeof b),
                   zc_trace_format_time((double)report->host_copy_ns * 1e-9, t, sizeof t));
    if (report->managed_calls || report->um_counters)
        zc__printf(out,
                   "Managed memory: %llu allocations, %s; %llu prefetches; %llu fault records, "
                   "%s migrated on demand\n",
                   (unsigned long long)report->managed_calls,
                   zc_size_format(report->managed_bytes, b, sizeof b),
                   (unsigned long long)report->prefetch_calls,
                   (unsigned long long)report->um_fault_records,
                   zc_size_format(report->um_bytes, s, sizeof s));

    if (report->launch_args_seen && report->kernel_count > 0)
        zc__printf(out, "Kernel arguments: read for %llu launch%s%s\n",
                   (unsigned long long)report->launches_inspected,
                   report->launches_inspected == 1 ? "" : "es",
                   report->launches_failed ? " (some could not be read)" : "");
    else if (report->kernel_count > 0)
        zc__printf(out, "Kernel arguments: not seen (managed and mapped findings rest on call "
                        "counts)\n");

    if (report->finding_count == 0) {
        zc__printf(out, "\nFindings: none.\n");
        return;
    }
    zc__printf(out, "\nFindings (%zu):\n", report->finding_count);
    for (size_t i = 0; i < report->finding_count; i++) {
        const zc_trace_finding *f = &report->findings[i];
        zc__printf(out, "  [%s] %s: %s\n", f->severity == ZC_TRACE_WARNING ? "warning" : "note",
                   f->key, f->title);
        zc__printf(out, "    evidence: %s\n", f->evidence);
        if (f->saving_s >= 0)
            zc__printf(out, "    could save: up to %s\n",
                       zc_trace_format_time(f->saving_s, t, sizeof t));
        zc__printf(out, "    fix: %s\n", f->fix);
    }
}

zc_trace_document zc_cli_trace_document(const zc_cli_trace_run *run, const zc_trace_log *log,
                                        const zc_trace_report *report)
{
    return (zc_trace_document){
        .argv = run->argv,
        .exit_code = run->exit_code,
        .signal = run->signal,
        .ceiling_gbps = run->ceiling_gbps,
        .ceiling_source = run->ceiling_source,
        .why_not = run->why_not,
        .log = log,
        .report = report,
    };
}
