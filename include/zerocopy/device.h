/* SPDX-License-Identifier: Apache-2.0 */
/* What each GPU of this machine offers: identity, PCIe link and the capabilities behind each
 * data-movement technique. */
#ifndef ZEROCOPY_DEVICE_H
#define ZEROCOPY_DEVICE_H

#include <stddef.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* The PCIe link of a GPU as the operating system reports it. */
typedef struct zc_pcie_link {
    int known;             /* 1 when the figures below were read; 0 otherwise (see why_unknown) */
    int gen_current;       /* PCIe generation now, 1..6 (0 when unknown) */
    int width_current;     /* lanes now */
    int gen_max;           /* the most the device and slot allow */
    int width_max;         /* lanes */
    double gts_current;    /* transfer rate per lane, GT/s */
    double gts_max;        /* GT/s */
    double gbps_current;   /* theoretical data rate per direction, GB/s (1e9 bytes), after line
                              encoding */
    double gbps_max;       /* GB/s, same, at the maximum generation and width */
    char source[64];       /* where the figures came from ("sysfs") */
    char why_unknown[160]; /* when known is 0: why the link could not be read */
} zc_pcie_link;

/* One GPU: identity and every capability that decides which technique works. */
typedef struct zc_device_info {
    int ordinal;
    char name[256];
    int cc_major;
    int cc_minor;
    int sm_count;
    size_t total_memory; /* bytes */
    size_t free_memory;  /* bytes, when read */
    int driver_version;  /* as cudaDriverGetVersion: 1000 * major + 10 * minor */
    int runtime_version; /* as cudaRuntimeGetVersion */
    char pci_bus_id[32]; /* "0000:00:06.0" */
    int numa_node;       /* -1 when the OS reports none */
    zc_pcie_link link;

    /* Capabilities, 0 or 1 (async_engine_count is a count), named as the CUDA attributes. */
    int unified_addressing;
    int can_map_host_memory;
    int integrated;
    int pageable_memory_access;
    int pageable_memory_access_uses_host_page_tables;
    int concurrent_managed_access;
    int managed_memory;
    int host_native_atomic_supported;
    int only_partial_host_native_atomic_supported; /* CUDA 13 attribute; -1 when not readable */
    int host_register_supported;
    int host_register_read_only_supported;
    int can_use_host_pointer_for_registered_mem;
    int async_engine_count;
    int direct_managed_mem_access_from_host;
} zc_device_info;

/* How a technique fares on one GPU. */
typedef enum zc_verdict {
    ZC_VERDICT_NO = 0,
    ZC_VERDICT_YES = 1,
    ZC_VERDICT_LIMITED = 2 /* works, with a caveat the note names */
} zc_verdict;

/* One line per technique: what the capabilities mean on this GPU. */
typedef struct zc_technique_note {
    const char *key;   /* stable key: "pinned", "mapped", "uva", "registered", ... */
    const char *title; /* human name: "Mapped (zero-copy) host memory" */
    zc_verdict verdict;
    char text[256]; /* one sentence */
} zc_technique_note;

#define ZC_TECHNIQUE_NOTE_COUNT 9

/* How one GPU reaches another: what the runtime allows and what the hardware path is. */
typedef struct zc_peer_link {
    int from;
    int to;
    int can_access_peer;  /* cudaDeviceCanAccessPeer(from, to) */
    int access_enabled;   /* 1 when this process has enabled from -> to peer access */
    int performance_rank; /* cudaDevP2PAttrPerformanceRank: lower is faster; -1 when no access */
    int native_atomics;   /* cudaDevP2PAttrNativeAtomicSupported */
    int nvlink;           /* 1 NVLink, 0 not NVLink, -1 unknown (see path) */
    char path[160];       /* "NVLink", "PCIe switch", "PCIe host bridge", "across CPU sockets",
                             or why the path is unknown */
} zc_peer_link;

ZC_BEGIN_DECLS

/* Number of CUDA devices. With no GPU or no driver: ZC_ERR_NO_DEVICE and a detail naming the
 * CUDA error. */
ZC_EXTERN zc_status zc_device_count(int *count_p);

/* Fill *info_p for GPU number device. */
ZC_EXTERN zc_status zc_device_info_get(int device, zc_device_info *info_p);

/*
 * Read a PCIe link from a sysfs tree: sysfs_root is "/sys" normally (another root lets tests
 * use a fake tree), pci_bus_id as cudaDeviceGetPCIBusId gives it. When the files are missing,
 * returns ZC_OK with link_p->known = 0 and why_unknown filled: an unreadable link is a fact
 * to report, not a failure.
 */
ZC_EXTERN zc_status zc_pcie_link_read(const char *sysfs_root, const char *pci_bus_id,
                                      zc_pcie_link *link_p);

/* The NUMA node sysfs reports for a PCI device; -1 when none or unreadable. */
ZC_EXTERN int zc_pcie_numa_node(const char *sysfs_root, const char *pci_bus_id);

/* Generation (1..6) for a sysfs link speed string ("32.0 GT/s PCIe"); 0 when not recognised. */
ZC_EXTERN int zc_pcie_gen_from_speed(const char *speed, double *gts_p);

/* Theoretical data rate per direction in GB/s for a generation and lane count (0 if unknown). */
ZC_EXTERN double zc_pcie_gbps(int gen, int width);

/* Fill notes[ZC_TECHNIQUE_NOTE_COUNT] from info: one verdict and sentence per technique. */
ZC_EXTERN zc_status zc_device_technique_notes(const zc_device_info *info,
                                              zc_technique_note notes[ZC_TECHNIQUE_NOTE_COUNT]);

/*
 * Describe the path from GPU from to GPU to (from != to). The hardware path comes from NVML,
 * loaded at run time; without it the path says so and nvlink is -1. Checking access_enabled
 * does not change the process's peer-access state.
 */
ZC_EXTERN zc_status zc_device_peer_link_get(int from, int to, zc_peer_link *link_p);

ZC_END_DECLS

#endif
