/* SPDX-License-Identifier: Apache-2.0 */
/* The bandwidth zc trace holds copies against when no measured figure is given: the PCIe
 * link's theoretical one. */
#include <stdio.h>

#include "zerocopy/device.h"
#include "zerocopy/trace.h"

double zc_trace_ceiling_from_link(int device, char *source, size_t source_size)
{
    if (source == NULL || source_size == 0)
        return 0.0;
    zc_device_info info;
    zc_status status = zc_device_info_get(device, &info);
    if (status != ZC_OK) {
        snprintf(source, source_size, "no GPU %d to read the PCIe link of: %s", device,
                 zc_last_error());
        return 0.0;
    }
    if (!info.link.known) {
        snprintf(source, source_size, "PCIe link of GPU %d unknown: %s", device,
                 info.link.why_unknown);
        return 0.0;
    }
    snprintf(source, source_size,
             "PCIe Gen%d x%d theoretical of GPU %d (pinned copies reach about 88%% of it; pass "
             "--bench FILE from zc bench --json for a measured figure)",
             info.link.gen_current, info.link.width_current, device);
    return info.link.gbps_current;
}
