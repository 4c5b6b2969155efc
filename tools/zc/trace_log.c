/* Reading the zc trace event logs: one text line per record, as src/trace writes them. */
#include "trace_log.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const zc__dir_names[ZC_TRACE_DIR_COUNT] = {
    "unknown", "h2d", "d2h", "h2a", "a2h", "a2a", "a2d", "d2a", "d2d", "h2h", "p2p"};
static const char *const zc__mem_names[ZC_TRACE_MEM_COUNT] = {
    "unknown", "pageable", "pinned",        "device",
    "array",   "managed",  "device_static", "managed_static"};
static const char *const zc__um_names[ZC_TRACE_UM_COUNT] = {
    "unknown",   "bytes_h2d",  "bytes_d2h",  "cpu_faults", "gpu_faults",
    "thrashing", "throttling", "remote_map", "bytes_d2d"};
static const char *const zc__call_names[ZC_TRACE_CALL_COUNT] = {
    "hostalloc",     "hostregister",     "freehost", "hostunregister",
    "mallocmanaged", "hostgetdeviceptr", "prefetch"};

const char *zc_trace_dir_name(zc_trace_dir dir)
{
    return (unsigned)dir < ZC_TRACE_DIR_COUNT ? zc__dir_names[dir] : "unknown";
}

const char *zc_trace_mem_name(zc_trace_mem mem)
{
    return (unsigned)mem < ZC_TRACE_MEM_COUNT ? zc__mem_names[mem] : "unknown";
}

const char *zc_trace_call_name(zc_trace_call call)
{
    return (unsigned)call < ZC_TRACE_CALL_COUNT ? zc__call_names[call] : "unknown";
}

/* Index of word in names, or -1. */
static int zc__lookup(const char *word, const char *const *names, int count)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(word, names[i]) == 0)
            return i;
    }
    return -1;
}

void zc_trace_log_init(zc_trace_log *log)
{
    memset(log, 0, sizeof *log);
}

void zc_trace_log_free(zc_trace_log *log)
{
    free(log->copies);
    free(log->memsets);
    free(log->kernels);
    free(log->ums);
    free(log->apis);
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
         ? ((log)->array[(log)->count++] = (item), 1)                                              \
         : 0)

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
    if (log->note_count < ZC_TRACE_NOTE_MAX)
        snprintf(log->notes[log->note_count++], sizeof log->notes[0], "%s: %s", key, text);
}

