/* SPDX-License-Identifier: Apache-2.0 */
/* GPU-to-GPU topology: peer access as the runtime sees it, the link as NVML sees it. */
#include "zerocopy/device.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "device/cuda_check.h"
#include "device/nvml_loader.h"

/* NVML topology levels (nvmlGpuTopologyLevel_t) named for people. */
static const char *zc__level_name(int level)
{
    switch (level) {
    case 0:
        return "same board (internal)";
    case 10:
        return "PCIe switch";
    case 20:
        return "several PCIe switches";
    case 30:
        return "PCIe host bridge";
    case 40:
        return "same NUMA node, across host bridges";
    case 50:
        return "across CPU sockets";
    default:
        return "unrecognised PCIe path";
    }
}

/*
 * Whether this process has enabled from -> to peer access. The runtime has no query for it,
 * but enabling access that is already on fails with cudaErrorPeerAccessAlreadyEnabled; when the
 * probe turns it on instead, it is turned off again so the state is left as found.
 */
static zc_status zc__peer_access_enabled(int from, int to, int *enabled_p)
{
    int previous = 0;
    ZC_CUDA_RETURN(cudaGetDevice(&previous));
    ZC_CUDA_RETURN(cudaSetDevice(from));
    cudaError_t probe = cudaDeviceEnablePeerAccess(to, 0);
    zc_status status = ZC_OK;
    if (probe == cudaErrorPeerAccessAlreadyEnabled) {
        ZC_CUDA_IGNORE(probe); /* the answer, not a failure */
        *enabled_p = 1;
    } else if (probe == cudaSuccess) {
        *enabled_p = 0;
        status = ZC_CUDA(cudaDeviceDisablePeerAccess(to));
    } else {
        status = ZC_CUDA(probe);
    }
    zc_status restore = ZC_CUDA(cudaSetDevice(previous));
    return status != ZC_OK ? status : restore;
}

ZC_EXTERN zc_status zc_device_peer_link_get(int from, int to, zc_peer_link *link_p)
{
    ZC_REQUIRE_ARG(link_p);
    int count = 0;
    ZC_CHECK(zc_device_count(&count));
    if (from < 0 || from >= count || to < 0 || to >= count || from == to)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_device_peer_link_get: devices %d and %d are not two of the %d GPUs",
                       from, to, count);
    zc_peer_link link;
    memset(&link, 0, sizeof link);
    link.from = from;
    link.to = to;
    link.performance_rank = -1;
    link.nvlink = -1;
    ZC_CUDA_RETURN(cudaDeviceCanAccessPeer(&link.can_access_peer, from, to));
    if (link.can_access_peer) {
        ZC_CUDA_RETURN(cudaDeviceGetP2PAttribute(&link.performance_rank,
                                                 cudaDevP2PAttrPerformanceRank, from, to));
        ZC_CUDA_RETURN(cudaDeviceGetP2PAttribute(&link.native_atomics,
                                                 cudaDevP2PAttrNativeAtomicSupported, from, to));
        ZC_CHECK(zc__peer_access_enabled(from, to, &link.access_enabled));
    }

    char bus_from[32], bus_to[32];
    ZC_CUDA_RETURN(cudaDeviceGetPCIBusId(bus_from, sizeof bus_from, from));
    ZC_CUDA_RETURN(cudaDeviceGetPCIBusId(bus_to, sizeof bus_to, to));
    zc__nvml_pair pair;
    char why[sizeof link.path - sizeof "unknown: "];
    if (zc__nvml_pair_query(bus_from, bus_to, &pair, why, sizeof why) == 0) {
        link.nvlink = pair.nvlink;
        snprintf(link.path, sizeof link.path, "%s",
                 pair.nvlink ? "NVLink" : zc__level_name(pair.common_level));
    } else {
        snprintf(link.path, sizeof link.path, "unknown: %s", why);
    }
    *link_p = link;
    return ZC_OK;
}
