/* SPDX-License-Identifier: Apache-2.0 */
/* The PCIe link and NUMA node of a PCI device, read from sysfs. */
#define _POSIX_C_SOURCE 200809L
#include "zerocopy/device.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/c_locale.h"

/* Per-lane rate of each generation in GT/s, and the fraction left after line encoding:
 * 8b/10b for Gen1-2, 128b/130b for Gen3-5, FLIT mode (242 of 256 bytes carry data) for Gen6. */
static const struct {
    double gts;
    double efficiency;
} zc__pcie_generations[] = {
    {0.0, 0.0},
    {2.5, 8.0 / 10.0},
    {5.0, 8.0 / 10.0},
    {8.0, 128.0 / 130.0},
    {16.0, 128.0 / 130.0},
    {32.0, 128.0 / 130.0},
    {64.0, 242.0 / 256.0},
};

#define ZC__PCIE_MAX_GEN 6

ZC_EXTERN int zc_pcie_gen_from_speed(const char *speed, double *gts_p)
{
    if (speed == NULL)
        return 0;
    char *end = NULL;
    double gts = zc__strtod_c(speed, &end);
    if (end == speed)
        return 0;
    for (int gen = 1; gen <= ZC__PCIE_MAX_GEN; gen++) {
        double diff = gts - zc__pcie_generations[gen].gts;
        if (diff > -0.05 && diff < 0.05) {
            if (gts_p != NULL)
                *gts_p = gts;
            return gen;
        }
    }
    return 0;
}

ZC_EXTERN double zc_pcie_gbps(int gen, int width)
{
    if (gen < 1 || gen > ZC__PCIE_MAX_GEN || width <= 0)
        return 0.0;
    /* GT/s per lane x lanes x encoding efficiency gives Gbit/s; / 8 gives GB/s. */
    return zc__pcie_generations[gen].gts * width * zc__pcie_generations[gen].efficiency / 8.0;
}

/* sysfs paths want the bus id in lower case with a 4-digit domain: "0000:00:06.0". */
static void zc__normalise_bus_id(const char *bus_id, char *out, size_t out_size)
{
    size_t n = 0;
    for (; bus_id[n] != '\0' && n + 1 < out_size; n++)
        out[n] = (char)tolower((unsigned char)bus_id[n]);
    out[n] = '\0';
    /* cudaDeviceGetPCIBusId gives an 8-digit domain ("00000000:00:06.0"); sysfs uses 4. */
    char *colon = strchr(out, ':');
    if (colon != NULL && colon - out == 8 && strncmp(out, "0000", 4) == 0)
        memmove(out, out + 4, strlen(out + 4) + 1);
}

/* Read one line of a sysfs attribute into buf without its newline; false if unreadable. */
static bool zc__read_attribute(const char *root, const char *bus_id, const char *name, char *buf,
                               size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s/%s", root, bus_id, name);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return false;
    bool ok = fgets(buf, (int)size, file) != NULL;
    fclose(file);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static bool zc__read_int_attribute(const char *root, const char *bus_id, const char *name,
                                   int *value_p)
{
    char buf[64];
    if (!zc__read_attribute(root, bus_id, name, buf, sizeof buf))
        return false;
    char *end = NULL;
    errno = 0;
    long value = strtol(buf, &end, 0);
    if (end == buf || errno != 0)
        return false;
    *value_p = (int)value;
    return true;
}

ZC_EXTERN zc_status zc_pcie_link_read(const char *sysfs_root, const char *pci_bus_id,
                                      zc_pcie_link *link_p)
{
    ZC_REQUIRE_ARG(sysfs_root);
    ZC_REQUIRE_ARG(pci_bus_id);
    ZC_REQUIRE_ARG(link_p);
    zc_pcie_link link;
    memset(&link, 0, sizeof link);
    char bus_id[64];
    zc__normalise_bus_id(pci_bus_id, bus_id, sizeof bus_id);

    char speed_now[64], speed_max[64];
    if (!zc__read_attribute(sysfs_root, bus_id, "current_link_speed", speed_now,
                            sizeof speed_now) ||
        !zc__read_attribute(sysfs_root, bus_id, "max_link_speed", speed_max, sizeof speed_max) ||
        !zc__read_int_attribute(sysfs_root, bus_id, "current_link_width", &link.width_current) ||
        !zc__read_int_attribute(sysfs_root, bus_id, "max_link_width", &link.width_max)) {
        snprintf(link.why_unknown, sizeof link.why_unknown,
                 "%s/bus/pci/devices/%s has no readable link attributes", sysfs_root, bus_id);
        *link_p = link;
        return ZC_OK;
    }
    link.gen_current = zc_pcie_gen_from_speed(speed_now, &link.gts_current);
    link.gen_max = zc_pcie_gen_from_speed(speed_max, &link.gts_max);
    if (link.gen_current == 0 || link.width_current <= 0) {
        /* Virtual functions and some hypervisors report "Unknown" or a width of 0. */
        snprintf(link.why_unknown, sizeof link.why_unknown,
                 "sysfs reports link speed '%s' width %d, which name no PCIe generation", speed_now,
                 link.width_current);
        link.gen_current = 0;
        link.gen_max = 0;
        *link_p = link;
        return ZC_OK;
    }
    link.known = 1;
    link.gbps_current = zc_pcie_gbps(link.gen_current, link.width_current);
    link.gbps_max = zc_pcie_gbps(link.gen_max, link.width_max);
    snprintf(link.source, sizeof link.source, "sysfs");
    *link_p = link;
    return ZC_OK;
}

ZC_EXTERN int zc_pcie_numa_node(const char *sysfs_root, const char *pci_bus_id)
{
    if (sysfs_root == NULL || pci_bus_id == NULL)
        return -1;
    char bus_id[64];
    zc__normalise_bus_id(pci_bus_id, bus_id, sizeof bus_id);
    int node = -1;
    if (!zc__read_int_attribute(sysfs_root, bus_id, "numa_node", &node))
        return -1;
    return node < 0 ? -1 : node;
}
