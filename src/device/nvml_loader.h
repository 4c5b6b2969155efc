/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the few NVML calls zerocopy uses, loaded at run time (build machines lack nvml.h). */
#ifndef ZC_DEVICE_NVML_LOADER_H
#define ZC_DEVICE_NVML_LOADER_H

#if defined(ZC_PART) && !defined(ZC_SEES_device)
#error "src/device/ included from below device: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <stddef.h>

/* How two GPUs are joined, as NVML sees it. */
typedef struct zc__nvml_pair {
    int nvlink;       /* 1: NVLink peer-to-peer is possible; 0: not over NVLink */
    int common_level; /* NVML topology level of the common ancestor (10 board .. 50 system) */
} zc__nvml_pair;

/*
 * Ask NVML how the GPUs at two PCI bus ids are joined. Returns 0 on success; otherwise -1 with
 * why (a sentence) filled: library missing, a call failing. NVML is loaded once per process.
 */
int zc__nvml_pair_query(const char *bus_a, const char *bus_b, zc__nvml_pair *pair_p, char *why,
                        size_t why_size);

#endif
