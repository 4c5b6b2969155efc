/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's document, schema "zerocopy.trace/1" (docs/json.md): the run, the ceiling, the
 * processes, copy paths, memsets, kernels, host and unified memory, and the findings. */
#include "zerocopy/json.h"

#include "core/error.h"
#include "json/json_internal.h"
#include "zerocopy/version.h"

static double zc__gbps(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes / (double)ns : 0.0; /* bytes per ns is GB/s */
}

/* Each adder returns the item, or NULL when out of memory (cJSON's convention). */
static cJSON *zc__path_json(double ceiling_gbps, const zc_trace_path *p, int memset)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    if (memset) {
        cJSON_AddStringToObject(o, "kind", zc_trace_mem_name(p->src));
    } else {
        cJSON_AddStringToObject(o, "direction", zc_trace_dir_name(p->dir));
        cJSON_AddStringToObject(o, "src_kind", zc_trace_mem_name(p->src));
        cJSON_AddStringToObject(o, "dst_kind", zc_trace_mem_name(p->dst));
    }
    cJSON_AddNumberToObject(o, "count", (double)p->count);
    cJSON_AddNumberToObject(o, "sync_count", (double)p->sync_count);
    cJSON_AddNumberToObject(o, "bytes", (double)p->bytes);
    cJSON_AddNumberToObject(o, "time_s", (double)p->time_ns * 1e-9);
    cJSON_AddNumberToObject(o, "gbps", zc__gbps(p->bytes, p->time_ns));
    if (!memset && ceiling_gbps > 0 && zc_trace_dir_crosses_pcie(p->dir))
        cJSON_AddNumberToObject(o, "share_of_ceiling",
                                zc__gbps(p->bytes, p->time_ns) / ceiling_gbps);
    return o;
}

static cJSON *zc__finding_json(const zc_trace_finding *f)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "key", f->key);
    cJSON_AddStringToObject(o, "severity", f->severity == ZC_TRACE_WARNING ? "warning" : "note");
    cJSON_AddStringToObject(o, "title", f->title);
    cJSON_AddNumberToObject(o, "count", (double)f->count);
    cJSON_AddNumberToObject(o, "bytes", (double)f->bytes);
    cJSON_AddNumberToObject(o, "time_s", f->time_s);
    if (f->saving_s >= 0)
        cJSON_AddNumberToObject(o, "saving_s", f->saving_s);
    else
        cJSON_AddNullToObject(o, "saving_s");
    cJSON_AddStringToObject(o, "evidence", f->evidence);
    cJSON_AddStringToObject(o, "fix", f->fix);
    return o;
}

