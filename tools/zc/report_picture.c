/* The picture of section 4.5: host memory kinds, the PCIe link, copy engines, SMs and device
 * memory, copy paths and direct-access paths drawn apart, labelled with measured figures. */
#include "report_page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void zc_report_link_text(const cJSON *machine, char *out, size_t size)
{
    out[0] = '\0';
    const cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(machine, "devices"), 0);
    const cJSON *link = cJSON_GetObjectItemCaseSensitive(dev, "pcie_link");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(link, "known")))
        return;
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(link, "gen_current");
    const cJSON *width = cJSON_GetObjectItemCaseSensitive(link, "width_current");
    const cJSON *gbps = cJSON_GetObjectItemCaseSensitive(link, "gbps_per_direction_current");
    if (cJSON_IsNumber(gen) && cJSON_IsNumber(width) && cJSON_IsNumber(gbps))
        snprintf(out, size, "PCIe Gen%d x%d, %.1f GB/s per direction in theory", gen->valueint,
                 width->valueint, gbps->valuedouble);
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
    if (gbps >= 1000.0)
        snprintf(out, size, "%.0f GB/s", gbps);
    else if (gbps > 0.0)
        snprintf(out, size, "%.3g GB/s", gbps);
    else
        snprintf(out, size, "not measured");
}

/* One copy path's label: peak each way and the time of the smallest copy measured. */
static void zc__copy_label(const zc_profile *p, zc_host_kind k, char *out, size_t size)
{
    char h2d[32], d2h[32];
    zc__rate(zc__peak(&p->copy[k][ZC_DIR_H2D]), h2d, sizeof h2d);
    zc__rate(zc__peak(&p->copy[k][ZC_DIR_D2H]), d2h, sizeof d2h);
    const zc_curve *c = &p->copy[k][ZC_DIR_H2D];
    if (c->count > 0)
        snprintf(out, size, "H2D %s\\nD2H %s\\n%zu B copy: %.3g us", h2d, d2h, c->bytes[0],
                 (double)c->bytes[0] / (c->gbps[0] * 1e3));
    else
        snprintf(out, size, "H2D %s\\nD2H %s", h2d, d2h);
}

char *zc_picture_dot(const zc_profile *p, const char *link_text)
{
    zc_buf b = {0};
    char l[4][160], r1[32], r2[32];
    for (int k = 0; k < ZC_HOST_KIND_COUNT; k++)
        zc__copy_label(p, (zc_host_kind)k, l[k], sizeof l[k]);
    zc_buf_printf(&b,
                  "// The technique system of section 4.5, with this machine's measured figures.\n"
                  "digraph zerocopy {\n"
                  "  graph [rankdir=LR, fontname=\"DejaVu Sans\", fontsize=16, nodesep=0.35, "
                  "ranksep=1.1, label=\"%s: copy paths (solid blue) and direct-access paths "
                  "(dashed orange)\\n%s\", labelloc=t];\n"
                  "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", "
                  "fontsize=14, fillcolor=\"#f4f4f4\"];\n"
                  "  edge [fontname=\"DejaVu Sans\", fontsize=12];\n",
                  p->device_name[0] ? p->device_name : "this machine",
                  p->source[0] ? p->source : "");
    zc_buf_printf(&b,
                  "  subgraph cluster_host {\n    label=\"host memory\"; style=rounded; "
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
    /* The link's phrase on separate lines, so that the node stays narrow. */
    char link[192] = "";
    size_t j = 0;
    for (const char *c = link_text != NULL ? link_text : ""; *c && j + 3 < sizeof link; c++) {
        if (c[0] == ',' && c[1] == ' ') {
            link[j++] = '\\';
            link[j++] = 'n';
            c++;
        } else if (*c != '"' && *c != '\\') {
            link[j++] = *c;
        }
    }
    link[j] = '\0';
    zc_buf_printf(&b,
                  "  pcie [shape=box, style=filled, fillcolor=\"#cfcfcf\", fontcolor=black, "
                  "label=\"PCIe link\\n%s\", height=3];\n",
                  link);
    zc_buf_printf(&b,
                  "  subgraph cluster_gpu {\n    label=\"GPU\"; style=rounded; "
                  "color=\"#888888\";\n"
                  "    ce [label=\"copy engines\\n(cudaMemcpy, prefetch)\", "
                  "fillcolor=\"#dbe9f6\"];\n"
                  "    sm [label=\"SMs\\n(kernels)\", fillcolor=\"#fde3c8\"];\n"
                  "    dram [label=\"device memory\\n%s\"];\n  }\n",
                  p->device_gbps > 0.0 ? "" : "(not measured)");
    /* Copy paths. */
    const char *copy = "color=\"#1f77b4\", penwidth=2";
    zc_buf_printf(&b, "  pageable -> staging [%s, label=\"CPU copies first\"];\n", copy);
    zc_buf_printf(&b, "  staging -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_HOST_PAGEABLE]);
    zc_buf_printf(&b, "  pinned -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_HOST_PINNED]);
    zc_buf_printf(&b, "  wc -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_HOST_WRITE_COMBINED]);
    zc_buf_printf(&b, "  registered -> pcie [%s, label=\"%s\"];\n", copy, l[ZC_HOST_REGISTERED]);
    if (p->managed_prefetch_gbps > 0.0)
        zc_buf_printf(&b,
                      "  managed -> pcie [%s, style=dotted, label=\"prefetch %.3g GB/s\\nfirst "
                      "touch %.3g GB/s\"];\n",
                      copy, p->managed_prefetch_gbps, p->managed_first_touch_gbps);
    else
        zc_buf_printf(&b,
                      "  managed -> pcie [%s, style=dotted, label=\"page migration\\n(not "
                      "measured)\"];\n",
                      copy);
    char launch[64] = "";
    if (p->launch_sync_us > 0.0)
        snprintf(launch, sizeof launch, "launch + sync %.3g us", p->launch_sync_us);
    zc_buf_printf(&b, "  pcie -> ce [%s, label=\"%s\"];\n", copy, launch);
    zc_buf_printf(&b, "  ce -> dram [%s];\n", copy);
    /* Direct-access paths: the SMs reach host memory through the link, no copy. */
    const char *direct = "color=\"#ff7f0e\", penwidth=2, style=dashed, dir=both";
    zc__rate(p->mapped_read_gbps[ZC_ACCESS_COALESCED], r1, sizeof r1);
    zc__rate(p->mapped_write_gbps[ZC_ACCESS_COALESCED], r2, sizeof r2);
    zc_buf_printf(&b, "  mapped -> pcie [%s, label=\"kernel reads %s\\nwrites %s", direct, r1, r2);
    if (p->pingpong_us > 0.0)
        zc_buf_printf(&b, "\\nflag round trip %.3g us", p->pingpong_us);
    zc_buf_printf(&b, "\"];\n");
    char lat[64] = "";
    if (p->mapped_latency_us > 0.0)
        snprintf(lat, sizeof lat, "dependent read %.3g us", p->mapped_latency_us);
    zc_buf_printf(&b, "  pcie -> sm [%s, label=\"%s\"];\n", direct, lat);
    zc_buf_printf(&b, "  managed -> pcie [%s, style=dotted, label=\"on fault\"];\n", direct);
    zc__rate(p->device_gbps, r1, sizeof r1);
    zc_buf_printf(&b, "  sm -> dram [%s, style=solid, label=\"%s\"];\n", direct, r1);
    zc_buf_printf(&b, "}\n");
    if (b.failed) {
        zc_buf_free(&b);
        return NULL;
    }
    return b.data;
}