/* One record line (without its newline); *ended set by the end line. */
static zc_status zc__parse_line(zc_trace_log *log, const char *line, const char *name,
                                size_t number, int *ended)
{
    char tag[16], a[64], b[64], c[64];
    int used = 0;
    if (sscanf(line, "%15s%n", tag, &used) != 1)
        return ZC_OK; /* blank line */
    const char *rest = line + used;
    if (strcmp(tag, "copy") == 0) {
        zc_trace_copy r;
        int async = 0, dir, src, dst;
        unsigned device = 0;
        if (sscanf(rest, "%63s %63s %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32 " %d %u", a,
                   b, c, &r.bytes, &r.start, &r.end, &r.stream, &async, &device) != 9)
            return zc__parse_error(log, name, number, "malformed copy record");
        dir = zc__lookup(a, zc__dir_names, ZC_TRACE_DIR_COUNT);
        src = zc__lookup(b, zc__mem_names, ZC_TRACE_MEM_COUNT);
        dst = zc__lookup(c, zc__mem_names, ZC_TRACE_MEM_COUNT);
        if (dir < 0 || src < 0 || dst < 0 || r.end < r.start)
            return zc__parse_error(log, name, number, "copy record with unknown kind or times");
        r.dir = (zc_trace_dir)dir;
        r.src = (zc_trace_mem)src;
        r.dst = (zc_trace_mem)dst;
        r.async = async != 0;
        return ZC__PUSH(log, copies, copy_count, copy_cap, r) ? ZC_OK : ZC_ERR_NO_MEMORY;
    }
    if (strcmp(tag, "memset") == 0) {
        zc_trace_memset r;
        int async = 0;
        if (sscanf(rest, "%63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32 " %d", a, &r.bytes,
                   &r.start, &r.end, &r.stream, &async) != 6)
            return zc__parse_error(log, name, number, "malformed memset record");
        int kind = zc__lookup(a, zc__mem_names, ZC_TRACE_MEM_COUNT);
        if (kind < 0 || r.end < r.start)
            return zc__parse_error(log, name, number, "memset record with unknown kind or times");
        r.kind = (zc_trace_mem)kind;
        r.async = async != 0;
        return ZC__PUSH(log, memsets, memset_count, memset_cap, r) ? ZC_OK : ZC_ERR_NO_MEMORY;
    }
    if (strcmp(tag, "kernel") == 0) {
        zc_trace_kernel r;
        if (sscanf(rest, "%" SCNu64 " %" SCNu64 " %" SCNu32, &r.start, &r.end, &r.stream) != 3 ||
            r.end < r.start)
            return zc__parse_error(log, name, number, "malformed kernel record");
        return ZC__PUSH(log, kernels, kernel_count, kernel_cap, r) ? ZC_OK : ZC_ERR_NO_MEMORY;
    }
    if (strcmp(tag, "um") == 0) {
        zc_trace_um r;
        if (sscanf(rest, "%63s %" SCNu64 " %" SCNu64 " %" SCNu64, a, &r.value, &r.start, &r.end) !=
            4)
            return zc__parse_error(log, name, number, "malformed um record");
        int counter = zc__lookup(a, zc__um_names, ZC_TRACE_UM_COUNT);
        r.counter = counter < 0 ? ZC_TRACE_UM_UNKNOWN : (zc_trace_um_counter)counter;
        return ZC__PUSH(log, ums, um_count, um_cap, r) ? ZC_OK : ZC_ERR_NO_MEMORY;
    }
    if (strcmp(tag, "api") == 0) {
        zc_trace_api r;
        int ok = 0;
        char domain[8] = "rt";
        int fields = sscanf(rest, "%63s %" SCNu64 " %u %" SCNx64 " %" SCNu64 " %" SCNu64 " %d %7s",
                            a, &r.bytes, &r.flags, &r.pointer, &r.start, &r.end, &ok, domain);
        if (fields < 7 || r.end < r.start ||
            (strcmp(domain, "rt") != 0 && strcmp(domain, "drv") != 0))
            return zc__parse_error(log, name, number, "malformed api record");
        r.runtime = strcmp(domain, "rt") == 0;
        int call = zc__lookup(a, zc__call_names, ZC_TRACE_CALL_COUNT);
        if (call < 0)
            return zc__parse_error(log, name, number, "api record for unknown call '%s'", a);
        r.call = (zc_trace_call)call;
        r.ok = ok != 0;
        r.process = (int)log->process_count;
        return ZC__PUSH(log, apis, api_count, api_cap, r) ? ZC_OK : ZC_ERR_NO_MEMORY;
    }
    if (strcmp(tag, "note") == 0) {
        char text[200] = "";
        if (sscanf(rest, "%63s %199[^\n]", a, text) < 1)
            return zc__parse_error(log, name, number, "malformed note");
        zc__add_note(log, a, text);
        return ZC_OK;
    }
    if (strcmp(tag, "dropped") == 0) {
        uint64_t dropped = 0;
        if (sscanf(rest, "%" SCNu64, &dropped) != 1)
            return zc__parse_error(log, name, number, "malformed dropped record");
        log->dropped += dropped;
        return ZC_OK;
    }
    if (strcmp(tag, "end") == 0) {
        *ended = 1;
        return ZC_OK;
    }
    return zc__parse_error(log, name, number, "unknown record '%s'", tag);
}

zc_status zc_trace_log_read(zc_trace_log *log, FILE *in, const char *name)
{
    if (log == NULL || in == NULL || name == NULL)
        return ZC_ERR_INVALID_ARG;
    char line[1024];
    size_t number = 0;
    int ended = 0, header = 0;
    while (fgets(line, sizeof line, in) != NULL) {
        number++;
        size_t length = strlen(line);
        if (length > 0 && line[length - 1] != '\n') {
            /* A process killed while writing leaves half a last line: not a record. */
            if (feof(in) || length + 1 < sizeof line)
                break;
            return zc__parse_error(log, name, number, "line too long");
        }
        if (!header) {
            int version = 0;
            long pid = 0;
            unsigned long long ram = 0;
            if (sscanf(line, "zctrace %d pid=%ld ram=%llu", &version, &pid, &ram) != 3)
                return zc__parse_error(log, name, number, "not a zc trace log");
            if (version != 1)
                return zc__parse_error(log, name, number, "log version %d, this zc reads 1",
                                       version);
            if (ram > log->ram_bytes)
                log->ram_bytes = ram;
            header = 1;
            continue;
        }
        if (ended)
            return zc__parse_error(log, name, number, "record after the end line");
        zc_status status = zc__parse_line(log, line, name, number, &ended);
        if (status != ZC_OK)
            return status;
    }
    if (!header)
        return zc__parse_error(log, name, number, "empty log");
    log->process_count++;
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

zc_status zc_trace_log_read_dir(zc_trace_log *log, const char *dir)
{
    if (log == NULL || dir == NULL)
        return ZC_ERR_INVALID_ARG;
    DIR *folder = opendir(dir);
    if (folder == NULL) {
        snprintf(log->error, sizeof log->error, "%.200s: cannot open the log folder", dir);
        return ZC_ERR_IO;
    }
    zc_status status = ZC_OK;
    struct dirent *entry;
    while (status == ZC_OK && (entry = readdir(folder)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length < 5 || strcmp(entry->d_name + length - 4, ".log") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        FILE *in = fopen(path, "r");
        if (in == NULL) {
            snprintf(log->error, sizeof log->error, "%.200s: cannot open", entry->d_name);
            status = ZC_ERR_IO;
            break;
        }
        status = zc_trace_log_read(log, in, entry->d_name);
        fclose(in);
    }
    closedir(folder);
    return status;
}
