/* SPDX-License-Identifier: Apache-2.0 */
/* The picture of the techniques: host memory kinds, the PCIe link, copy engines, SMs and device
 * memory, copy paths and direct-access paths drawn apart, labelled with measured figures. Every
 * string from an input is escaped: a device name is text in a label, never DOT. */
#include "report/report_page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void zc__report_link_text(const cJSON *machine, const char *where, zc_report_bad *bad, char *out,
                          size_t size)
{
    out[0] = '\0';
    const cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(machine, "devices"), 0);
    const cJSON *link = cJSON_GetObjectItemCaseSensitive(dev, "pcie_link");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(link, "known")))
        return;
    double gen = zc__report_num(link, "gen_current"), width = zc__report_num(link, "width_current");
    double gbps = zc__report_num(link, "gbps_per_direction_current");
    long long g = 0, w = 0;
    if (isnan(gen) || isnan(width) || isnan(gbps)) /* absent: the link is not described */
        return;
    /* PCIe has had generations 1 to 7 and links of 1 to 32 lanes; room is left for more. */
    if (!zc__report_integer(gen, 1, 64, where, "machine devices[0].pcie_link.gen_current", bad,
                            &g) ||
        !zc__report_integer(width, 1, 64, where, "machine devices[0].pcie_link.width_current", bad,
                            &w))
        return;
    char rate[32];
    zc__report_rate_text(gbps, rate, sizeof rate);
    snprintf(out, size, "PCIe Gen%lld x%lld, %s per direction in theory", g, w, rate);
}

/* The best rate of a measured curve, 0 when there is none. */
static double zc__peak(const zc_curve *c)
{
    double best = 0.0;
    for (size_t i = 0; i < c->count; i++)
        best = c->gbps[i] > best ? c->gbps[i] : best;
    return best;
}

/* "55.4 GB/s" or "not measured". */
static void zc__rate(double gbps, char *out, size_t size)
{
    if (!zc__report_rate_text(gbps, out, size))
        snprintf(out, size, "not measured");
}

/* One copy path's label: peak each way and the time of the smallest copy measured. */
static void zc__copy_label(const zc_profile *p, zc_buffer_kind k, char *out, size_t size)
{
    char h2d[32], d2h[32];
    zc__rate(zc__peak(&p->copy[k][ZC_DIR_H2D]), h2d, sizeof h2d);
    zc__rate(zc__peak(&p->copy[k][ZC_DIR_D2H]), d2h, sizeof d2h);
    const zc_curve *c = &p->copy[k][ZC_DIR_H2D];
    char bytes[32], duration[32];
    if (c->count > 0) {
        zc__report_bytes_text((double)c->bytes[0], bytes, sizeof bytes);
        zc__report_time_text((double)c->bytes[0] / (c->gbps[0] * 1e3), duration, sizeof duration);
        snprintf(out, size, "H2D %s\\nD2H %s\\n%s copy: %s", h2d, d2h, bytes, duration);
    } else {
        snprintf(out, size, "H2D %s\\nD2H %s", h2d, d2h);
    }
}

