# SPDX-License-Identifier: Apache-2.0
"""info(), bench(), advise() and measure() on a GPU, through the library's engines in process."""
import os

import pytest

import zerocopy

SANITIZER = bool(os.environ.get("ZC_UNDER_SANITIZER"))


def test_info_describes_every_gpu(gpu):
    info = zerocopy.info()
    assert info.device_count >= 1 and not info.error
    d = info.devices[0]
    assert d.name and d.cc_major >= 5 and d.sm_count > 0 and d.total_memory > 0
    assert d.capabilities["unified_addressing"] in (0, 1)
    assert len(d.notes) == 9 and all(n.verdict in ("yes", "no", "limited") for n in d.notes)
    assert len(info.peers) == info.device_count * (info.device_count - 1)
    assert zerocopy.info(device=0).devices[0].pci_bus_id == d.pci_bus_id


@pytest.mark.skipif(SANITIZER, reason="the bench engine has its own tests under the sanitizer")
def test_bench_one_case(gpu):
    run = zerocopy.bench("copy.h2d.pinned", mode="quick", sizes="1M", device=gpu)
    r = run.result("copy.h2d.pinned")
    assert r.outcome == "ok", r.reason
    p = r.points[0]
    assert p.bytes == 1 << 20 and p.unit == "GB/s" and p.verified
    assert p.stats.median > 0 and len(p.samples) == p.stats.count > 0
    assert run.method.mode == "quick"


@pytest.mark.skipif(SANITIZER, reason="a profile's bench cases take too long under the sanitizer")
def test_advise_measures_this_machine(gpu):
    a = zerocopy.advise(size="4K", transfers=1000, latency_budget_us=50, device=gpu)
    assert a.best.usable and a.best.per_transfer_us > 0 and a.explanation
    assert len(a.ranked) >= 5


@pytest.mark.skipif(SANITIZER, reason="the advise runner has its own tests under the sanitizer")
def test_measure_one_technique(gpu):
    m = zerocopy.measure("pinned", size="64K", transfers=100, device=gpu, max_seconds=0.05)
    assert m.verified and m.per_transfer_us > 0
