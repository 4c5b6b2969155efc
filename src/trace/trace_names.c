/* SPDX-License-Identifier: Apache-2.0 */
/* The names of the log's kinds (directions, memory kinds, counters, calls), one table each,
 * used by the injection library to write them and by the analysis to read and print them. */
#include "trace_record.h"

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
    "hostalloc",        "hostregister", "freehost", "hostunregister", "mallocmanaged",
    "hostgetdeviceptr", "prefetch",     "advise",   "hostcopy"};

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

const char *zc__trace_um_name(zc_trace_um_counter counter)
{
    return (unsigned)counter < ZC_TRACE_UM_COUNT ? zc__um_names[counter] : "unknown";
}

static int zc__lookup(const char *word, const char *const *names, int count)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(word, names[i]) == 0)
            return i;
    }
    return -1;
}

int zc__trace_dir_lookup(const char *word)
{
    return zc__lookup(word, zc__dir_names, ZC_TRACE_DIR_COUNT);
}

int zc__trace_mem_lookup(const char *word)
{
    return zc__lookup(word, zc__mem_names, ZC_TRACE_MEM_COUNT);
}

int zc__trace_um_lookup(const char *word)
{
    return zc__lookup(word, zc__um_names, ZC_TRACE_UM_COUNT);
}

int zc__trace_call_lookup(const char *word)
{
    return zc__lookup(word, zc__call_names, ZC_TRACE_CALL_COUNT);
}

void zc__trace_word(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = name ? name : "?"; *c != '\0' && n + 1 < size; c++)
        out[n++] = (*c > ' ' && *c < 127) ? *c : '_';
    if (n == 0 && size > 1)
        out[n++] = '?';
    if (size > 0)
        out[n] = '\0';
}
