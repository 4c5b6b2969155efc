/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the zc trace event logs into one zc_trace_log: every process's records, side by side,
 * each tagged with the process it came from. */
#include "trace_record.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

void zc_trace_log_init(zc_trace_log *log)
{
    if (log != NULL)
        memset(log, 0, sizeof *log);
}

void zc_trace_log_free(zc_trace_log *log)
{
    if (log == NULL)
        return;
    free(log->copies);
    free(log->memsets);
    free(log->kernels);
    free(log->ums);
    free(log->apis);
    free(log->launches);
    free(log->processes);
    zc_trace_log_init(log);
}

/* Make room for one more item in a growing array; 0 when out of memory. */
static int zc__reserve(void **items, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return 1;
    size_t new_cap = *cap ? *cap * 2 : 256;
    if (new_cap > SIZE_MAX / size)
        return 0;
    void *grown = realloc(*items, new_cap * size);
    if (grown == NULL)
        return 0;
    *items = grown;
    *cap = new_cap;
    return 1;
}

#define ZC__PUSH(log, array, count, cap, item)                                                     \
    (zc__reserve((void **)&(log)->array, &(log)->cap, (log)->count, sizeof *(log)->array)          \
         ? ((log)->array[(log)->count++] = (item), ZC_OK)                                          \
         : ZC_ERR_NO_MEMORY)

__attribute__((format(printf, 4, 5))) static zc_status
zc__parse_error(zc_trace_log *log, const char *name, size_t line, const char *fmt, ...)
{
    int n = snprintf(log->error, sizeof log->error, "%s:%zu: ", name, line);
    if (n > 0 && (size_t)n < sizeof log->error) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(log->error + n, sizeof log->error - (size_t)n, fmt, args);
        va_end(args);
    }
    return ZC_ERR_PARSE;
}

static void zc__add_note(zc_trace_log *log, const char *key, const char *text)
{
    if (strcmp(key, "um_counters_unavailable") == 0)
        log->um_unavailable = 1;
    if (strcmp(key, "pcie_counters_unavailable") == 0)
        snprintf(log->pcie_counters, sizeof log->pcie_counters, "%s", text);
    char note[sizeof log->notes[0]];
    snprintf(note, sizeof note, "%s: %s", key, text);
    /* Every process of a run says the same things: once is enough. */
    for (size_t i = 0; i < log->note_count; i++) {
        if (strcmp(log->notes[i], note) == 0)
            return;
    }
    if (log->note_count < ZC_TRACE_NOTE_MAX)
        memcpy(log->notes[log->note_count++], note, sizeof note);
}

/* File one parsed record under process p (the process being read). */
static zc_status zc__store(zc_trace_log *log, zc__trace_line *line, zc_trace_process *p, int *ended)
{
    int process = (int)log->process_count;
    switch (line->tag) {
    case ZC__TRACE_COPY:
        line->u.copy.process = process;
        p->copies++;
        return ZC__PUSH(log, copies, copy_count, copy_cap, line->u.copy);
    case ZC__TRACE_MEMSET:
        line->u.memset.process = process;
        return ZC__PUSH(log, memsets, memset_count, memset_cap, line->u.memset);
    case ZC__TRACE_KERNEL:
        line->u.kernel.process = process;
        p->kernels++;
        return ZC__PUSH(log, kernels, kernel_count, kernel_cap, line->u.kernel);
    case ZC__TRACE_UM:
        line->u.um.process = process;
        return ZC__PUSH(log, ums, um_count, um_cap, line->u.um);
    case ZC__TRACE_API:
        line->u.api.process = process;
        p->api_calls++;
        return ZC__PUSH(log, apis, api_count, api_cap, line->u.api);
    case ZC__TRACE_LAUNCH:
        line->u.launch.process = process;
        return ZC__PUSH(log, launches, launch_count, launch_cap, line->u.launch);
    case ZC__TRACE_LAUNCHES:
        p->launch_counts = 1;
        p->launches_runtime += line->u.launches.runtime;
        p->launches_inspected += line->u.launches.inspected;
        p->launches_failed += line->u.launches.failed;
        return ZC_OK;
    case ZC__TRACE_NOTE:
        zc__add_note(log, line->u.note.key, line->u.note.text);
        return ZC_OK;
    case ZC__TRACE_DROPPED:
        log->dropped += line->u.dropped;
        return ZC_OK;
    case ZC__TRACE_END:
        *ended = 1;
        return ZC_OK;
    default:
        return ZC_OK;
    }
}

