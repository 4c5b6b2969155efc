/* SPDX-License-Identifier: Apache-2.0 */
/* The report's machine section: the GPU's identity, link and capabilities from zc info, each
 * under a label people read instead of its JSON key. */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* How a field's value is shown. */
typedef enum zc__shown { ZC__TEXT, ZC__COUNT, ZC__BYTES, ZC__CUDA_VERSION, ZC__NUMA } zc__shown;

static const struct {
    const char *key;
    const char *label;
    zc__shown shown;
} zc__fields[] = {
    {"name", "GPU", ZC__TEXT},
    {"compute_capability", "compute capability", ZC__TEXT},
    {"sm_count", "multiprocessors (SMs)", ZC__COUNT},
    {"total_memory_bytes", "device memory", ZC__BYTES},
    {"total_memory", "device memory", ZC__BYTES},
    {"pci_bus_id", "PCI bus address", ZC__TEXT},
    {"numa_node", "NUMA node of the GPU", ZC__NUMA},
    {"driver_version", "CUDA driver version", ZC__CUDA_VERSION},
    {"runtime_version", "CUDA runtime version", ZC__CUDA_VERSION},
};

/* The capabilities zc info reports, by their CUDA names (docs/json.md), said for people. */
static const struct {
    const char *key;
    const char *label;
} zc__capabilities[] = {
    {"unifiedAddressing", "one address space for host and GPU (unified addressing)"},
    {"canMapHostMemory", "kernels can use mapped host memory (zero-copy)"},
    {"integrated", "integrated GPU, sharing the host's memory"},
    {"pageableMemoryAccess", "kernels can read pageable memory directly"},
    {"pageableMemoryAccessUsesHostPageTables", "... through the host's page tables"},
    {"concurrentManagedAccess", "CPU and GPU can use managed memory at the same time"},
    {"managedMemory", "managed memory (cudaMallocManaged)"},
    {"hostNativeAtomicSupported", "native atomic operations on host memory"},
    {"onlyPartialHostNativeAtomicSupported", "only some atomic operations on host memory"},
    {"hostRegisterSupported", "existing memory can be pinned (cudaHostRegister)"},
    {"hostRegisterReadOnlySupported", "memory can be pinned read-only"},
    {"canUseHostPointerForRegisteredMem", "registered memory has the same address on the GPU"},
    {"asyncEngineCount", "copy engines"},
    {"directManagedMemAccessFromHost", "the host reads managed memory on the GPU directly"},
};

/* One field's value into the page, or nothing when it is absent (0 then). */
static int zc__value(zc__buf *page, const cJSON *v, zc__shown shown, const char *where,
                     const char *field, zc_report_bad *bad)
{
    char text[64];
    long long n = 0;
    if (cJSON_IsString(v)) {
        zc__buf_html(page, v->valuestring);
        return 1;
    }
    if (cJSON_IsNull(v) && shown == ZC__NUMA) {
        zc__buf_printf(page, "none reported");
        return 1;
    }
    if (!cJSON_IsNumber(v))
        return 0;
    switch (shown) {
    case ZC__BYTES:
        zc__report_bytes_text(v->valuedouble, text, sizeof text);
        zc__buf_printf(page, "%s", text);
        return 1;
    case ZC__CUDA_VERSION:
        /* 1000 * major + 10 * minor: 13000 is CUDA 13.0. */
        if (!zc__report_integer(v->valuedouble, 0, 1e6, where, field, bad, &n))
            return 0;
        zc__buf_printf(page, "%lld.%lld", n / 1000, (n % 1000) / 10);
        return 1;
    case ZC__NUMA:
        if (!zc__report_integer(v->valuedouble, -1, 1e6, where, field, bad, &n))
            return 0;
        if (n < 0)
            zc__buf_printf(page, "none reported");
        else
            zc__buf_printf(page, "%lld", n);
        return 1;
    case ZC__COUNT:
    case ZC__TEXT:
        if (!zc__report_integer(v->valuedouble, 0, 1e9, where, field, bad, &n))
            return 0;
        zc__buf_printf(page, "%lld", n);
        return 1;
    }
    return 0;
}

