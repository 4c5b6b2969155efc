/* SPDX-License-Identifier: Apache-2.0 */
/* NVML loaded with dlopen: the GPU-to-GPU path (NVLink or PCIe, and how far apart). */
#include "device/nvml_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* Types and values as nvml.h defines them; only the parts used here. */
typedef int zc__nvml_return;
typedef struct zc__nvml_device_st *zc__nvml_device;
#define ZC__NVML_SUCCESS               0
#define ZC__NVML_P2P_CAPS_INDEX_NVLINK 2
#define ZC__NVML_P2P_STATUS_OK         0

static struct {
    pthread_once_t once;
    int ready;
    char why[160];
    zc__nvml_return (*init)(void);
    zc__nvml_return (*handle_by_bus_id)(const char *, zc__nvml_device *);
    zc__nvml_return (*p2p_status)(zc__nvml_device, zc__nvml_device, int, int *);
    zc__nvml_return (*common_ancestor)(zc__nvml_device, zc__nvml_device, int *);
} zc__nvml = {.once = PTHREAD_ONCE_INIT};

static void zc__nvml_load(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(zc__nvml.why, sizeof zc__nvml.why, "NVML not available (%s)", dlerror());
        return;
    }
    *(void **)&zc__nvml.init = dlsym(lib, "nvmlInit_v2");
    *(void **)&zc__nvml.handle_by_bus_id = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&zc__nvml.p2p_status = dlsym(lib, "nvmlDeviceGetP2PStatus");
    *(void **)&zc__nvml.common_ancestor = dlsym(lib, "nvmlDeviceGetTopologyCommonAncestor");
    if (!zc__nvml.init || !zc__nvml.handle_by_bus_id || !zc__nvml.p2p_status ||
        !zc__nvml.common_ancestor) {
        snprintf(zc__nvml.why, sizeof zc__nvml.why, "NVML lacks the topology calls");
        dlclose(lib);
        return;
    }
    zc__nvml_return r = zc__nvml.init();
    if (r != ZC__NVML_SUCCESS) {
        snprintf(zc__nvml.why, sizeof zc__nvml.why, "nvmlInit_v2 failed with NVML error %d", r);
        dlclose(lib);
        return;
    }
    /* The library stays loaded and initialised for the life of the process, as NVML expects. */
    zc__nvml.ready = 1;
}

int zc__nvml_pair_query(const char *bus_a, const char *bus_b, zc__nvml_pair *pair_p, char *why,
                        size_t why_size)
{
    pthread_once(&zc__nvml.once, zc__nvml_load);
    if (!zc__nvml.ready) {
        snprintf(why, why_size, "%s", zc__nvml.why);
        return -1;
    }
    zc__nvml_device a, b;
    zc__nvml_return r = zc__nvml.handle_by_bus_id(bus_a, &a);
    if (r == ZC__NVML_SUCCESS)
        r = zc__nvml.handle_by_bus_id(bus_b, &b);
    if (r != ZC__NVML_SUCCESS) {
        snprintf(why, why_size, "nvmlDeviceGetHandleByPciBusId_v2 failed with NVML error %d", r);
        return -1;
    }
    int status = -1, level = 0;
    r = zc__nvml.p2p_status(a, b, ZC__NVML_P2P_CAPS_INDEX_NVLINK, &status);
    if (r != ZC__NVML_SUCCESS) {
        snprintf(why, why_size, "nvmlDeviceGetP2PStatus failed with NVML error %d", r);
        return -1;
    }
    r = zc__nvml.common_ancestor(a, b, &level);
    if (r != ZC__NVML_SUCCESS) {
        snprintf(why, why_size, "nvmlDeviceGetTopologyCommonAncestor failed with NVML error %d", r);
        return -1;
    }
    pair_p->nvlink = status == ZC__NVML_P2P_STATUS_OK;
    pair_p->common_level = level;
    return 0;
}