zc_status zc_trace_log_read(zc_trace_log *log, FILE *in, const char *name)
{
    if (log == NULL || in == NULL || name == NULL)
        return ZC_ERR_INVALID_ARG;
    char text[ZC__TRACE_LINE_MAX], why[160];
    size_t number = 0;
    int ended = 0, header = 0;
    zc_trace_process process = {0};
    while (fgets(text, sizeof text, in) != NULL) {
        number++;
        size_t length = strlen(text);
        if (length > 0 && text[length - 1] != '\n') {
            /* A process killed while writing leaves half a last line: not a record. */
            if (feof(in) || length + 1 < sizeof text)
                break;
            return zc__parse_error(log, name, number, "line too long");
        }
        if (!header) {
            unsigned long long ram = 0;
            if (zc__trace_parse_header(text, &process.pid, &ram, why, sizeof why) != ZC_OK)
                return zc__parse_error(log, name, number, "%s", why);
            if (ram > log->ram_bytes)
                log->ram_bytes = ram;
            header = 1;
            continue;
        }
        if (ended)
            return zc__parse_error(log, name, number, "record after the end line");
        zc__trace_line line;
        if (zc__trace_parse(text, &line, why, sizeof why) != ZC_OK)
            return zc__parse_error(log, name, number, "%s", why);
        ZC_CHECK(zc__store(log, &line, &process, &ended));
    }
    if (!header)
        return zc__parse_error(log, name, number, "empty log");
    process.complete = ended;
    ZC_CHECK(ZC__PUSH(log, processes, process_count, process_cap, process));
    if (ended)
        log->complete_count++;
    return ZC_OK;
}

zc_status zc_trace_log_read_text(zc_trace_log *log, const char *text, const char *name)
{
    if (log == NULL || text == NULL || name == NULL)
        return ZC_ERR_INVALID_ARG;
    if (text[0] == '\0')
        return zc__parse_error(log, name, 0, "empty log");
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    if (in == NULL)
        return ZC_ERR_NO_MEMORY;
    zc_status status = zc_trace_log_read(log, in, name);
    fclose(in);
    return status;
}

/* The log files' names in dir, sorted, so that processes are read in the same order each time
 * (readdir's order is the file system's). */
static int zc__by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

zc_status zc_trace_log_read_dir(zc_trace_log *log, const char *dir)
{
    if (log == NULL || dir == NULL)
        return ZC_ERR_INVALID_ARG;
    DIR *folder = opendir(dir);
    if (folder == NULL) {
        snprintf(log->error, sizeof log->error, "%.200s: cannot open the log folder", dir);
        return ZC_ERR_IO;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    zc_status status = ZC_OK;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length < 5 || strcmp(entry->d_name + length - 4, ".log") != 0)
            continue;
        char *copy = strdup(entry->d_name);
        if (copy == NULL || !zc__reserve((void **)&names, &cap, count, sizeof *names)) {
            free(copy);
            status = ZC_ERR_NO_MEMORY;
            break;
        }
        names[count++] = copy;
    }
    closedir(folder);
    if (count > 1)
        qsort(names, count, sizeof *names, zc__by_name);
    for (size_t i = 0; status == ZC_OK && i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *in = fopen(path, "r");
        if (in == NULL) {
            snprintf(log->error, sizeof log->error, "%.200s: cannot open", names[i]);
            status = ZC_ERR_IO;
            break;
        }
        status = zc_trace_log_read(log, in, names[i]);
        fclose(in);
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return status;
}
