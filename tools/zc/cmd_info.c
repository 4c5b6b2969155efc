/* SPDX-License-Identifier: Apache-2.0 */
/* zc info: what this machine's GPUs offer for each technique. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_json.h"
#include "zerocopy/json.h"

static const char zc__info_usage[] = "zc info [-d N | --all] [-j FILE] [--force]";

static void zc__info_help(void)
{
    printf("usage: %s\n\n"
           "Show each GPU's identity, PCIe link and the capabilities that decide which\n"
           "data-movement technique works, then one line per technique saying what they\n"
           "mean on that GPU.\n\n"
           "Options:\n"
           "  -d, --device N     only GPU number N\n"
           "  --all              every GPU (the default)\n"
           "  -j, --json FILE    write the result as JSON, schema \"%s\" (docs/json.md), to\n"
           "                     FILE (the text still goes to stdout) or - (stdout, no text)\n"
           "  --force            replace FILE if it exists\n"
           "  -h, --help         this help\n",
           zc__info_usage, ZC_INFO_SCHEMA);
}

static const char *zc__verdict_tag(zc_verdict verdict)
{
    switch (verdict) {
    case ZC_VERDICT_YES:
        return "yes    ";
    case ZC_VERDICT_LIMITED:
        return "limited";
    default:
        return "no     ";
    }
}

static void zc__print_device(const zc_device_info *d)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    printf("GPU %d: %s\n", d->ordinal, d->name);
    printf("  compute capability   %d.%d, %d SMs\n", d->cc_major, d->cc_minor, d->sm_count);
    printf("  memory               %.1f GiB total, %.1f GiB free\n", (double)d->total_memory / gib,
           (double)d->free_memory / gib);
    printf("  driver / runtime     CUDA %d.%d / %d.%d\n", d->driver_version / 1000,
           (d->driver_version % 1000) / 10, d->runtime_version / 1000,
           (d->runtime_version % 1000) / 10);
    printf("  PCI bus id           %s\n", d->pci_bus_id);
    if (d->numa_node >= 0)
        printf("  NUMA node            %d\n", d->numa_node);
    else
        printf("  NUMA node            none reported (single node, or not exposed)\n");
    if (d->link.known)
        printf("  PCIe link            Gen%d x%d now, Gen%d x%d max: %.1f GB/s per direction "
               "theoretical now (%.1f at max)\n",
               d->link.gen_current, d->link.width_current, d->link.gen_max, d->link.width_max,
               d->link.gbps_current, d->link.gbps_max);
    else
        printf("  PCIe link            unknown: %s\n", d->link.why_unknown);
    printf("  capabilities\n");
    size_t field_count = 0;
    const zc_capability_field *fields = zc_capability_fields(&field_count);
    for (size_t i = 0; i < field_count; i++) {
        int value = zc_capability_value(d, &fields[i]);
        if (value < 0)
            printf("    %-40s unknown (driver does not report it)\n", fields[i].name);
        else
            printf("    %-40s %d\n", fields[i].name, value);
    }
    zc_technique_note notes[ZC_TECHNIQUE_NOTE_COUNT];
    if (zc_device_technique_notes(d, notes) == ZC_OK) {
        printf("  what this means here\n");
        for (int i = 0; i < ZC_TECHNIQUE_NOTE_COUNT; i++)
            printf("    [%s] %s: %s\n", zc__verdict_tag(notes[i].verdict), notes[i].title,
                   notes[i].text);
    }
}

static void zc__print_peers(const zc_peer_link *peers, int peer_count)
{
    printf("\nGPU to GPU\n");
    for (int i = 0; i < peer_count; i++) {
        const zc_peer_link *p = &peers[i];
        printf("  %d -> %d  peer access %s%s, path: %s", p->from, p->to,
               p->can_access_peer ? "possible" : "not possible",
               p->can_access_peer ? (p->access_enabled ? " and enabled" : ", not enabled") : "",
               p->path);
        if (p->can_access_peer)
            printf(", performance rank %d, native atomics %s", p->performance_rank,
                   p->native_atomics ? "yes" : "no");
        printf("\n");
    }
}

/* Every ordered pair of the shown GPUs; *peers_p is NULL when fewer than two are shown. */
static zc_status zc__collect_peers(int first, int shown, zc_peer_link **peers_p, int *count_p)
{
    *peers_p = NULL;
    *count_p = 0;
    if (shown < 2)
        return ZC_OK;
    zc_peer_link *peers = calloc((size_t)shown * (size_t)(shown - 1), sizeof *peers);
    if (peers == NULL)
        return ZC_ERR_NO_MEMORY;
    int n = 0;
    for (int a = first; a < first + shown; a++) {
        for (int b = first; b < first + shown; b++) {
            if (a == b)
                continue;
            zc_status status = zc_device_peer_link_get(a, b, &peers[n]);
            if (status != ZC_OK) {
                free(peers);
                return status;
            }
            n++;
        }
    }
    *peers_p = peers;
    *count_p = n;
    return ZC_OK;
}