/* The capabilities as a second table: what each means, and yes, no or a count. */
static void zc__capability_rows(zc__buf *page, const cJSON *caps, const char *where,
                                zc_report_bad *bad)
{
    if (!cJSON_IsObject(caps))
        return;
    zc__buf_printf(page, "<h3>What the GPU can do</h3>\n<table class=\"capabilities\">\n");
    const cJSON *c;
    cJSON_ArrayForEach(c, caps)
    {
        if (!cJSON_IsNumber(c) && !cJSON_IsBool(c))
            continue;
        const char *label = c->string;
        for (size_t i = 0; i < sizeof zc__capabilities / sizeof zc__capabilities[0]; i++) {
            if (strcmp(zc__capabilities[i].key, c->string) == 0)
                label = zc__capabilities[i].label;
        }
        long long n = cJSON_IsTrue(c) ? 1 : 0;
        char field[160];
        snprintf(field, sizeof field, "machine devices[0].capabilities.%s", c->string);
        if (cJSON_IsNumber(c) &&
            !zc__report_integer(c->valuedouble, -1, 1e6, where, field, bad, &n))
            continue;
        zc__buf_printf(page, "<tr><th>");
        zc__buf_html(page, label);
        zc__buf_printf(page, "</th><td>");
        if (strcmp(c->string, "asyncEngineCount") == 0)
            zc__buf_printf(page, "%lld", n);
        else if (n < 0)
            zc__buf_printf(page, "not reported by the driver");
        else
            zc__buf_printf(page, "%s", n ? "yes" : "no");
        zc__buf_printf(page, "</td></tr>\n");
    }
    zc__buf_printf(page, "</table>\n");
}

void zc__report_machine(zc__buf *page, const zc_report_input *in)
{
    zc__buf_printf(page, "<h2>The machine</h2>\n<table class=\"machine\">\n");
    const cJSON *dev =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(in->machine, "devices"), 0);
    if (dev == NULL) {
        zc__buf_printf(page, "<tr><th>GPU</th><td>");
        zc__buf_html(page, in->profile.device_name[0] ? in->profile.device_name : "unknown");
        zc__buf_printf(page, "</td></tr>\n<tr><th>figures from</th><td>");
        zc__buf_html(page, in->profile.source);
        zc__buf_printf(page, "</td></tr>\n</table>\n<p class=\"note\">No zc info section in the "
                             "inputs: give a zc bench result for the machine's details.</p>\n");
        return;
    }
    int memory_shown = 0;
    for (size_t i = 0; i < sizeof zc__fields / sizeof zc__fields[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(dev, zc__fields[i].key);
        int is_memory = zc__fields[i].shown == ZC__BYTES;
        if (v == NULL || (is_memory && memory_shown))
            continue;
        zc__buf page_row = {0};
        char field[96];
        snprintf(field, sizeof field, "machine devices[0].%s", zc__fields[i].key);
        if (!zc__value(&page_row, v, zc__fields[i].shown, in->machine_path, field, in->bad)) {
            zc__buf_free(&page_row);
            continue;
        }
        memory_shown |= is_memory;
        zc__buf_printf(page, "<tr><th>%s</th><td>%s</td></tr>\n", zc__fields[i].label,
                       page_row.data != NULL ? page_row.data : "");
        page->failed |= page_row.failed;
        zc__buf_free(&page_row);
    }
    char link[160];
    zc__report_link_text(in->machine, in->machine_path, in->bad, link, sizeof link);
    zc__buf_printf(page, "<tr><th>PCIe link</th><td>%s</td></tr>\n",
                   link[0] ? link : "not readable");
    zc__buf_printf(page, "</table>\n");
    zc__capability_rows(page, cJSON_GetObjectItemCaseSensitive(dev, "capabilities"),
                        in->machine_path, in->bad);
}