char *zc__report_picture_dot(const zc_profile *p, const char *link_text)
{
    zc__buf b = {0};
    /* The copy paths' labels by kind; the picture draws the four copy kinds' nodes itself. */
    char l[ZC_BUFFER_KIND_COUNT][160], r1[32], r2[32];
    for (int k = ZC_BUFFER_KIND_FIRST; k < ZC_BUFFER_KIND_COUNT; k++)
        zc__copy_label(p, (zc_buffer_kind)k, l[k], sizeof l[k]);
    zc__buf_printf(&b, "// The techniques of moving data between host and GPU, with this "
                       "machine's measured figures.\n"
                       "digraph zerocopy {\n"
                       "  graph [rankdir=LR, fontname=\"DejaVu Sans\", fontsize=16, nodesep=0.35, "
                       "ranksep=1.1, label=\"");
    zc__buf_dot(&b, p->device_name[0] ? p->device_name : "this machine");
    zc__buf_printf(&b, ": copy paths (solid blue) and direct-access paths (dashed orange)\\n");
    zc__buf_dot(&b, p->source);
    zc__buf_printf(&b, "\", labelloc=t];\n"
                       "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", "
                       "fontsize=14, fillcolor=\"#f4f4f4\"];\n"
                       "  edge [fontname=\"DejaVu Sans\", fontsize=12];\n");
    zc__buf_printf(
        &b, "  subgraph cluster_host {\n    label=\"host memory\"; style=rounded; "
            "color=\"#888888\";\n"
            "    pageable [label=\"pageable\\n(malloc)\"];\n"
            "    staging [label=\"driver's pinned\\nstaging buffer\", fillcolor=\"#ffffff\", "
            "style=\"rounded,dashed\"];\n"
            "    pinned [label=\"pinned\\n(cudaHostAlloc)\", fillcolor=\"#dbe9f6\"];\n"
            "    wc [label=\"write-combined\\n(cudaHostAllocWriteCombined)\", "
            "fillcolor=\"#dbe9f6\"];\n"
            "    registered [label=\"registered\\n(malloc + cudaHostRegister)\", "
            "fillcolor=\"#dbe9f6\"];\n"
            "    mapped [label=\"mapped\\n(cudaHostAllocMapped)\", fillcolor=\"#fde3c8\"];\n"
            "    managed [label=\"managed\\n(cudaMallocManaged)\", fillcolor=\"#e3f1dc\"];\n"
            "  }\n");
    /* The link's phrase on separate lines, so that the node stays narrow: each part between
     * ", " escaped on its own. */
    zc__buf_printf(&b, "  pcie [shape=box, style=filled, fillcolor=\"#cfcfcf\", fontcolor=black, "
                       "label=\"PCIe link");
    for (const char *c = link_text != NULL ? link_text : ""; *c;) {
        const char *next = strstr(c, ", ");
        size_t len = next != NULL ? (size_t)(next - c) : strlen(c);
        char part[192];
        snprintf(part, sizeof part, "%.*s", (int)(len < sizeof part - 1 ? len : sizeof part - 1),
                 c);
        zc__buf_printf(&b, "\\n");
        zc__buf_dot(&b, part);
        c += len + (next != NULL ? 2 : 0);
    }
    zc__buf_printf(&b, "\", height=3];\n");
    zc__buf_printf(&b,
                   "  subgraph cluster_gpu {\n    label=\"GPU\"; style=rounded; "
                   "color=\"#888888\";\n"
                   "    ce [label=\"copy engines\\n(cudaMemcpy, prefetch)\", "
                   "fillcolor=\"#dbe9f6\"];\n"
                   "    sm [label=\"SMs\\n(kernels)\", fillcolor=\"#fde3c8\"];\n"
                   "    dram [label=\"device memory\\n%s\"];\n  }\n",
                   p->device_gbps > 0.0 ? "" : "(not measured)");
    /* Copy paths. */
    const char *copy = "color=\"#1f77b4\", penwidth=2";
    zc__buf_printf(&b, "  pageable -> staging [%s, label=\"CPU copies first\"];\n", copy);
    zc__buf_printf(&b, "  staging -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_BUFFER_PAGEABLE]);
    zc__buf_printf(&b, "  pinned -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_BUFFER_PINNED]);
    zc__buf_printf(&b, "  wc -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_BUFFER_WRITE_COMBINED]);
    zc__buf_printf(&b, "  registered -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_BUFFER_REGISTERED]);
    zc__rate(p->managed_prefetch_gbps, r1, sizeof r1);
    zc__rate(p->managed_first_touch_gbps, r2, sizeof r2);
    if (p->managed_prefetch_gbps > 0.0)
        zc__buf_printf(&b,
                       "  managed -> pcie [%s, style=dotted, label=\"prefetch %s\\nfirst "
                       "touch %s\"];\n",
                       copy, r1, r2);
    else
        zc__buf_printf(&b,
                       "  managed -> pcie [%s, style=dotted, label=\"page migration\\n(not "
                       "measured)\"];\n",
                       copy);
    char launch[64] = "", took[32];
    if (zc__report_time_text(p->launch_sync_us, took, sizeof took))
        snprintf(launch, sizeof launch, "launch + sync %s", took);
    zc__buf_printf(&b, "  pcie -> ce [%s, label=\"%s\"];\n", copy, launch);
    zc__buf_printf(&b, "  ce -> dram [%s];\n", copy);
    /* Direct-access paths: the SMs reach host memory through the link, no copy. */
    const char *direct = "color=\"#ff7f0e\", penwidth=2, style=dashed, dir=both";
    zc__rate(p->mapped_read_gbps[ZC_ACCESS_COALESCED], r1, sizeof r1);
    zc__rate(p->mapped_write_gbps[ZC_ACCESS_COALESCED], r2, sizeof r2);
    zc__buf_printf(&b, "  mapped -> pcie [%s, label=\"kernel reads %s\\nwrites %s", direct, r1, r2);
    if (zc__report_time_text(p->pingpong_us, took, sizeof took))
        zc__buf_printf(&b, "\\nflag round trip %s", took);
    zc__buf_printf(&b, "\"];\n");
    char lat[64] = "";
    if (zc__report_time_text(p->mapped_latency_us, took, sizeof took))
        snprintf(lat, sizeof lat, "dependent read %s", took);
    zc__buf_printf(&b, "  pcie -> sm [%s, label=\"%s\"];\n", direct, lat);
    zc__buf_printf(&b, "  managed -> pcie [%s, style=dotted, label=\"on fault\"];\n", direct);
    zc__rate(p->device_gbps, r1, sizeof r1);
    zc__buf_printf(&b, "  sm -> dram [%s, style=solid, label=\"%s\"];\n", direct, r1);
    zc__buf_printf(&b, "}\n");
    if (b.failed) {
        zc__buf_free(&b);
        return NULL;
    }
    return b.data;
}