/* Describe the GPUs: as text, or as JSON into out (committed here). */
static int zc__info_run(int only_device, zc_cli_output *out)
{
    int count = 0;
    zc_status status = zc_device_count(&count);
    if (status != ZC_OK)
        return zc_cli_fail("info", "no GPU to describe", status);
    if (only_device >= count) {
        fprintf(stderr, "zc info: --device %d: this machine has %d GPU%s (0..%d)\n", only_device,
                count, count == 1 ? "" : "s", count - 1);
        return ZC_EXIT_USAGE;
    }
    int first = only_device >= 0 ? only_device : 0;
    int shown = only_device >= 0 ? 1 : count;
    zc_device_info *infos = calloc((size_t)shown, sizeof *infos);
    if (infos == NULL)
        return zc_cli_fail("info", "allocating device records", ZC_ERR_NO_MEMORY);
    for (int i = 0; i < shown; i++) {
        status = zc_device_info_get(first + i, &infos[i]);
        if (status != ZC_OK) {
            free(infos);
            return zc_cli_fail("info", "reading device properties", status);
        }
    }
    zc_peer_link *peers = NULL;
    int peer_count = 0;
    status = zc__collect_peers(first, shown, &peers, &peer_count);
    if (status != ZC_OK) {
        free(infos);
        return zc_cli_fail("info", "reading GPU-to-GPU topology", status);
    }
    int exit_code = ZC_EXIT_OK;
    const int json_on_stdout = out != NULL && strcmp(out->path, "-") == 0;
    if (out != NULL) {
        cJSON *doc = NULL;
        zc_status built = zc_info_to_json(infos, shown, peers, peer_count, &doc);
        exit_code = zc_cli_json_commit_built("info", built, doc, out);
    }
    if (!json_on_stdout) {
        printf("zerocopy %s: %d CUDA device%s\n\n", zc_version_string(), count,
               count == 1 ? "" : "s");
        for (int i = 0; i < shown; i++) {
            zc__print_device(&infos[i]);
            if (i + 1 < shown)
                printf("\n");
        }
        if (peer_count > 0)
            zc__print_peers(peers, peer_count);
    }
    free(peers);
    free(infos);
    return exit_code;
}

int zc_cli_cmd_info(int argc, char **argv)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'}, {"all", no_argument, NULL, 'a'},
        {"json", required_argument, NULL, 'j'},   {"force", no_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    int only_device = -1, all = 0, force = 0, opt, code;
    const char *json = NULL;
    optind = 0; /* GNU getopt: full re-initialisation for this command's argv */
    opterr = 0;
    while ((opt = zc_cli_next_option("info", zc__info_usage, argc, argv, ":hd:j:", options)) !=
           -1) {
        switch (opt) {
        case 'd':
            if ((code = zc_cli_int_option("info", zc__info_usage, "--device", "a GPU number",
                                          optarg, 0, ZC_CLI_DEVICE_MAX, &only_device)))
                return code;
            break;
        case 'a':
            all = 1;
            break;
        case 'j':
            json = optarg;
            break;
        case 'F':
            force = 1;
            break;
        case 'h':
            zc__info_help();
            return ZC_EXIT_OK;
        default:
            return zc_cli_option_error("info", zc__info_usage, opt, argc, argv);
        }
    }
    if (optind < argc)
        return zc_cli_usage_error("info", zc__info_usage, "unexpected argument '%s'", argv[optind]);
    if (all && only_device >= 0)
        return zc_cli_usage_error("info", zc__info_usage, "--device and --all exclude each other");

    /* The output is opened first, so that a bad path is said before any GPU is touched. */
    zc_cli_output out;
    if (json != NULL) {
        code = zc_cli_output_open(&out, "info", json, force, NULL, 0);
        if (code != ZC_EXIT_OK)
            return code;
    }
    int exit_code = zc__info_run(only_device, json != NULL ? &out : NULL);
    if (json != NULL && out.f != NULL)
        zc_cli_output_abort(&out); /* not committed: the command failed */
    return exit_code;
}