static void zc__report_json(cJSON *doc, double ceiling_gbps, const zc_trace_log *log,
                            const zc_trace_report *r)
{
    cJSON_AddNumberToObject(doc, "processes", (double)log->process_count);
    cJSON_AddBoolToObject(doc, "complete", log->complete_count == log->process_count);
    cJSON_AddNumberToObject(doc, "dropped_records", (double)log->dropped);
    cJSON *list = cJSON_AddArrayToObject(doc, "process_list");
    for (size_t i = 0; list && i < log->process_count; i++) {
        const zc_trace_process *p = &log->processes[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(list, o)) {
            cJSON_Delete(o);
            break;
        }
        cJSON_AddNumberToObject(o, "pid", (double)p->pid);
        cJSON_AddBoolToObject(o, "complete", p->complete);
        cJSON_AddNumberToObject(o, "copies", (double)p->copies);
        cJSON_AddNumberToObject(o, "kernels", (double)p->kernels);
        cJSON_AddNumberToObject(o, "api_calls", (double)p->api_calls);
        cJSON_AddNumberToObject(o, "launches_inspected", (double)p->launches_inspected);
        cJSON_AddNumberToObject(o, "launches_failed", (double)p->launches_failed);
    }
    cJSON *args = cJSON_AddObjectToObject(doc, "kernel_arguments");
    if (args) {
        cJSON_AddBoolToObject(args, "seen", r->launch_args_seen);
        cJSON_AddNumberToObject(args, "inspected", (double)r->launches_inspected);
        cJSON_AddNumberToObject(args, "failed", (double)r->launches_failed);
    }
    if (log->pcie_counters[0] != '\0')
        cJSON_AddStringToObject(doc, "pcie_counters", log->pcie_counters);
    else
        cJSON_AddNullToObject(doc, "pcie_counters");
    cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
    for (size_t i = 0; notes && i < log->note_count; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(log->notes[i]));
    cJSON *paths = cJSON_AddArrayToObject(doc, "paths");
    for (size_t i = 0; paths && i < r->path_count; i++)
        cJSON_AddItemToArray(paths, zc__path_json(ceiling_gbps, &r->paths[i], 0));
    (void)zc__trace_copy_classes_json(doc, log); /* out of memory: the field is left out */
    cJSON *memsets = cJSON_AddArrayToObject(doc, "memsets");
    for (size_t i = 0; memsets && i < r->memset_count; i++)
        cJSON_AddItemToArray(memsets, zc__path_json(ceiling_gbps, &r->memsets[i], 1));
    cJSON *kernels = cJSON_AddObjectToObject(doc, "kernels");
    if (kernels) {
        cJSON_AddNumberToObject(kernels, "count", (double)r->kernel_count);
        cJSON_AddNumberToObject(kernels, "time_s", (double)r->kernel_ns * 1e-9);
    }
    cJSON_AddNumberToObject(doc, "gpu_span_s", (double)r->span_ns * 1e-9);
    cJSON *host = cJSON_AddObjectToObject(doc, "host_memory");
    if (host) {
        cJSON_AddNumberToObject(host, "pin_calls", (double)r->pin_calls);
        cJSON_AddNumberToObject(host, "pinned_bytes", (double)r->pin_bytes);
        cJSON_AddNumberToObject(host, "pin_time_s", (double)r->pin_ns * 1e-9);
        cJSON_AddNumberToObject(host, "host_alloc_calls", (double)r->alloc_calls);
        cJSON_AddNumberToObject(host, "host_alloc_time_s", (double)r->alloc_ns * 1e-9);
        cJSON_AddNumberToObject(host, "peak_pinned_bytes", (double)r->peak_pinned_bytes);
        cJSON_AddNumberToObject(host, "ram_bytes", (double)r->ram_bytes);
        cJSON_AddNumberToObject(host, "mapped_bytes", (double)r->mapped_bytes);
        cJSON_AddNumberToObject(host, "device_pointer_calls", (double)r->devptr_calls);
        cJSON_AddNumberToObject(host, "managed_calls", (double)r->managed_calls);
        cJSON_AddNumberToObject(host, "managed_bytes", (double)r->managed_bytes);
        cJSON_AddNumberToObject(host, "prefetch_calls", (double)r->prefetch_calls);
        cJSON_AddNumberToObject(host, "advise_calls", (double)r->advise_calls);
        cJSON_AddNumberToObject(host, "zc_run_pin_calls", (double)r->zc_run_pin_calls);
        cJSON_AddNumberToObject(host, "host_copy_calls", (double)r->host_copy_calls);
        cJSON_AddNumberToObject(host, "host_copy_bytes", (double)r->host_copy_bytes);
        cJSON_AddNumberToObject(host, "host_copy_time_s", (double)r->host_copy_ns * 1e-9);
    }
    cJSON *um = cJSON_AddObjectToObject(doc, "unified_memory");
    if (um) {
        cJSON_AddBoolToObject(um, "counters", r->um_counters);
        cJSON_AddBoolToObject(um, "counters_refused", log->um_unavailable);
        cJSON_AddNumberToObject(um, "fault_records", (double)r->um_fault_records);
        cJSON_AddNumberToObject(um, "migrated_bytes", (double)r->um_bytes);
    }
    cJSON *findings = cJSON_AddArrayToObject(doc, "findings");
    for (size_t i = 0; findings && i < r->finding_count; i++)
        cJSON_AddItemToArray(findings, zc__finding_json(&r->findings[i]));
}

static cJSON *zc__program_doc(const char *schema, char *const *argv, int exit_code, int signal)
{
    cJSON *doc = cJSON_CreateObject();
    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", schema);
    cJSON_AddStringToObject(doc, "zerocopy_version", zc_version_string());
    cJSON *args = cJSON_AddArrayToObject(doc, "program");
    for (size_t i = 0; args && argv && argv[i]; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(argv[i]));
    cJSON_AddNumberToObject(doc, "exit_code", exit_code);
    if (signal)
        cJSON_AddNumberToObject(doc, "signal", signal);
    else
        cJSON_AddNullToObject(doc, "signal");
    return doc;
}

ZC_EXTERN zc_status zc_program_run_to_json(const char *schema, char *const *argv, int exit_code,
                                           int signal, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(schema);
    ZC_REQUIRE_ARG(doc_p);
    return zc__json_give(zc__program_doc(schema, argv, exit_code, signal), "zc_program_run_to_json",
                         doc_p);
}

ZC_EXTERN zc_status zc_trace_to_json(const zc_trace_document *trace, cJSON **doc_p)
{
    ZC_REQUIRE_ARG(trace);
    ZC_REQUIRE_ARG(doc_p);
    cJSON *doc = zc__program_doc(ZC_TRACE_SCHEMA, trace->argv, trace->exit_code, trace->signal);
    if (doc == NULL)
        return zc__json_give(NULL, "zc_trace_to_json", doc_p);
    int recorded = trace->log != NULL && trace->report != NULL && trace->log->process_count > 0;
    cJSON_AddBoolToObject(doc, "traced", recorded);
    if (!recorded)
        cJSON_AddStringToObject(doc, "why_not_traced", trace->why_not ? trace->why_not : "");
    cJSON *ceiling = cJSON_AddObjectToObject(doc, "ceiling");
    if (ceiling) {
        if (trace->ceiling_gbps > 0)
            cJSON_AddNumberToObject(ceiling, "gbps", trace->ceiling_gbps);
        else
            cJSON_AddNullToObject(ceiling, "gbps");
        cJSON_AddStringToObject(ceiling, "source",
                                trace->ceiling_source ? trace->ceiling_source : "");
    }
    if (recorded)
        zc__report_json(doc, trace->ceiling_gbps, trace->log, trace->report);
    else
        cJSON_AddArrayToObject(doc, "findings");
    return zc__json_give(doc, "zc_trace_to_json", doc_p);
}
