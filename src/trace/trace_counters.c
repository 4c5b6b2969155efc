/* SPDX-License-Identifier: Apache-2.0 */
/* The kernels' PCIe read counters: this library does not read them (CUPTI's profiling API
 * needs a range profiler of its own per kernel; zc trace --pcie-counters measures them in a
 * second run under ncu), and on many machines the driver lets only administrators read them at
 * all. The note says which, so the analysis can say it. */
#include "trace_inject.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 when the NVIDIA driver restricts performance counters to administrators, 0 when it does
 * not, -1 when its parameters cannot be read. */
static int zc__restricted(void)
{
    FILE *params = fopen("/proc/driver/nvidia/params", "r");
    if (params == NULL)
        return -1;
    char line[256];
    int restricted = -1;
    while (fgets(line, sizeof line, params) != NULL) {
        unsigned value = 0;
        if (sscanf(line, "RmProfilingAdminOnly: %u", &value) == 1)
            restricted = value != 0;
    }
    fclose(params);
    return restricted;
}

void zc__trace_counters_note(void)
{
    int restricted = zc__restricted();
    if (restricted == 1 && geteuid() != 0)
        zc__trace_note("pcie_counters_unavailable",
                       "the driver lets only administrators read GPU performance counters "
                       "(RmProfilingAdminOnly: 1, NVreg_RestrictProfilingToAdminUsers) and this "
                       "program is not run as root: zc trace --pcie-counters would be refused");
    else
        zc__trace_note("pcie_counters_unavailable",
                       "not read in the traced run; zc trace --pcie-counters measures them in "
                       "a second run under ncu");
}
