# SPDX-License-Identifier: Apache-2.0
"""A machine profile given by hand, for the tests that advise without a GPU."""

import zerocopy


def hand_profile():
    p = zerocopy.Profile("a hand-made GPU", "tests/python")
    for size, gbps in ((4096, 2.0), (1 << 20, 30.0), (64 << 20, 50.0)):
        for kind, scale in (("pinned", 1.0), ("pageable", 0.25)):
            p.add_copy(kind, "h2d", size, gbps * scale)
            p.add_copy(kind, "d2h", size, gbps * scale)
    figures = {"launch_sync_us": 8.0, "enqueue_us": 2.0, "device_gbps": 3900.0,
               "host_write_gbps": 10.0, "mapped_read_gbps.coalesced": 50.0,
               "mapped_write_gbps.coalesced": 50.0}
    for key, value in figures.items():
        p[key] = value
    return p
